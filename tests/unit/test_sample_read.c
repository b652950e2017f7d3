/*
 * PERF_SAMPLE_READ delivery (lib/session/sample_read.c) on files written
 * here with hand-chosen read values, against hand-computed deliveries: one
 * sample per read value, of the event owning the value's id, weighing the
 * increase since that id's previous value; no sample for an increase of
 * zero or for an id no attr owns. tests/cli/report.sh checks the same
 * against perf on recordings.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfkit/perfdata.h>
#include <perfkit/session.h>
#include "../tap.h"
#include "perfdata_write.h"

#define MAX_DELIVERED 512

static char warned[256];

static void on_log(enum pk_log_level level, const char *fmt, va_list ap)
{
	if (level == PK_LOG_WARN)
		vsnprintf(warned, sizeof(warned), fmt, ap);
}

struct delivered {
	size_t n;
	int evsel[MAX_DELIVERED];
	uint64_t period[MAX_DELIVERED];
};

static int collect(void *ctx, const struct pk_rsample *rs)
{
	struct delivered *dv = ctx;

	if (dv->n < MAX_DELIVERED) {
		dv->evsel[dv->n] = rs->evsel->idx;
		dv->period[dv->n] = rs->period;
	}
	dv->n++;
	return 0;
}

/* A SAMPLE record: IDENTIFIER, IP, TID, TIME, then READ (@nr values of @vals: value, id). */
static size_t sample(uint64_t *buf, uint64_t id, int group, size_t nr, const uint64_t *vals)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	size_t w = 1;

	buf[w++] = id;
	buf[w++] = 0x401000;           /* ip */
	buf[w++] = 42ull << 32 | 42;   /* tid, pid */
	buf[w++] = 1000;               /* time */
	if (group)
		buf[w++] = nr;
	for (size_t i = 0; i < 2 * nr; i++)
		buf[w++] = vals[i];
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(w * 8);
	return w * 8;
}

/* Write @nr_ev events (ids of event i: @ids[i], @nr_ids each) and @n samples; 0 or -1. */
static int write_file(const char *path, int group, size_t nr_ev, const uint64_t (*ids)[128],
		      uint32_t nr_ids, uint64_t (*recs)[64], const size_t *lens, size_t n)
{
	struct perf_event_attr attr[2];
	struct pk_writer_evsel ev[2];

	for (size_t i = 0; i < nr_ev; i++) {
		memset(&attr[i], 0, sizeof(attr[i]));
		attr[i].size = sizeof(attr[i]);
		attr[i].type = PERF_TYPE_SOFTWARE;
		attr[i].config = i ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK;
		attr[i].sample_period = 100000;
		attr[i].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				      PERF_SAMPLE_TIME | PERF_SAMPLE_READ;
		attr[i].read_format = PERF_FORMAT_ID | (group ? PERF_FORMAT_GROUP : 0);
		attr[i].sample_id_all = 1;
		ev[i] = (struct pk_writer_evsel){ .attr = &attr[i], .name = i ? "task-clock" : "cpu-clock",
						  .ids = ids[i], .nr_ids = nr_ids };
	}
	return write_perfdata(path, ev, nr_ev, recs, lens, n);
}

static int run(const char *path, struct delivered *dv, uint64_t *nr0, uint64_t *nr1)
{
	struct pk_session_opts o = { .sz = sizeof(o), .ordered = 1 };
	struct pk_session *ss;
	struct pk_diag d;
	int err;

	memset(dv, 0, sizeof(*dv));
	pk_diag_init(&d);
	if (pk_session_open(path, &o, &ss, &d)) {
		diag("%s: %s", path, d.msg);
		return -1;
	}
	err = pk_session_run(ss, collect, NULL, dv, &d);
	*nr0 = pk_session_counts(ss, 0)->nr_samples;
	*nr1 = pk_session_counts(ss, 1)->nr_samples;
	pk_session_close(ss);
	return err;
}

