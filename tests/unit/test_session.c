/*
 * Tests of the session module (call-chain building, filters, counts) and of
 * the script printer built on it, against Linux perf 6.1's output on the
 * shared corpus (numbers below were taken from `perf script` on the same
 * files) and against hand-built call chains.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfkit/script.h>
#include <perfkit/session.h>
#include "session/internal.h"
#include "../shared_data.h"
#include "../tap.h"

static const char *corpus(const char *rel, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s/data/perf.data/%s", shared_dir(), rel);
	return buf;
}

#define K ((uint64_t)PERF_CONTEXT_KERNEL)
#define U ((uint64_t)PERF_CONTEXT_USER)

/* perf's thread__resolve_callchain_sample() rules on hand-made chains. */
static void test_callchain(void)
{
	struct pk_symbols_opts so = { .sz = sizeof(so), .kallsyms = "/nonexistent" };
	struct pk_symbols *syms = pk_symbols_new(&so);
	struct pk_thread *t = pk_symbols_thread(syms, 10, 10);
	struct pk_frames fr = { 0 };
	uint64_t chain[] = { K, 0xffffffff81000010ull, 0xffffffff81000020ull, U, 0x401000, 0x402000 };
	uint64_t guest[] = { K, 0xffffffff81000010ull, (uint64_t)PERF_CONTEXT_GUEST_KERNEL, 0x1 };
	uint64_t plain[] = { 0x401000, 0x402000, 0x403000 };
	struct perf_branch_entry br[2] = { { .from = 0x500, .to = 0x600 }, { .from = 0x700, .to = 0x800 } };
	struct pk_sample s;

	memset(&s, 0, sizeof(s));
	s.present = PERF_SAMPLE_CALLCHAIN;
	s.callchain = chain;
	s.callchain_nr = 6;
	is_int(pk_callchain_build(syms, t, &s, 0, 0, 0, &fr), 0, "callchain: builds");
	is_int(fr.nr, 4, "callchain: markers dropped, 4 frames");
	ok(fr.nr == 4 && fr.v[0].ip == 0xffffffff81000010ull && fr.v[3].ip == 0x402000,
	   "callchain: leaf first, order kept");
	ok(fr.nr == 4 && fr.v[0].cpumode == PERF_RECORD_MISC_KERNEL &&
	   fr.v[1].cpumode == PERF_RECORD_MISC_KERNEL && fr.v[2].cpumode == PERF_RECORD_MISC_USER,
	   "callchain: markers switch cpumode (kernel, then user)");
	pk_callchain_build(syms, t, &s, 0, 3, 0, &fr);
	is_int(fr.nr, 3, "callchain: --max-stack 3 keeps 3 address entries");
	pk_callchain_build(syms, t, &s, 0, 2, 0, &fr);
	ok(fr.nr == 2 && fr.v[1].ip == 0xffffffff81000020ull, "callchain: --max-stack 2 stops before USER");
	pk_callchain_build(syms, t, &s, 0, 3, 1, &fr);
	ok(fr.nr == 3 && fr.v[0].ip == 0xffffffff81000020ull && fr.v[0].cpumode == PERF_RECORD_MISC_KERNEL &&
	   fr.v[2].ip == 0x402000 && fr.v[2].cpumode == PERF_RECORD_MISC_USER,
	   "callchain: --max-stack 3 in caller order keeps the 3 outermost, innermost first");
	pk_callchain_build(syms, t, &s, 0, 9, 1, &fr);
	is_int(fr.nr, 4, "callchain: --max-stack 9 in caller order keeps all 4");
	pk_callchain_build(syms, t, &s, 0, PK_SESSION_NO_STACK, 0, &fr);
	is_int(fr.nr, 0, "callchain: --max-stack 0 keeps none");

	s.callchain = guest;
	s.callchain_nr = 4;
	pk_callchain_build(syms, t, &s, 0, 0, 0, &fr);
	is_int(fr.nr, 0, "callchain: a GUEST marker discards the chain (perf: invalid context)");

	s.callchain = plain;
	s.callchain_nr = 3;
	pk_callchain_build(syms, t, &s, 0, 0, 0, &fr);
	ok(fr.nr == 3 && fr.v[0].cpumode == PERF_RECORD_MISC_USER,
	   "callchain: no marker means user cpumode, all entries kept");

	s.present = 0;
	pk_callchain_build(syms, t, &s, 0, 0, 0, &fr);
	is_int(fr.nr, 0, "callchain: none without PERF_SAMPLE_CALLCHAIN");

	/* LBR call stack: kernel part, then branch[0].to and every from */
	s.present = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK;
	s.callchain = chain;
	s.callchain_nr = 6;
	s.branch = br;
	s.branch_nr = 2;
	pk_callchain_build(syms, t, &s, 1, 0, 0, &fr);
	ok(fr.nr == 5 && fr.v[1].ip == 0xffffffff81000020ull && fr.v[2].ip == 0x600 &&
	   fr.v[3].ip == 0x500 && fr.v[4].ip == 0x700, "callchain: LBR call stack replaces the user part");
	pk_frames_release(&fr);
	pk_symbols_free(syms);
}

