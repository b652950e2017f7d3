/*
 * Unit tests for lib/counter: read_format decoding of synthetic read(2)
 * buffers (every format, truncations, hostile group sizes), scaling and
 * multiplexing, deltas, repeat statistics, every perf stat metric rule,
 * the mmap-page seqlock reader on a simulated page, and counters opened
 * for real on forked children, on this process and on CPUs (groups,
 * inherit, unsupported events, vanished threads, unprivileged fallback),
 * plus the /proc and /sys target helpers.
 *
 * The test binary is also its own workload: "test_counter --touch N self|fork"
 * touches N fresh pages (in a forked child with "fork") and exits.
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

/* ---- workload ------------------------------------------------------------ */

static void touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)n * (size_t)page;
	volatile char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		_exit(3);
	madvise((void *)mem, len, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		mem[i * page] = 1;
	munmap((void *)mem, len);
}

static int workload_main(long pages, bool in_child)
{
	pid_t pid;
	int st;

	if (!in_child) {
		touch_pages(pages);
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		touch_pages(pages);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 4;
	return WEXITSTATUS(st);
}

/* ---- helpers ------------------------------------------------------------- */

/* This binary, resolved once (under valgrind /proc/self/exe is the tool). */
static char self_exe[4096];

static struct pk_event mkev(__u32 type, __u64 config, const char *name, int leader, int nr)
{
	struct pk_event e;

	memset(&e, 0, sizeof(e));
	e.attr.type = type;
	e.attr.size = sizeof(e.attr);
	e.attr.config = config;
	e.kind = type == PERF_TYPE_SOFTWARE ? PK_EVENT_SOFTWARE : PK_EVENT_HARDWARE;
	e.name = (char *)name;
	e.leader = leader;
	e.nr_members = nr;
	e.scale = 1.0;
	return e;
}

#define SW(cfg, name, leader, nr) mkev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##cfg, name, leader, nr)
#define HW(cfg, name, leader, nr) mkev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_##cfg, name, leader, nr)
#define LIST(arr) { .ev = (arr), .n = sizeof(arr) / sizeof((arr)[0]), .cap = 0 }

/*
 * Run this binary as a child touching @pages pages (in a grandchild when
 * @grandchild), counting @l on it from its exec with inherit; sums in @out.
 */
static int count_workload(const struct pk_event_list *l, long pages, bool grandchild,
			  struct pk_counts *out, struct pk_diag *d)
{
	PK_OPTS(pk_counter_opts, o, .inherit = true, .enable_on_exec = true);
	struct pk_target t = { .nr_tids = 1 };
	struct pk_counters *c = NULL;
	char arg[32];
	int pfd[2], st, err;
	pid_t pid;
	size_t i;

	snprintf(arg, sizeof(arg), "%ld", pages);
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		char b;

		close(pfd[1]);
		if (read(pfd[0], &b, 1) != 1)
			_exit(126);
		execl(self_exe, "test_counter", "--touch", arg,
		      grandchild ? "fork" : "self", (char *)NULL);
		_exit(127);
	}
	close(pfd[0]);
	t.tids = &pid;
	err = pk_counters_open(&c, l, &t, &o, d);
	if (write(pfd[1], "g", 1) != 1)
		err = err ? err : -EPIPE;
	close(pfd[1]);
	waitpid(pid, &st, 0);
	if (!err)
		err = pk_counters_read(c, d);
	for (i = 0; !err && i < l->n; i++)
		pk_counters_sum(c, i, &out[i]);
	pk_counters_free(c);
	if (!err && (!WIFEXITED(st) || WEXITSTATUS(st)))
		err = -ECHILD;
	return err;
}

