/*
 * perf_mem_data_src as perf 6.1 prints it: the report sort keys mem, snoop,
 * tlb and lock, and perf script's data_src column. The rules were taken from
 * perf's output (perf script -F data_src on quipper/perf.data.weight_struct
 * with its data_src words rewritten to cover every field value) and are
 * checked against it by tests/unit/test_sample.c.
 *
 * perf_mem_data_src bit layout (../shared/reference/perf-data.md §3), LSB first:
 *   0 mem_op:5, 5 mem_lvl:14, 19 mem_snoop:5, 24 mem_lock:2, 26 mem_dtlb:7,
 *   33 mem_lvl_num:4, 37 mem_remote:1, 38 mem_snoopx:2, 40 mem_blk:3, 43 mem_hops:3
 *
 * Text rules:
 *   mem    ["Remote "] then either "<hops> " (mem_hops != 0) or the set mem_lvl
 *          bits other than HIT/MISS joined by " or "; then mem_lvl_num's name
 *          (" or " before it if a mem_lvl name was printed); "N/A" if nothing
 *          was printed; then " hit" and/or " miss"
 *   snoop  set mem_snoop bits, then set mem_snoopx bits, joined by " or "; "N/A"
 *   tlb    set mem_dtlb bits other than HIT/MISS joined by " or " ("N/A" if
 *          none), then " hit" and/or " miss"
 *   lock   "N/A" if the NA bit is set, else "Yes" if LOCKED, else "No"
 *   script "|OP op|LVL mem|SNP snoop|TLB tlb|LCK lock|BLK blk", where op is the
 *          first of NA/LOAD/STORE/PFETCH/EXEC ("N/A", ...; "No" if none) and blk
 *          is " N/A" (0 or NA set) or " Data", " Addr", " Data Addr"; perf prints
 *          it into a 100-byte buffer after 17 bytes of hex, so at most 82 bytes
 */
#include <stdio.h>
#include "internal.h"

static const char *const lvl_names[14] = {
	"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
	"Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
	"Remote Cache (2 hops)", "I/O", "Uncached",
};

static const char *const lvlnum_names[16] = {
	[0x9] = "CXL", [0xa] = "I/O", [0xb] = "Any cache", [0xc] = "LFB/MAB",
	[0xd] = "RAM", [0xe] = "PMEM", [0xf] = "N/A",
};

static const char *const hops_names[8] = {
	"N/A", "core, same node", "node, same socket", "socket, same board", "board",
};

static const char *const snoop_names[5] = { "N/A", "None", "Hit", "Miss", "HitM" };
static const char *const snoopx_names[2] = { "Fwd", "Peer" };
static const char *const tlb_names[7] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };

#define FIELD(v, shift, width) (((v) >> (shift)) & ((1ULL << (width)) - 1))

/* A bounded string builder that keeps counting what it could not store. */
struct sb {
	char *buf;
	size_t sz, len;
};

static void sb_put(struct sb *b, const char *s)
{
	for (; *s; s++, b->len++)
		if (b->sz && b->len < b->sz - 1)
			b->buf[b->len] = *s;
}

static size_t sb_done(struct sb *b)
{
	size_t n = b->len;

	if (!b->sz)
		return 0;
	if (n > b->sz - 1)
		n = b->sz - 1;
	b->buf[n] = '\0';
	return n;
}

/* Append the names of the set bits of @m joined by " or "; returns how many. */
static int join_bits(struct sb *b, uint64_t m, const char *const *names, unsigned n, int printed)
{
	for (unsigned i = 0; i < n && m; i++, m >>= 1) {
		if (!(m & 1) || !names[i])
			continue;
		if (printed++)
			sb_put(b, " or ");
		sb_put(b, names[i]);
	}
	return printed;
}

