/*
 * perfkit report against perf report on -g's value and print limit: a
 * written file whose call chains have periods that order a node's children
 * otherwise than their sample counts do (one sample of period 100 under
 * one caller, four of 5 under another), so that "-g count" and "-g period"
 * print other numbers than the percentages, in perf's order by period;
 * fractal thresholds that leave "[...]" with the samples of the children
 * they hide; print limits that cut a block's chains, a node's children
 * and the single chain at the top of a graph; and -g address, where two
 * addresses in one function are two nodes, each with its source line; and
 * a frame in crt1.o's _start, where a symbol has no line (perf prints
 * addr2line's "??:0" in reports, nothing in scripts). The
 * oracle is perf itself on the same file. Skips without a usable perf.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfkit/perfdata.h>
#include "../tap.h"
#include "perfdata_write.h"
#include "report_vs_perf.h"

#define PID 4545
#define PROG_BASE 0x560000000000ull
#define NO_FRAME 0

/* Functions of this program, the frames of the chains (their addresses are what matters). */
__attribute__((noinline, used)) static int leaf_a(int x) { return x + 1; }
__attribute__((noinline, used)) static int leaf_c(int x) { return x + 2; }
__attribute__((noinline, used)) static int leaf_d(int x) { return x + 3; }
__attribute__((noinline, used)) static int caller_b(int x) { return leaf_a(x) * 2; }
__attribute__((noinline, used)) static int caller_e(int x) { return leaf_c(x) * 3; }
__attribute__((noinline, used)) static int top(int x) { return caller_b(x) + caller_e(x) + leaf_d(x); }

/* The program's entry (crt1.o's, without line information): a line-less frame. */
extern char _start[];

enum { A, C, D, B, E, TOP, START, NR_FUNCS };

/*
 * Each kind of sample: its chain from the leaf (NO_FRAME ends it), the
 * frames' offsets in their functions, period, and how many. Two kinds
 * differ only in an offset: one node by function, two with -g address.
 */
static const struct {
	int frames[4];
	unsigned offsets[4];
	uint64_t period;
	unsigned count;
} kinds[] = {
	{ { A + 1, B + 1, TOP + 1, NO_FRAME }, { 1, 1, 1 }, 100, 1 },
	{ { C + 1, B + 1, TOP + 1, NO_FRAME }, { 1, 1, 1 }, 10, 6 },
	{ { D + 1, B + 1, TOP + 1, NO_FRAME }, { 1, 1, 1 }, 20, 2 },
	{ { A + 1, E + 1, TOP + 1, NO_FRAME }, { 1, 1, 1 }, 5, 4 },
	{ { C + 1, E + 1, TOP + 1, NO_FRAME }, { 1, 1, 1 }, 1, 3 },
	{ { A + 1, NO_FRAME }, { 1 }, 30, 1 },               /* a leaf without callers */
	{ { C + 1, B + 1, TOP + 1, NO_FRAME }, { 1, 1, 2 }, 7, 2 },   /* another address in top */
	{ { START + 1, NO_FRAME }, { 2 }, 3, 1 },    /* no source line where a symbol is */
};
#define NR_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static uint64_t func_addr[NR_FUNCS];

/* Sample @k of kind @c: IP, TID, TIME, PERIOD, CALLCHAIN (user frames). */
static size_t sample_record(uint64_t *buf, unsigned c, unsigned k)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	size_t w = 1, n = 0;

	while (n < 4 && kinds[c].frames[n] != NO_FRAME)
		n++;
	buf[w++] = func_addr[kinds[c].frames[0] - 1] + kinds[c].offsets[0];
	buf[w++] = (uint64_t)PID << 32 | PID;
	buf[w++] = 1000000 + 1000 * (uint64_t)k;
	buf[w++] = kinds[c].period;
	buf[w++] = n + 1;
	buf[w++] = (uint64_t)PERF_CONTEXT_USER;
	for (size_t i = 0; i < n; i++)
		buf[w++] = func_addr[kinds[c].frames[i] - 1] + kinds[c].offsets[i];
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(w * 8);
	return w * 8;
}

static int write_file(const char *path)
{
	enum { MAX_RECS = 64 };
	static uint64_t recs[MAX_RECS][64];
	static const uint64_t ids[] = { 1 };
	const void *const funcs[NR_FUNCS] = { (const void *)leaf_a, (const void *)leaf_c,
		(const void *)leaf_d, (const void *)caller_b, (const void *)caller_e, (const void *)top,
		_start };
	struct perf_event_attr attr = { 0 };
	struct pk_writer_evsel ev = { .attr = &attr, .name = "cpu-clock", .ids = ids, .nr_ids = 1 };
	size_t lens[MAX_RECS], r = 0;
	unsigned k = 0;
	char self[PATH_MAX];
	Dl_info di;

	if (!realpath("/proc/self/exe", self) || !dladdr((const void *)write_file, &di) || !di.dli_fbase)
		return -1;
	for (unsigned i = 0; i < NR_FUNCS; i++)
		func_addr[i] = PROG_BASE + (uint64_t)((const char *)funcs[i] - (const char *)di.dli_fbase);
	cpu_clock_attr(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_CALLCHAIN);
	lens[r] = comm_record(recs[r], PID, "cgvalue");
	r++;
	lens[r] = mmap_record(recs[r], PID, PID, PROG_BASE, 0x1000000, 0, self);
	r++;
	/* the kinds interleaved, so that no kind's samples come all first */
	for (unsigned round = 0; round < 6; round++)
		for (unsigned c = 0; c < NR_KINDS; c++)
			if (round < kinds[c].count && r < MAX_RECS) {
				lens[r] = sample_record(recs[r], c, k++);
				r++;
			}
	return write_perfdata(path, &ev, 1, recs, lens, r);
}