/* Run @fn in a forked child and copy back the @sz bytes it leaves in @res. */
static int in_child(void (*fn)(void *res), void *res, size_t sz)
{
	int pfd[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return -errno;
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		fn(res);
		_exit(write(pfd[1], res, sz) == (ssize_t)sz ? 0 : 1);
	}
	close(pfd[1]);
	n = read(pfd[0], res, sz);
	close(pfd[0]);
	waitpid(pid, &st, 0);
	return n == (ssize_t)sz ? 0 : -EIO;
}

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
			buf[w++] = 3;
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
			       ids[i] == ((f & RF_ID) ? 70 + i : 0);
		ok(good, "read_format 0x%02llx: %d counts with values, times and ids",
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
	struct pk_counts c = { 1000, 200, 0 }, a = { 50, 70, 60 }, b = { 20, 30, 25 }, d;
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
	c = (struct pk_counts){ 7, 0, 0 };
	pk_counts_scale(&c, &s);
	ok(!s.counted && s.pct_running == 100, "ena == 0 and run == 0: not counted, 100%%");
	c = (struct pk_counts){ 7, 0, 5 };
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
	ok(d.val == 30 && d.ena == 40 && d.run == 35, "delta field by field");
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
	int prec;
} metric_cases[] = {
#define SWC(c) PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c
#define HWC(c) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c
#define CAC(c, r) PERF_TYPE_HW_CACHE, CACHE_CFG(c, r)
	{ SWC(TASK_CLOCK), "task-clock", 2e6, 0.5, "CPUs utilized", false, 3 },
	{ SWC(CPU_CLOCK), "cpu-clock", 3e6, 0.75, "CPUs utilized", false, 3 },
	{ HWC(CPU_CYCLES), "cycles", 3e6, 1.5, "GHz", false, 3 },
	{ HWC(INSTRUCTIONS), "instructions", 6e6, 2.0, "insn per cycle", false, 2 },
	{ HWC(BRANCH_MISSES), "branch-misses", 50, 5.0, "of all branches", true, 2 },
	{ HWC(CACHE_MISSES), "cache-misses", 100, 25.0, "of all cache refs", true, 2 },
	{ CAC(L1D, MISS), "L1-dcache-load-misses", 8, 1.0, "of all L1-dcache accesses", true, 2 },
	{ CAC(L1I, MISS), "L1-icache-load-misses", 20, 10.0, "of all L1-icache accesses", true, 2 },
	{ CAC(LL, MISS), "LLC-load-misses", 5, 10.0, "of all LL-cache accesses", true, 2 },
	{ CAC(DTLB, MISS), "dTLB-load-misses", 1, 0.05, "of all dTLB cache accesses", true, 2 },
	{ CAC(ITLB, MISS), "iTLB-load-misses", 25, 10.0, "of all iTLB cache accesses", true, 2 },
	{ HWC(STALLED_CYCLES_FRONTEND), "stalled-cycles-frontend", 3e5, 10.0,
	  "frontend cycles idle", true, 2 },
	{ HWC(STALLED_CYCLES_BACKEND), "stalled-cycles-backend", 6e5, 20.0,
	  "backend cycles idle", true, 2 },
	/* Rates per second of task-clock (2 ms): perf's K/M/G thresholds are strict. */
	{ SWC(PAGE_FAULTS), "page-faults", 152.88, 76.44, "K/sec", false, 3 },
	{ SWC(CONTEXT_SWITCHES), "cs", 0, 0, "/sec", false, 3 },
	{ SWC(CONTEXT_SWITCHES), "cs", 2, 1000, "/sec", false, 3 },
	{ SWC(CONTEXT_SWITCHES), "cs", 2000, 1000, "K/sec", false, 3 },
	{ SWC(CPU_MIGRATIONS), "migrations", 5000, 2.5, "M/sec", false, 3 },
	{ SWC(CPU_MIGRATIONS), "migrations", 2e6, 1000, "M/sec", false, 3 },
	{ PERF_TYPE_TRACEPOINT, 42, "sched:x", 4e6, 2.0, "G/sec", false, 3 },
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

		ok(got && out.unit && !strcmp(out.unit, t->unit) && out.percent == t->pct &&
		   out.precision == t->prec && fabs(out.value - t->want) <= 1e-9 * fabs(t->want),
		   "%s %g: %.3f %s", t->name, t->value, t->want, t->unit);
		if (got && out.unit && strcmp(out.unit, t->unit))
			diag("got %.6f '%s'", out.value, out.unit);
		/* Zero wall time, clocks, cycles and access counts: no metric at all. */
		if (pk_metric_compute(&none, &ev, t->value, &out)) {
			diag("%s: metric with zero denominators", t->name);
			none_ok = false;
		}
	}
	ok(none_ok, "zero denominators: no metric for any rule");
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

/* ---- counters on real children ------------------------------------------ */

#define PAGES 4000L

/* Page faults of the exec'd workload beyond the pages it touches (loader, libc, sanitizers). */
#define STARTUP_FAULTS 20000