static void put_lvl(struct sb *b, uint64_t v)
{
	uint64_t lvl = FIELD(v, 5, 14), num = FIELD(v, 33, 4), hops = FIELD(v, 43, 3);
	size_t start = b->len;
	int printed = 0;

	if (FIELD(v, 37, 1))
		sb_put(b, "Remote ");
	if (hops) {
		sb_put(b, hops_names[hops] ? hops_names[hops] : "");
		sb_put(b, " ");
	} else {
		printed = join_bits(b, lvl & ~(uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS),
				    lvl_names, 14, 0);
	}
	if (num) {
		char tmp[8];

		if (printed++)
			sb_put(b, " or ");
		if (lvlnum_names[num]) {
			sb_put(b, lvlnum_names[num]);
		} else {
			snprintf(tmp, sizeof(tmp), "L%u", (unsigned)num);
			sb_put(b, tmp);
		}
	}
	if (b->len == start)
		sb_put(b, "N/A");
	if (lvl & PERF_MEM_LVL_HIT)
		sb_put(b, " hit");
	if (lvl & PERF_MEM_LVL_MISS)
		sb_put(b, " miss");
}

static void put_snoop(struct sb *b, uint64_t v)
{
	int printed = join_bits(b, FIELD(v, 19, 5), snoop_names, 5, 0);

	printed = join_bits(b, FIELD(v, 38, 2), snoopx_names, 2, printed);
	if (!printed)
		sb_put(b, "N/A");
}

static void put_tlb(struct sb *b, uint64_t v)
{
	uint64_t m = FIELD(v, 26, 7);

	if (!join_bits(b, m & ~(uint64_t)(PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS), tlb_names, 7, 0))
		sb_put(b, "N/A");
	if (m & PERF_MEM_TLB_HIT)
		sb_put(b, " hit");
	if (m & PERF_MEM_TLB_MISS)
		sb_put(b, " miss");
}

static void put_lock(struct sb *b, uint64_t v)
{
	uint64_t m = FIELD(v, 24, 2);

	sb_put(b, (m & PERF_MEM_LOCK_NA) ? "N/A" : (m & PERF_MEM_LOCK_LOCKED) ? "Yes" : "No");
}

static void put_op(struct sb *b, uint64_t v)
{
	uint64_t m = FIELD(v, 0, 5);

	sb_put(b, (m & PERF_MEM_OP_NA) ? "N/A" : (m & PERF_MEM_OP_LOAD) ? "LOAD" :
		  (m & PERF_MEM_OP_STORE) ? "STORE" : (m & PERF_MEM_OP_PFETCH) ? "PFETCH" :
		  (m & PERF_MEM_OP_EXEC) ? "EXEC" : "No");
}

static void put_blk(struct sb *b, uint64_t v)
{
	uint64_t m = FIELD(v, 40, 3);

	if (!m || (m & PERF_MEM_BLK_NA)) {
		sb_put(b, " N/A");
		return;
	}
	if (m & PERF_MEM_BLK_DATA)
		sb_put(b, " Data");
	if (m & PERF_MEM_BLK_ADDR)
		sb_put(b, " Addr");
}

size_t pk_mem_lvl_str(uint64_t data_src, char *buf, size_t sz)
{
	struct sb b = { buf, sz, 0 };

	put_lvl(&b, data_src);
	return sb_done(&b);
}

size_t pk_mem_snoop_str(uint64_t data_src, char *buf, size_t sz)
{
	struct sb b = { buf, sz, 0 };

	put_snoop(&b, data_src);
	return sb_done(&b);
}

size_t pk_mem_tlb_str(uint64_t data_src, char *buf, size_t sz)
{
	struct sb b = { buf, sz, 0 };

	put_tlb(&b, data_src);
	return sb_done(&b);
}

size_t pk_mem_lock_str(uint64_t data_src, char *buf, size_t sz)
{
	struct sb b = { buf, sz, 0 };

	put_lock(&b, data_src);
	return sb_done(&b);
}

#define SCRIPT_DECODE_MAX 82

size_t pk_mem_data_src_str(uint64_t data_src, char *buf, size_t sz)
{
	struct sb b = { buf, sz < SCRIPT_DECODE_MAX + 1 ? sz : SCRIPT_DECODE_MAX + 1, 0 };

	sb_put(&b, "|OP ");
	put_op(&b, data_src);
	sb_put(&b, "|LVL ");
	put_lvl(&b, data_src);
	sb_put(&b, "|SNP ");
	put_snoop(&b, data_src);
	sb_put(&b, "|TLB ");
	put_tlb(&b, data_src);
	sb_put(&b, "|LCK ");
	put_lock(&b, data_src);
	sb_put(&b, "|BLK ");
	put_blk(&b, data_src);
	return sb_done(&b);
}
