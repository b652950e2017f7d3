/*
 * PERF_RECORD_SAMPLE decoding and the sample_id trailer of other kernel
 * records, given the attr's layout. Every field is bounds-checked against
 * the record length before it is read; counts (callchain nr, branch nr,
 * group nr) are bounded by the bytes left, never trusted for allocation.
 *
 * PERF_RECORD_SAMPLE, after the 8-byte perf_event_header, in the order the
 * kernel writes it (../shared/reference/perf-data.md §4):
 *   size          field                                   present if
 *   8             id                                      IDENTIFIER
 *   8             ip                                      IP
 *   4+4           pid, tid                                TID
 *   8             time                                    TIME
 *   8             addr                                    ADDR
 *   8             id                                      ID
 *   8             stream_id                               STREAM_ID
 *   4+4           cpu, res                                CPU
 *   8             period                                  PERIOD
 *   var           read_format values (§2.4)               READ
 *   8+8*nr        nr, ips[nr]                             CALLCHAIN
 *   4+size        size, data[size]                        RAW
 *   8[+8]+24*nr[+8*nr]  nr, [hw_idx], entries, [counters] BRANCH_STACK
 *   8[+8*w]       abi, regs[popcount(mask)] if abi != 0   REGS_USER
 *   8+size[+8]    size, data[size], dyn_size if size != 0 STACK_USER
 *   8             weight / weight_struct                  WEIGHT | WEIGHT_STRUCT
 *   8             data_src                                DATA_SRC
 *   8             transaction                             TRANSACTION
 *   8[+8*w]       abi, regs[popcount(mask)] if abi != 0   REGS_INTR
 *   8             phys_addr                               PHYS_ADDR
 *   8             cgroup                                  CGROUP
 *   8             data_page_size                          DATA_PAGE_SIZE
 *   8             code_page_size                          CODE_PAGE_SIZE
 *   8+size        size, data[size]                        AUX
 *
 * sample_id trailer (§5), the last bytes of a non-sample kernel record:
 *   4+4 pid, tid (TID); 8 time (TIME); 8 id (ID); 8 stream_id (STREAM_ID);
 *   4+4 cpu, res (CPU); 8 id (IDENTIFIER)
 */
#include <errno.h>
#include "internal.h"

struct cur {
	const uint8_t *r;
	size_t len, pos;
	uint64_t off;
	struct pk_diag *d;
};

static int need(struct cur *c, uint64_t n, const char *what)
{
	if (n > c->len - c->pos)
		return PK_CORRUPT(c->d, c->off + c->pos,
				  "truncated record: %s needs %llu bytes at byte %zu of %zu",
				  what, (unsigned long long)n, c->pos, c->len);
	return 0;
}

static int get64(struct cur *c, uint64_t *v, const char *what)
{
	int err = need(c, 8, what);

	if (err)
		return err;
	*v = pk_ld64(c->r + c->pos);
	c->pos += 8;
	return 0;
}

static int get32x2(struct cur *c, uint32_t *a, uint32_t *b, const char *what)
{
	int err = need(c, 8, what);

	if (err)
		return err;
	*a = pk_ld32(c->r + c->pos);
	*b = pk_ld32(c->r + c->pos + 4);
	c->pos += 8;
	return 0;
}

/* read_format values (§2.4). */
static int get_read(struct cur *c, uint64_t rf, struct pk_read_values *rv)
{
	uint64_t nr, left;
	int err;

	memset(rv, 0, sizeof(*rv));
	if (!(rf & PERF_FORMAT_GROUP)) {
		uint32_t words = 1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
				 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) +
				 !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
		const uint8_t *p = c->r + c->pos;

		err = need(c, 8ULL * words, "read values");
		if (err)
			return err;
		rv->nr = 1;
		rv->entries = (const uint64_t *)p;
		rv->entry_words = words;
		p += 8;
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) {
			rv->time_enabled = pk_ld64(p);
			p += 8;
		}
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			rv->time_running = pk_ld64(p);
		c->pos += 8ULL * words;
		return 0;
	}
	err = get64(c, &nr, "read group nr");
	if (!err && (rf & PERF_FORMAT_TOTAL_TIME_ENABLED))
		err = get64(c, &rv->time_enabled, "read time_enabled");
	if (!err && (rf & PERF_FORMAT_TOTAL_TIME_RUNNING))
		err = get64(c, &rv->time_running, "read time_running");
	if (err)
		return err;
	rv->entry_words = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	left = c->len - c->pos;
	if (nr > left / (8ULL * rv->entry_words))
		return PK_CORRUPT(c->d, c->off + c->pos,
				  "read group of %llu entries does not fit in %llu bytes",
				  (unsigned long long)nr, (unsigned long long)left);
	rv->nr = nr;
	rv->entries = (const uint64_t *)(c->r + c->pos);
	c->pos += nr * 8 * rv->entry_words;
	return 0;
}