/* page-faults of the same workload as Linux perf counts them, or -1 without perf. */
static long long perf_oracle_faults(long pages)
{
	char cmd[4200], line[256];
	long long v = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "perf stat -x, -e page-faults -- '%s' --touch %ld self "
		 "2>&1 >/dev/null", self_exe, pages);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (strstr(line, ",page-faults,"))
			v = atoll(line);
	pclose(p);
	return v;
}

static void test_child_counts(void)
{
	struct pk_event lone[] = { SW(TASK_CLOCK, "task-clock", 0, 1),
				   SW(PAGE_FAULTS, "page-faults", 1, 1) };
	struct pk_event group[] = { SW(TASK_CLOCK, "task-clock", 0, 2),
				    SW(PAGE_FAULTS, "page-faults", 0, 0) };
	struct pk_event_list ll = LIST(lone), gl = LIST(group);
	struct pk_counts a[2] = { 0 }, b[2] = { 0 }, g[2] = { 0 };
	struct pk_diag d;
	long long oracle;
	int err;

	pk_diag_init(&d);
	err = count_workload(&ll, PAGES, false, a, &d);
	ok(!err, "lone task-clock, page-faults on an exec'd child (%s)", d.msg);
	ok(a[0].val > 0 && a[0].run > 0 && a[0].run == a[0].ena,
	   "task-clock counted: %llu ns", (unsigned long long)a[0].val);
	ok(a[1].val >= PAGES && a[1].val < PAGES + STARTUP_FAULTS,
	   "page-faults %llu >= %ld touched pages and plausible", (unsigned long long)a[1].val,
	   PAGES);

	oracle = perf_oracle_faults(PAGES);
	if (oracle < 0)
		diag("perf not usable here: no oracle for page-faults");
	else
		ok(llabs(oracle - (long long)a[1].val) <= PAGES / 50 + 50,
		   "page-faults %llu match perf stat's %lld", (unsigned long long)a[1].val, oracle);

	pk_diag_init(&d);
	err = count_workload(&gl, PAGES, false, g, &d);
	ok(!err, "group {task-clock,page-faults} with inherit on a child (%s)", d.msg);
	ok(g[0].val > 0 && g[0].run > 0 && g[0].ena == g[1].ena && g[0].run == g[1].run,
	   "group read: one time pair for both members");
	ok(llabs((long long)g[1].val - (long long)a[1].val) <= PAGES / 50 + 50,
	   "group page-faults %llu match lone %llu", (unsigned long long)g[1].val,
	   (unsigned long long)a[1].val);

	pk_diag_init(&d);
	err = count_workload(&gl, PAGES, true, b, &d);
	ok(!err && b[1].val >= PAGES && b[1].val < 2 * PAGES + STARTUP_FAULTS,
	   "inherit: group counts the forked grandchild's %llu page-faults",
	   (unsigned long long)b[1].val);
}

