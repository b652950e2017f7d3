/*
 * perfkit report's row order against perf report's on a written file whose
 * call chains hold unresolved addresses 2^63 or more apart (garbage frames
 * of a broken frame-pointer chain). perf compares two unresolved symbols by
 * the signed difference of their addresses, which goes round in a circle for
 * such addresses, so its order comes from how its trees grew, not from a
 * sort (lib/report/collapse_order.c). The oracle is perf itself: the file is
 * written here (no maps, so every frame is unresolved on any machine), and
 * perf report and $PERFKIT report must print the same rows, with and without
 * children, with comm among the keys (perf builds its collapsed tree) and
 * without (it does not); and, as every sample has the same period, their
 * flat and folded call graphs, whose equal hits perf lists in the order its
 * rb-tree received them. Skips without a usable perf.
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

#define PID 4242
#define NR_SAMPLES 40
#define MAX_FRAMES 4
/* IP, TID, TIME, PERIOD and CALLCHAIN */
#define CIRCLE_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | \
			    PERF_SAMPLE_CALLCHAIN)

/* Unresolved addresses on both halves of the circle, and one apart from the rest. */
static const uint64_t addrs[] = {
	0x99cf1df000007fa5ull, 0x56d5e95d5bdf8948ull, 0x00007fff99cf2100ull, 0xc3a1000012345678ull,
	0x2000000000000010ull, 0x0000000000401000ull, 0x6000000000000000ull, 0xa000000000000008ull,
	0x00005598e46e0c00ull, 0xe000000000000040ull,
};
#define NR_ADDRS (sizeof(addrs) / sizeof(addrs[0]))

/*
 * Sample @k of file @f: IP, TID, TIME, PERIOD, then a user call chain of 1 to
 * MAX_FRAMES addresses, drawn by a fixed rule that @f varies.
 */
static size_t sample_record(uint64_t *buf, unsigned f, unsigned k)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	unsigned nf = 1 + (k * 7 + k / 3 + f) % MAX_FRAMES;
	size_t w = 1;

	buf[w++] = addrs[(k * 5 + 3 + f * k / 7) % NR_ADDRS];    /* ip: the leaf */
	buf[w++] = (uint64_t)PID << 32 | PID;        /* tid, pid */
	buf[w++] = 1000000 + 1000 * (uint64_t)k;     /* time */
	buf[w++] = 1000;                             /* period: every sample the same, for ties */
	buf[w++] = nf + 1;
	buf[w++] = (uint64_t)PERF_CONTEXT_USER;
	buf[w++] = buf[1];
	for (unsigned i = 1; i < nf; i++)
		buf[w++] = addrs[(k * 3 + i * (k % 4 + 1) + f * i) % NR_ADDRS];
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(w * 8);
	return w * 8;
}

static int write_file(const char *path, unsigned f)
{
	static uint64_t recs[1 + NR_SAMPLES][64];
	static const uint64_t ids[] = { 1 };
	struct perf_event_attr attr = { 0 };
	struct pk_writer_evsel ev = { .attr = &attr, .name = "cpu-clock", .ids = ids, .nr_ids = 1 };
	size_t lens[1 + NR_SAMPLES];

	cpu_clock_attr(&attr, CIRCLE_SAMPLE_TYPE);
	lens[0] = comm_record(recs[0], PID, "circle");
	for (unsigned k = 0; k < NR_SAMPLES; k++)
		lens[1 + k] = sample_record(recs[1 + k], f, k);
	return write_perfdata(path, &ev, 1, recs, lens, 1 + NR_SAMPLES);
}

/*
 * Two events shown as one group (--group), whose samples take turns: the
 * second event's odd samples have their addresses moved by 0x40, so it has
 * rows the leader lacks. perf's hists__link() puts those into the leader's
 * finished tree one by one, after its own entries, so the order of a
 * circle depends on that too.
 */
static int write_group_file(const char *path, unsigned f)
{
	static uint64_t recs[1 + NR_SAMPLES][64];
	static const uint64_t ids[2][1] = { { 1 }, { 2 } };
	struct perf_event_attr attr[2];
	struct pk_writer_evsel ev[2] = {
		{ .attr = &attr[0], .name = "cpu-clock", .ids = ids[0], .nr_ids = 1 },
		{ .attr = &attr[1], .name = "page-faults", .ids = ids[1], .nr_ids = 1 },
	};
	size_t lens[1 + NR_SAMPLES];
	uint64_t one[64];

	cpu_clock_attr(&attr[0], CIRCLE_SAMPLE_TYPE | PERF_SAMPLE_IDENTIFIER);
	cpu_clock_attr(&attr[1], CIRCLE_SAMPLE_TYPE | PERF_SAMPLE_IDENTIFIER);
	attr[1].config = PERF_COUNT_SW_PAGE_FAULTS;
	lens[0] = comm_record(recs[0], PID, "circle");
	for (unsigned k = 0; k < NR_SAMPLES; k++) {
		uint64_t *b = recs[1 + k];
		size_t len = sample_record(one, f, k), words = len / 8;

		b[0] = one[0];
		b[1] = ids[k % 2][0];                   /* PERF_SAMPLE_IDENTIFIER first */
		memcpy(b + 2, one + 1, len - 8);
		((struct perf_event_header *)b)->size = (uint16_t)(len + 8);
		if (k % 4 == 3) {                       /* ip, then the frames after the context */
			b[2] += 0x40;
			for (size_t w = 8; w < words + 1; w++)
				b[w] += 0x40;
		}
		lens[1 + k] = len + 8;
	}
	return write_perfdata(path, ev, 2, recs, lens, 1 + NR_SAMPLES);
}

