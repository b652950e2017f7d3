/*
 * perfdata reader tests.
 *
 * Oracles:
 *  - Linux perf 6.1 (when installed): for every file of
 *    $PK_SHARED/data/perf.data/<dir>/ that perf reads without error, the
 *    per-type record counts and per-event sample counts of
 *    `perf report --stats`, the sample count of `perf script -F comm,tid`,
 *    and for a few files the time column of `perf script -F time` (the
 *    order of delivery);
 *  - an independent record counter (perfdata_scan.h) for every file,
 *    including those perf 6.1 cannot read (attr size 136, COMPRESSED2,
 *    simpleperf record types);
 *  - sample counts documented in $PK_SHARED/data/perf.data/SOURCES.md;
 *  - a file recorded here with `perf record -e cpu-clock` and byte-swapped by
 *    an independent swapper must decode to exactly the same samples;
 *  - the same file read through a real pipe gives the same records;
 *  - truncated and bit-flipped inputs give success or -EBADMSG with an
 *    offset, never a crash or a hang.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/perfdata.h>
#include "../shared_data.h"
#include "../tap.h"
#include "perfdata_scan.h"

static int have_perf(void)
{
	return access("/usr/bin/perf", X_OK) == 0;
}

/* ---- walking ---------------------------------------------------------------- */

struct walk {
	int open_rc, rc;
	struct pk_diag d;
	uint64_t nr[PK_RECORD_USER_MAX];
	uint64_t samples, per_evsel[256], records;
	char names[256][128];
	size_t nr_evsels;
	uint64_t *times;            /* sample times in delivery order */
	uint64_t *ips, *pidtid, *periods;
	size_t nt, cap;
	struct pk_perfdata_stats stats;
	int pipe, swapped;
};

static int walk_cb(void *ctx, const struct pk_record *r)
{
	struct walk *w = ctx;

	w->records++;
	if (r->hdr->type != PERF_RECORD_SAMPLE)
		return 0;
	w->samples++;
	if (r->evsel && r->evsel->idx < 256)
		w->per_evsel[r->evsel->idx]++;
	if (w->nt == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 1024;
		w->times = realloc(w->times, w->cap * 8);
		w->ips = realloc(w->ips, w->cap * 8);
		w->pidtid = realloc(w->pidtid, w->cap * 8);
		w->periods = realloc(w->periods, w->cap * 8);
	}
	w->times[w->nt] = r->sample.time;
	w->ips[w->nt] = r->sample.ip;
	w->pidtid[w->nt] = (uint64_t)r->sample.pid << 32 | r->sample.tid;
	w->periods[w->nt] = r->sample.period;
	w->nt++;
	return 0;
}

static void walk_free(struct walk *w)
{
	free(w->times);
	free(w->ips);
	free(w->pidtid);
	free(w->periods);
	memset(w, 0, sizeof(*w));
}

/* Open (@fd >= 0: that descriptor) and walk; results in @w. */
static void walk_input(const char *path, int fd, int ordered, struct walk *w)
{
	struct pk_perfdata_opts o = { .sz = sizeof(o), .ordered = ordered };
	struct pk_perfdata *p;
	size_t i;

	memset(w, 0, sizeof(*w));
	pk_diag_init(&w->d);
	w->open_rc = fd >= 0 ? pk_perfdata_open_fd(fd, path, &o, &p, &w->d)
			     : pk_perfdata_open(path, &o, &p, &w->d);
	w->rc = w->open_rc;
	if (w->open_rc)
		return;
	w->rc = pk_perfdata_foreach(p, walk_cb, w, &w->d);
	w->stats = *pk_perfdata_stats(p);
	memcpy(w->nr, w->stats.nr_records, sizeof(w->nr));
	w->nr_evsels = pk_perfdata_nr_evsels(p);
	for (i = 0; i < w->nr_evsels && i < 256; i++)
		snprintf(w->names[i], sizeof(w->names[i]), "%s", pk_perfdata_evsel(p, i)->name);
	w->pipe = pk_perfdata_is_pipe(p);
	w->swapped = pk_perfdata_is_swapped(p);
	pk_perfdata_close(p);
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long sz;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc(sz > 0 ? (size_t)sz : 1);
	if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*n = (size_t)sz;
	return b;
}