void pk_sample_read_value(const struct pk_read_values *rv, uint64_t read_format,
			  uint64_t i, struct pk_read_value *out)
{
	const uint8_t *p;
	unsigned k = 1;

	memset(out, 0, sizeof(*out));
	if (!rv || !rv->entries || i >= rv->nr)
		return;
	if (!(read_format & PERF_FORMAT_GROUP)) {
		p = (const uint8_t *)rv->entries;
		k += !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		     !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	} else {
		p = (const uint8_t *)rv->entries + i * 8 * rv->entry_words;
	}
	out->value = pk_ld64(p);
	if (read_format & PERF_FORMAT_ID)
		out->id = pk_ld64(p + 8 * k++);
	if (read_format & PERF_FORMAT_LOST)
		out->lost = pk_ld64(p + 8 * k);
}

/* u64 abi; u64 regs[popcount(mask)] if abi != 0. */
static int get_regs(struct cur *c, uint64_t mask, uint64_t *abi, const uint64_t **regs,
		    const char *what)
{
	int err = get64(c, abi, what);
	uint64_t n = (uint64_t)__builtin_popcountll(mask);

	if (err || !*abi)
		return err;
	err = need(c, 8 * n, what);
	if (err)
		return err;
	*regs = (const uint64_t *)(c->r + c->pos);
	c->pos += 8 * n;
	return 0;
}

/* u64 size; u8 data[size]. */
static int get_blob(struct cur *c, uint64_t *size, const void **data, const char *what)
{
	int err = get64(c, size, what);

	if (!err)
		err = need(c, *size, what);
	if (err)
		return err;
	*data = c->r + c->pos;
	c->pos += *size;
	return 0;
}

static int get_branch(struct cur *c, uint64_t bst, struct pk_sample *s)
{
	uint64_t nr, per = sizeof(struct perf_branch_entry), left;
	int err = get64(c, &nr, "branch stack nr");

	if (!err && (bst & PK_BRANCH_HW_INDEX))
		err = get64(c, &s->branch_hw_idx, "branch stack hw_idx");
	if (err)
		return err;
	if (bst & PK_BRANCH_COUNTERS)
		per += 8;
	left = c->len - c->pos;
	if (nr > left / per)
		return PK_CORRUPT(c->d, c->off + c->pos,
				  "branch stack of %llu entries does not fit in %llu bytes",
				  (unsigned long long)nr, (unsigned long long)left);
	s->branch_nr = nr;
	s->branch = (const struct perf_branch_entry *)(c->r + c->pos);
	c->pos += nr * sizeof(struct perf_branch_entry);
	if (bst & PK_BRANCH_COUNTERS) {
		s->branch_counters = (const uint64_t *)(c->r + c->pos);
		c->pos += nr * 8;
	}
	return 0;
}

static int parse_fields(const struct pk_sample_layout *l, struct cur *c, struct pk_sample *s)
{
	uint64_t t = l->sample_type, v;
	int err = 0;

#define GET64(bit, field, what) \
	if (!err && (t & (bit))) err = get64(c, &(field), what)
	GET64(PERF_SAMPLE_IDENTIFIER, s->id, "identifier");
	GET64(PERF_SAMPLE_IP, s->ip, "ip");
	if (!err && (t & PERF_SAMPLE_TID))
		err = get32x2(c, &s->pid, &s->tid, "pid/tid");
	GET64(PERF_SAMPLE_TIME, s->time, "time");
	GET64(PERF_SAMPLE_ADDR, s->addr, "addr");
	GET64(PERF_SAMPLE_ID, s->id, "id");
	GET64(PERF_SAMPLE_STREAM_ID, s->stream_id, "stream_id");
	if (!err && (t & PERF_SAMPLE_CPU)) {
		uint32_t res;

		err = get32x2(c, &s->cpu, &res, "cpu");
	}
	GET64(PERF_SAMPLE_PERIOD, s->period, "period");
	if (!err && (t & PERF_SAMPLE_READ))
		err = get_read(c, l->read_format, &s->read);
	if (!err && (t & PERF_SAMPLE_CALLCHAIN)) {
		err = get64(c, &s->callchain_nr, "callchain nr");
		if (!err && s->callchain_nr > (c->len - c->pos) / 8)
			err = PK_CORRUPT(c->d, c->off + c->pos,
					 "callchain of %llu entries does not fit in %zu bytes",
					 (unsigned long long)s->callchain_nr, c->len - c->pos);
		if (!err) {
			s->callchain = (const uint64_t *)(c->r + c->pos);
			c->pos += s->callchain_nr * 8;
		}
	}
	if (!err && (t & PERF_SAMPLE_RAW)) {
		err = need(c, 4, "raw size");
		if (!err) {
			s->raw_size = pk_ld32(c->r + c->pos);
			c->pos += 4;
			err = need(c, s->raw_size, "raw data");
		}
		if (!err) {
			s->raw = c->r + c->pos;
			c->pos += s->raw_size;
		}
	}
	if (!err && (t & PERF_SAMPLE_BRANCH_STACK))
		err = get_branch(c, l->branch_sample_type, s);
	if (!err && (t & PERF_SAMPLE_REGS_USER))
		err = get_regs(c, l->regs_user_mask, &s->regs_user_abi, &s->regs_user,
			       "user regs");
	if (!err && (t & PERF_SAMPLE_STACK_USER)) {
		err = get_blob(c, &s->stack_user_size, &s->stack_user, "user stack");
		if (!err && s->stack_user_size)
			err = get64(c, &s->stack_user_dyn_size, "user stack dyn_size");
	}
	if (!err && (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))) {
		err = get64(c, &v, "weight");
		if (!err && (t & PERF_SAMPLE_WEIGHT_STRUCT)) {
			/* { u32 var1_dw; u16 var2_w; u16 var3_w } as one u64 value. */
			s->weight = v & 0xffffffffu;
			s->ins_lat = (uint16_t)(v >> 32);
			s->weight3 = (uint16_t)(v >> 48);
		} else if (!err) {
			s->weight = v;
		}
	}
	GET64(PERF_SAMPLE_DATA_SRC, s->data_src, "data_src");
	GET64(PERF_SAMPLE_TRANSACTION, s->transaction, "transaction");
	if (!err && (t & PERF_SAMPLE_REGS_INTR))
		err = get_regs(c, l->regs_intr_mask, &s->regs_intr_abi, &s->regs_intr,
			       "intr regs");
	GET64(PERF_SAMPLE_PHYS_ADDR, s->phys_addr, "phys_addr");
	GET64(PERF_SAMPLE_CGROUP, s->cgroup, "cgroup");
	GET64(PERF_SAMPLE_DATA_PAGE_SIZE, s->data_page_size, "data_page_size");
	GET64(PERF_SAMPLE_CODE_PAGE_SIZE, s->code_page_size, "code_page_size");
	if (!err && (t & PERF_SAMPLE_AUX))
		err = get_blob(c, &s->aux_size, &s->aux, "aux data");