/*
 * A file without garbage addresses whose --sort sym comparison is circular
 * all the same: unresolved symbols of two DSOs named around a resolved one
 * ("aaa.so" before this program's name before "zzz.so"). perf compares
 * DSOs inside the symbol key, but not for two unresolved symbols, so
 * zzz.so+0x300 goes before aaa.so+0x500 (address), aaa.so's before this
 * program's function (DSO), and that before zzz.so's (DSO). The resolved
 * frames are this program's own functions, which perf and perfkit read from
 * its symbol table. Every sample has the same period, so rows tie.
 */
static int write_dso_file(const char *path)
{
	static uint64_t recs[4 + NR_SAMPLES][64];
	static const uint64_t ids[] = { 1 };
	const void *funcs[] = { (const void *)write_file, (const void *)same_rows,
				(const void *)mmap_record, (const void *)sample_record };
	struct perf_event_attr attr = { 0 };
	struct pk_writer_evsel ev = { .attr = &attr, .name = "cpu-clock", .ids = ids, .nr_ids = 1 };
	size_t lens[4 + NR_SAMPLES];
	char self[PATH_MAX];
	Dl_info di;
	const uint64_t prog = 0x560000000000ull, aaa = 0x7f1000000000ull, zzz = 0x7f2000000000ull;

	if (!realpath("/proc/self/exe", self) || !dladdr((const void *)write_file, &di) || !di.dli_fbase)
		return -1;
	cpu_clock_attr(&attr, CIRCLE_SAMPLE_TYPE);
	lens[0] = comm_record(recs[0], PID, "circle");
	lens[1] = mmap_record(recs[1], PID, PID, prog, 0x1000000, 0, self);
	lens[2] = mmap_record(recs[2], PID, PID, aaa, 0x100000, 0, "/nonexistent/aaa.so");
	lens[3] = mmap_record(recs[3], PID, PID, zzz, 0x100000, 0, "/nonexistent/zzz.so");
	for (unsigned k = 0; k < NR_SAMPLES; k++) {
		uint64_t *b = recs[4 + k], ip;

		switch (k % 3) {
		case 0:
			ip = prog + (uint64_t)((const char *)funcs[k / 3 % 4] - (const char *)di.dli_fbase) + 1;
			break;
		case 1:
			ip = aaa + 0x500 + 0x40 * (k % 7);
			break;
		default:
			ip = zzz + 0x300 + 0x40 * (k % 5);
			break;
		}
		b[1] = ip;
		b[2] = (uint64_t)PID << 32 | PID;
		b[3] = 1000000 + 1000 * (uint64_t)k;
		b[4] = 1000;
		b[5] = 2;
		b[6] = (uint64_t)PERF_CONTEXT_USER;
		b[7] = ip;
		((struct perf_event_header *)b)->type = PERF_RECORD_SAMPLE;
		((struct perf_event_header *)b)->misc = PERF_RECORD_MISC_USER;
		((struct perf_event_header *)b)->size = 8 * 8;
		lens[4 + k] = 8 * 8;
	}
	return write_perfdata(path, &ev, 1, recs, lens, 4 + NR_SAMPLES);
}

int main(void)
{
	static const char *const args[] = {
		"--children",                           /* comm,dso,sym: two trees */
		"--no-children",
		"--children -g callee",
		"--no-children --sort comm,sym -g none",
		"--children --sort sym",                /* no comm: one tree */
		"--children --sort dso,sym -g none",
		"--no-children --sort sym -g none",
		"--no-children -g flat",                /* flat and folded: ties in perf's insert order */
		"--children -g folded",
		"--children -g flat,0,callee",
	};
	const char *perfkit;
	char dir[] = "/tmp/pk-report-circle.XXXXXX", file[600], label[32];

	perfkit = vs_perf_start(dir);
	if (!perfkit)
		return done_testing();
	/* three files, whose chains found different mistakes of the sorted order */
	for (unsigned f = 3; f <= 9; f += 3) {
		snprintf(file, sizeof(file), "%s/circle%u.data", dir, f);
		snprintf(label, sizeof(label), "file %u", f);
		if (ok(!write_file(file, f), "file %u with circular unresolved addresses written", f))
			for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++)
				same_rows(perfkit, file, label, args[i]);
	}
	for (unsigned f = 3; f <= 6; f += 3) {
		static const char *const group_args[] = {
			"--group -g none",                      /* comm,dso,sym: two trees */
			"--group --sort dso,sym -g none",       /* one tree */
			"--group --sort sym -g none",
			"--group --group-sort-idx 1 --sort dso,sym -g none",
			"--group --no-children -g none",
		};

		snprintf(file, sizeof(file), "%s/group%u.data", dir, f);
		snprintf(label, sizeof(label), "group file %u", f);
		if (ok(!write_group_file(file, f), "group file %u with circular unresolved addresses written", f))
			for (size_t i = 0; i < sizeof(group_args) / sizeof(group_args[0]); i++)
				same_rows(perfkit, file, label, group_args[i]);
	}
	snprintf(file, sizeof(file), "%s/dsos.data", dir);
	if (ok(!write_dso_file(file), "file with unresolved symbols of two DSOs around a resolved one written")) {
		same_rows(perfkit, file, "file 0", "--no-children --sort sym -g none");
		same_rows(perfkit, file, "file 0", "--children --sort sym -g none");
	}
	rm_tree(dir);
	return done_testing();
}
