/*
 * The names of perf's generic events: the hardware and software symbols
 * (PERF_TYPE_HARDWARE/SOFTWARE, with perf's aliases such as "cycles" for
 * "cpu-cycles") and the hardware cache matrix (PERF_TYPE_HW_CACHE), whose
 * names combine a cache, an operation and a result:
 *
 *   <cache>[-<op-or-result>[-<op-or-result>]]     config = cache | op << 8 | result << 16
 *
 * with perf's spellings of each part ("L1-dcache", "l1d", "LLC", "dTLB",
 * "branch"; "load(s)", "store(s)", "prefetch(es)"; "refs", "access",
 * "misses"). Operation defaults to load and result to access. The table of
 * which operations each cache has follows include/uapi/linux/perf_event.h
 * and perf's list: the instruction cache has no stores, the iTLB and the
 * branch unit only loads.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

#define HW(sym, al, cfg) { sym, al, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##cfg }
#define SW(sym, al, cfg) { sym, al, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##cfg }

const struct ev_sym ev_hw_syms[] = {
	HW("cpu-cycles", "cycles", CPU_CYCLES),
	HW("instructions", NULL, INSTRUCTIONS),
	HW("cache-references", NULL, CACHE_REFERENCES),
	HW("cache-misses", NULL, CACHE_MISSES),
	HW("branch-instructions", "branches", BRANCH_INSTRUCTIONS),
	HW("branch-misses", NULL, BRANCH_MISSES),
	HW("bus-cycles", NULL, BUS_CYCLES),
	HW("stalled-cycles-frontend", "idle-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", "idle-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("ref-cycles", NULL, REF_CPU_CYCLES),
};
const size_t ev_nr_hw_syms = sizeof(ev_hw_syms) / sizeof(ev_hw_syms[0]);

const struct ev_sym ev_sw_syms[] = {
	SW("cpu-clock", NULL, CPU_CLOCK),
	SW("task-clock", NULL, TASK_CLOCK),
	SW("page-faults", "faults", PAGE_FAULTS),
	SW("context-switches", "cs", CONTEXT_SWITCHES),
	SW("cpu-migrations", "migrations", CPU_MIGRATIONS),
	SW("minor-faults", NULL, PAGE_FAULTS_MIN),
	SW("major-faults", NULL, PAGE_FAULTS_MAJ),
	SW("alignment-faults", NULL, ALIGNMENT_FAULTS),
	SW("emulation-faults", NULL, EMULATION_FAULTS),
	SW("dummy", NULL, DUMMY),
	SW("bpf-output", NULL, BPF_OUTPUT),
	SW("cgroup-switches", NULL, CGROUP_SWITCHES),
};
const size_t ev_nr_sw_syms = sizeof(ev_sw_syms) / sizeof(ev_sw_syms[0]);

static bool word_is(const char *s, size_t len, const char *w)
{
	return w && strlen(w) == len && !memcmp(s, w, len);
}

static const struct ev_sym *sym_in(const struct ev_sym *t, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (word_is(s, len, t[i].name) || word_is(s, len, t[i].alias))
			return &t[i];
	return NULL;
}

const struct ev_sym *ev_sym_find(const char *s, size_t len)
{
	const struct ev_sym *e = sym_in(ev_hw_syms, ev_nr_hw_syms, s, len);

	return e ? e : sym_in(ev_sw_syms, ev_nr_sw_syms, s, len);
}

/* ---- cache events -------------------------------------------------------- */

#define NR_CACHE PERF_COUNT_HW_CACHE_MAX
#define NR_OP PERF_COUNT_HW_CACHE_OP_MAX
#define NR_RESULT PERF_COUNT_HW_CACHE_RESULT_MAX
#define MAX_SPELLINGS 5

/* Spellings of each part; the first is perf's canonical one. */
static const char *const cache_names[NR_CACHE][MAX_SPELLINGS] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache", "l1-d", "l1d", "L1-data" },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", "l1-i", "l1i", "L1-instruction" },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", "L2" },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB" },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB" },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node" },
};

