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
 *
 * Where perf's tree misses an equal entry on its way down (the circle again)
 * and holds one key twice, perf prints that key's row twice, and loops for
 * half an hour on a group row whose member's tree does (ui/hist.c zero-fills
 * 2^32 columns). perf is no oracle there: on such a file, drawn at random,
 * perfkit's rows are checked against the values summed here from the
 * samples written, one row per key.
 */
#include <dlfcn.h>
#include <inttypes.h>
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
#define MAX_SAMPLES 400         /* the file drawn at random */
#define DRAWN_SEED 45           /* one whose member tree perf 6.1 splits a key in */
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
 * Sample @k: IP (@chain[0], the leaf), TID, TIME, PERIOD, then a user call
 * chain of the @nf addresses of @chain.
 */
static size_t put_sample(uint64_t *buf, unsigned k, const uint64_t *chain, unsigned nf)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	size_t w = 1;

	buf[w++] = chain[0];
	buf[w++] = (uint64_t)PID << 32 | PID;        /* tid, pid */
	buf[w++] = 1000000 + 1000 * (uint64_t)k;     /* time */
	buf[w++] = 1000;                             /* period: every sample the same, for ties */
	buf[w++] = nf + 1;
	buf[w++] = (uint64_t)PERF_CONTEXT_USER;
	for (unsigned i = 0; i < nf; i++)
		buf[w++] = chain[i];
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(w * 8);
	return w * 8;
}

/* Sample @k of file @f: a chain of 1 to MAX_FRAMES addresses, by a fixed rule that @f varies. */
static size_t sample_record(uint64_t *buf, unsigned f, unsigned k)
{
	uint64_t chain[MAX_FRAMES];
	unsigned nf = 1 + (k * 7 + k / 3 + f) % MAX_FRAMES;

	chain[0] = addrs[(k * 5 + 3 + f * k / 7) % NR_ADDRS];
	for (unsigned i = 1; i < nf; i++)
		chain[i] = addrs[(k * 3 + i * (k % 4 + 1) + f * i) % NR_ADDRS];
	return put_sample(buf, k, chain, nf);
}

/*
 * Sample @k of the file drawn with seed @f (called for k = 0, 1, ... in
 * turn): as sample_record, every address drawn at random from addrs[].
 */
