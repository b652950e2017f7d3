/*
 * Unit tests for lib/counter's arithmetic: read_format decoding of synthetic
 * read(2) buffers (every format, truncations, hostile group sizes), scaling
 * and multiplexing (time_running == 0, run < ena, multiplexed groups),
 * deltas, repeat statistics, every perf stat metric rule, and the mmap-page
 * seqlock reader on a simulated page. test_counter_kernel.c opens counters
 * for real.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/counter.h>
#include "../tap.h"

#define RF_TE PERF_FORMAT_TOTAL_TIME_ENABLED
#define RF_TR PERF_FORMAT_TOTAL_TIME_RUNNING
#define RF_ID PERF_FORMAT_ID
#define RF_LOST PERF_FORMAT_LOST
#define RF_GROUP PERF_FORMAT_GROUP
#include "counter_fixture.h"

/* ---- read_format decoding ------------------------------------------------ */

/* Fill @buf as the kernel would for @fmt with @nr counters; returns the byte length. */
static size_t make_read(uint64_t fmt, uint64_t *buf, uint64_t nr, uint64_t ena, uint64_t run)
{
	size_t w = 0;
	uint64_t i;

	if (fmt & RF_GROUP)
		buf[w++] = nr;
	else
		buf[w++] = 100;
	if (fmt & RF_TE)
		buf[w++] = ena;
	if (fmt & RF_TR)
		buf[w++] = run;
	for (i = 0; i < ((fmt & RF_GROUP) ? nr : 1); i++) {
		if (fmt & RF_GROUP)
			buf[w++] = 100 * (i + 1);
		if (fmt & RF_ID)
			buf[w++] = 70 + i;
		if (fmt & RF_LOST)
			buf[w++] = 5 + i;
	}
	return w * sizeof(uint64_t);
}

static void test_read_format(void)
{
	uint64_t buf[64], ids[4];
	struct pk_counts out[4];
	uint64_t f;

	for (f = 0; f < 32; f++) {
		uint64_t nr = (f & RF_GROUP) ? 3 : 1, i;
		size_t len = make_read(f, buf, nr, 2000, 1500), cut;
		bool good, trunc_ok = true;
		int n;

		memset(ids, 0, sizeof(ids));
		n = pk_read_format_decode(f, buf, len, out, ids, 4);
		good = n == (int)nr;
		for (i = 0; good && i < nr; i++)
			good = out[i].val == 100 * (i + 1) &&
			       out[i].ena == ((f & RF_TE) ? 2000 : 0) &&
			       out[i].run == ((f & RF_TR) ? 1500 : 0) &&
			       ids[i] == ((f & RF_ID) ? 70 + i : 0) &&
			       out[i].lost == ((f & RF_LOST) ? 5 + i : 0);
		ok(good, "read_format 0x%02llx: %d counts with values, times, ids and lost",
		   (unsigned long long)f, n);
		for (cut = 0; cut < len; cut++)
			if (pk_read_format_decode(f, buf, cut, out, ids, 4) != -EBADMSG)
				trunc_ok = false;
		ok(trunc_ok, "read_format 0x%02llx: every truncation of %zu bytes rejected",
		   (unsigned long long)f, len);
	}
	/* Group sizes the caller has no room for, or that the buffer cannot hold. */
	make_read(RF_GROUP | RF_TE | RF_TR | RF_ID, buf, 3, 1, 1);
	is_int(pk_read_format_decode(RF_GROUP | RF_TE | RF_TR | RF_ID, buf, 9 * 8, out, ids, 2),
	       -EBADMSG, "group nr 3 with room for 2 rejected");
	buf[0] = UINT64_MAX;
	is_int(pk_read_format_decode(RF_GROUP | RF_TE | RF_TR | RF_ID, buf, 9 * 8, out, ids,
				     SIZE_MAX), -EBADMSG, "group nr 2^64-1 rejected");
	buf[0] = 4;
	is_int(pk_read_format_decode(RF_GROUP | RF_TE | RF_TR | RF_ID, buf, 9 * 8, out, ids, 4),
	       -EBADMSG, "group nr 4 in a buffer for 3 rejected");
	buf[0] = 0;
	is_int(pk_read_format_decode(RF_GROUP, buf, 8, out, NULL, 4), 0, "empty group decodes");
	make_read(RF_TE | RF_TR, buf, 1, 5, 5);
	is_int(pk_read_format_decode(RF_TE | RF_TR, buf, 24, out, NULL, 0), -EINVAL,
	       "no room at all is a caller error");
	is_int(pk_read_format_decode(1u << 5, buf, 24, out, NULL, 1), -EINVAL,
	       "unknown read_format bit rejected");
	is_int(pk_read_format_decode(RF_TE | RF_TR, buf, 32, out, NULL, 1), 1,
	       "trailing bytes ignored");
}