static int memfd_of(const void *b, size_t n)
{
	int fd = memfd_create("pd", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (n && write(fd, b, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* ---- perf as the oracle --------------------------------------------------------- */

struct perf_stats {
	int ok;
	uint64_t nr[PK_RECORD_USER_MAX];
	int listed[PK_RECORD_USER_MAX];
	char ev_name[64][128];
	uint64_t ev_samples[64];
	int nr_ev;
};

static int type_of_name(const char *name)
{
	for (unsigned t = 1; t < PK_RECORD_USER_MAX; t++)
		if (pk_rec_type_name(t) && !strcmp(pk_rec_type_name(t), name))
			return (int)t;
	return -1;
}

/* `perf report --stats`: ok only when perf read the whole file without an error. */
static void perf_stats(const char *path, struct perf_stats *ps)
{
	char cmd[8800], line[1024];
	FILE *fp;
	int in_ev = -1, bad = 0;

	memset(ps, 0, sizeof(*ps));
	snprintf(cmd, sizeof(cmd), "perf report --stats -i '%s' 2>&1", path);
	fp = popen(cmd, "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		char name[128];
		unsigned long long n;
		char *p = line;

		if (strstr(line, "failed to process") || strstr(line, "bad event header") ||
		    strstr(line, "Couldn't decompress") || strstr(line, "incompatible") ||
		    strstr(line, "Failed to process") || strstr(line, "unexpected end"))
			bad = 1;
		if (strstr(line, "TOTAL events:"))
			ps->ok = 1;
		while (*p == ' ')
			p++;
		if (sscanf(p, "%127[^ ] events: %llu", name, &n) == 2 && strcmp(name, "TOTAL")) {
			if (in_ev >= 0 && !strcmp(name, "SAMPLE")) {
				ps->ev_samples[in_ev] = n;
				continue;
			}
			int t = type_of_name(name);

			if (t > 0 && in_ev < 0) {
				ps->nr[t] = n;
				ps->listed[t] = 1;
			}
			continue;
		}
		{
			size_t l = strlen(line);

			if (l > 8 && !strcmp(line + l - 8, " stats:\n") && ps->nr_ev < 64 &&
			    line[0] != ' ' && strncmp(line, "Aggregated", 10)) {
				in_ev = ps->nr_ev++;
				snprintf(ps->ev_name[in_ev], sizeof(ps->ev_name[in_ev]), "%.*s",
					 (int)(l - 8), line);
			}
		}
	}
	if (pclose(fp) != 0)
		bad = 1;
	if (bad)
		ps->ok = 0;
}

static long perf_script_lines(const char *path, const char *fields)
{
	char cmd[8800], line[512];
	FILE *fp;
	long n = 0;

	snprintf(cmd, sizeof(cmd), "perf script -G -i '%s' -F %s 2>/dev/null", path, fields);
	fp = popen(cmd, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		n++;
	if (pclose(fp) != 0)
		return -1;
	return n;
}

/* ---- per-file checks ------------------------------------------------------------ */

struct known {
	const char *file;
	int samples;                /* from SOURCES.md */
};

static const struct known known_samples[] = {
	{ "quipper/perf.data.armv7-3.4", 3893 },
	{ "quipper/perf.data.branch-4.14", 13 },
	{ "quipper/perf.data.busy.1-3.8", 9577 },
	{ "quipper/perf.data.callgraph_and_branch-3.8", 1856 },
	{ "quipper/perf.data.hw_and_sw-3.4", 4941 },
	{ "quipper/perf.data.piped.target-3.8", 5218 },
	{ "simpleperf/perf.data", 2409 },
	{ "hotspot/perf.data.true.v2", 1 },
	{ "perfparser/contentsize.data", 69 },
	{ "perfparser/vector_static_gcc_perf.data", 45 },
	{ "linux-perf-data/sleep.data", 7 },
};

static int is_expected_bad(const char *rel)
{
	return strstr(rel, "invalid_perf.data") || strstr(rel, "perf.data.broken.gz") ||
	       strstr(rel, "zero_size_sample");
}

static void check_file(const char *full, const char *rel, int perf)
{
	struct walk w;
	struct scan_res *sc = calloc(1, sizeof(*sc));
	uint8_t *b;
	size_t n;
	int t, same = 1;

	walk_input(full, -1, 1, &w);
	if (is_expected_bad(rel)) {
		if (strstr(rel, "zero_size_sample")) {
			is_int(w.open_rc, 0, "%s: opens", rel);
			is_int(w.rc, -EBADMSG, "%s: zero-size record is an error", rel);
			is_int(w.d.offset, 49104, "%s: error names offset 49104 (%s)", rel, w.d.msg);
		} else {
			is_int(w.open_rc, -EBADMSG, "%s: rejected", rel);
			ok(strstr(w.d.msg, "not a perf.data file") != NULL, "%s: clear error: %s",
			   rel, w.d.msg);
			is_int(w.d.offset, 0, "%s: error at offset 0", rel);
		}
		walk_free(&w);
		free(sc);
		return;
	}
	if (!ok(w.rc == 0, "%s: open and walk (%d)", rel, w.rc))
		diag("%s at %llu", w.d.msg, (unsigned long long)w.d.offset);

	/* independent scan */
	b = slurp(full, &n);
	if (b && scan_file(b, n, sc)) {
		for (t = 0; t < PK_RECORD_USER_MAX; t++)
			if (sc->nr[t] != w.nr[t]) {
				same = 0;
				diag("type %d: scan %llu, perfkit %llu", t,
				     (unsigned long long)sc->nr[t], (unsigned long long)w.nr[t]);
			}
		{
			uint64_t unk = 0;

			for (t = 0; t < 65536; t++)
				if (t == 0 || (t > 22 && t < 64) || t >= PK_RECORD_USER_MAX)
					unk += sc->nr[t];
			if (unk != w.stats.nr_unknown) {
				same = 0;
				diag("unknown: scan %llu, perfkit %llu", (unsigned long long)unk,
				     (unsigned long long)w.stats.nr_unknown);
			}
		}
		ok(same, "%s: per-type counts equal the independent scan", rel);
		is_int(w.stats.trailing_bytes, sc->trailing, "%s: trailing bytes", rel);
	}
	free(b);

	for (size_t k = 0; k < sizeof(known_samples) / sizeof(known_samples[0]); k++)
		if (!strcmp(rel, known_samples[k].file))
			is_int(w.samples, known_samples[k].samples, "%s: samples as in SOURCES.md",
			       rel);

	if (perf) {
		struct perf_stats ps;

		perf_stats(full, &ps);
		if (ps.ok) {
			same = 1;
			for (t = 1; t < PK_RECORD_USER_MAX; t++)
				if (ps.nr[t] != w.nr[t]) {
					same = 0;
					diag("%s: perf %llu, perfkit %llu", pk_rec_type_name(t),
					     (unsigned long long)ps.nr[t],
					     (unsigned long long)w.nr[t]);
				}
			ok(same, "%s: per-type counts equal perf report --stats", rel);
			same = 1;
			for (int e = 0, nth = 0; e < ps.nr_ev; e++) {
				uint64_t mine = 0;
				int found = 0;

				for (size_t i = 0; i < w.nr_evsels; i++)
					if (!strcmp(w.names[i], ps.ev_name[e])) {
						mine += w.per_evsel[i];
						found = 1;
					}
				/*
				 * perf report names pipe-mode events from the attr before
				 * the EVENT_DESC feature record arrives ("cycles:uH");
				 * perf script and perfkit use EVENT_DESC ("cycles:u").
				 * There, match the nth event that has samples.
				 */
				for (size_t i = 0; !found && w.pipe && i < w.nr_evsels; i++)
					if (w.per_evsel[i] && nth-- == 0) {
						diag("pipe mode: perf report says '%s', perfkit '%s'",
						     ps.ev_name[e], w.names[i]);
						mine = w.per_evsel[i];
						found = 1;
					}
				nth = e + 1;
				if (!found || mine != ps.ev_samples[e]) {
					same = 0;
					diag("event '%s': perf %llu, perfkit %llu%s", ps.ev_name[e],
					     (unsigned long long)ps.ev_samples[e],
					     (unsigned long long)mine, found ? "" : " (no such name)");
				}
			}
			ok(same, "%s: samples per event (and event names) equal perf's", rel);
			if (!w.nr[PK_RECORD_AUXTRACE]) {
				long lines = perf_script_lines(full, "comm,tid");

				if (lines >= 0)
					is_int(w.samples, lines, "%s: samples = perf script lines", rel);
			}
		} else {
			diag("%s: perf 6.1 does not read it fully; checked against the scan only", rel);
		}
	}
	walk_free(&w);
	free(sc);
}

static void check_all_files(int perf)
{
	static const char *dirs[] = { "quipper", "simpleperf", "hotspot", "linux-perf-data",
				      "perfparser" };
	char path[4096];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		struct dirent **ents;
		int n;

		snprintf(path, sizeof(path), "%s/data/perf.data/%s", shared_dir(), dirs[i]);
		n = scandir(path, &ents, NULL, alphasort);
		for (int k = 0; k < n; k++) {
			const char *name = ents[k]->d_name;
			size_t l = strlen(name);
			char full[4600], rel[512];

			if (name[0] == '.' || (l > 3 && (!strcmp(name + l - 3, ".md") ||
							 !strcmp(name + l - 4, ".txt")))) {
				free(ents[k]);
				continue;
			}
			snprintf(full, sizeof(full), "%s/%s", path, name);
			snprintf(rel, sizeof(rel), "%s/%s", dirs[i], name);
			check_file(full, rel, perf);
			free(ents[k]);
		}
		free(ents);
	}
}

/* ---- delivery order equals perf script's ---------------------------------------- */

static void check_time_order(const char *rel)
{
	char full[4096], cmd[8400], line[256];
	struct walk w;
	FILE *fp;
	size_t i = 0, bad = 0;

	snprintf(full, sizeof(full), "%s/data/perf.data/%s", shared_dir(), rel);
	walk_input(full, -1, 1, &w);
	snprintf(cmd, sizeof(cmd), "perf script -G -i '%s' -F time 2>/dev/null", full);
	fp = popen(cmd, "r");
	if (!fp || w.rc) {
		ok(0, "%s: time order (perf or walk failed)", rel);
		if (fp)
			pclose(fp);
		walk_free(&w);
		return;
	}
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long s, us;
		char *p = line;

		while (*p == ' ')
			p++;
		if (sscanf(p, "%llu.%llu:", &s, &us) != 2)
			continue;
		if (i < w.nt && (w.times[i] / 1000000000ull != s ||
				 (w.times[i] % 1000000000ull) / 1000 != us)) {
			if (!bad)
				diag("first difference at sample %zu: perf %llu.%06llu, perfkit %llu",
				     i, s, us, (unsigned long long)w.times[i]);
			bad++;
		}
		i++;
	}
	pclose(fp);
	ok(i == w.nt && !bad && i > 0, "%s: %zu sample times in perf script's order", rel, i);
	walk_free(&w);
}

/* ---- pipe mode through a real pipe --------------------------------------------- */

static void check_real_pipe(const char *rel)
{
	char full[4096], cmd[8400];
	struct walk a, b;
	FILE *fp;
	int same;

	snprintf(full, sizeof(full), "%s/data/perf.data/%s", shared_dir(), rel);
	walk_input(full, -1, 1, &a);
	snprintf(cmd, sizeof(cmd), "cat '%s'", full);
	fp = popen(cmd, "r");
	if (!fp) {
		ok(0, "popen cat");
		walk_free(&a);
		return;
	}
	walk_input(rel, dup(fileno(fp)), 1, &b);
	pclose(fp);
	same = a.rc == 0 && b.rc == 0 && a.nt == b.nt && a.records == b.records &&
	       !memcmp(a.nr, b.nr, sizeof(a.nr)) &&
	       (!a.nt || !memcmp(a.times, b.times, a.nt * 8));
	ok(same, "%s: through a pipe: %llu records, %zu samples, same as the file", rel,
	   (unsigned long long)b.records, b.nt);
	walk_free(&a);
	walk_free(&b);
}

/* ---- a callback that fails ------------------------------------------------------- */

struct failing {
	size_t samples, fail_at, calls_after;
};

static int failing_cb(void *ctx, const struct pk_record *r)
{
	struct failing *f = ctx;

	if (f->samples >= f->fail_at) {
		f->calls_after++;
		return -ENOMEM;
	}
	if (r->hdr->type == PERF_RECORD_SAMPLE && ++f->samples == f->fail_at)
		return -ENOMEM;
	return 0;
}

/*
 * The walk ends at the callback's first error and returns it: the records
 * still queued for time order are not delivered after it (they were, as
 * after corrupt input, and a caller that had stopped was called again).
 */
static void check_callback_error(const char *rel)
{
	struct pk_perfdata_opts o = { .sz = sizeof(o), .ordered = 1 };
	struct failing f = { .fail_at = 10 };
	struct pk_perfdata *p;
	struct pk_diag d;
	char full[4096];
	int rc;

	snprintf(full, sizeof(full), "%s/data/perf.data/%s", shared_dir(), rel);
	pk_diag_init(&d);
	if (!ok(pk_perfdata_open(full, &o, &p, &d) == 0, "%s: opens (%s)", rel, d.msg))
		return;
	rc = pk_perfdata_foreach(p, failing_cb, &f, &d);
	ok(rc == -ENOMEM && f.samples == 10 && f.calls_after == 0,
	   "%s: a callback failing at sample 10 ends the walk (rc %d, %zu calls after it)", rel, rc,
	   f.calls_after);
	pk_perfdata_close(p);
}

/* ---- byte-swapped file ------------------------------------------------------------ */

static void check_swapped(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096], cmd[8400];
	struct walk a, b;
	uint8_t *buf, *sw = NULL;
	size_t n, sn, dropped;
	int fd;

	snprintf(path, sizeof(path), "%s/pk_test_perfdata_%d.data", dir, (int)getpid());
	snprintf(cmd, sizeof(cmd), "perf record -q -e cpu-clock -F 4999 --no-bpf-event -o '%s' "
		 "-- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' >/dev/null 2>&1",
		 path);
	if (system(cmd) != 0 || !(buf = slurp(path, &n))) {
		ok(1, "# SKIP perf record -e cpu-clock failed here");
		unlink(path);
		return;
	}
	sn = swap_file(buf, n, &sw, &dropped);
	ok(sn > 0, "swapped a %zu-byte recording (%zu records without a layout dropped)", n,
	   dropped);
	walk_input(path, -1, 1, &a);
	fd = memfd_of(sw, sn);
	walk_input("swapped", fd, 1, &b);
	is_int(a.rc, 0, "native recording walks");
	is_int(b.rc, 0, "swapped recording walks (%s)", b.d.msg);
	is_int(b.swapped, 1, "swapped recording detected as swapped");
	ok(a.nt > 10, "recording has samples (%zu)", a.nt);
	is_int(b.nt, a.nt, "same number of samples");
	ok(a.nt == b.nt && !memcmp(a.times, b.times, a.nt * 8) &&
	   !memcmp(a.ips, b.ips, a.nt * 8) && !memcmp(a.pidtid, b.pidtid, a.nt * 8) &&
	   !memcmp(a.periods, b.periods, a.nt * 8),
	   "swapped samples decode to the same ip, pid/tid, time, period");
	is_str(b.names[0], "cpu-clock", "swapped attr: default name from the attr");
	ok(a.nr[PERF_RECORD_COMM] == b.nr[PERF_RECORD_COMM] &&
	   a.nr[PERF_RECORD_MMAP2] == b.nr[PERF_RECORD_MMAP2] &&
	   a.nr[PERF_RECORD_EXIT] == b.nr[PERF_RECORD_EXIT], "COMM/MMAP2/EXIT counts equal");
	walk_free(&a);
	walk_free(&b);
	free(buf);
	free(sw);
	unlink(path);
}

/* ---- corrupt inputs ---------------------------------------------------------------- */

/* A pipe holding @b (up to the pipe's maximum size), -1 if it does not fit. */
static int pipe_of(const void *b, size_t n)
{
	int fds[2];

	if (pipe(fds))
		return -1;
	if (fcntl(fds[1], F_SETPIPE_SZ, 1 << 20) < (int)n ||
	    (n && write(fds[1], b, n) != (ssize_t)n)) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	close(fds[1]);
	return fds[0];
}

/* @ordered bit 0: time ordering; bit 1: read through a pipe (streaming) when it fits. */
static int corrupt_ok(const char *rel, const uint8_t *b, size_t n, int ordered)
{
	struct walk w;
	int fd = (ordered & 2) ? pipe_of(b, n) : -1;
	int good;

	if (fd < 0)
		fd = memfd_of(b, n);
	ordered &= 1;

	if (fd < 0)
		return 1;
	walk_input(rel, fd, ordered, &w);
	good = w.rc == 0 || (w.rc == -EBADMSG && w.d.offset != PK_NO_OFFSET);
	if (!good)
		diag("%s (%zu bytes): rc %d, offset %llu, %s", rel, n, w.rc,
		     (unsigned long long)w.d.offset, w.d.msg);
	walk_free(&w);
	return good;
}

static void check_corruptions(void)
{
	static const char *files[] = {
		"quipper/perf.data.hw_and_sw-3.4", "quipper/perf.data.piped.target-3.8",
		"quipper/perf.data.intel_pt-4.14", "quipper/perf.data.piped.intel_pt-4.14",
		"linux-perf-data/fibo.compressed2.pipe.data", "linux-perf-data/sleep.compressed.data",
		"perfparser/probe.data.stream", "perfparser/parallel_static_gcc_perf.data.zstd",
		"quipper/perf.data.piped.header_features_aligned-6.12", "hotspot/perf.data.true.v1",
		"simpleperf/perf_with_callchain_record.data", "hotspot/perf.data.PerfFormatLost",
		"quipper/perf.data.weight_struct", "simpleperf/perf_with_arm_regs.data",
	};
	unsigned seed = 12345;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char full[4096];
		uint8_t *b, *c;
		size_t n, k;
		int good = 1;

		snprintf(full, sizeof(full), "%s/data/perf.data/%s", shared_dir(), files[i]);
		b = slurp(full, &n);
		if (!b) {
			ok(0, "read %s", files[i]);
			continue;
		}
		for (k = 0; k < 20; k++)
			good &= corrupt_ok(files[i], b, n * k / 20 + (k ? k * 7 % 13 : 3), (int)(k & 3));
		ok(good, "%s: 20 truncations: success or -EBADMSG with an offset", files[i]);
		c = malloc(n);
		good = 1;
		for (k = 0; k < 40; k++) {
			size_t pos, j;

			memcpy(c, b, n);
			for (j = 0; j < 4; j++) {
				seed = seed * 1103515245u + 12345u;
				/* half the flips in the first 4 KiB: headers and sizes */
				pos = (k & 1) ? (seed >> 8) % (n < 4096 ? n : 4096) : (seed >> 4) % n;
				c[pos] ^= (uint8_t)(1u << ((seed >> 24) & 7));
			}
			good &= corrupt_ok(files[i], c, n, (int)(k & 3));
		}
		ok(good, "%s: 40 multi-bit flips: success or -EBADMSG with an offset", files[i]);
		free(c);
		free(b);
	}
}

/* ---- specific behaviour ------------------------------------------------------------ */

static int count_cb(void *ctx, const struct pk_record *r)
{
	(*(uint64_t *)ctx)++;
	(void)r;
	return 0;
}

struct aux_sum {
	uint64_t records, payload, declared;
	int bad_offset;
};

static int aux_cb(void *ctx, const struct pk_record *r)
{
	struct aux_sum *a = ctx;
	uint64_t size;

	if (r->hdr->type != PK_RECORD_AUXTRACE)
		return 0;
	memcpy(&size, (const uint8_t *)r->hdr + 8, 8);
	a->records++;
	a->payload += r->payload_size;
	a->declared += size;
	if (!r->payload)
		a->bad_offset = 1;
	return 0;
}

/* AUXTRACE payloads (pipe mode: outside header.size) arrive in r->payload. */
static void check_auxtrace(const char *rel, uint64_t want_records)
{
	char full[4096];
	struct pk_perfdata_opts o = { .sz = sizeof(o), .ordered = 1 };
	struct pk_perfdata *p;
	struct pk_diag d;
	struct aux_sum a = { 0 };

	snprintf(full, sizeof(full), "%s/data/perf.data/%s", shared_dir(), rel);
	pk_diag_init(&d);
	if (!ok(pk_perfdata_open(full, &o, &p, &d) == 0, "%s opens", rel))
		return;
	is_int(pk_perfdata_foreach(p, aux_cb, &a, &d), 0, "%s walks", rel);
	is_int(a.records, want_records, "%s: AUXTRACE records delivered", rel);
	ok(a.payload == a.declared && a.payload > 0 && !a.bad_offset,
	   "%s: each AUXTRACE delivers its %llu payload bytes", rel,
	   (unsigned long long)a.payload);
	pk_perfdata_close(p);
}

/* The same file with header.size rewritten to 72: no feature bitmap, same records. */
static void check_old_header(void)
{
	char full[4096];
	uint8_t *b;
	size_t n;
	uint64_t v = 72;
	struct walk a, w;
	struct pk_perfdata *p;
	struct pk_diag d;
	struct pk_perfdata_opts o = { .sz = sizeof(o) };

	snprintf(full, sizeof(full), "%s/data/perf.data/quipper/perf.data.hw_and_sw-3.4",
		 shared_dir());
	b = slurp(full, &n);
	if (!ok(b != NULL, "read hw_and_sw-3.4"))
		return;
	memcpy(b + 8, &v, 8);
	walk_input(full, -1, 1, &a);
	walk_input("old-header", memfd_of(b, n), 1, &w);
	ok(w.rc == 0 && w.records == a.records && w.nt == a.nt &&
	   !memcmp(w.times, a.times, a.nt * 8), "72-byte header: same %llu records",
	   (unsigned long long)w.records);
	pk_diag_init(&d);
	if (ok(pk_perfdata_open_fd(memfd_of(b, n), "old-header", &o, &p, &d) == 0,
	       "72-byte header opens")) {
		ok(!pk_features_has(pk_perfdata_features(p), PK_FEAT_HOSTNAME),
		   "72-byte header: no features");
		pk_perfdata_close(p);
	}
	walk_free(&a);
	walk_free(&w);
	free(b);
}

static void check_specifics(void)
{
	char full[4096];
	struct walk w;
	struct pk_perfdata *p;
	struct pk_diag d;
	struct pk_perfdata_opts o = { .sz = sizeof(o), .ordered = 1, .deliver_header_records = 1 };
	uint64_t n = 0, sum = 0;

	snprintf(full, sizeof(full), "%s/data/perf.data/linux-perf-data/sleep.compressed2.pipe.data",
		 shared_dir());
	walk_input(full, -1, 1, &w);
	is_int(w.rc, 0, "sleep.compressed2.pipe.data: trailing text is not fatal");
	is_int(w.stats.trailing_bytes, 143, "sleep.compressed2.pipe.data: 143 trailing bytes");
	is_int(w.stats.trailing_offset, 31951 - 143, "trailing bytes start at 31808");
	walk_free(&w);

	snprintf(full, sizeof(full), "%s/data/perf.data/simpleperf/perf_with_arm_regs.data",
		 shared_dir());
	pk_diag_init(&d);
	if (ok(pk_perfdata_open(full, &o, &p, &d) == 0, "perf_with_arm_regs.data opens (%s)",
	       d.msg)) {
		const struct pk_evsel *e = pk_perfdata_evsel(p, 0);

		is_int(e->attr.attr.size, 120, "attr sized by attr.size (120), not attr_size-16");
		is_int(e->nr_ids, 8, "8 ids from the id array at entry + attr_size - 16");
		is_int(e->attr.attr.sample_regs_user, 0x1ffffffffull, "regs_user mask");
		ok(pk_perfdata_evsel_by_id(p, 0x22bc) == e, "id 0x22bc maps to the evsel");
		pk_perfdata_close(p);
	}

	/* with deliver_header_records every counted record is delivered */
	snprintf(full, sizeof(full), "%s/data/perf.data/linux-perf-data/fibo.compressed2.pipe.data",
		 shared_dir());
	pk_diag_init(&d);
	if (ok(pk_perfdata_open(full, &o, &p, &d) == 0, "fibo.compressed2.pipe.data opens")) {
		is_int(pk_perfdata_is_pipe(p), 1, "fibo is pipe mode");
		is_int(pk_perfdata_nr_evsels(p), 2, "fibo has 2 attrs from HEADER_ATTR");
		is_int(pk_perfdata_foreach(p, count_cb, &n, &d), 0, "fibo walks");
		for (int t = 0; t < PK_RECORD_USER_MAX; t++)
			sum += pk_perfdata_stats(p)->nr_records[t];
		is_int(n, sum, "deliver_header_records: all %llu counted records delivered",
		       (unsigned long long)sum);
		ok(pk_perfdata_foreach(p, count_cb, &n, &d) < 0, "a second walk is refused");
		pk_perfdata_close(p);
	}

	/* tracepoint name from HEADER_TRACING_DATA (pipe mode); perf script says the same */
	snprintf(full, sizeof(full), "%s/data/perf.data/perfparser/probe.data.stream", shared_dir());
	walk_input(full, -1, 1, &w);
	is_str(w.names[0], "probe_untitled1:main", "probe.data.stream: name from the tracing data");
	walk_free(&w);

	/* the old PERFFILE magic: read like perf (84 records, no samples) */
	snprintf(full, sizeof(full), "%s/data/perf.data/hotspot/perf.data.true.v1", shared_dir());
	walk_input(full, -1, 1, &w);
	is_int(w.rc, 0, "PERFFILE (v1) file walks");
	is_int(w.records, 84, "v1: 84 records as perf reports");
	is_int(w.samples, 0, "v1: no samples");
	walk_free(&w);

	/* ordered = 0 delivers the same records, in file order */
	snprintf(full, sizeof(full), "%s/data/perf.data/quipper/perf.data.busy.1-3.8", shared_dir());
	{
		struct walk a, b;

		walk_input(full, -1, 0, &a);
		walk_input(full, -1, 1, &b);
		ok(a.rc == 0 && b.rc == 0 && a.records == b.records && a.nt == b.nt,
		   "busy.1-3.8: unordered walk delivers the same %llu records",
		   (unsigned long long)a.records);
		walk_free(&a);
		walk_free(&b);
	}
}

int main(void)
{
	char path[4096];
	struct stat st;
	int perf = have_perf();

	snprintf(path, sizeof(path), "%s/data/perf.data", shared_dir());
	if (stat(path, &st)) {
		skip_all("no perf.data corpus under $PK_SHARED/data/perf.data");
		return 0;
	}
	if (!perf)
		diag("perf not installed: checking against the independent scan and SOURCES.md only");
	check_all_files(perf);
	if (perf) {
		check_time_order("quipper/perf.data.hw_and_sw-3.4");
		check_time_order("quipper/perf.data.busy.1-3.8");
		check_time_order("quipper/perf.data.piped.target-3.8");
		check_time_order("perfparser/parallel_static_gcc_perf.data.zstd");
		check_time_order("quipper/perf.data.branch_stack_hw_index");
		check_swapped();
	}
	check_real_pipe("quipper/perf.data.piped.target-3.8");
	check_real_pipe("quipper/perf.data.hw_and_sw-3.4");
	check_real_pipe("linux-perf-data/fibo.compressed2.pipe.data");
	check_real_pipe("quipper/perf.data.piped.intel_pt-4.14");
	check_callback_error("linux-perf-data/fibo.compressed2.pipe.data");
	check_callback_error("quipper/perf.data.busy.1-3.8");
	check_corruptions();
	check_specifics();
	check_old_header();
	check_auxtrace("quipper/perf.data.piped.intel_pt-4.14", 2);
	check_auxtrace("quipper/perf.data.intel_pt-4.14", 2);
	return done_testing();
}