static void test_filter_parse(void)
{
	struct pk_session_filter in = { .time = "1783.704078,1783.8", .cpus = "0-1,3", .pids = "1,22" };
	struct pk_filter f;
	struct pk_diag d;
	uint64_t a, b;

	pk_diag_init(&d);
	is_int(pk_filter_parse_time("1783.704078,1783.8", &a, &b), 0, "time: parses");
	ok(a == 1783704078000ull && b == 1783800000000ull, "time: seconds.fraction to ns");
	pk_filter_parse_time(",5", &a, &b);
	ok(a == 0 && b == 5000000000ull, "time: open start");
	pk_filter_parse_time("7", &a, &b);
	ok(a == 7000000000ull && b == 0, "time: start only");
	is_int(pk_filter_parse_time("1.2.3", &a, &b), -EINVAL, "time: garbage rejected");
	is_int(pk_filter_parse_time("2,1", &a, &b), -EINVAL, "time: end before start rejected");
	is_int(pk_filter_parse(&f, &in, &d), 0, "filter: parses");
	ok(f.active && f.cpus && (f.cpus[0] & 0x0b) == 0x0b && !(f.cpus[0] & 0x04), "filter: cpu bitmap 0,1,3");
	ok(f.pids.nr == 2 && f.pids.v[1] == 22, "filter: pid list");
	pk_filter_release(&f);
	in.pids = "1,x";
	is_int(pk_filter_parse(&f, &in, &d), -EINVAL, "filter: bad pid rejected");
	ok(strstr(d.msg, "'x'") != NULL, "filter: message names the bad pid");
}

static int count_cb(void *ctx, const struct pk_rsample *rs)
{
	(*(uint64_t *)ctx)++;
	return 0;
}

/*
 * Samples that pass @filter in armv7-3.4 (3893 samples, 6 events); *@total:
 * those the counts say passed; *@out_of_range: those they say --time or
 * --cpu dropped.
 */
static uint64_t count_armv7_range(const struct pk_session_filter *filter, uint64_t *total,
				  uint64_t *out_of_range)
{
	struct pk_session_opts o = { .sz = sizeof(o), .ordered = 1 };
	struct pk_session *ss;
	struct pk_diag d;
	uint64_t n = 0;
	char path[4200];

	if (filter)
		o.filter = *filter;
	pk_diag_init(&d);
	if (pk_session_open(corpus("quipper/perf.data.armv7-3.4", path, sizeof(path)), &o, &ss, &d))
		return UINT64_MAX;
	if (pk_session_run(ss, count_cb, NULL, &n, &d))
		n = UINT64_MAX;
	if (total) {
		*total = 0;
		for (size_t i = 0; i < 6; i++)
			*total += pk_session_counts(ss, i)->nr_samples - pk_session_counts(ss, i)->nr_filtered;
	}
	if (out_of_range) {
		*out_of_range = 0;
		for (size_t i = 0; i < 6; i++)
			*out_of_range += pk_session_counts(ss, i)->nr_out_of_range;
	}
	pk_session_close(ss);
	return n;
}

