/*
 * Segments built while a recording is read (pk_oa_timeline_read_file; the
 * blocks of lib/oa/segments.c, a worker following the reader) against a
 * reference built here one report at a time from the public decoding calls,
 * and against reading first and building after (pk_oa_timeline_build).
 * Recordings of 65,537 reports and more, so that a second thread follows:
 * contexts changing at every report, exactly where blocks meet, inside
 * blocks, across several blocks, never; loss records and invalid contexts;
 * a bare kernel stream. Every segment's counters (pk_oa_timeline_deltas:
 * kept when built for long segments and a block's first and last, summed
 * when asked for short ones) are its pairs summed one by one
 * (pk_oa_accumulate, not the run loop the builders use).
 * Then the reads that must stop the follower: a DEVICE_INFO after the
 * first report (here one that changes the decoder: a follower that went on
 * would give other contexts), a short SAMPLE and a truncated file, which
 * must fail with the plain reader's error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/oa.h>
#include "oa/recording_int.h"
#include "../tap.h"
#include "oa_gen.h"

static char tmpdir[] = "/tmp/pk-oa-follow-XXXXXX";
static bool two_cpus;

/* Broadwell GT2: one slice, three subslices of eight EUs. */
static const struct pk_oa_topology bdw_topo = {
	.max_slices = 1, .max_subslices = 3, .max_eus_per_subslice = 8,
	.subslice_offset = 1, .subslice_stride = 1, .eu_offset = 2, .eu_stride = 1,
	.data_len = 5, .data = { 0x1, 0x7, 0xff, 0xff, 0xff },
};

static struct oa_gen bdw(size_t n, unsigned ctx_every)
{
	return (struct oa_gen){
		.pci_id = 0x1616, .format = PK_OA_FORMAT_A32u40_A4u32_B8_C8, .graphics_ver = 8,
		.ts_freq = 12500000, .set = "RenderBasic", .uuid = "b541bd57-0e0f-4154-b4c0-5858010a2bf7",
		.topo = &bdw_topo, .n_reports = n, .period = 1000, .ts0 = 0x310000000ull,
		.a40_start = (1ull << 40) - 50000000, .u32_start = 0xff000000u, .ctx_every = ctx_every,
		.corr_every = 10000, .seed = 7,
	};
}

static bool write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");
	bool good = f && fwrite(data, 1, len, f) == len;

	return (f && fclose(f) == 0) && good;
}

/* The segments of @rec one report at a time: the rules of pk_oa_timeline_build, serially. */
static size_t reference(const struct pk_oa_recording *rec, struct pk_oa_segment **out)
{
	const struct pk_oa_decoder *dec = pk_oa_recording_decoder(rec);
	size_t n = pk_oa_recording_n_reports(rec), ns = 0;
	struct pk_oa_segment *s = calloc(n ? n : 1, sizeof(*s));
	struct pk_oa_report h;

	for (size_t i = 0; i < n; i++) {
		pk_oa_report_header(dec, pk_oa_recording_report(rec, i), &h);
		if (i && h.ctx_id == s[ns - 1].ctx_id)
			continue;
		s[ns].ctx_id = h.ctx_id;
		s[ns].first = i;
		s[ns].gpu_ts_start = h.timestamp;
		ns++;
	}
	for (size_t k = 0; k < ns; k++) {
		bool last = k + 1 == ns;

		s[k].end = last ? n - 1 : s[k + 1].first;
		s[k].n_reports = s[k].end - s[k].first + (last ? 1 : 0);
		pk_oa_report_header(dec, pk_oa_recording_report(rec, s[k].end), &h);
		s[k].gpu_ts_end = h.timestamp;
		s[k].cpu_ns_start = pk_oa_recording_cpu_time(rec, s[k].gpu_ts_start);
		s[k].cpu_ns_end = pk_oa_recording_cpu_time(rec, s[k].gpu_ts_end);
	}
	if (ns && s[ns - 1].first == n - 1)
		ns--;         /* the last report alone: no pair, no segment */
	*out = s;
	return ns;
}

static bool same_segment(const struct pk_oa_segment *a, const struct pk_oa_segment *b)
{
	return a->ctx_id == b->ctx_id && a->first == b->first && a->end == b->end &&
	       a->n_reports == b->n_reports && a->gpu_ts_start == b->gpu_ts_start &&
	       a->gpu_ts_end == b->gpu_ts_end && a->cpu_ns_start == b->cpu_ns_start &&
	       a->cpu_ns_end == b->cpu_ns_end;
}