static int open_self(struct pk_counters **c, struct pk_event *evs, size_t n,
		     bool disabled, struct pk_diag *d)
{
	PK_OPTS(pk_counter_opts, o, .start_disabled = disabled);
	struct pk_event_list l = { .ev = evs, .n = n };
	static pid_t self;
	struct pk_target t = { .tids = &self, .nr_tids = 1 };

	self = getpid();
	pk_diag_init(d);
	return pk_counters_open(c, &l, &t, &o, d);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Burn 2 ms of this thread's CPU time; counters see at least half of it. */
#define SPIN_NS 2000000
static void spin(void)
{
	uint64_t end = thread_cpu_ns() + SPIN_NS;

	while (thread_cpu_ns() < end)
		;
}

static void test_unsupported(void)
{
	struct pk_event lone[] = { HW(CPU_CYCLES, "cycles", 0, 1),
				   SW(TASK_CLOCK, "task-clock", 1, 1) };
	struct pk_event badlead[] = { HW(CPU_CYCLES, "cycles", 0, 2),
				      SW(PAGE_FAULTS, "page-faults", 0, 0) };
	struct pk_event member[] = { SW(TASK_CLOCK, "task-clock", 0, 3),
				     HW(CPU_CYCLES, "cycles", 0, 0),
				     SW(PAGE_FAULTS, "page-faults", 0, 0) };
	struct pk_counters *c = NULL;
	struct pk_counts s;
	struct pk_diag d;
	int err;

	err = open_self(&c, lone, 2, false, &d);
	ok(!err, "cycles and task-clock open (%s)", d.msg);
	if (err)
		return;
	if (pk_counters_supported(c, 0)) {
		diag("this machine counts cycles: unsupported-event checks skipped");
		pk_counters_free(c);
		return;
	}
	spin();
	ok(!pk_counters_read(c, &d), "read with an unsupported event");
	pk_counters_sum(c, 0, &s);
	ok(!pk_counters_supported(c, 0) && s.val == 0 && s.run == 0,
	   "cycles not supported, reads zero");
	pk_counters_sum(c, 1, &s);
	ok(pk_counters_supported(c, 1) && s.val > 0 && s.run > 0, "task-clock still counts");
	pk_counters_free(c);

	err = open_self(&c, badlead, 2, false, &d);
	ok(err == -EOPNOTSUPP && !strcmp(d.subject, "cycles") && !c,
	   "group led by unsupported cycles fails: '%s': %s", d.subject, d.msg);

	err = open_self(&c, member, 3, false, &d);
	ok(!err, "group with an unsupported member opens (%s)", d.msg);
	if (err)
		return;
	spin();
	ok(!pk_counters_read(c, &d), "read the broken group");
	ok(pk_counters_supported(c, 0) && !pk_counters_supported(c, 1) &&
	   pk_counters_supported(c, 2), "only the member cycles is not supported");
	ok(pk_counters_get(c, 0, 0)->run == 0 && pk_counters_get(c, 2, 0)->run == 0,
	   "rest of the group not counted");
	pk_counters_free(c);
}

static void test_self_ioctls(void)
{
	struct pk_event ev[] = { SW(TASK_CLOCK, "task-clock", 0, 2),
				 SW(PAGE_FAULTS, "page-faults", 0, 0) };
	struct pk_event bad[] = { SW(TASK_CLOCK, "task-clock", 1, 1),
				  SW(PAGE_FAULTS, "page-faults", 1, 1) };
	struct pk_counters *c = NULL;
	struct pk_target both = { .tids = (pid_t[]){ 1 }, .nr_tids = 1,
				  .cpus = (int[]){ 0 }, .nr_cpus = 1 };
	struct pk_event_list l = LIST(ev);
	struct pk_diag d;
	int err;

	err = open_self(&c, ev, 2, true, &d);
	ok(!err && pk_counters_nr_events(c) == 2 && pk_counters_nr_slots(c) == 1,
	   "start_disabled group on this process (%s)", d.msg);
	if (err)
		return;
	spin();
	ok(!pk_counters_read(c, &d) && pk_counters_get(c, 0, 0)->val == 0,
	   "disabled: nothing counted");
	ok(!pk_counters_enable(c), "enable");
	touch_pages(64);
	spin();
	err = pk_counters_read(c, &d);
	ok(!err && pk_counters_get(c, 0, 0)->val >= SPIN_NS / 2 &&
	   pk_counters_get(c, 1, 0)->val >= 64, "enabled: task-clock %llu ns, %llu faults",
	   (unsigned long long)pk_counters_get(c, 0, 0)->val,
	   (unsigned long long)pk_counters_get(c, 1, 0)->val);
	ok(!pk_counters_disable(c) && !pk_counters_reset(c), "disable and reset");
	ok(!pk_counters_read(c, &d) && pk_counters_get(c, 0, 0)->val == 0 &&
	   pk_counters_get(c, 1, 0)->val == 0, "reset zeroes the group");
	ok(pk_counters_get(c, 5, 0)->val == 0 && pk_counters_event(c, 5) == NULL &&
	   !strcmp(pk_counters_event(c, 1)->name, "page-faults"), "accessors and bounds");
	pk_counters_free(c);

	err = open_self(&c, bad, 2, false, &d);
	ok(err == -EINVAL && !c, "leader index pointing forward rejected: %s", d.msg);
	pk_diag_init(&d);
	err = pk_counters_open(&c, &l, &both, NULL, &d);
	ok(err == -EINVAL, "target of threads and CPUs at once rejected: %s", d.msg);
}

static void test_cpu_and_gone(void)
{
	struct pk_event ev[] = { SW(TASK_CLOCK, "task-clock", 0, 1) };
	struct pk_event_list l = LIST(ev);
	pid_t tids[2], dead;
	struct pk_target t = { .tids = tids, .nr_tids = 2 };
	struct pk_counters *c = NULL;
	struct pk_diag d;
	int *cpus = NULL, n, err;

	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	tids[0] = getpid();
	tids[1] = dead;
	pk_diag_init(&d);
	err = pk_counters_open(&c, &l, &t, NULL, &d);
	ok(!err && pk_counters_nr_slots(c) == 2, "exited thread skipped quietly (%s)", d.msg);
	spin();
	ok(c && !pk_counters_read(c, &d) && pk_counters_get(c, 0, 0)->val > 0 &&
	   pk_counters_get(c, 0, 1)->run == 0, "live slot counts, gone slot reads zero");
	pk_counters_free(c);
	c = NULL;
	t.tids = &dead;
	t.nr_tids = 1;
	pk_diag_init(&d);
	err = pk_counters_open(&c, &l, &t, NULL, &d);
	ok(err == -ESRCH && !c, "every thread gone: ESRCH (%s)", d.msg);

	n = pk_cpus_online(&cpus);
	is_int(n, sysconf(_SC_NPROCESSORS_ONLN), "online CPUs");
	if (n > 0) {
		struct pk_target ct = { .cpus = cpus, .nr_cpus = (size_t)n };
		struct pk_counts s;

		pk_diag_init(&d);
		err = pk_counters_open(&c, &l, &ct, NULL, &d);
		ok(!err && pk_counters_nr_slots(c) == (size_t)n, "CPU-wide task-clock (%s)", d.msg);
		spin();
		if (!err) {
			pk_counters_read(c, &d);
			pk_counters_sum(c, 0, &s);
			ok(s.val >= SPIN_NS / 2 && s.run > 0, "CPU-wide sum %llu ns",
			   (unsigned long long)s.val);
		}
		pk_counters_free(c);
	}
	free(cpus);
}

/* ---- permission and descriptor limits, in children ------------------------ */

struct child_res {
	int err, err2, exclude_kernel;
	char name[64], msg[512], hint[256];
};

static void unpriv_child(void *p)
{
	struct child_res *r = p;
	struct pk_event ev[] = { SW(TASK_CLOCK, "task-clock", 0, 1) };
	struct pk_event_list l = LIST(ev);
	pid_t self = getpid();
	int cpu = 0;
	struct pk_target t = { .tids = &self, .nr_tids = 1 };
	struct pk_target ct = { .cpus = &cpu, .nr_cpus = 1 };
	struct pk_counters *c = NULL;
	struct pk_diag d;

	memset(r, 0, sizeof(*r));
	if (setgid(65534) || setuid(65534)) {
		r->err = -999;
		return;
	}
	pk_diag_init(&d);
	r->err = pk_counters_open(&c, &l, &t, NULL, &d);
	if (!r->err) {
		snprintf(r->name, sizeof(r->name), "%s", pk_counters_event(c, 0)->name);
		r->exclude_kernel = pk_counters_event(c, 0)->attr.exclude_kernel;
		pk_counters_free(c);
	}
	pk_diag_init(&d);
	r->err2 = pk_counters_open(&c, &l, &ct, NULL, &d);
	pk_counters_free(c);
	snprintf(r->msg, sizeof(r->msg), "%s", d.msg);
	snprintf(r->hint, sizeof(r->hint), "%s", d.hint);
}

static void emfile_child(void *p)
{
	struct child_res *r = p;
	struct pk_event ev[6];
	struct pk_event_list l = LIST(ev);
	int fd = dup(0), i;
	struct rlimit rl;
	struct pk_counters *c = NULL;
	struct pk_diag d;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < 6; i++)
		ev[i] = SW(TASK_CLOCK, "task-clock", i, 1);
	close(fd);
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = (rlim_t)fd + 2;
	setrlimit(RLIMIT_NOFILE, &rl);
	pk_diag_init(&d);
	r->err = open_self(&c, ev, 6, false, &d);
	pk_counters_free(c);
	snprintf(r->msg, sizeof(r->msg), "%s", d.msg);
	snprintf(r->hint, sizeof(r->hint), "%s", d.hint);
	(void)l;
}

