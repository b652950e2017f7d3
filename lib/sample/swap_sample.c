/*
 * Byte-swapping a PERF_RECORD_SAMPLE written on a machine of the other byte
 * order, field by field in the order of ../shared/reference/perf-data.md §4
 * (the table is repeated above pk_sample_parse() in parse.c). Each count is
 * swapped before it is used and then bounded by the bytes left.
 *
 * Special cases, as perf reads such files:
 *   - pid/tid and cpu/res are pairs of u32, each swapped on its own;
 *   - RAW: only the u32 size is swapped, the data stays in the writer's order
 *     (tracepoint parsers handle it);
 *   - STACK_USER and AUX data are byte arrays, left alone;
 *   - branch entries: from/to are u64, the flags word is a bitfield whose
 *     fields move to the host's bit positions (bitfield.c);
 *   - WEIGHT_STRUCT and DATA_SRC are plain u64 values.
 */
#include <errno.h>
#include "internal.h"

struct wcur {
	uint8_t *r;
	size_t len, pos;
	uint64_t off;
	struct pk_diag *d;
};

static int wneed(struct wcur *c, uint64_t n, const char *what)
{
	if (n > c->len - c->pos)
		return PK_CORRUPT(c->d, c->off + c->pos,
				  "truncated sample: %s needs %llu bytes at byte %zu of %zu",
				  what, (unsigned long long)n, c->pos, c->len);
	return 0;
}

/* Swap @n u64 at the cursor and advance. */
static int w64(struct wcur *c, uint64_t n, const char *what)
{
	if (n > (c->len - c->pos) / 8)
		return PK_CORRUPT(c->d, c->off + c->pos,
				  "truncated sample: %s of %llu u64 at byte %zu of %zu",
				  what, (unsigned long long)n, c->pos, c->len);
	pk_sw64_n(c->r + c->pos, n);
	c->pos += 8 * n;
	return 0;
}

/* Swap one u64 count at the cursor, advance, return it in *v. */
static int w64v(struct wcur *c, uint64_t *v, const char *what)
{
	int err = w64(c, 1, what);

	if (!err)
		*v = pk_ld64(c->r + c->pos - 8);
	return err;
}

static int w32x2(struct wcur *c, const char *what)
{
	int err = wneed(c, 8, what);

	if (err)
		return err;
	pk_sw32(c->r + c->pos);
	pk_sw32(c->r + c->pos + 4);
	c->pos += 8;
	return 0;
}

static int wskip(struct wcur *c, uint64_t n, const char *what)
{
	int err = wneed(c, n, what);

	if (!err)
		c->pos += n;
	return err;
}

static int w_read(struct wcur *c, uint64_t rf)
{
	uint64_t nr, per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	uint64_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	int err;

	if (!(rf & PERF_FORMAT_GROUP))
		return w64(c, per + times, "read values");
	err = w64v(c, &nr, "read group nr");
	if (!err)
		err = w64(c, times, "read times");
	if (!err && nr > (c->len - c->pos) / (8 * per))
		err = PK_CORRUPT(c->d, c->off + c->pos,
				 "read group of %llu entries does not fit in %zu bytes",
				 (unsigned long long)nr, c->len - c->pos);
	if (!err)
		err = w64(c, nr * per, "read group entries");
	return err;
}

static int w_branch(struct wcur *c, uint64_t bst)
{
	uint64_t nr, per = 24 + ((bst & PK_BRANCH_COUNTERS) ? 8 : 0);
	int err = w64v(c, &nr, "branch stack nr");

	if (!err && (bst & PK_BRANCH_HW_INDEX))
		err = w64(c, 1, "branch stack hw_idx");
	if (!err && nr > (c->len - c->pos) / per)
		err = PK_CORRUPT(c->d, c->off + c->pos,
				 "branch stack of %llu entries does not fit in %zu bytes",
				 (unsigned long long)nr, c->len - c->pos);
	if (err)
		return err;
	for (uint64_t i = 0; i < nr; i++) {
		uint8_t *e = c->r + c->pos + 24 * i;
		uint64_t flags;

		pk_sw64(e);
		pk_sw64(e + 8);
		flags = pk_branch_flags_from_other(pk_ld64(e + 16));
		memcpy(e + 16, &flags, sizeof(flags));
	}
	c->pos += 24 * nr;
	if (bst & PK_BRANCH_COUNTERS)
		return w64(c, nr, "branch counters");
	return 0;
}