/* Segment @i's counters from @tl are its pairs summed one by one. */
static bool same_deltas(const struct pk_oa_recording *rec, const struct pk_oa_timeline *tl, size_t i)
{
	uint64_t got[PK_OA_MAX_VALUES], want[PK_OA_MAX_VALUES] = { 0 };
	const struct pk_oa_segment *g = &tl->segments[i];

	for (size_t k = g->first; k < g->end; k++)     /* pk_oa_accumulate: not the run loop */
		pk_oa_accumulate(pk_oa_recording_decoder(rec), pk_oa_recording_report(rec, k),
				 pk_oa_recording_report(rec, k + 1), want);
	return pk_oa_timeline_deltas(tl, rec, i, got) == 0 && memcmp(got, want, sizeof(got)) == 0;
}

/* Check @tl against the reference segments of @rec. */
static void check_timeline(const char *what, const char *how, const struct pk_oa_recording *rec,
			   const struct pk_oa_timeline *tl)
{
	struct pk_oa_segment *ref;
	size_t n = reference(rec, &ref), bad = 0, first_bad = 0;

	for (size_t i = 0; i < n && i < tl->n_segments; i++)
		if ((!same_segment(&tl->segments[i], &ref[i]) || !same_deltas(rec, tl, i)) && !bad++)
			first_bad = i;
	ok(tl->n_segments == n && bad == 0,
	   "%s, %s: %zu segments as the reference's %zu, %zu differ (first: %zu)", what, how,
	   tl->n_segments, n, bad, first_bad);
	free(ref);
}

/* Read @path both ways and check both timelines; @follows: a worker must follow the reader. */
static void check_file(const char *what, const char *path, const struct pk_oa_stream_device *sd,
		       bool follows)
{
	struct pk_oa_recording *rec = NULL;
	struct pk_oa_timeline tl;
	struct oa_follow fw = { 0 };
	struct pk_diag d;

	pk_diag_init(&d);
	if (ok(oa_recording_read_file_following(path, sd, &rec, &fw, &d) == 0,
	       "%s: read while following: %s", what, d.msg)) {
		if (two_cpus)
			ok((fw.job != NULL) == follows, "%s: a worker %s the reader", what,
			   follows ? "follows" : "was stopped or never started for");
		oa_segments_cancel(fw.job);     /* stopping a worker that may still be building */
		pk_oa_recording_free(rec);
	}
	pk_diag_init(&d);
	if (ok(pk_oa_timeline_read_file(path, sd, &rec, &tl, &d) == 0,
	       "%s: pk_oa_timeline_read_file: %s", what, d.msg)) {
		check_timeline(what, "built while read", rec, &tl);
		pk_oa_timeline_release(&tl);
		pk_oa_recording_free(rec);
	}
	pk_diag_init(&d);
	if (ok((sd ? pk_oa_stream_read_file(path, sd, &rec, &d)
		   : pk_oa_recording_read_file(path, &rec, &d)) == 0 &&
	       pk_oa_timeline_build(rec, &tl, &d) == 0, "%s: read, then built: %s", what, d.msg)) {
		check_timeline(what, "built after", rec, &tl);
		pk_oa_timeline_release(&tl);
		pk_oa_recording_free(rec);
	}
}

static void check_generated(const char *what, const struct oa_gen *g)
{
	char path[256];
	struct pk_buf b;

	pk_buf_init(&b);
	snprintf(path, sizeof(path), "%s/rec.i915perf", tmpdir);
	if (ok(oa_gen_write(g, &b) == 0 && write_file(path, b.data, b.len), "%s: written", what))
		check_file(what, path, NULL, true);
	pk_buf_release(&b);
}

/* The offset of the record after SAMPLE number @k (0-based) in @b. */
static size_t after_sample(const struct pk_buf *b, size_t k)
{
	struct pk_oa_record_iter it;
	struct pk_oa_record r;
	size_t seen = 0;

	pk_oa_record_iter_init(&it, b->data, b->len);
	while (pk_oa_record_next(&it, &r, NULL) > 0)
		if (r.type == PK_OA_RECORD_SAMPLE && seen++ == k)
			return it.pos;
	return b->len;
}