static void test_limits(void)
{
	struct child_res r;
	int paranoid = -1, err;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -1;
		fclose(f);
	}
	err = in_child(emfile_child, &r, sizeof(r));
	ok(!err && r.err == -EMFILE && strstr(r.hint, "ulimit -n"), "EMFILE: %s; %s",
	   r.msg, r.hint);
	if (getuid() != 0 || paranoid < 2) {
		diag("needs root to drop privileges and perf_event_paranoid >= 2 (is %d): "
		     "fallback checks skipped", paranoid);
		return;
	}
	err = in_child(unpriv_child, &r, sizeof(r));
	ok(!err && r.err == 0 &&
	   !strcmp(r.name, "task-clock:u") && r.exclude_kernel,
	   "unprivileged at paranoid %d: falls back to user-only '%s' (%d)", paranoid,
	   r.name, r.err);
	ok((r.err2 == -EACCES || r.err2 == -EPERM) &&
	   strstr(r.msg, "/proc/sys/kernel/perf_event_paranoid is 2") &&
	   strstr(r.msg, "kernel profiling") && strstr(r.hint, "to 1 or run as root"),
	   "unprivileged CPU-wide refused: %s; hint: %s", r.msg, r.hint);
}

/* ---- self-monitoring and system targets ---------------------------------- */