static uint64_t count_armv7(const struct pk_session_filter *filter, uint64_t *total)
{
	return count_armv7_range(filter, total, NULL);
}

/* Oracle: `perf script -i perf.data.armv7-3.4 -F tid <filter> | wc -l` with perf 6.1. */
static void test_filters_vs_perf(void)
{
	struct pk_session_filter f;
	uint64_t total;

	is_int(count_armv7(NULL, &total), 3893, "armv7: 3893 samples (SOURCES.md, perf script)");
	is_int(total, 3893, "armv7: per-event counts add up to 3893");
	memset(&f, 0, sizeof(f));
	f.time = "90.026818,90.576574";
	is_int(count_armv7(&f, NULL), 1000, "--time 90.026818,90.576574: 1000 like perf");
	f.time = "90.5,";
	is_int(count_armv7(&f, NULL), 2055, "--time 90.5,: 2055 like perf");
	f.time = ",90.5";
	is_int(count_armv7(&f, NULL), 1838, "--time ,90.5: 1838 like perf");
	memset(&f, 0, sizeof(f));
	f.comms = "Compositor,perf";
	is_int(count_armv7(&f, NULL), 1376, "--comm Compositor,perf: 1376 like perf");
	memset(&f, 0, sizeof(f));
	f.pids = "9622";
	is_int(count_armv7(&f, NULL), 770, "--pid 9622: 770 like perf");
	memset(&f, 0, sizeof(f));
	f.tids = "2094";
	is_int(count_armv7(&f, NULL), 595, "--tid 2094: 595 like perf");
	memset(&f, 0, sizeof(f));
	f.cpus = "1";
	is_int(count_armv7(&f, &total), 1519, "-C 1: 1519 like perf");
	is_int(total, 1519, "-C 1: counts say 3893 seen minus 2374 filtered");
	/* perf report leaves what --cpu and --time drop out of its totals, but not what --comm drops */
	uint64_t range;

	count_armv7_range(&f, NULL, &range);
	is_int(range, 2374, "-C 1: the 2374 filtered are out of range");
	f.comms = "Compositor,perf";
	count_armv7_range(&f, NULL, &range);
	is_int(range, 2374, "-C 1 --comm Compositor,perf: still 2374 out of range, the comm's not");
	memset(&f, 0, sizeof(f));
	f.comms = "Compositor,perf";
	count_armv7_range(&f, NULL, &range);
	is_int(range, 0, "--comm Compositor,perf: nothing out of range");
	f.comms = NULL;
	f.time = "90.5,";
	count_armv7_range(&f, NULL, &range);
	is_int(range, 3893 - 2055, "--time 90.5,: the 1838 before it are out of range");
}

static int filtered_cb(void *ctx, const struct pk_rsample *rs)
{
	uint64_t *n = ctx;

	n[rs->filtered ? 1 : 0]++;
	return 0;
}

/* deliver_filtered: the samples --comm drops come marked, those --time drops do not come. */
static void test_deliver_filtered(void)
{
	struct pk_session_opts o = { .sz = sizeof(o), .ordered = 1, .deliver_filtered = 1 };
	struct pk_session *ss;
	struct pk_diag d;
	uint64_t n[2] = { 0, 0 };
	char path[4200];

	o.filter.comms = "Compositor,perf";
	o.filter.time = "90.5,";
	pk_diag_init(&d);
	if (!ok(!pk_session_open(corpus("quipper/perf.data.armv7-3.4", path, sizeof(path)), &o, &ss, &d),
		"deliver_filtered: opens"))
		return;
	is_int(pk_session_run(ss, filtered_cb, NULL, n, &d), 0, "deliver_filtered: runs");
	pk_session_close(ss);
	is_int(n[0] + n[1], 2055, "deliver_filtered: the 2055 samples in --time 90.5, come (perf's count)");
	is_int(n[0], count_armv7(&o.filter, NULL),
	       "deliver_filtered: unmarked, those both filters pass (as without deliver_filtered)");
	ok(n[0] > 0 && n[1] > 0, "deliver_filtered: some of each (%llu kept, %llu marked)",
	   (unsigned long long)n[0], (unsigned long long)n[1]);
}