static size_t drawn_sample_record(uint64_t *buf, unsigned f, unsigned k)
{
	static uint64_t s;
	uint64_t chain[MAX_FRAMES];
	unsigned nf;

	if (k == 0)
		s = 0x9e3779b97f4a7c15ull * (f + 1);
#define DRAW() (s ^= s << 13, s ^= s >> 7, s ^= s << 17, s)
	nf = 1 + DRAW() % MAX_FRAMES;
	for (unsigned i = 0; i < nf; i++)
		chain[i] = addrs[DRAW() % NR_ADDRS];
#undef DRAW
	return put_sample(buf, k, chain, nf);
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
static uint64_t group_recs[1 + MAX_SAMPLES][64];

/* The file of @nr samples drawn by @draw with seed @f; its records stay in group_recs. */
static int write_group_file(const char *path, unsigned f, unsigned nr,
			    size_t (*draw)(uint64_t *buf, unsigned f, unsigned k))
{
	uint64_t (*recs)[64] = group_recs;
	static const uint64_t ids[2][1] = { { 1 }, { 2 } };
	struct perf_event_attr attr[2];
	struct pk_writer_evsel ev[2] = {
		{ .attr = &attr[0], .name = "cpu-clock", .ids = ids[0], .nr_ids = 1 },
		{ .attr = &attr[1], .name = "page-faults", .ids = ids[1], .nr_ids = 1 },
	};
	size_t lens[1 + MAX_SAMPLES];
	uint64_t one[64];

	cpu_clock_attr(&attr[0], CIRCLE_SAMPLE_TYPE | PERF_SAMPLE_IDENTIFIER);
	cpu_clock_attr(&attr[1], CIRCLE_SAMPLE_TYPE | PERF_SAMPLE_IDENTIFIER);
	attr[1].config = PERF_COUNT_SW_PAGE_FAULTS;
	lens[0] = comm_record(recs[0], PID, "circle");
	for (unsigned k = 0; k < nr; k++) {
		uint64_t *b = recs[1 + k];
		size_t len = draw(one, f, k), words = len / 8;

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
	return write_perfdata(path, ev, 2, recs, lens, 1 + nr);
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

/* One key's values in the drawn group file: self and children per event, leader first. */
struct key_sums {
	uint64_t addr, self[2], children[2];
};

static struct key_sums *find_key(struct key_sums *keys, size_t nr_keys, uint64_t addr)
{
	for (size_t i = 0; i < nr_keys; i++)
		if (keys[i].addr == addr)
			return &keys[i];
	return NULL;
}

/* @addr's sums, added zeroed when new */
static struct key_sums *key_of(struct key_sums *keys, size_t *nr_keys, uint64_t addr)
{
	struct key_sums *key = find_key(keys, *nr_keys, addr);

	if (key)
		return key;
	keys[*nr_keys] = (struct key_sums){ .addr = addr };
	return &keys[(*nr_keys)++];
}

/*
 * Sum group_recs' @nr samples by key, as a report sorted by symbol alone
 * counts them: Self is a sample's period at its ip, Children its period at
 * every address of its call chain (the ip first), once per sample.
 */
static size_t sum_keys(unsigned nr, struct key_sums *keys, uint64_t total[2])
{
	size_t nr_keys = 0;

	for (unsigned k = 0; k < nr; k++) {
		const uint64_t *b = group_recs[1 + k];
		int ev = b[1] == 2;                     /* the identifier: 1 leader, 2 member */
		uint64_t period = b[5], seen[MAX_FRAMES + 1];
		size_t nr_seen = 0;

		total[ev] += period;
		key_of(keys, &nr_keys, b[2])->self[ev] += period;
		for (uint64_t i = 0; i < b[6]; i++) {
			uint64_t a = b[7 + i];
			size_t j = 0;

			if (a >= (uint64_t)PERF_CONTEXT_MAX)
				continue;
			while (j < nr_seen && seen[j] != a)
				j++;
			if (j < nr_seen)
				continue;
			seen[nr_seen++] = a;
			key_of(keys, &nr_keys, a)->children[ev] += period;
		}
	}
	return nr_keys;
}

/* "12.34%": @v of @total as perf prints a percentage */
static void percent(char *buf, size_t size, uint64_t v, uint64_t total)
{
	snprintf(buf, size, "%.2f%%", total ? 100.0 * (double)v / (double)total : 0.0);
}

/*
 * perfkit's rows of the drawn file under @args (--group, sort sym) against
 * the sums: one row per key that has a value shown, with these values
 * (@children: Children's two columns, then Self's; else Self's alone).
 */
static void rows_are_sums(const char *perfkit, const char *file, unsigned nr, const char *args, int children)
{
	struct key_sums keys[2 * NR_ADDRS];
	uint64_t total[2] = { 0, 0 };
	size_t nr_keys = sum_keys(nr, keys, total), want = 0, rows = 0, wrong = 0, printed[2 * NR_ADDRS] = { 0 };
	char cmd[1200], line[512], first[600] = "";
	FILE *fp;

	for (size_t i = 0; i < nr_keys; i++)
		want += children || keys[i].self[0] || keys[i].self[1];
	snprintf(cmd, sizeof(cmd), "'%s' report --stdio %s -i '%s' 2>/dev/null", perfkit, args, file);
	fp = popen(cmd, "r");
	if (!fp) {
		ok(0, "drawn file, report %s: perfkit runs", args);
		return;
	}
	while (fgets(line, sizeof(line), fp)) {
		char col[4][16], w[4][16];
		uint64_t addr;
		int n = children ? sscanf(line, "%15s %15s %15s %15s [.] %" SCNx64, col[0], col[1], col[2], col[3], &addr)
				 : sscanf(line, "%15s %15s [.] %" SCNx64, col[0], col[1], &addr);
		struct key_sums *key;
		int ncol = children ? 4 : 2;

		if (line[0] == '#' || n != ncol + 1)
			continue;
		rows++;
		if ((key = find_key(keys, nr_keys, addr))) {
			for (int e = 0; e < 2; e++) {
				percent(w[ncol - 2 + e], sizeof(w[0]), key->self[e], total[e]);
				if (children)
					percent(w[e], sizeof(w[0]), key->children[e], total[e]);
			}
			printed[key - keys]++;
		}
		if (!key || printed[key - keys] > 1 || strcmp(col[0], w[0]) || strcmp(col[1], w[1]) ||
		    (children && (strcmp(col[2], w[2]) || strcmp(col[3], w[3])))) {
			if (!wrong++)
				snprintf(first, sizeof(first), "%s", line);
		}
	}
	pclose(fp);
	if (!ok(rows == want && !wrong, "drawn file, report %s: one row per key, the values summed from its samples",
		args))
		diag("%zu rows for %zu keys, %zu wrong; first: %s", rows, want, wrong, first);
}

/* Whether perf prints some row of @file twice in one event's rows under @args (PERF_REPORT). */
static int perf_splits_a_row(const char *file, const char *args)
{
	char cmd[900], line[512], seen[4 * NR_ADDRS][40];
	size_t nr_seen = 0;
	int twice = 0;
	FILE *fp;

	snprintf(cmd, sizeof(cmd), PERF_REPORT " --stdio %s -i '%s' 2>/dev/null", args, file);
	fp = popen(cmd, "r");
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		const char *key = strstr(line, "[.] ");

		if (!strncmp(line, "# Samples", 9))
			nr_seen = 0;
		if (line[0] == '#' || !key)
			continue;
		for (size_t i = 0; i < nr_seen; i++)
			twice |= !strncmp(seen[i], key, sizeof(seen[0]) - 1);
		if (nr_seen < sizeof(seen) / sizeof(seen[0]))
			snprintf(seen[nr_seen++], sizeof(seen[0]), "%s", key);
	}
	pclose(fp);
	return twice;
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
		if (ok(!write_group_file(file, f, NR_SAMPLES, sample_record), "group file %u with circular unresolved addresses written", f))
			for (size_t i = 0; i < sizeof(group_args) / sizeof(group_args[0]); i++)
				same_rows(perfkit, file, label, group_args[i]);
	}
	/* a file on which perf 6.1 holds a key twice: its rows are no oracle, the sums are */
	snprintf(file, sizeof(file), "%s/drawn.data", dir);
	if (ok(!write_group_file(file, DRAWN_SEED, MAX_SAMPLES, drawn_sample_record),
	       "group file of %d samples drawn at random written", MAX_SAMPLES)) {
		if (system("perf version 2>/dev/null | grep -q '^perf version 6\\.1\\.'") == 0)
			ok(perf_splits_a_row(file, "--children --sort sym -g none"),
			   "drawn file: perf 6.1 prints a key's row twice in one event's rows (the case this checks)");
		else
			ok(1, "# SKIP drawn file: perf is not 6.1, whose split rows this file was drawn to show");
		rows_are_sums(perfkit, file, MAX_SAMPLES, "--group --children --sort sym -g none", 1);
		rows_are_sums(perfkit, file, MAX_SAMPLES, "--group --no-children --sort sym -g none", 0);
	}
	snprintf(file, sizeof(file), "%s/dsos.data", dir);
	if (ok(!write_dso_file(file), "file with unresolved symbols of two DSOs around a resolved one written")) {
		same_rows(perfkit, file, "file 0", "--no-children --sort sym -g none");
		same_rows(perfkit, file, "file 0", "--children --sort sym -g none");
	}
	rm_tree(dir);
	return done_testing();
}