static void test_self_counter(void)
{
	struct pk_event ev = SW(TASK_CLOCK, "task-clock", 0, 1);
	struct pk_self_counter sc;
	struct pk_counts a = { 0 }, b = { 0 };
	struct pk_diag d;
	int err;

	pk_diag_init(&d);
	err = pk_self_counter_open(&sc, &ev, &d);
	ok(!err && sc.fd >= 0 && sc.page, "self counter with its mmap page (%s)", d.msg);
	if (err)
		return;
	err = pk_self_counter_read(&sc, &a);
	spin();
	err |= pk_self_counter_read(&sc, &b);
	ok(!err && b.val > a.val && b.val - a.val >= SPIN_NS / 2 && b.ena >= b.run && b.run > 0,
	   "task-clock self reads increase: %llu -> %llu", (unsigned long long)a.val,
	   (unsigned long long)b.val);
	pk_self_counter_close(&sc);
	ok(sc.fd == -1 && !sc.page && pk_self_counter_read(&sc, &a) == -EBADF, "closed");
}

static pthread_barrier_t barrier;
static pid_t thread_tid;

static void *thread_fn(void *arg)
{
	thread_tid = gettid();
	pthread_barrier_wait(&barrier);
	pthread_barrier_wait(&barrier);
	return arg;
}

static void test_targets(void)
{
	struct pk_cpu_topo topo = { -1, -1, -1 };
	pid_t *tids = NULL, dead;
	pthread_t th;
	bool found = false, sorted = true;
	int n, i, err;

	err = pk_cpu_topology(0, &topo);
	ok(!err && topo.socket >= 0 && topo.die >= 0 && topo.core >= 0,
	   "cpu0 topology: socket %d die %d core %d", topo.socket, topo.die, topo.core);
	ok(pk_cpu_topology(-1, &topo) == -EINVAL && pk_cpu_topology(1 << 20, &topo) == -ENOENT,
	   "topology of a missing CPU fails");

	pthread_barrier_init(&barrier, NULL, 2);
	pthread_create(&th, NULL, thread_fn, NULL);
	pthread_barrier_wait(&barrier);
	n = pk_proc_threads(getpid(), &tids);
	for (i = 0; i < n; i++) {
		found |= tids[i] == thread_tid;
		if (i && tids[i - 1] >= tids[i])
			sorted = false;
	}
	ok(n >= 2 && found && sorted && tids[0] == getpid(),
	   "threads of this process (%d) include the new thread %d, sorted", n, (int)thread_tid);
	free(tids);
	pthread_barrier_wait(&barrier);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&barrier);

	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	ok(pk_proc_threads(dead, &tids) == -ESRCH && !tids, "threads of a gone process: ESRCH");
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc == 4 && !strcmp(argv[1], "--touch"))
		return workload_main(atol(argv[2]), !strcmp(argv[3], "fork"));
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0) {
		skip_all("cannot resolve /proc/self/exe");
		return 0;
	}
	self_exe[n] = '\0';
	test_read_format();
	test_scale();
	test_stats();
	test_metrics();
	test_mmap_page();
	test_child_counts();
	test_unsupported();
	test_self_ioctls();
	test_cpu_and_gone();
	test_limits();
	test_self_counter();
	test_targets();
	return done_testing();
}
