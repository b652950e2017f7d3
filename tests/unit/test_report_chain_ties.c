/*
 * perfkit report's order of call-graph siblings with equal periods against
 * perf report's, on a written file where one caller's callees in one DSO
 * are partly resolved (this program's functions) and partly not (addresses
 * of the same mapping outside every symbol: its ELF header, and past its
 * end). perf lists equal siblings in the order of its callchain tree, which
 * match_chain() orders by symbol start when both frames have a symbol but
 * by their addresses when one lacks it; a symbol's start is relative to its
 * DSO, an address is not. The oracle is perf itself, on graphs whose print
 * limit cuts the equal siblings (which one is shown then depends on the
 * order) and on flat and folded graphs. Skips without a usable perf.
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
#define NR_SAMPLES 24
#define PROG_BASE 0x560000000000ull
#define PROG_LEN 0x1000000ull
#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | \
		     PERF_SAMPLE_CALLCHAIN)

/* Callees of one caller: two of this program's functions, two addresses without a symbol. */
static uint64_t callee(unsigned k, uint64_t base, const void *const *funcs)
{
	switch (k % 4) {
	case 0:
		return PROG_BASE + 0x10;                        /* the ELF header */
	case 1:
		return PROG_BASE + (uint64_t)((const char *)funcs[1] - (const char *)base) + 1;
	case 2:
		return PROG_BASE + PROG_LEN - 0x100;            /* past the file's end */
	default:
		return PROG_BASE + (uint64_t)((const char *)funcs[2] - (const char *)base) + 1;
	}
}

static int write_file(const char *path)
{
	static uint64_t recs[2 + NR_SAMPLES][64];
	static const uint64_t ids[] = { 1 };
	const void *funcs[] = { (const void *)write_file, (const void *)same_rows, (const void *)mmap_record };
	struct perf_event_attr attr;
	struct pk_writer_evsel ev = { .attr = &attr, .name = "cpu-clock", .ids = ids, .nr_ids = 1 };
	size_t lens[2 + NR_SAMPLES];
	char self[PATH_MAX];
	Dl_info di;

	if (!realpath("/proc/self/exe", self) || !dladdr((const void *)write_file, &di) || !di.dli_fbase)
		return -1;
	cpu_clock_attr(&attr, SAMPLE_TYPE);
	lens[0] = comm_record(recs[0], PID, "ties");
	lens[1] = mmap_record(recs[1], PID, PID, PROG_BASE, PROG_LEN, 0, self);
	for (unsigned k = 0; k < NR_SAMPLES; k++) {
		uint64_t *b = recs[2 + k], ip = callee(k, (uint64_t)di.dli_fbase, funcs);

		b[1] = ip;
		b[2] = (uint64_t)PID << 32 | PID;
		b[3] = 1000000 + 1000 * (uint64_t)k;
		b[4] = 1000;                    /* every sample the same period: ties */
		b[5] = 3;
		b[6] = (uint64_t)PERF_CONTEXT_USER;
		b[7] = ip;
		b[8] = PROG_BASE + (uint64_t)((const char *)funcs[0] - (const char *)di.dli_fbase) + 1;
		((struct perf_event_header *)b)->type = PERF_RECORD_SAMPLE;
		((struct perf_event_header *)b)->misc = PERF_RECORD_MISC_USER;
		((struct perf_event_header *)b)->size = 9 * 8;
		lens[2 + k] = 9 * 8;
	}
	return write_perfdata(path, &ev, 1, recs, lens, 2 + NR_SAMPLES);
}

int main(void)
{
	static const char *const args[] = {
		"--children",
		"--children -g graph,0,caller,function,percent --percent-limit 0",
		"--children -g fractal,0.5,2",          /* two lines: which of the four ties shows */
		"--children -g graph,0.5,1",
		"--children -g flat",
		"--children -g folded",
		"--no-children -g caller",
	};
	const char *perfkit;
	char dir[] = "/tmp/pk-report-ties.XXXXXX", file[600];

	perfkit = vs_perf_start(dir);
	if (!perfkit)
		return done_testing();
	snprintf(file, sizeof(file), "%s/ties.data", dir);
	if (ok(!write_file(file), "file with resolved and unresolved callees of one caller written"))
		for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++)
			same_rows(perfkit, file, "ties", args[i]);
	rm_tree(dir);
	return done_testing();
}