/* The exit status of `perfkit report --stdio ARGS -i FILE TAIL` (TAIL: redirections and a pipe). */
static int report_sh(const char *perfkit, const char *file, const char *args, const char *tail)
{
	char cmd[1400];
	int rc;

	snprintf(cmd, sizeof(cmd), "'%s' report --stdio %s -i '%s' %s", perfkit, args, file, tail);
	rc = system(cmd);
	return rc == -1 || !WIFEXITED(rc) ? -1 : WEXITSTATUS(rc);
}

/* perf script and perfkit script -F ip,sym,srcline print the same text on @file (in @dir), _start too. */
static int script_srcline_same(const char *perfkit, const char *dir, const char *file)
{
	char cmd[2400];

	snprintf(cmd, sizeof(cmd), "perf script -F ip,sym,srcline -i '%s' >'%s/perf.txt' 2>/dev/null; "
		 "'%s' script -F ip,sym,srcline -i '%s' >'%s/pk.txt' 2>/dev/null; "
		 "cmp -s '%s/perf.txt' '%s/pk.txt' && grep -q ' _start$' '%s/pk.txt'",
		 file, dir, perfkit, file, dir, dir, dir, dir);
	return system(cmd) == 0;
}

int main(void)
{
	static const char *const specs[] = {
		"-g count", "-g period", "-g percent",
		"--no-children -g count", "--no-children -g period",
		"--no-children -g fractal,count", "--no-children -g fractal,period",
		"--no-children -g fractal,30,count",    /* [...] holds the hidden children's samples */
		"--no-children -g fractal,30",
		"-g fractal,0,count", "-g caller,fractal,40,period",
		"--no-children -g flat,count", "--no-children -g flat,period",
		"--no-children -g folded,count", "--no-children -g folded,period", "-g folded,count",
		"--no-children -g graph,0,1",           /* one child of each node */
		"--no-children -g fractal,0,1,count",   /* ... and [...] for the others */
		"--no-children -g caller,0,2",          /* the single chain at the top cut */
		"-g graph,0,2,count", "--no-children -g flat,0,2,count", "--no-children -g folded,0,1",
		"--no-children -g fr,0,1,co",           /* words by prefix, as perf matches them */
		"--no-children -g c,pe,5",
		/* a node per address, with its source line */
		"-g address", "--no-children -g address", "--no-children -g address,caller,count",
		"--no-children -g fractal,address,0,1", "--no-children -g folded,address,period",
		"--no-children -g flat,a",
		/* _start's address: a symbol without a source line ("??:0"; no srcfile) */
		"--no-children --sort sym,srcline -g none", "--no-children --sort srcfile,sym -g none",
	};
	const char *perfkit;
	char dir[] = "/tmp/pk-report-cgvalue.XXXXXX", file[600];

	perfkit = vs_perf_start(dir);
	if (!perfkit)
		return done_testing();
	snprintf(file, sizeof(file), "%s/cgvalue.data", dir);
	if (ok(!write_file(file), "file with chains of unequal periods and counts written"))
		for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++)
			same_rows(perfkit, file, "cgvalue.data", specs[s]);
	/* the counts really differ from the periods: the test could tell them apart */
	ok(report_sh(perfkit, file, "--no-children -g count", "2>/dev/null | grep -q -- '--4--caller_e'") == 0,
	   "-g count prints a node's sample count (caller_e: 4 samples)");
	ok(report_sh(perfkit, file, "--no-children -g period", "2>/dev/null | grep -q -- '--20--caller_e'") == 0,
	   "-g period prints a node's period (caller_e: 20)");
	ok(report_sh(perfkit, file, "--no-children -g address",
		     "2>/dev/null | grep -c -- '--top test_report_cgvalue.c:' | grep -qx 2") == 0,
	   "-g address: two addresses in top are two nodes, with their source lines");
	/* perf script leaves out a srcline of "??:0" (it would print "  test_report_cgvalue[...]") */
	ok(script_srcline_same(perfkit, dir, file), "script -F ip,sym,srcline: perf's text, _start without a line");
	/* sort keys perfkit's call graphs do not have: refused, not ignored */
	ok(report_sh(perfkit, file, "-g srcline",
		     "2>&1 >/dev/null | grep -q \"call-graph sort key 'srcline' is not supported\"") == 0,
	   "-g srcline: says the sort key is not supported");
	ok(report_sh(perfkit, file, "-g srcline", ">/dev/null 2>&1") == 2, "-g srcline: exit status 2");
	ok(report_sh(perfkit, file, "-g graph,0.5,2,x", ">/dev/null 2>&1") == 2,
	   "-g graph,0.5,2,x (a third number or an unknown word): exit status 2");
	rm_tree(dir);
	return done_testing();
}