/* [op][0] is the singular used before "-misses", [op][1] the plural for accesses. */
static const char *const op_names[NR_OP][MAX_SPELLINGS] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "load", "loads", "read" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "store", "stores", "write" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read",
					      "speculative-load" },
};

static const char *const result_names[NR_RESULT][MAX_SPELLINGS] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = { "misses", "miss" },
};

#define OPS(r, w, p) ((r) << PERF_COUNT_HW_CACHE_OP_READ | (w) << PERF_COUNT_HW_CACHE_OP_WRITE | \
		      (p) << PERF_COUNT_HW_CACHE_OP_PREFETCH)

static const unsigned char cache_ops[NR_CACHE] = {
	[PERF_COUNT_HW_CACHE_L1D] = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_L1I] = OPS(1, 0, 1),
	[PERF_COUNT_HW_CACHE_LL] = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_DTLB] = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_ITLB] = OPS(1, 0, 0),
	[PERF_COUNT_HW_CACHE_BPU] = OPS(1, 0, 0),
	[PERF_COUNT_HW_CACHE_NODE] = OPS(1, 1, 1),
};

bool ev_cache_op_valid(unsigned cache, unsigned op)
{
	return cache < NR_CACHE && op < NR_OP && (cache_ops[cache] >> op & 1);
}

void ev_cache_name(unsigned cache, unsigned op, unsigned result, char *buf, size_t sz)
{
	if (result == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
		snprintf(buf, sz, "%s-%s", cache_names[cache][0], op_names[op][1]);
	else
		snprintf(buf, sz, "%s-%s-%s", cache_names[cache][0], op_names[op][0],
			 result_names[result][0]);
}

/*
 * Longest spelling in @tab (@rows rows) that @s (@len bytes) starts with,
 * ending at a '-' or at the end. Returns its length, 0 if none; *row gets
 * the row.
 */
static size_t match_part(const char *const tab[][MAX_SPELLINGS], unsigned rows,
			 const char *s, size_t len, unsigned *row)
{
	size_t best = 0;

	for (unsigned r = 0; r < rows; r++) {
		for (unsigned i = 0; i < MAX_SPELLINGS && tab[r][i]; i++) {
			size_t n = strlen(tab[r][i]);

			if (n > len || n <= best || memcmp(s, tab[r][i], n))
				continue;
			if (n < len && s[n] != '-')
				continue;
			best = n;
			*row = r;
		}
	}
	return best;
}

int ev_cache_parse(const char *s, size_t len, __u64 *config, size_t *bad, const char **why)
{
	unsigned cache = 0, op = PERF_COUNT_HW_CACHE_OP_READ;
	unsigned result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	bool have_op = false, have_result = false;
	size_t pos, op_at = 0;

	pos = match_part(cache_names, NR_CACHE, s, len, &cache);
	if (!pos)
		return -ENOENT;
	for (int words = 0; pos < len; words++) {
		size_t start = pos + 1, n;
		unsigned row = 0;

		if (words == 2)
			return -ENOENT;
		n = match_part(op_names, NR_OP, s + start, len - start, &row);
		if (n) {
			if (have_op) {
				*bad = start;
				*why = "more than one operation";
				return -EINVAL;
			}
			have_op = true;
			op = row;
			op_at = start;
		} else {
			n = match_part(result_names, NR_RESULT, s + start, len - start, &row);
			if (!n)
				return -ENOENT;
			if (have_result) {
				*bad = start;
				*why = "more than one result";
				return -EINVAL;
			}
			have_result = true;
			result = row;
		}
		pos = start + n;
	}
	if (!ev_cache_op_valid(cache, op)) {
		*bad = op_at;
		*why = "operation not available for this cache";
		return -EINVAL;
	}
	*config = cache | (__u64)op << 8 | (__u64)result << 16;
	return 0;
}