#undef GET64
	return err;
}

int pk_sample_parse(const struct pk_sample_layout *l, const void *rec, size_t len,
		    struct pk_sample *s, uint64_t off, struct pk_diag *d)
{
	struct cur c = { .r = rec, .len = len, .pos = 8, .off = off, .d = d };
	uint64_t unknown;
	int err;

	memset(s, 0, sizeof(*s));
	s->branch_hw_idx = UINT64_MAX;
	if (len < sizeof(struct perf_event_header))
		return PK_CORRUPT(d, off, "record of %zu bytes is shorter than its header", len);
	s->misc = pk_ld16(c.r + 4);
	err = parse_fields(l, &c, s);
	if (err)
		return err;
	s->present = l->sample_type & PK_SAMPLE_KNOWN;
	unknown = l->sample_type & ~PK_SAMPLE_KNOWN & ~(1ULL << 63);
	/* Up to 7 bytes of padding; more only when bits perfkit does not know are set. */
	if (!unknown && len - c.pos >= 8)
		return PK_CORRUPT(d, off + c.pos, "%zu bytes left over after the sample fields",
				  len - c.pos);
	return 0;
}

int pk_sample_id_parse(const struct pk_sample_layout *l, const void *rec, size_t len,
		       struct pk_sample *s, uint64_t off, struct pk_diag *d)
{
	struct cur c = { .r = rec, .len = len, .off = off, .d = d };
	uint64_t t = l->sample_type;
	int err = 0;

	memset(s, 0, sizeof(*s));
	s->branch_hw_idx = UINT64_MAX;
	if (len < sizeof(struct perf_event_header))
		return PK_CORRUPT(d, off, "record of %zu bytes is shorter than its header", len);
	s->misc = pk_ld16(c.r + 4);
	if (!l->sample_id_all)
		return 0;
	if (len - 8 < l->id_trailer_size)
		return PK_CORRUPT(d, off, "record of %zu bytes is too short for its %u-byte sample_id trailer",
				  len, l->id_trailer_size);
	c.pos = len - l->id_trailer_size;
	if (t & PERF_SAMPLE_TID)
		err = get32x2(&c, &s->pid, &s->tid, "trailer pid/tid");
	if (!err && (t & PERF_SAMPLE_TIME))
		err = get64(&c, &s->time, "trailer time");
	if (!err && (t & PERF_SAMPLE_ID))
		err = get64(&c, &s->id, "trailer id");
	if (!err && (t & PERF_SAMPLE_STREAM_ID))
		err = get64(&c, &s->stream_id, "trailer stream_id");
	if (!err && (t & PERF_SAMPLE_CPU)) {
		uint32_t res;

		err = get32x2(&c, &s->cpu, &res, "trailer cpu");
	}
	if (!err && (t & PERF_SAMPLE_IDENTIFIER))
		err = get64(&c, &s->id, "trailer identifier");
	if (err)
		return err;
	s->present = t & PK_ID_TRAILER_BITS;
	return 0;
}