/* @b with @len bytes of @ins put at @at, @cut bytes removed there first, written to @path. */
static bool write_spliced(const char *path, const struct pk_buf *b, size_t at, size_t cut,
			  const void *ins, size_t len)
{
	uint8_t *p = malloc(b->len - cut + len);
	bool good;

	memcpy(p, b->data, at);
	memcpy(p + at, ins, len);
	memcpy(p + at + len, b->data + at + cut, b->len - at - cut);
	good = write_file(path, p, b->len - cut + len);
	free(p);
	return good;
}

/* Both readers fail on @path with the same error; @want: part of the message. */
static void check_same_error(const char *what, const char *path, const char *want)
{
	struct pk_oa_recording *rec = NULL;
	struct pk_oa_timeline tl;
	struct pk_diag plain, followed;
	int e1, e2;

	pk_diag_init(&plain);
	pk_diag_init(&followed);
	e1 = pk_oa_recording_read_file(path, &rec, &plain);
	pk_oa_recording_free(rec);
	rec = NULL;
	e2 = pk_oa_timeline_read_file(path, NULL, &rec, &tl, &followed);
	ok(e1 < 0 && e1 == e2 && rec == NULL, "%s: both fail (%d, %d)", what, e1, e2);
	ok(strstr(plain.msg, want) != NULL, "%s: the error says '%s': %s", what, want, plain.msg);
	ok(strcmp(plain.msg, followed.msg) == 0 && plain.offset == followed.offset &&
	   strcmp(plain.subject, followed.subject) == 0,
	   "%s: the same message and offset (%s at %llu; %s at %llu)", what, plain.msg,
	   (unsigned long long)plain.offset, followed.msg, (unsigned long long)followed.offset);
}

static void check_stops(void)
{
	struct oa_gen g = bdw(70000, 3000);
	char path[256];
	struct pk_buf b;
	struct pk_oa_record_iter it;
	struct pk_oa_record r;
	uint8_t devinfo[PK_OA_DEVICE_INFO_RECORD_SIZE], sample16[16] = { 0 };
	size_t at;

	pk_buf_init(&b);
	snprintf(path, sizeof(path), "%s/stops.i915perf", tmpdir);
	if (!ok(oa_gen_write(&g, &b) == 0, "stops: generated"))
		return;
	/* the DEVICE_INFO record, made a Skylake's: context valid bit 16, not 25 */
	pk_oa_record_iter_init(&it, b.data, b.len);
	while (pk_oa_record_next(&it, &r, NULL) > 0 && r.type != PK_OA_RECORD_DEVICE_INFO)
		;
	memcpy(devinfo, b.data + r.offset, sizeof(devinfo));
	{
		uint32_t skl = 0x1916;

		memcpy(devinfo + 8 + 8, &skl, 4);
	}
	at = after_sample(&b, 30000);
	if (ok(write_spliced(path, &b, at, 0, devinfo, sizeof(devinfo)), "stops: DEVICE_INFO inserted"))
		check_file("a Skylake DEVICE_INFO after report 30,000", path, NULL, false);

	/* a 16-byte SAMPLE in place of report 40,003 (no correlation point next to it) */
	sample16[0] = PK_OA_RECORD_SAMPLE;
	sample16[6] = 16;
	at = after_sample(&b, 40001);
	if (ok(write_spliced(path, &b, at, 8 + 256, sample16, sizeof(sample16)), "stops: short sample"))
		check_same_error("a short SAMPLE at report 40,003", path, "sample record too short");

	/* cut inside report 50,001 */
	at = after_sample(&b, 50000);
	if (ok(write_file(path, b.data, at + 100), "stops: truncated"))
		check_same_error("a recording cut inside report 50,001", path, "truncated");
	pk_buf_release(&b);
}

/* The reports of a generated recording as a bare kernel stream (SAMPLE and LOST records only). */
static void check_stream(void)
{
	struct oa_gen g = bdw(70000, 500);
	struct pk_oa_stream_device sd = { .topo = bdw_topo };
	struct pk_oa_record_iter it;
	struct pk_oa_record r;
	struct pk_buf b, s;
	char path[256];

	g.lost_every = 999;
	sd.info.device_id = g.pci_id;
	sd.info.oa_format = (uint32_t)g.format;
	sd.info.timestamp_frequency = g.ts_freq;
	pk_buf_init(&b);
	pk_buf_init(&s);
	snprintf(path, sizeof(path), "%s/stream.bin", tmpdir);
	if (!ok(oa_gen_write(&g, &b) == 0, "stream: generated"))
		return;
	pk_oa_record_iter_init(&it, b.data, b.len);
	while (pk_oa_record_next(&it, &r, NULL) > 0)
		if (r.type < PK_OA_RECORD_VERSION)
			pk_buf_append(&s, b.data + r.offset, r.size);
	if (ok(write_file(path, s.data, s.len), "stream: written"))
		check_file("a bare stream of 70,000 reports", path, &sd, true);
	pk_buf_release(&b);
	pk_buf_release(&s);
}