/* ---- scaling, deltas, statistics ---------------------------------------- */

static void test_scale(void)
{
	struct pk_counts c = { 1000, 200, 0, 0 }, a = { 50, 70, 60, 9 }, b = { 20, 30, 25, 4 }, d;
	struct pk_counts g[2];
	struct pk_scaled s, s1;
	uint64_t buf[8];
	size_t len;

	pk_counts_scale(&c, &s);
	ok(!s.counted && !s.multiplexed, "time_running 0: not counted");
	c.run = 50;
	pk_counts_scale(&c, &s);
	ok(s.counted && s.multiplexed, "run < ena: multiplexed");
	is_dbl(s.value, 4000, 1e-12, "multiplexed value 1000 * 200 / 50");
	is_dbl(s.pct_running, 25, 1e-12, "multiplexed running 25%%");
	c.run = 200;
	pk_counts_scale(&c, &s);
	ok(s.counted && !s.multiplexed && s.value == 1000 && s.pct_running == 100,
	   "run == ena: raw value, 100%%");
	c = (struct pk_counts){ 7, 0, 0, 0 };
	pk_counts_scale(&c, &s);
	ok(!s.counted && s.pct_running == 100, "ena == 0 and run == 0: not counted, 100%%");
	c = (struct pk_counts){ 7, 0, 5, 0 };
	pk_counts_scale(&c, &s);
	ok(s.counted && !s.multiplexed && s.value == 7, "ena == 0 with run: raw value");

	/* A group of two multiplexed together: running 400 of 1000 ns. */
	len = make_read(RF_GROUP | RF_TE | RF_TR, buf, 2, 1000, 400);
	is_int(pk_read_format_decode(RF_GROUP | RF_TE | RF_TR, buf, len, g, NULL, 2), 2,
	       "multiplexed group decodes");
	pk_counts_scale(&g[0], &s);
	pk_counts_scale(&g[1], &s1);
	ok(s.multiplexed && s1.multiplexed && s.value == 250 && s1.value == 500 &&
	   s.pct_running == 40 && s1.pct_running == 40, "multiplexed group scaled 100->250, 200->500 at 40%%");

	pk_counts_delta(&a, &b, &d);
	ok(d.val == 30 && d.ena == 40 && d.run == 35 && d.lost == 5, "delta field by field");
}

static void test_stats(void)
{
	static const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct pk_stats s = { 0 }, one = { 0 }, zero = { 0 };
	size_t i;

	for (i = 0; i < 8; i++)
		pk_stats_update(&s, v[i]);
	is_dbl(s.mean, 5, 1e-12, "mean of 8 values");
	/* sum of squared deviations 32, variance 32/7, of the mean 32/7/8 = 4/7 */
	is_dbl(pk_stats_stddev_mean(&s), sqrt(4.0 / 7.0), 1e-12, "stddev of the mean sqrt(4/7)");
	is_dbl(pk_stats_rel_pct(&s), 100 * sqrt(4.0 / 7.0) / 5, 1e-12, "relative 15.12%%");
	pk_stats_update(&one, 42);
	ok(pk_stats_stddev_mean(&one) == 0 && one.mean == 42, "one run: no deviation");
	pk_stats_update(&zero, -1);
	pk_stats_update(&zero, 1);
	is_dbl(pk_stats_rel_pct(&zero), 0, 0, "mean 0: relative 0");
}

/* ---- metrics ------------------------------------------------------------- */