static int w_regs(struct wcur *c, uint64_t mask, const char *what)
{
	uint64_t abi;
	int err = w64v(c, &abi, what);

	if (!err && abi)
		err = w64(c, (uint64_t)__builtin_popcountll(mask), what);
	return err;
}

static int w_blob(struct wcur *c, uint64_t *size, const char *what)
{
	int err = w64v(c, size, what);

	if (!err)
		err = wskip(c, *size, what);
	return err;
}

int pk_swap_sample(uint8_t *r, size_t len, const struct pk_sample_layout *l,
		   uint64_t off, struct pk_diag *d)
{
	struct wcur c = { .r = r, .len = len, .pos = 8, .off = off, .d = d };
	uint64_t t = l->sample_type, v;
	int err = 0;

#define W64(bit, what) if (!err && (t & (bit))) err = w64(&c, 1, what)
	W64(PERF_SAMPLE_IDENTIFIER, "identifier");
	W64(PERF_SAMPLE_IP, "ip");
	if (!err && (t & PERF_SAMPLE_TID))
		err = w32x2(&c, "pid/tid");
	W64(PERF_SAMPLE_TIME, "time");
	W64(PERF_SAMPLE_ADDR, "addr");
	W64(PERF_SAMPLE_ID, "id");
	W64(PERF_SAMPLE_STREAM_ID, "stream_id");
	if (!err && (t & PERF_SAMPLE_CPU))
		err = w32x2(&c, "cpu");
	W64(PERF_SAMPLE_PERIOD, "period");
	if (!err && (t & PERF_SAMPLE_READ))
		err = w_read(&c, l->read_format);
	if (!err && (t & PERF_SAMPLE_CALLCHAIN)) {
		err = w64v(&c, &v, "callchain nr");
		if (!err)
			err = w64(&c, v, "callchain");
	}
	if (!err && (t & PERF_SAMPLE_RAW)) {
		err = wneed(&c, 4, "raw size");
		if (!err) {
			pk_sw32(c.r + c.pos);
			v = pk_ld32(c.r + c.pos);
			c.pos += 4;
			err = wskip(&c, v, "raw data");
		}
	}
	if (!err && (t & PERF_SAMPLE_BRANCH_STACK))
		err = w_branch(&c, l->branch_sample_type);
	if (!err && (t & PERF_SAMPLE_REGS_USER))
		err = w_regs(&c, l->regs_user_mask, "user regs");
	if (!err && (t & PERF_SAMPLE_STACK_USER)) {
		err = w_blob(&c, &v, "user stack");
		if (!err && v)
			err = w64(&c, 1, "user stack dyn_size");
	}
	W64(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "weight");
	W64(PERF_SAMPLE_DATA_SRC, "data_src");
	W64(PERF_SAMPLE_TRANSACTION, "transaction");
	if (!err && (t & PERF_SAMPLE_REGS_INTR))
		err = w_regs(&c, l->regs_intr_mask, "intr regs");
	W64(PERF_SAMPLE_PHYS_ADDR, "phys_addr");
	W64(PERF_SAMPLE_CGROUP, "cgroup");
	W64(PERF_SAMPLE_DATA_PAGE_SIZE, "data_page_size");
	W64(PERF_SAMPLE_CODE_PAGE_SIZE, "code_page_size");
	if (!err && (t & PERF_SAMPLE_AUX))
		err = w_blob(&c, &v, "aux data");
#undef W64
	return err;
}