static int period_cb(void *ctx, const struct pk_rsample *rs)
{
	uint64_t *sum = ctx;

	sum[rs->evsel->idx == 0 ? 0 : 1] += rs->period;
	return 0;
}

/*
 * busy.1-3.8 was recorded with -c 1000000 and no PERIOD in the samples: each
 * sample stands for attr.sample_period, as perf 6.1's evsel__parse_sample has
 * it ("# Event count (approx.): 3860000000" for 3860 cycles samples).
 */
static void test_fixed_period(void)
{
	struct pk_session_opts o = { .sz = sizeof(o), .ordered = 1 };
	struct pk_session *ss;
	struct pk_diag d;
	uint64_t sum[2] = { 0, 0 };
	char path[4200];

	pk_diag_init(&d);
	if (pk_session_open(corpus("quipper/perf.data.busy.1-3.8", path, sizeof(path)), &o, &ss, &d)) {
		ok(0, "busy.1-3.8 opens: %s", d.msg);
		return;
	}
	is_int(pk_session_run(ss, period_cb, NULL, sum, &d), 0, "busy.1-3.8 reads");
	is_int(pk_session_counts(ss, 0)->nr_samples, 3860, "busy.1-3.8: 3860 cycles samples like perf");
	is_int(sum[0], 3860ull * 1000000, "each weighs attr.sample_period (perf: 3860000000)");
	pk_session_close(ss);
}

static void test_fields(void)
{
	struct pk_diag d;
	uint32_t f;
	int type, mode;

	pk_diag_init(&d);
	is_int(pk_script_parse_fields("comm,tid,time,ip", &type, &f, &mode, &d), 0, "-F: plain list");
	ok(f == (PK_SF_COMM | PK_SF_TID | PK_SF_TIME | PK_SF_IP) && type == -1 && mode == 0,
	   "-F: fields, no type, replace mode");
	pk_script_parse_fields("trace:comm,trace", &type, &f, &mode, &d);
	ok(type == PERF_TYPE_TRACEPOINT && f == (PK_SF_COMM | PK_SF_TRACE), "-F: trace: prefix");
	pk_script_parse_fields("+period,+cpu", &type, &f, &mode, &d);
	ok(mode == '+' && f == (PK_SF_PERIOD | PK_SF_CPU), "-F: +field adds");
	pk_script_parse_fields("-time", &type, &f, &mode, &d);
	ok(mode == '-' && f == PK_SF_TIME, "-F: -field removes");
	is_int(pk_script_parse_fields("comm,bogus", &type, &f, &mode, &d), -EINVAL, "-F: unknown field");
	ok(strstr(d.msg, "bogus") != NULL, "-F: message names it");
	is_int(pk_script_parse_fields("comm,+tid", &type, &f, &mode, &d), -EINVAL, "-F: mixing forms");
	is_int(pk_script_parse_fields("xx:comm", &type, &f, &mode, &d), -EINVAL, "-F: unknown type");
}