#define CACHE_CFG(c, res) (PERF_COUNT_HW_CACHE_##c | (PERF_COUNT_HW_CACHE_OP_READ << 8) | \
			   (PERF_COUNT_HW_CACHE_RESULT_##res << 16))
#define CACHE_EV(c, res, name) mkev(PERF_TYPE_HW_CACHE, CACHE_CFG(c, res), name, 0, 1)

/* Each rule with hand-computed values against the context of test_metrics(). */
static const struct metric_case {
	__u32 type;
	__u64 config;
	const char *name;
	double value, want;
	const char *unit;
	bool pct;
	const char *fmt;    /* perf 6.1's format after '#' */
} metric_cases[] = {
#define SWC(c) PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c
#define HWC(c) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c
#define CAC(c, r) PERF_TYPE_HW_CACHE, CACHE_CFG(c, r)
	{ SWC(TASK_CLOCK), "task-clock", 2e6, 0.5, "CPUs utilized", false, "%8.3f" },
	{ SWC(CPU_CLOCK), "cpu-clock", 3e6, 0.75, "CPUs utilized", false, "%8.3f" },
	{ HWC(CPU_CYCLES), "cycles", 3e6, 1.5, "GHz", false, "%8.3f" },
	{ HWC(INSTRUCTIONS), "instructions", 6e6, 2.0, "insn per cycle", false, "%7.2f " },
	{ HWC(BRANCH_MISSES), "branch-misses", 50, 5.0, "of all branches", true, "%7.2f%%" },
	{ HWC(CACHE_MISSES), "cache-misses", 100, 25.0, "of all cache refs", true, "%8.3f %%" },
	{ CAC(L1D, MISS), "L1-dcache-load-misses", 8, 1.0, "of all L1-dcache accesses", true,
	  "%7.2f%%" },
	{ CAC(L1I, MISS), "L1-icache-load-misses", 20, 10.0, "of all L1-icache accesses", true,
	  "%7.2f%%" },
	{ CAC(LL, MISS), "LLC-load-misses", 5, 10.0, "of all LL-cache accesses", true,
	  "%7.2f%%" },
	{ CAC(DTLB, MISS), "dTLB-load-misses", 1, 0.05, "of all dTLB cache accesses", true,
	  "%7.2f%%" },
	{ CAC(ITLB, MISS), "iTLB-load-misses", 25, 10.0, "of all iTLB cache accesses", true,
	  "%7.2f%%" },
	{ HWC(STALLED_CYCLES_FRONTEND), "stalled-cycles-frontend", 3e5, 10.0,
	  "frontend cycles idle", true, "%7.2f%%" },
	{ HWC(STALLED_CYCLES_BACKEND), "stalled-cycles-backend", 6e5, 20.0,
	  "backend cycles idle", true, "%7.2f%%" },
	/* Rates per second of task-clock (2 ms): perf's K/M/G thresholds are strict. */
	{ SWC(PAGE_FAULTS), "page-faults", 152.88, 76.44, "K/sec", false, "%8.3f" },
	{ SWC(CONTEXT_SWITCHES), "cs", 0, 0, "/sec", false, "%8.3f" },
	{ SWC(CONTEXT_SWITCHES), "cs", 2, 1000, "/sec", false, "%8.3f" },
	{ SWC(CONTEXT_SWITCHES), "cs", 2000, 1000, "K/sec", false, "%8.3f" },
	{ SWC(CPU_MIGRATIONS), "migrations", 5000, 2.5, "M/sec", false, "%8.3f" },
	{ SWC(CPU_MIGRATIONS), "migrations", 2e6, 1000, "M/sec", false, "%8.3f" },
	{ PERF_TYPE_TRACEPOINT, 42, "sched:x", 4e6, 2.0, "G/sec", false, "%8.3f" },
#undef SWC
#undef HWC
#undef CAC
};

static void ctx_add(struct pk_metric_ctx *m, struct pk_event ev, double value)
{
	pk_metric_ctx_add(m, &ev, value);
}

static void test_metrics(void)
{
	struct pk_metric_ctx m = { .wall_ns = 4e6 }, none = { .wall_ns = 0 };
	struct pk_event cyc_u = HW(CPU_CYCLES, "cycles:u", 0, 1);
	bool none_ok = true;
	size_t i;

	cyc_u.attr.exclude_kernel = 1;
	ctx_add(&m, SW(TASK_CLOCK, "task-clock", 0, 1), 1.5e6);
	ctx_add(&m, SW(CPU_CLOCK, "cpu-clock", 0, 1), 0.5e6);
	ctx_add(&m, cyc_u, 3e6);
	ctx_add(&m, HW(INSTRUCTIONS, "instructions", 0, 1), 6e6);
	ctx_add(&m, HW(BRANCH_INSTRUCTIONS, "branches", 0, 1), 1000);
	ctx_add(&m, HW(CACHE_REFERENCES, "cache-references", 0, 1), 400);
	ctx_add(&m, HW(STALLED_CYCLES_FRONTEND, "sf", 0, 1), 1);
	ctx_add(&m, HW(STALLED_CYCLES_BACKEND, "sb", 0, 1), 2);
	ctx_add(&m, CACHE_EV(L1D, ACCESS, "L1-dcache-loads"), 800);
	ctx_add(&m, CACHE_EV(L1I, ACCESS, "L1-icache-loads"), 200);
	ctx_add(&m, CACHE_EV(LL, ACCESS, "LLC-loads"), 50);
	ctx_add(&m, CACHE_EV(DTLB, ACCESS, "dTLB-loads"), 2000);
	ctx_add(&m, CACHE_EV(ITLB, ACCESS, "iTLB-loads"), 250);
	ctx_add(&m, SW(PAGE_FAULTS, "page-faults", 0, 1), 99);
	ok(m.task_clock_ns == 2e6 && m.cycles == 3e6 && m.instructions == 6e6 &&
	   m.branches == 1000 && m.cache_refs == 400 && m.stalled_front == 1 &&
	   m.stalled_back == 2 && m.l1d_loads == 800 && m.l1i_loads == 200 &&
	   m.llc_loads == 50 && m.dtlb_loads == 2000 && m.itlb_loads == 250,
	   "context collects clocks (task + cpu), cycles:u, and every access count");

	for (i = 0; i < sizeof(metric_cases) / sizeof(metric_cases[0]); i++) {
		const struct metric_case *t = &metric_cases[i];
		struct pk_event ev = mkev(t->type, t->config, t->name, 0, 1);
		struct pk_metric out = { 0 };
		bool got = pk_metric_compute(&m, &ev, t->value, &out);

		ok(got && out.unit && !strcmp(out.unit, t->unit) && !!strstr(out.fmt, "%%") == t->pct &&
		   !strcmp(out.fmt, t->fmt) && fabs(out.value - t->want) <= 1e-9 * fabs(t->want),
		   "%s %g: %.3f %s", t->name, t->value, t->want, t->unit);
		if (got && out.unit && strcmp(out.unit, t->unit))
			diag("got %.6f '%s'", out.value, out.unit);
		/*
		 * Zero wall time, clocks, cycles and access counts: no metric at all,
		 * but the unit perf's JSON names: the ratio's ("Ghz" for cycles), none
		 * for a rate.
		 */
		if (pk_metric_compute(&none, &ev, t->value, &out)) {
			diag("%s: metric with zero denominators", t->name);
			none_ok = false;
		} else if (strstr(t->unit, "/sec") ? out.unit != NULL :
			   !out.unit || strcmp(out.unit, t->config == PERF_COUNT_HW_CPU_CYCLES &&
					   t->type == PERF_TYPE_HARDWARE ? "Ghz" : t->unit)) {
			diag("%s: unit without denominator '%s'", t->name, out.unit ? out.unit : "NULL");
			none_ok = false;
		}
	}
	ok(none_ok, "zero denominators: no metric for any rule, perf's JSON unit");

	/* perf's second line under instructions: the larger stalled count per instruction */
	{
		struct pk_event insn = HW(INSTRUCTIONS, "instructions", 0, 1);
		struct pk_metric out = { 0 };

		ok(pk_metric_extra(&m, &insn, 6e6, &out) && fabs(out.value - 2 / 6e6) < 1e-15 &&
		   !strcmp(out.unit, "stalled cycles per insn") && !strcmp(out.fmt, "%7.2f "),
		   "stalled cycles per insn: max(1, 2) / 6e6");
		ok(!pk_metric_extra(&none, &insn, 6e6, &out), "no stalled cycles: no second line");
		ok(!pk_metric_extra(&m, &insn, 0, &out), "no instructions: no second line");
		ok(!pk_metric_extra(&m, &cyc_u, 6e6, &out), "only under instructions");
	}
}

/* ---- the mmap page reader ------------------------------------------------- */

static struct perf_event_mmap_page page;
static uint64_t fake_pmc, fake_tsc;
static uint32_t rdpmc_index, rdpmc_calls, bump_lock;

static uint64_t fake_rdpmc(uint32_t index)
{
	rdpmc_index = index;
	rdpmc_calls++;
	if (bump_lock) {
		/* The kernel updated the page while we were reading it. */
		bump_lock--;
		page.lock += 2;
		page.offset = 5000;
	}
	return fake_pmc;
}

static uint64_t fake_rdtsc(void)
{
	return fake_tsc;
}

static void page_setup(void)
{
	memset(&page, 0, sizeof(page));
	page.lock = 10;
	page.index = 3;
	page.offset = 1000;
	page.time_enabled = 5000;
	page.time_running = 4000;
	page.cap_user_rdpmc = 1;
	page.pmc_width = 48;
	fake_pmc = 0;
	rdpmc_calls = 0;
	bump_lock = 0;
}

static void page_time(uint16_t shift, uint32_t mult, uint64_t offset, uint64_t tsc)
{
	page.cap_user_time = 1;
	page.time_shift = shift;
	page.time_mult = mult;
	page.time_offset = offset;
	fake_tsc = tsc;
}

static void test_mmap_page(void)
{
	struct pk_counts c;
	int err;

	page_setup();
	err = pk_mmap_page_read(&page, &c, fake_rdpmc, fake_rdtsc);
	ok(!err && c.val == 1000 && c.ena == 5000 && c.run == 4000 && rdpmc_index == 2,
	   "offset only: 1000, times from the page, rdpmc(index - 1)");
	fake_pmc = 0xfffffffffff0ull; /* -16 in 48 bits */
	err = pk_mmap_page_read(&page, &c, fake_rdpmc, fake_rdtsc);
	ok(!err && c.val == 984, "rdpmc sign-extended from 48 bits: 1000 - 16 = %llu",
	   (unsigned long long)c.val);
	fake_pmc = 0xffff00000000abcdull; /* bits above the width are ignored */
	err = pk_mmap_page_read(&page, &c, fake_rdpmc, fake_rdtsc);
	ok(!err && c.val == 1000 + 0xabcd, "rdpmc bits above pmc_width dropped");

	/* cyc 2000, shift 10, mult 512: 1*512 + (976*512 >> 10) = 1000 ns, offset -400. */
	page_setup();
	page_time(10, 512, (uint64_t)-400, 2000);
	err = pk_mmap_page_read(&page, &c, fake_rdpmc, fake_rdtsc);
	ok(!err && c.ena == 5600 && c.run == 4600, "cap_user_time: times advanced by 600 ns");
	/* time_short: cyc = 1000 + ((4660 - 1000) & 0xff) = 1076, mult 1 shift 0. */
	page.cap_user_time_short = 1;
	page.time_cycles = 1000;
	page.time_mask = 0xff;
	page_time(0, 1, 0, 4660);
	err = pk_mmap_page_read(&page, &c, fake_rdpmc, fake_rdtsc);
	ok(!err && c.ena == 6076 && c.run == 5076, "cap_user_time_short: 1076 cycles wrapped");

	page_setup();
	page.index = 0;
	is_int(pk_mmap_page_read(&page, &c, fake_rdpmc, fake_rdtsc), -EAGAIN,
	       "index 0 (not on a counter): EAGAIN");
	page_setup();
	page.cap_user_rdpmc = 0;
	is_int(pk_mmap_page_read(&page, &c, fake_rdpmc, fake_rdtsc), -EAGAIN,
	       "no cap_user_rdpmc: EAGAIN");
	page_setup();
	bump_lock = 1;
	fake_pmc = 7;
	err = pk_mmap_page_read(&page, &c, fake_rdpmc, fake_rdtsc);
	ok(!err && rdpmc_calls == 2 && c.val == 5007, "lock changed during the read: retried, "
	   "fresh offset used (%u reads)", rdpmc_calls);
}

int main(void)
{
	test_read_format();
	test_scale();
	test_stats();
	test_metrics();
	test_mmap_page();
	return done_testing();
}