/* Asked for a segment it does not have, or with another recording, pk_oa_timeline_deltas refuses. */
static void check_misuse(void)
{
	struct oa_gen g1 = bdw(1000, 100), g2 = bdw(2000, 100);
	struct pk_oa_recording *r1 = NULL, *r2 = NULL;
	struct pk_oa_timeline tl;
	struct pk_buf b1, b2;
	struct pk_diag d;
	uint64_t deltas[PK_OA_MAX_VALUES];

	pk_buf_init(&b1);
	pk_buf_init(&b2);
	pk_diag_init(&d);
	if (ok(oa_gen_write(&g1, &b1) == 0 && oa_gen_write(&g2, &b2) == 0 &&
	       pk_oa_recording_read_mem(b1.data, b1.len, "r1", &r1, &d) == 0 &&
	       pk_oa_recording_read_mem(b2.data, b2.len, "r2", &r2, &d) == 0 &&
	       pk_oa_timeline_build(r1, &tl, &d) == 0, "misuse: two recordings read: %s", d.msg)) {
		is_int(tl.n_segments, 10, "misuse: 10 segments");
		is_int(pk_oa_timeline_deltas(&tl, r1, 9, deltas), 0, "misuse: the last segment's counters");
		is_int(pk_oa_timeline_deltas(&tl, r1, 10, deltas), -ERANGE, "misuse: segment 10 is out of range");
		is_int(pk_oa_timeline_deltas(&tl, r2, 0, deltas), -EINVAL,
		       "misuse: the timeline is not one of a recording of 2,000 reports");
		pk_oa_timeline_release(&tl);
	}
	pk_oa_recording_free(r1);
	pk_oa_recording_free(r2);
	pk_buf_release(&b1);
	pk_buf_release(&b2);
}

/*
 * The generated recordings. Blocks of 8,192 reports share one: 65,537
 * reports make 8 blocks, 65,538 make 9. Segments of 15 pairs are summed
 * when asked, of 16 when built.
 */
static const struct {
	const char *what;
	size_t n;
	unsigned ctx_every, invalid_every, lost_every, corr_every;   /* 0: bdw()'s */
} cases[] = {
	{ "65,537 reports, a context at every report, invalid ones", 65537, 1, 7, 0, 0 },
	{ "65,538 reports, contexts changing where blocks meet", 65538, 8192, 0, 0, 0 },
	{ "65,539 reports in one context, loss records", 65539, 0, 0, 1000, 0 },
	{ "65,600 reports, contexts every 15", 65600, 15, 0, 0, 0 },
	{ "65,600 reports, contexts every 16", 65600, 16, 0, 0, 0 },
	{ "65,537 reports in one context: the last pair ends a block", 65537, 0, 0, 0, 0 },
	{ "100,000 reports, contexts every 20,000: whole blocks and parts", 100000, 20000, 0, 777, 0 },
	{ "150,001 reports, contexts every 300, invalid ones", 150001, 300, 11, 0, 5000 },
};

int main(void)
{
	two_cpus = pk_cpus_usable() >= 2;   /* what the reader asks: its affinity mask */
	if (!two_cpus)
		diag("one usable CPU: nothing follows the reader; the results are still checked");
	if (!ok(mkdtemp(tmpdir) != NULL, "temporary directory"))
		return done_testing();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct oa_gen g = bdw(cases[i].n, cases[i].ctx_every);

		g.invalid_every = cases[i].invalid_every;
		g.lost_every = cases[i].lost_every;
		if (cases[i].corr_every)
			g.corr_every = cases[i].corr_every;
		check_generated(cases[i].what, &g);
	}
	check_stream();
	check_stops();
	check_misuse();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		ok(system(cmd) == 0, "temporary files removed");
	}
	return done_testing();
}