/* Print a corpus file with perfkit's script into memory. */
static char *script_mem(const char *rel, const char *fields, size_t *len, int *ret)
{
	struct pk_session_opts o = { .sz = sizeof(o), .ordered = 1 };
	struct pk_script_opts so = { .sz = sizeof(so), .fields = fields };
	struct pk_session *ss;
	struct pk_script *sc;
	struct pk_diag d;
	char path[4200], *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	pk_diag_init(&d);
	*ret = pk_session_open(corpus(rel, path, sizeof(path)), &o, &ss, &d);
	if (*ret == 0) {
		*ret = pk_script_new(ss, &so, f, &sc, &d);
		if (*ret == 0) {
			*ret = pk_script_run(sc, &d);
			pk_script_free(sc);
		}
		pk_session_close(ss);
	}
	fclose(f);
	return buf;
}

#define BRANCH_LINE1 "            perf  5805 12631.245939:          1 cycles:ppp:  ffffffffb42071f2 "

static void test_script_output(void)
{
	size_t len;
	int ret;
	char *out = script_mem("quipper/perf.data.armv7-3.4", "comm,tid,time,ip", &len, &ret);
	char *out2;

	is_int(ret, 0, "script armv7: runs");
	/* perf 6.1: perf script -F comm,tid,time,ip -i perf.data.armv7-3.4 | head -2 */
	ok(out && !strncmp(out, "            perf  9622    89.502343:          769eaa68\n"
			   "         swapper     0    89.502700:          803a0cbc\n", 110),
	   "script armv7: first lines byte-identical to perf's");
	{
		size_t lines = 0;

		for (size_t i = 0; out && i < len; i++)
			lines += out[i] == '\n';
		is_int(lines, 3893, "script armv7: 3893 lines like perf");
	}
	free(out);
	out2 = script_mem("quipper/perf.data.armv7-3.4", "comm,cpu,bogus", &len, &ret);
	is_int(ret, -EINVAL, "script: bad field list fails");
	free(out2);
	/* perf: "Samples for 'cycles:ppp' event do not have CPU attribute set" on this file */
	out2 = script_mem("quipper/perf.data.branch-4.14", "comm,cpu", &len, &ret);
	is_int(ret, -EINVAL, "script branch-4.14: -F cpu without PERF_SAMPLE_CPU is an error like perf");
	free(out2);
	/* ... but a default field the event lacks is dropped: the default output works */
	out2 = script_mem("quipper/perf.data.branch-4.14", NULL, &len, &ret);
	/* perf 6.1: perf script -i perf.data.branch-4.14 | head -1 (symbol part left out) */
	ok(ret == 0 && out2 && !strncmp(out2, BRANCH_LINE1, strlen(BRANCH_LINE1)),
	   "script branch-4.14: default fields drop cpu, line start like perf's");
	free(out2);
}

static void test_corrupt(void)
{
	struct pk_session_opts o = { .sz = sizeof(o), .ordered = 1 };
	struct pk_session *ss;
	struct pk_diag d;
	char path[4200];
	uint64_t n = 0;
	int ret;

	pk_diag_init(&d);
	ret = pk_session_open(corpus("quipper/perf.data.piped.corrupted.zero_size_sample-3.2", path,
				     sizeof(path)), &o, &ss, &d);
	if (ret == 0) {
		ret = pk_session_run(ss, count_cb, NULL, &n, &d);
		pk_session_close(ss);
	}
	is_int(ret, -EBADMSG, "zero-size record: -EBADMSG");
	is_int(d.offset, 49104, "zero-size record: offset 49104 (SOURCES.md)");
	pk_diag_init(&d);
	ret = pk_session_open(corpus("simpleperf/invalid_perf.data", path, sizeof(path)), &o, &ss, &d);
	ok(ret < 0 && d.offset != PK_NO_OFFSET, "zero-filled file rejected with an offset");
}

int main(void)
{
	char probe[4200];

	test_callchain();
	test_filter_parse();
	test_fields();
	if (access(corpus("quipper/perf.data.armv7-3.4", probe, sizeof(probe)), R_OK) == 0) {
		test_filters_vs_perf();
		test_deliver_filtered();
		test_fixed_period();
		test_script_output();
		test_corrupt();
	} else {
		diag("shared corpus not found under %s: corpus tests skipped", shared_dir());
	}
	return done_testing();
}