/* A group of two events: deltas per id, zero increases and an unknown id dropped. */
static void test_group(const char *dir)
{
	static const uint64_t ids[2][128] = { { 101 }, { 202 } };
	static const uint64_t s1[] = { 1000, 101, 500, 202 };
	static const uint64_t s2[] = { 1000, 101, 800, 202 };  /* 101 did not move */
	static const uint64_t s3[] = { 3000, 101, 77, 999 };   /* 999: no attr owns it */
	static const uint64_t s4[] = { 3500, 101, 1800, 202 };
	uint64_t recs[4][64];
	size_t lens[4];
	struct delivered dv;
	uint64_t nr0, nr1;
	char path[600];

	lens[0] = sample(recs[0], 101, 1, 2, s1);
	lens[1] = sample(recs[1], 101, 1, 2, s2);
	lens[2] = sample(recs[2], 101, 1, 2, s3);
	lens[3] = sample(recs[3], 202, 1, 2, s4);   /* sampled by the member: same rule */
	snprintf(path, sizeof(path), "%s/group.data", dir);
	if (!ok(!write_file(path, 1, 2, ids, 1, recs, lens, 4), "group file written"))
		return;
	is_int(run(path, &dv, &nr0, &nr1), 0, "group file read");
	is_int(dv.n, 6, "6 deliveries: 2 + 1 + 1 + 2");
	ok(dv.n == 6 && dv.evsel[0] == 0 && dv.period[0] == 1000 && dv.evsel[1] == 1 &&
	   dv.period[1] == 500, "first sample: each value whole (1000, 500)");
	ok(dv.n == 6 && dv.evsel[2] == 1 && dv.period[2] == 300,
	   "second: only task-clock, by 300; cpu-clock's zero increase dropped");
	ok(dv.n == 6 && dv.evsel[3] == 0 && dv.period[3] == 2000,
	   "third: cpu-clock by 2000; the unknown id dropped");
	ok(dv.n == 6 && dv.evsel[4] == 0 && dv.period[4] == 500 && dv.evsel[5] == 1 &&
	   dv.period[5] == 1000, "fourth, sampled by the member: 500 and 1000");
	is_int(nr0, 3, "cpu-clock counts 3 samples");
	is_int(nr1, 3, "task-clock counts 3 samples");
	is_str(warned, "1 samples with id not present in the header",
	       "the unknown id is warned about, as perf does");
	warned[0] = '\0';
}

/* One event, many ids (one per CPU): each id keeps its own previous value. */
static void test_many_ids(const char *dir)
{
	static uint64_t ids[2][128];
	static uint64_t recs[3 * 100][64];
	size_t lens[3 * 100], n = 0;
	struct delivered dv;
	uint64_t nr0, nr1, sum = 0;
	int bad = 0;
	char path[600];

	for (uint64_t i = 0; i < 100; i++)
		ids[0][i] = 5000 + 7 * i;
	for (uint64_t round = 1; round <= 3; round++)
		for (uint64_t i = 0; i < 100; i++) {
			uint64_t v[2] = { round * (i + 1) * 10, ids[0][i] };

			lens[n] = sample(recs[n], ids[0][i], 0, 1, v);
			n++;
		}
	snprintf(path, sizeof(path), "%s/ids.data", dir);
	if (!ok(!write_file(path, 0, 1, ids, 100, recs, lens, n), "100-id file written"))
		return;
	is_int(run(path, &dv, &nr0, &nr1), 0, "100-id file read");
	is_int(dv.n, 300, "every value grew: 300 deliveries");
	for (size_t k = 0; k < dv.n && k < MAX_DELIVERED; k++) {
		uint64_t i = k % 100;

		bad += dv.period[k] != (i + 1) * 10;   /* each round adds (i + 1) * 10 */
		sum += dv.period[k];
	}
	is_int(bad, 0, "each id's increase is its own ((i + 1) * 10 per round)");
	is_int(sum, 3 * 10 * 5050, "periods add up to the last values (151500)");
	is_int(nr0, 300, "300 samples counted");
	is_str(warned, "", "no warning when every id is known");
}

int main(void)
{
	char dir[] = "/tmp/pk-sample-read.XXXXXX";
	char cmd[600];

	if (!mkdtemp(dir)) {
		ok(0, "temporary directory");
		return done_testing();
	}
	pk_log_set_callback(on_log);
	test_group(dir);
	test_many_ids(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
