/*
 * Unit tests for lib/sample: PERF_RECORD_SAMPLE decoding for each
 * sample_type field and their combinations (hand-built records with
 * byte-exact expectations), truncation at every length, the sample_id
 * trailer, every pk_rec_decode type, byte-swap round trips against an
 * independent swapper written here from the layouts, attr import of every
 * size, and perf_mem_data_src text against Linux perf's own output. With
 * perf installed, real perf.data files are walked and compared with
 * `perf report --stats` / `perf script`.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <perfkit/sample.h>
#include "../shared_data.h"
#include "../tap.h"

/* ---- a record builder that also remembers the width of every field ------ */

enum { K_INT, K_BYTES, K_BFLAGS, K_AFLAGS };

struct field {
	size_t pos, width;
	int kind;
};

struct bld {
	uint64_t align_[1];          /* keeps b 8-byte aligned */
	uint8_t b[2048];
	size_t n;
	struct field f[256];
	size_t nf;
};

static void put(struct bld *b, const void *p, size_t w, int kind)
{
	memcpy(b->b + b->n, p, w);
	if (b->nf < 256)
		b->f[b->nf++] = (struct field){ b->n, w, kind };
	b->n += w;
}

static void u64(struct bld *b, uint64_t v) { put(b, &v, 8, K_INT); }
static void u32(struct bld *b, uint32_t v) { put(b, &v, 4, K_INT); }
static void u16(struct bld *b, uint16_t v) { put(b, &v, 2, K_INT); }
static void bytes(struct bld *b, const void *p, size_t n) { if (n) put(b, p, n, K_BYTES); }
static void str(struct bld *b, const char *s, size_t padded) { uint8_t z[256] = { 0 }; memcpy(z, s, strlen(s)); bytes(b, z, padded); }

static void hdr(struct bld *b, uint32_t type, uint16_t misc)
{
	memset(b, 0, sizeof(*b));
	u32(b, type);
	u16(b, misc);
	u16(b, 0);
}

static size_t fin(struct bld *b)
{
	uint16_t size = (uint16_t)b->n;

	memcpy(b->b + 6, &size, 2);
	return b->n;
}

/* Branch flags written by a big-endian machine: fields from the MSB down. */
static uint64_t be_branch_flags(uint64_t native)
{
	struct perf_branch_entry e;
	uint64_t v;

	memcpy((uint8_t *)&e + 16, &native, 8);
	v = (uint64_t)e.mispred << 63 | (uint64_t)e.predicted << 62 | (uint64_t)e.in_tx << 61 |
	    (uint64_t)e.abort << 60 | (uint64_t)e.cycles << 44 | (uint64_t)e.type << 40 |
	    (uint64_t)e.spec << 38 | (uint64_t)e.new_type << 34 | (uint64_t)e.priv << 31 |
	    (uint64_t)e.reserved;
	return bswap_64(v);   /* the bytes of v in big-endian order, loaded on this host */
}

/* The attr flag word as a big-endian machine lays it out: flag bit n at bit 63 - n,
 * the two-bit precise_ip (bits 15-16) keeps its value at bits 47-48. */
static uint64_t be_attr_flags(uint64_t native)
{
	uint64_t v = ((native >> 15) & 3) << 47;

	for (unsigned n = 0; n < 64; n++)
		if (n != 15 && n != 16 && ((native >> n) & 1))
			v |= 1ULL << (63 - n);
	return bswap_64(v);
}

/* The record as the other byte order would have written it, header kept native. */
static void foreign(const struct bld *b, uint8_t *out)
{
	memcpy(out, b->b, b->n);
	for (size_t i = 3; i < b->nf; i++) {   /* fields 0-2 are the header */
		const struct field *f = &b->f[i];
		uint8_t *p = out + f->pos;
		uint64_t v = 0;

		if (f->kind == K_BYTES)
			continue;
		memcpy(&v, p, f->width);
		if (f->kind == K_BFLAGS)
			v = be_branch_flags(v);
		else if (f->kind == K_AFLAGS)
			v = be_attr_flags(v);
		else if (f->width == 8)
			v = bswap_64(v);
		else if (f->width == 4)
			v = bswap_32((uint32_t)v);
		else
			v = bswap_16((uint16_t)v);
		memcpy(p, &v, f->width);
	}
}

static void branch(struct bld *b, uint64_t from, uint64_t to, uint64_t flags)
{
	u64(b, from);
	u64(b, to);
	put(b, &flags, 8, K_BFLAGS);
}

static struct pk_sample_layout mklayout(uint64_t st, uint64_t rf, uint64_t bst, uint64_t ru,
					uint64_t ri, int id_all)
{
	struct perf_event_attr a;
	struct pk_sample_layout l;

	memset(&a, 0, sizeof(a));
	a.sample_type = st;
	a.read_format = rf;
	a.branch_sample_type = bst;
	a.sample_regs_user = ru;
	a.sample_regs_intr = ri;
	a.sample_id_all = id_all;
	pk_sample_layout_init(&l, &a);
	return l;
}

/* Every strict prefix must fail with -EBADMSG inside the record, without reading past it. */
static void truncations(const struct pk_sample_layout *l, const struct bld *b, const char *name)
{
	int bad = 0;

	for (size_t len = 0; len < b->n; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		struct pk_sample s;
		struct pk_diag d;
		int err;

		memcpy(copy, b->b, len);
		pk_diag_init(&d);
		err = pk_sample_parse(l, copy, len, &s, 1000, &d);
		if (err != -EBADMSG || d.offset < 1000 || d.offset > 1000 + len) {
			if (!bad)
				diag("%s: prefix %zu gave %d offset %llu", name, len, err,
				     (unsigned long long)d.offset);
			bad++;
		}
		free(copy);
	}
	ok(!bad, "%s: all %zu truncations fail with -EBADMSG at an offset inside", name, b->n);
}

/* Swap round trip: the foreign form swapped back must equal the native record. */
static void roundtrip(const struct pk_sample_layout *l, const struct bld *b, const char *name)
{
	uint8_t tmp[2048];
	struct pk_diag d;
	int err;

	foreign(b, tmp);
	pk_diag_init(&d);
	err = pk_record_swap(tmp, b->n, l, 0, &d);
	ok(err == 0 && memcmp(tmp, b->b, b->n) == 0, "%s: swap round trip (err %d %s)", name, err,
	   d.msg);
}

/* ---- PERF_RECORD_SAMPLE ---------------------------------------------------- */

#define S(x) PERF_SAMPLE_##x

static void test_simple_fields(void)
{
	uint64_t st = S(IP) | S(TID) | S(TIME) | S(ADDR) | S(ID) | S(STREAM_ID) | S(CPU) | S(PERIOD);
	struct pk_sample_layout l = mklayout(st, 0, 0, 0, 0, 1);
	struct pk_sample s;
	struct pk_diag d;
	struct bld b;

	hdr(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP);
	u64(&b, 0x401000);
	u32(&b, 42); u32(&b, 43);
	u64(&b, 123456789);
	u64(&b, 0xdead0000);
	u64(&b, 77);
	u64(&b, 78);
	u32(&b, 3); u32(&b, 0);
	u64(&b, 1001);
	fin(&b);
	is_int(l.id_pos, 32, "id after ip, tid, time, addr");
	pk_diag_init(&d);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), 0, "simple fields parse");
	is_int(s.ip, 0x401000, "ip");
	is_int(s.pid, 42, "pid");
	is_int(s.tid, 43, "tid");
	is_int(s.time, 123456789, "time");
	is_int(s.addr, 0xdead0000, "addr");
	is_int(s.id, 77, "id");
	is_int(s.stream_id, 78, "stream_id");
	is_int(s.cpu, 3, "cpu");
	is_int(s.period, 1001, "period");
	is_int(s.misc & PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_MISC_USER, "cpumode user");
	is_int(s.present, st, "present bits");
	is_int(s.branch_hw_idx, -1, "hw_idx absent");
	truncations(&l, &b, "simple");
	roundtrip(&l, &b, "simple");

	/* IDENTIFIER comes first, before ip. */
	l = mklayout(S(IDENTIFIER) | S(IP) | S(ID), 0, 0, 0, 0, 0);
	hdr(&b, PERF_RECORD_SAMPLE, 0);
	u64(&b, 5); u64(&b, 0x10); u64(&b, 5);
	fin(&b);
	is_int(l.id_pos, 0, "identifier id_pos 0");
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), 0, "identifier parse");
	is_int(s.id, 5, "identifier id");
	is_int(s.ip, 0x10, "ip after identifier");

	/* Left-over bytes: under 8 are padding, 8 or more are corrupt. */
	l = mklayout(S(IP), 0, 0, 0, 0, 0);
	hdr(&b, PERF_RECORD_SAMPLE, 0);
	u64(&b, 1); u32(&b, 0);
	fin(&b);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), 0, "4 bytes of padding accepted");
	u32(&b, 0);
	fin(&b);
	pk_diag_init(&d);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 64, &d), -EBADMSG, "8 left-over bytes rejected");
	is_int(d.offset, 64 + 16, "left-over offset");
	/* ... unless sample_type has bits perfkit does not know. */
	l = mklayout(S(IP) | (1ULL << 30), 0, 0, 0, 0, 0);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), 0, "unknown bit: left-over allowed");
}

static void test_read(void)
{
	uint64_t rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
		      PERF_FORMAT_ID | PERF_FORMAT_LOST;
	struct pk_sample_layout l = mklayout(S(TID) | S(READ), rf, 0, 0, 0, 0);
	struct pk_read_value v;
	struct pk_sample s;
	struct pk_diag d;
	struct bld b;

	hdr(&b, PERF_RECORD_SAMPLE, 0);
	u32(&b, 1); u32(&b, 2);
	u64(&b, 500); u64(&b, 1000); u64(&b, 900); u64(&b, 61); u64(&b, 4);
	fin(&b);
	pk_diag_init(&d);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), 0, "read !group parse");
	is_int(s.read.nr, 1, "read nr 1");
	is_int(s.read.time_enabled, 1000, "read time_enabled");
	is_int(s.read.time_running, 900, "read time_running");
	pk_sample_read_value(&s.read, rf, 0, &v);
	ok(v.value == 500 && v.id == 61 && v.lost == 4, "read value 500 id 61 lost 4");
	truncations(&l, &b, "read single");
	roundtrip(&l, &b, "read single");

	rf = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	l = mklayout(S(READ) | S(PERIOD), rf, 0, 0, 0, 0);
	hdr(&b, PERF_RECORD_SAMPLE, 0);
	u64(&b, 10);
	u64(&b, 2); u64(&b, 777);
	u64(&b, 100); u64(&b, 11); u64(&b, 0);
	u64(&b, 200); u64(&b, 12); u64(&b, 3);
	fin(&b);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), 0, "read group parse");
	is_int(s.read.nr, 2, "group nr 2");
	is_int(s.read.time_enabled, 777, "group time_enabled");
	is_int(s.read.entry_words, 3, "group entry words");
	pk_sample_read_value(&s.read, rf, 1, &v);
	ok(v.value == 200 && v.id == 12 && v.lost == 3, "group member 1: 200 id 12 lost 3");
	truncations(&l, &b, "read group");
	roundtrip(&l, &b, "read group");

	/* A group nr far beyond the record. */
	memcpy(b.b + 16, &(uint64_t){ 1ULL << 60 }, 8);
	pk_diag_init(&d);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), -EBADMSG, "huge group nr rejected");
	is_int(d.offset, 32, "huge group nr offset at the entries");
}

static void test_callchain_raw_branch(void)
{
	struct pk_sample_layout l = mklayout(S(IP) | S(CALLCHAIN) | S(RAW), 0, 0, 0, 0, 0);
	uint64_t flags = 0;
	struct perf_branch_entry e;
	struct pk_sample s;
	struct pk_diag d;
	struct bld b;

	hdr(&b, PERF_RECORD_SAMPLE, 0);
	u64(&b, 0x1234);
	u64(&b, 3); u64(&b, (uint64_t)PERF_CONTEXT_KERNEL); u64(&b, 0xffffffff81000000ULL); u64(&b, 0x1234);
	u32(&b, 12); bytes(&b, "abcdefghijkl", 12);
	fin(&b);
	pk_diag_init(&d);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), 0, "callchain+raw parse");
	is_int(s.callchain_nr, 3, "callchain nr");
	is_int(s.callchain[0], (uint64_t)PERF_CONTEXT_KERNEL, "callchain keeps context marker");
	is_int(s.callchain[2], 0x1234, "callchain last ip");
	is_int(s.raw_size, 12, "raw size");
	ok(s.raw && memcmp(s.raw, "abcdefghijkl", 12) == 0, "raw bytes");
	truncations(&l, &b, "callchain+raw");
	roundtrip(&l, &b, "callchain+raw (raw bytes untouched)");
	memcpy(b.b + 16, &(uint64_t){ 1ULL << 61 }, 8);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), -EBADMSG, "huge callchain nr rejected");

	/* Branch stack: no hw_idx, then hw_idx, then hw_idx + counters. */
	memset(&e, 0, sizeof(e));
	e.mispred = 1; e.in_tx = 1; e.cycles = 0x1234; e.type = 5; e.spec = 2; e.new_type = 9; e.priv = 3;
	memcpy(&flags, (uint8_t *)&e + 16, 8);
	for (int mode = 0; mode < 3; mode++) {
		uint64_t bst = PERF_SAMPLE_BRANCH_ANY | (mode ? (1ULL << 17) : 0) | (mode == 2 ? (1ULL << 19) : 0);
		char name[64];

		l = mklayout(S(BRANCH_STACK) | S(WEIGHT), 0, bst, 0, 0, 0);
		hdr(&b, PERF_RECORD_SAMPLE, 0);
		u64(&b, 2);
		if (mode)
			u64(&b, 7);
		branch(&b, 0x100, 0x200, flags);
		branch(&b, 0x300, 0x400, 0);
		if (mode == 2) {
			u64(&b, 0x11); u64(&b, 0x22);
		}
		u64(&b, 99);
		fin(&b);
		snprintf(name, sizeof(name), "branch stack mode %d", mode);
		is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), 0, "%s parse", name);
		is_int(s.branch_nr, 2, "%s nr", name);
		is_int(s.branch_hw_idx, mode ? 7 : -1, "%s hw_idx", name);
		ok(s.branch[0].from == 0x100 && s.branch[1].to == 0x400, "%s from/to", name);
		ok(s.branch[0].cycles == 0x1234 && s.branch[0].mispred && s.branch[0].new_type == 9,
		   "%s flags", name);
		ok(mode == 2 ? (s.branch_counters && s.branch_counters[1] == 0x22) : !s.branch_counters,
		   "%s counters", name);
		is_int(s.weight, 99, "%s weight after it", name);
		truncations(&l, &b, name);
		roundtrip(&l, &b, name);
	}
	memcpy(b.b + 8, &(uint64_t){ 1ULL << 59 }, 8);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), -EBADMSG, "huge branch nr rejected");
}

static void test_regs_stack_weight(void)
{
	uint64_t st = S(REGS_USER) | S(STACK_USER) | S(WEIGHT_STRUCT) | S(REGS_INTR);
	struct pk_sample_layout l = mklayout(st, 0, 0, 0x7, 0x3, 0);
	struct pk_sample s;
	struct pk_diag d;
	struct bld b;

	/* abi 0 means no regs; stack size 0 means no dyn_size. */
	hdr(&b, PERF_RECORD_SAMPLE, 0);
	u64(&b, 0);
	u64(&b, 0);
	u64(&b, 0x0003000200000064ULL);
	u64(&b, 2); u64(&b, 0xa); u64(&b, 0xb);
	fin(&b);
	pk_diag_init(&d);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), 0, "abi 0 / empty stack parse");
	ok(s.regs_user_abi == 0 && !s.regs_user, "no user regs with abi 0");
	ok(s.stack_user_size == 0 && s.stack_user_dyn_size == 0, "no dyn_size with size 0");
	ok(s.weight == 100 && s.ins_lat == 2 && s.weight3 == 3, "weight_struct 100/2/3");
	ok(s.regs_intr_abi == 2 && s.regs_intr[1] == 0xb, "intr regs popcount(0x3)");
	truncations(&l, &b, "regs abi 0");
	roundtrip(&l, &b, "regs abi 0");

	hdr(&b, PERF_RECORD_SAMPLE, 0);
	u64(&b, 2); u64(&b, 1); u64(&b, 2); u64(&b, 3);
	u64(&b, 16); bytes(&b, "0123456789abcdef", 16); u64(&b, 12);
	u64(&b, 55);
	u64(&b, 0);
	fin(&b);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), 0, "regs + stack parse");
	ok(s.regs_user_abi == 2 && s.regs_user[2] == 3, "user regs popcount(0x7)");
	ok(s.stack_user_size == 16 && s.stack_user_dyn_size == 12 &&
	   memcmp(s.stack_user, "0123456789abcdef", 16) == 0, "user stack 16 bytes, dyn 12");
	truncations(&l, &b, "regs + stack");
	roundtrip(&l, &b, "regs + stack");
	memcpy(b.b + 40, &(uint64_t){ 1ULL << 63 }, 8);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), -EBADMSG, "huge stack size rejected");
}

/* Every field at once; the tail order is PHYS_ADDR, CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE, AUX. */
static void test_all_fields(void)
{
	uint64_t st = S(IDENTIFIER) | S(IP) | S(TID) | S(TIME) | S(ADDR) | S(ID) | S(STREAM_ID) |
		      S(CPU) | S(PERIOD) | S(READ) | S(CALLCHAIN) | S(RAW) | S(BRANCH_STACK) |
		      S(REGS_USER) | S(STACK_USER) | S(WEIGHT) | S(DATA_SRC) | S(TRANSACTION) |
		      S(REGS_INTR) | S(PHYS_ADDR) | S(CGROUP) | S(DATA_PAGE_SIZE) | S(CODE_PAGE_SIZE) |
		      S(AUX);
	struct pk_sample_layout l = mklayout(st, PERF_FORMAT_ID, 1ULL << 17, 0x1, 0x1, 1);
	struct pk_sample s;
	struct pk_diag d;
	struct bld b;

	hdr(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	u64(&b, 9); u64(&b, 0xffffffff81000010ULL); u32(&b, 10); u32(&b, 11); u64(&b, 12);
	u64(&b, 13); u64(&b, 9); u64(&b, 14); u32(&b, 15); u32(&b, 0); u64(&b, 16);
	u64(&b, 17); u64(&b, 9);                           /* read: value, id */
	u64(&b, 1); u64(&b, 18);                           /* callchain */
	u32(&b, 4); bytes(&b, "RAW!", 4);                  /* raw */
	u64(&b, 1); u64(&b, 0); branch(&b, 19, 20, 0x21);  /* branch, hw_idx 0 */
	u64(&b, 2); u64(&b, 22);                           /* regs_user */
	u64(&b, 8); bytes(&b, "stackstk", 8); u64(&b, 8);  /* stack */
	u64(&b, 23); u64(&b, 24); u64(&b, 25);             /* weight, data_src, transaction */
	u64(&b, 1); u64(&b, 26);                           /* regs_intr */
	u64(&b, 27); u64(&b, 28); u64(&b, 4096); u64(&b, 2097152);
	u64(&b, 8); bytes(&b, "auxdata!", 8);
	fin(&b);
	pk_diag_init(&d);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), 0, "all fields parse (%s)", d.msg);
	is_int(s.present, st, "all present");
	ok(s.id == 9 && s.stream_id == 14 && s.cpu == 15 && s.period == 16, "all: id/stream/cpu/period");
	ok(s.callchain_nr == 1 && s.callchain[0] == 18 && s.raw_size == 4, "all: callchain, raw");
	ok(s.branch_hw_idx == 0 && s.branch[0].to == 20, "all: branch");
	ok(s.weight == 23 && s.data_src == 24 && s.transaction == 25, "all: weight/data_src/transaction");
	ok(s.regs_intr_abi == 1 && s.regs_intr[0] == 26, "all: regs_intr");
	is_int(s.phys_addr, 27, "tail: phys_addr first");
	is_int(s.cgroup, 28, "tail: cgroup second");
	is_int(s.data_page_size, 4096, "tail: data_page_size");
	is_int(s.code_page_size, 2097152, "tail: code_page_size");
	ok(s.aux_size == 8 && memcmp(s.aux, "auxdata!", 8) == 0, "tail: aux last");
	truncations(&l, &b, "all fields");
	roundtrip(&l, &b, "all fields");
	memcpy(b.b + b.n - 16, &(uint64_t){ UINT64_MAX }, 8);
	is_int(pk_sample_parse(&l, b.b, b.n, &s, 0, &d), -EBADMSG, "aux size UINT64_MAX rejected");
}

/* A branch-flags word as a big-endian machine lays it out, decoded by hand. */
static void test_branch_flags_swap(void)
{
	struct pk_sample_layout l = mklayout(S(BRANCH_STACK), 0, 0, 0, 0, 0);
	uint8_t rec[40] = { 9, 0, 0, 0, 0, 0, 40, 0 };
	/* nr = 1 big-endian; from 0x10, to 0x20; flags: mispred (bit 63), abort (60),
	 * cycles 0x00ab at bits 44-59, type 3 at 40-43, priv 5 at 31-33. */
	uint8_t be[32] = { 0, 0, 0, 0, 0, 0, 0, 1,
			   0, 0, 0, 0, 0, 0, 0, 0x10,
			   0, 0, 0, 0, 0, 0, 0, 0x20 };
	uint64_t v = 1ULL << 63 | 1ULL << 60 | 0xabULL << 44 | 3ULL << 40 | 5ULL << 31;
	struct pk_sample s;
	struct pk_diag d;

	for (int i = 0; i < 8; i++)
		be[24 + i] = (uint8_t)(v >> (56 - 8 * i));
	memcpy(rec + 8, be, 32);
	pk_diag_init(&d);
	is_int(pk_record_swap(rec, 40, &l, 0, &d), 0, "big-endian branch record swaps");
	is_int(pk_sample_parse(&l, rec, 40, &s, 0, &d), 0, "and parses");
	ok(s.branch_nr == 1 && s.branch[0].from == 0x10 && s.branch[0].to == 0x20, "be from/to");
	ok(s.branch[0].mispred == 1 && s.branch[0].predicted == 0 && s.branch[0].abort == 1 &&
	   s.branch[0].cycles == 0xab && s.branch[0].type == 3 && s.branch[0].priv == 5 &&
	   s.branch[0].spec == 0, "be flags: mispred, abort, cycles 0xab, type 3, priv 5");
}

/* ---- trailer and ids ------------------------------------------------------ */

static void test_trailer(void)
{
	uint64_t st = S(IP) | S(TID) | S(TIME) | S(ID) | S(STREAM_ID) | S(CPU) | S(IDENTIFIER);
	struct pk_sample_layout l = mklayout(st, 0, 0, 0, 0, 1);
	uint8_t tmp[256];
	struct pk_sample s;
	union pk_rec r;
	struct pk_diag d;
	struct bld b;
	uint64_t id = 0;

	is_int(l.id_trailer_size, 48, "trailer 48 bytes (tid, time, id, stream, cpu, identifier)");
	is_int(l.id_pos_from_end, 8, "identifier last");
	hdr(&b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	u32(&b, 100); u32(&b, 101); str(&b, "bash", 8);
	u32(&b, 100); u32(&b, 101); u64(&b, 5555); u64(&b, 31); u64(&b, 32); u32(&b, 7); u32(&b, 0);
	u64(&b, 31);
	fin(&b);
	pk_diag_init(&d);
	is_int(pk_sample_id_parse(&l, b.b, b.n, &s, 0, &d), 0, "trailer parse");
	ok(s.pid == 100 && s.tid == 101 && s.time == 5555 && s.id == 31 && s.stream_id == 32 &&
	   s.cpu == 7, "trailer values");
	is_int(s.present, st & ~S(IP), "trailer present bits");
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "comm with trailer decodes");
	ok(r.comm.exec && strcmp(r.comm.comm, "bash") == 0, "comm 'bash', exec");
	roundtrip(&l, &b, "comm + trailer");

	/* pk_sample_swapped_id on the foreign form, header swapped or not. */
	foreign(&b, tmp);
	is_int(pk_sample_swapped_id(tmp, b.n, &l, &id), 0, "swapped id found (native header)");
	is_int(id, 31, "swapped id value");
	id = 0;
	*(uint32_t *)tmp = bswap_32(PERF_RECORD_COMM);
	is_int(pk_sample_swapped_id(tmp, b.n, &l, &id), 0, "swapped id found (swapped header)");
	is_int(id, 31, "swapped id value (swapped header)");

	/* ID without IDENTIFIER: from the end past stream_id and cpu. */
	l = mklayout(S(TID) | S(ID) | S(STREAM_ID) | S(CPU), 0, 0, 0, 0, 1);
	is_int(l.id_pos_from_end, 24, "id 24 bytes from the end");
	hdr(&b, PERF_RECORD_SAMPLE, 0);
	u32(&b, 1); u32(&b, 2); u64(&b, 0x77); u64(&b, 0); u32(&b, 0); u32(&b, 0);
	fin(&b);
	foreign(&b, tmp);
	is_int(pk_sample_swapped_id(tmp, b.n, &l, &id), 0, "sample swapped id");
	is_int(id, 0x77, "sample id after tid");

	/* Too short for the trailer; no sample_id_all. */
	pk_diag_init(&d);
	is_int(pk_sample_id_parse(&l, b.b, 24, &s, 500, &d), -EBADMSG, "short trailer rejected");
	is_int(d.offset, 500, "short trailer offset");
	l = mklayout(st, 0, 0, 0, 0, 0);
	is_int(pk_sample_id_parse(&l, b.b, b.n, &s, 0, &d), 0, "no sample_id_all: ok");
	is_int(s.present, 0, "no sample_id_all: nothing present");
	is_int(l.id_trailer_size, 0, "no sample_id_all: no trailer");
	l = mklayout(S(TIME), 0, 0, 0, 0, 1);
	is_int(pk_sample_swapped_id(b.b, b.n, &l, &id), -ENOENT, "no id in layout: -ENOENT");
}


/* ---- pk_rec_decode ---------------------------------------------------------- */

/* Prefixes shorter than @min_ok fail with -EBADMSG, longer ones decode. */
static void decode_truncations(const struct bld *b, uint32_t trailer, size_t min_ok, const char *name)
{
	int bad = 0;

	for (size_t len = 0; len < b->n; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		union pk_rec r;
		struct pk_diag d;
		int err, want_ok = len >= min_ok + trailer;

		memcpy(copy, b->b, len);
		/* Keep the trailer at the end: the caller passes the trailer size of the full record. */
		pk_diag_init(&d);
		err = pk_rec_decode(copy, len, len >= 8 + trailer ? trailer : 0, &r, 0, &d);
		if (want_ok ? err != 0 : err != -EBADMSG) {
			if (!bad)
				diag("%s: prefix %zu gave %d (%s)", name, len, err, d.msg);
			bad++;
		}
		free(copy);
	}
	ok(!bad, "%s: prefixes below %zu bytes fail, the rest decode", name, min_ok);
}

static void test_rec_decode(void)
{
	struct pk_sample_layout l = mklayout(S(TID) | S(TIME), 0, 0, 0, 0, 1);
	uint8_t bid[20];
	union pk_rec r;
	struct pk_diag d;
	struct bld b;

	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0xa0 + i);
	pk_diag_init(&d);

	hdr(&b, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	u32(&b, 10); u32(&b, 11); u64(&b, 0x400000); u64(&b, 0x1000); u64(&b, 0x200);
	str(&b, "/bin/true", 16);
	u32(&b, 10); u32(&b, 11); u64(&b, 99);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "mmap decodes");
	ok(r.mmap.pid == 10 && r.mmap.tid == 11 && r.mmap.start == 0x400000 && r.mmap.len == 0x1000 &&
	   r.mmap.pgoff == 0x200 && !r.mmap.mmap2 && strcmp(r.mmap.filename, "/bin/true") == 0,
	   "mmap fields");
	decode_truncations(&b, 0, 8 + 32 + 10, "mmap");
	roundtrip(&l, &b, "mmap");

	hdr(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	u32(&b, 1); u32(&b, 2); u64(&b, 0x7f0000); u64(&b, 0x2000); u64(&b, 0);
	u32(&b, 8); u32(&b, 1); u64(&b, 1234); u64(&b, 5);
	u32(&b, 5); u32(&b, 2); str(&b, "libc.so.6", 16);
	u32(&b, 1); u32(&b, 2); u64(&b, 7);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "mmap2 decodes");
	ok(r.mmap.mmap2 && r.mmap.maj == 8 && r.mmap.min == 1 && r.mmap.ino == 1234 &&
	   r.mmap.ino_generation == 5 && r.mmap.prot == 5 && r.mmap.flags == 2 &&
	   r.mmap.build_id_size == 0 && strcmp(r.mmap.filename, "libc.so.6") == 0, "mmap2 fields");
	decode_truncations(&b, 0, 72 + 10, "mmap2");
	roundtrip(&l, &b, "mmap2");

	hdr(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	u32(&b, 1); u32(&b, 2); u64(&b, 0x7f0000); u64(&b, 0x2000); u64(&b, 0);
	bytes(&b, (uint8_t[]){ 20, 0 }, 2); u16(&b, 0); bytes(&b, bid, 20);
	u32(&b, 5); u32(&b, 2); str(&b, "a.out", 8);
	u32(&b, 1); u32(&b, 2); u64(&b, 7);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "mmap2 build-id decodes");
	ok(r.mmap.build_id_size == 20 && r.mmap.build_id && r.mmap.build_id[19] == 0xb3 &&
	   r.mmap.ino == 0 && strcmp(r.mmap.filename, "a.out") == 0, "mmap2 build-id fields");
	roundtrip(&l, &b, "mmap2 build-id");

	b.b[40] = 21;
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 900, &d), -EBADMSG, "build-id size 21 rejected");
	is_int(d.offset, 940, "build-id size offset");

	/* MMAP2 of kernels 3.12-3.15 (hotspot/perf.data.true.v2): no prot/flags, name at 64. */
	hdr(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	u32(&b, 28388); u32(&b, 28388); u64(&b, 0x400000); u64(&b, 0x6000); u64(&b, 0);
	u32(&b, 0xfd); u32(&b, 1); u64(&b, 134986833); u64(&b, 489497562);
	str(&b, "/usr/bin/true", 16);
	u32(&b, 28388); u32(&b, 28388); u64(&b, 7);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "3.12 mmap2 decodes");
	ok(r.mmap.ino == 134986833 && r.mmap.prot == 0 && strcmp(r.mmap.filename, "/usr/bin/true") == 0,
	   "3.12 mmap2: name at 64, no prot");
	roundtrip(&l, &b, "3.12 mmap2 (name bytes untouched)");

	hdr(&b, PERF_RECORD_COMM, 0);
	u32(&b, 5); u32(&b, 5); bytes(&b, "12345678", 8);
	fin(&b);
	pk_diag_init(&d);
	is_int(pk_rec_decode(b.b, b.n, 0, &r, 4096, &d), -EBADMSG, "comm without NUL rejected");
	is_int(d.offset, 4096 + 16, "unterminated string offset");

	hdr(&b, PERF_RECORD_FORK, 0);
	u32(&b, 20); u32(&b, 1); u32(&b, 21); u32(&b, 1); u64(&b, 123);
	u32(&b, 20); u32(&b, 21); u64(&b, 123);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "fork decodes");
	ok(r.task.pid == 20 && r.task.ppid == 1 && r.task.tid == 21 && r.task.ptid == 1 &&
	   r.task.time == 123, "fork fields");
	decode_truncations(&b, 0, 32, "fork");
	roundtrip(&l, &b, "fork");
	b.b[0] = PERF_RECORD_EXIT;
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "exit decodes");

	hdr(&b, PERF_RECORD_LOST, 0);
	u64(&b, 3); u64(&b, 17); u32(&b, 0); u32(&b, 0); u64(&b, 0);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "lost decodes");
	ok(r.lost.id == 3 && r.lost.lost == 17, "lost id 3, 17 lost");
	decode_truncations(&b, 0, 24, "lost");
	roundtrip(&l, &b, "lost");

	hdr(&b, PERF_RECORD_THROTTLE, 0);
	u64(&b, 1000); u64(&b, 4); u64(&b, 5); u32(&b, 0); u32(&b, 0); u64(&b, 0);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "throttle decodes");
	ok(r.throttle.time == 1000 && r.throttle.id == 4 && r.throttle.stream_id == 5, "throttle fields");
	roundtrip(&l, &b, "throttle");
	b.b[0] = PERF_RECORD_UNTHROTTLE;
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "unthrottle decodes");

	hdr(&b, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	u32(&b, 1); u32(&b, 1); u64(&b, 1);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "switch decodes");
	ok(r.sw.out && r.sw.preempt, "switch out, preempt");
	roundtrip(&l, &b, "switch");

	hdr(&b, PERF_RECORD_SWITCH_CPU_WIDE, 0);
	u32(&b, 300); u32(&b, 301); u32(&b, 1); u32(&b, 1); u64(&b, 1);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "switch_cpu_wide decodes");
	ok(!r.sw.out && r.sw.next_prev_pid == 300 && r.sw.next_prev_tid == 301, "switch_cpu_wide in, next 300/301");
	decode_truncations(&b, 0, 16, "switch_cpu_wide");
	roundtrip(&l, &b, "switch_cpu_wide");

	hdr(&b, PERF_RECORD_KSYMBOL, 0);
	u64(&b, 0xffffffffc0000000ULL); u32(&b, 256); u16(&b, 1); u16(&b, 0); str(&b, "bpf_prog_x", 16);
	u32(&b, 0); u32(&b, 0); u64(&b, 0);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "ksymbol decodes");
	ok(r.ksymbol.addr == 0xffffffffc0000000ULL && r.ksymbol.len == 256 && r.ksymbol.ksym_type == 1 &&
	   strcmp(r.ksymbol.name, "bpf_prog_x") == 0, "ksymbol fields");
	decode_truncations(&b, 0, 24 + 11, "ksymbol");
	roundtrip(&l, &b, "ksymbol");

	hdr(&b, PERF_RECORD_LOST_SAMPLES, 0);
	u64(&b, 4242); u32(&b, 0); u32(&b, 0); u64(&b, 0);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, l.id_trailer_size, &r, 0, &d), 0, "lost_samples decodes");
	is_int(r.lost_samples, 4242, "lost_samples 4242");
	roundtrip(&l, &b, "lost_samples");

	hdr(&b, 67, PERF_RECORD_MISC_KERNEL | (1 << 15));
	u32(&b, (uint32_t)-1); bytes(&b, bid, 20); bytes(&b, (uint8_t[]){ 16, 0 }, 2); u16(&b, 0);
	str(&b, "[kernel.kallsyms]", 64);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, 0, &r, 0, &d), 0, "build_id decodes");
	ok(r.build_id.pid == -1 && r.build_id.size == 16 && r.build_id.build_id[0] == 0xa0 &&
	   strcmp(r.build_id.filename, "[kernel.kallsyms]") == 0, "build_id: pid -1, size 16 from misc bit 15");
	decode_truncations(&b, 0, 36 + 18, "build_id");
	roundtrip(NULL, &b, "build_id");
	*(uint32_t *)b.b = 0;   /* as inside the BUILD_ID feature section */
	*(uint16_t *)(b.b + 4) = PERF_RECORD_MISC_USER;
	is_int(pk_rec_decode(b.b, b.n, 0, &r, 0, &d), 0, "feature build-id entry (type 0) decodes");
	is_int(r.build_id.size, 20, "without misc bit 15 the size is 20");

	hdr(&b, 71, 0);
	u64(&b, 65536); u64(&b, 4096); u64(&b, 0xfeed); u32(&b, 2); u32(&b, 33); u32(&b, 1); u32(&b, 0);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, 0, &r, 0, &d), 0, "auxtrace decodes");
	ok(r.auxtrace.size == 65536 && r.auxtrace.offset == 4096 && r.auxtrace.reference == 0xfeed &&
	   r.auxtrace.idx == 2 && r.auxtrace.tid == 33 && r.auxtrace.cpu == 1, "auxtrace fields");
	decode_truncations(&b, 0, 48, "auxtrace");
	roundtrip(NULL, &b, "auxtrace");

	hdr(&b, 68, 0);
	fin(&b);
	is_int(pk_rec_decode(b.b, b.n, 0, &r, 0, &d), -ENOENT, "finished_round: -ENOENT");
	is_int(pk_rec_decode(b.b, b.n, 8, &r, 0, &d), -EBADMSG, "trailer larger than the payload");
}

/* Kernel records pk_rec_decode does not interpret, and perf-tool records: swap round trips. */
static void test_swap_more(void)
{
	struct pk_sample_layout l = mklayout(S(TID) | S(TIME) | S(CPU) | S(IDENTIFIER), 0, 0, 0, 0, 1);
	struct pk_diag d;
	struct bld b;
	uint8_t tmp[2048];

#define TRAILER() do { u32(&b, 1); u32(&b, 2); u64(&b, 3); u32(&b, 4); u32(&b, 0); u64(&b, 5); } while (0)
	hdr(&b, PERF_RECORD_READ, 0);
	u32(&b, 1); u32(&b, 2); u64(&b, 3); u64(&b, 4); TRAILER(); fin(&b);
	roundtrip(&l, &b, "read record");
	hdr(&b, PERF_RECORD_AUX, 0);
	u64(&b, 1); u64(&b, 2); u64(&b, 3); TRAILER(); fin(&b);
	roundtrip(&l, &b, "aux record");
	hdr(&b, PERF_RECORD_ITRACE_START, 0);
	u32(&b, 1); u32(&b, 2); TRAILER(); fin(&b);
	roundtrip(&l, &b, "itrace_start");
	hdr(&b, PERF_RECORD_NAMESPACES, 0);
	u32(&b, 1); u32(&b, 2); u64(&b, 2); u64(&b, 3); u64(&b, 4); u64(&b, 5); u64(&b, 6);
	TRAILER(); fin(&b);
	roundtrip(&l, &b, "namespaces");
	hdr(&b, PERF_RECORD_BPF_EVENT, 0);
	u16(&b, 1); u16(&b, 0); u32(&b, 77); bytes(&b, "TAGTAG!!", 8); TRAILER(); fin(&b);
	roundtrip(&l, &b, "bpf_event");
	hdr(&b, PERF_RECORD_CGROUP, 0);
	u64(&b, 9); str(&b, "/sys.slice", 16); TRAILER(); fin(&b);
	roundtrip(&l, &b, "cgroup");
	hdr(&b, PERF_RECORD_TEXT_POKE, 0);
	u64(&b, 0xffff0000); u16(&b, 2); u16(&b, 2); bytes(&b, "\x90\x90\xcc\xcc", 4); TRAILER(); fin(&b);
	roundtrip(&l, &b, "text_poke");
	hdr(&b, PERF_RECORD_AUX_OUTPUT_HW_ID, 0);
	u64(&b, 3); TRAILER(); fin(&b);
	roundtrip(&l, &b, "aux_output_hw_id");
	hdr(&b, 22, 0);
	u64(&b, 0xc00c1e); u64(&b, 2); u64(&b, 0x401000); u64(&b, 0x402000); TRAILER(); fin(&b);
	roundtrip(&l, &b, "callchain_deferred");
#undef TRAILER

	/* HEADER_ATTR: a 128-byte attr (flag word included) and two ids. */
	hdr(&b, 64, 0);
	u32(&b, PERF_TYPE_SOFTWARE); u32(&b, 128); u64(&b, 0); u64(&b, 4000); u64(&b, 0x107);
	u64(&b, 4);
	{ uint64_t fl = 1 | 1ULL << 5 | 2ULL << 15 | 1ULL << 18 | 1ULL << 23; put(&b, &fl, 8, K_AFLAGS); }
	u32(&b, 1); u32(&b, 2); u64(&b, 3); u64(&b, 4); u64(&b, 5); u64(&b, 6); u32(&b, 7); u32(&b, 8);
	u64(&b, 9); u32(&b, 10); u16(&b, 11); u16(&b, 0); u32(&b, 12); u32(&b, 0); u64(&b, 13);
	u64(&b, 1001); u64(&b, 1002);
	fin(&b);
	roundtrip(NULL, &b, "header_attr");
	hdr(&b, 65, 0); u64(&b, 5); str(&b, "cycles", 64); fin(&b);
	roundtrip(NULL, &b, "event_type");
	hdr(&b, 66, 0); u32(&b, 4096); u32(&b, 0); fin(&b);
	roundtrip(NULL, &b, "tracing_data");
	hdr(&b, 69, 0); u64(&b, 1); u64(&b, 10); u64(&b, 0); u64(&b, 3); u64(&b, 4); fin(&b);
	roundtrip(NULL, &b, "id_index");
	hdr(&b, 70, 0); u32(&b, 1); u32(&b, 0); u64(&b, 7); u64(&b, 8); fin(&b);
	roundtrip(NULL, &b, "auxtrace_info");
	hdr(&b, 72, 0);
	u32(&b, 1); u32(&b, 2); u32(&b, 3); u32(&b, 4); u32(&b, 5); u32(&b, 2); u64(&b, 0x400);
	str(&b, "overflow", 64); u64(&b, 999); u32(&b, 6); u32(&b, 7);
	fin(&b);
	roundtrip(NULL, &b, "auxtrace_error fmt 2");
	hdr(&b, 73, 0); u64(&b, 2); u64(&b, 100); str(&b, "a", 16); u64(&b, 101); str(&b, "b", 16); fin(&b);
	roundtrip(NULL, &b, "thread_map");
	hdr(&b, 74, 0); u16(&b, 0); u16(&b, 3); u16(&b, 0); u16(&b, 1); u16(&b, 5); fin(&b);
	roundtrip(NULL, &b, "cpu_map cpus");
	hdr(&b, 74, 0); u16(&b, 1); u16(&b, 2); u16(&b, 4); u32(&b, 0xf); u32(&b, 0x100); fin(&b);
	roundtrip(NULL, &b, "cpu_map mask32");
	hdr(&b, 74, 0); u16(&b, 1); u16(&b, 1); u16(&b, 8); u32(&b, 0); u64(&b, 0xff00ff); fin(&b);
	roundtrip(NULL, &b, "cpu_map mask64");
	hdr(&b, 74, 0); u16(&b, 2); bytes(&b, "\1\0", 2); u16(&b, 0); u16(&b, 7); fin(&b);
	roundtrip(NULL, &b, "cpu_map range");
	hdr(&b, 75, 0); u64(&b, 2); u64(&b, 0); u64(&b, 1); u64(&b, 1); u64(&b, 1000); fin(&b);
	roundtrip(NULL, &b, "stat_config");
	hdr(&b, 76, 0); u64(&b, 5); u32(&b, 1); u32(&b, 2); u64(&b, 3); u64(&b, 4); u64(&b, 5); fin(&b);
	roundtrip(NULL, &b, "stat");
	hdr(&b, 77, 0); u64(&b, 1); u64(&b, 2); fin(&b);
	roundtrip(NULL, &b, "stat_round");
	hdr(&b, 78, 0); u64(&b, 1); u64(&b, 5); { double sc = 0.5; uint64_t v; memcpy(&v, &sc, 8); u64(&b, v); } fin(&b);
	roundtrip(NULL, &b, "event_update scale");
	hdr(&b, 78, 0); u64(&b, 3); u64(&b, 5); u16(&b, 0); u16(&b, 2); u16(&b, 0); u16(&b, 9); fin(&b);
	roundtrip(NULL, &b, "event_update cpus");
	hdr(&b, 78, 0); u64(&b, 2); u64(&b, 5); str(&b, "cycles:u", 16); fin(&b);
	roundtrip(NULL, &b, "event_update name");
	hdr(&b, 79, 0); u64(&b, 10); u64(&b, 20); u64(&b, 30); u64(&b, 40); u64(&b, 50);
	bytes(&b, "\1\1\0\0\0\0\0\0", 8); fin(&b);
	roundtrip(NULL, &b, "time_conv");
	hdr(&b, 80, 0); u64(&b, 3); bytes(&b, "\4\0\0\0host", 8); fin(&b);
	roundtrip(NULL, &b, "feature (payload left alone)");
	hdr(&b, 83, 0); u64(&b, 5); bytes(&b, "\x28\xb5\x2f\xfd\0\0\0\0", 8); fin(&b);
	roundtrip(NULL, &b, "compressed2");
	hdr(&b, 68, 0); fin(&b);
	roundtrip(NULL, &b, "finished_round");

	/* Corrupt counts while swapping. */
	hdr(&b, 73, 0); u64(&b, 1000); u64(&b, 1); fin(&b);
	foreign(&b, tmp);
	pk_diag_init(&d);
	is_int(pk_record_swap(tmp, b.n, NULL, 0, &d), -EBADMSG, "thread_map nr too large");
	hdr(&b, PERF_RECORD_SAMPLE, 0); u64(&b, 3); u64(&b, 1); fin(&b);
	l = mklayout(S(CALLCHAIN), 0, 0, 0, 0, 0);
	foreign(&b, tmp);
	is_int(pk_record_swap(tmp, b.n, &l, 0, &d), -EBADMSG, "callchain nr beyond the record while swapping");
	is_int(pk_record_swap(tmp, b.n, NULL, 0, &d), -EINVAL, "sample without layout: -EINVAL");
	hdr(&b, 32775, 0); fin(&b);
	is_int(pk_record_swap(b.b, b.n, NULL, 0, &d), -ENOENT, "unknown type: -ENOENT");
}

/* ---- attr import ------------------------------------------------------------ */

static void build_attr(struct bld *b)
{
	uint64_t fl = 1 | 1ULL << 4 | 2ULL << 15 | 1ULL << 18 | 1ULL << 23 | 1ULL << 37;

	memset(b, 0, sizeof(*b));
	u32(b, PERF_TYPE_HARDWARE); u32(b, 136); u64(b, 0x1111); u64(b, 0x2222); u64(b, 0x3333);
	u64(b, 0x4444);
	put(b, &fl, 8, K_AFLAGS);
	u32(b, 0x55); u32(b, 0x66); u64(b, 0x7777); u64(b, 0x8888); u64(b, 0x9999); u64(b, 0xaaaa);
	u32(b, 0xbb); u32(b, (uint32_t)-7); u64(b, 0xcccc); u32(b, 0xdd); u16(b, 0xee); u16(b, 0);
	u32(b, 0xff); u32(b, 0); u64(b, 0x1212); u64(b, 0x1313);
}

static void test_attr_import(void)
{
	static const size_t sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136 };
	uint8_t sw[256], big[160];
	struct pk_attr a, as;
	struct pk_diag d;
	struct bld b;

	build_attr(&b);
	is_int(b.n, 136, "test attr is 136 bytes");
	/* The foreign form: foreign() skips its first three fields (a header), so shift. */
	{
		struct bld t = b;

		memmove(t.f + 3, t.f, b.nf * sizeof(t.f[0]));
		t.nf = b.nf + 3;
		foreign(&t, sw);
	}
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t sz = sizes[k];
		uint8_t nat[136];

		memcpy(nat, b.b, 136);
		pk_diag_init(&d);
		is_int(pk_attr_import(&a, nat, sz, 0, 0, &d), 0, "attr %zu imports", sz);
		is_int(pk_attr_import(&as, sw, sz, 1, 0, &d), 0, "swapped attr %zu imports", sz);
		ok(memcmp(&a, &as, sizeof(a)) == 0, "attr %zu: swapped import equals native", sz);
		ok(a.attr.type == PERF_TYPE_HARDWARE && a.attr.config == 0x1111 && a.attr.sample_type == 0x3333 &&
		   a.attr.disabled && a.attr.exclude_user && a.attr.precise_ip == 2 && a.attr.sample_id_all &&
		   a.attr.mmap2 && a.attr.sigtrap && !a.attr.exclude_kernel && a.attr.bp_type == 0x66,
		   "attr %zu: VER0 fields and flags", sz);
		is_int(a.attr.config2, sz >= 72 ? 0x8888 : 0, "attr %zu: config2", sz);
		is_int(a.attr.branch_sample_type, sz >= 80 ? 0x9999 : 0, "attr %zu: branch_sample_type", sz);
		ok(sz >= 96 ? (a.attr.sample_regs_user == 0xaaaa && a.attr.sample_stack_user == 0xbb &&
			       a.attr.clockid == -7) : (!a.attr.sample_regs_user && !a.attr.clockid),
		   "attr %zu: VER3 fields", sz);
		is_int(a.attr.sample_regs_intr, sz >= 104 ? 0xcccc : 0, "attr %zu: sample_regs_intr", sz);
		ok(sz >= 112 ? (a.attr.aux_watermark == 0xdd && a.attr.sample_max_stack == 0xee)
			     : !a.attr.aux_watermark, "attr %zu: VER5 fields", sz);
		is_int(a.attr.aux_sample_size, sz >= 120 ? 0xff : 0, "attr %zu: aux_sample_size", sz);
		is_int(a.attr.sig_data, sz >= 128 ? 0x1212 : 0, "attr %zu: sig_data", sz);
		is_int(a.config3, sz >= 136 ? 0x1313 : 0, "attr %zu: config3", sz);
		is_int(a.attr.size, 136, "attr %zu: size as stored", sz);
	}
	is_int(pk_attr_import(&a, b.b, 0, 0, 0, &d), 0, "size 0 means 64");
	ok(a.attr.config1 == 0x7777 && a.attr.config2 == 0, "size 0: VER0 only");

	memset(big, 0, sizeof(big));
	memcpy(big, b.b, 136);
	is_int(pk_attr_import(&a, big, 144, 0, 0, &d), 0, "144 bytes with zero tail accepted");
	is_int(a.config3, 0x1313, "144: config3 kept");
	big[140] = 1;
	pk_diag_init(&d);
	is_int(pk_attr_import(&a, big, 144, 0, 2000, &d), -EBADMSG, "144 bytes with non-zero tail rejected");
	is_int(d.offset, 2140, "non-zero tail offset");
	is_int(pk_attr_import(&a, big, 56, 0, 0, &d), -EBADMSG, "56 bytes rejected");
}

/* A flag word written by a big-endian machine, decoded by hand. */
static void test_attr_be_flags(void)
{
	uint8_t be[64] = { 0 };
	struct pk_attr a;
	struct pk_diag d;

	be[7] = 64;                       /* size 64, big-endian */
	be[31] = 0x07;                    /* sample_type IP|TID|TIME */
	/* disabled (bit 63 of the BE word) and exclude_kernel (bit 58): byte 0 = 0x84;
	 * precise_ip 2 at bits 47-48: bit 48 -> byte 1 bit 0;
	 * sample_id_all (bit 45) -> byte 2 bit 5. */
	be[40] = 0x84;
	be[41] = 0x01;
	be[42] = 0x20;
	pk_diag_init(&d);
	is_int(pk_attr_import(&a, be, 64, 1, 0, &d), 0, "big-endian attr imports");
	is_int(a.attr.size, 64, "be size");
	is_int(a.attr.sample_type, 7, "be sample_type");
	ok(a.attr.disabled && a.attr.exclude_kernel && !a.attr.inherit && !a.attr.exclude_user,
	   "be flags disabled, exclude_kernel");
	is_int(a.attr.precise_ip, 2, "be precise_ip 2");
	ok(a.attr.sample_id_all, "be sample_id_all");
}

/* ---- perf_mem_data_src text ------------------------------------------------ */

/* Strings printed by perf 6.1 `perf script -F data_src` (trailing blanks dropped), for
 * quipper/perf.data.weight_struct and copies of it with rewritten data_src words. */
static const struct { uint64_t v; const char *s; } data_src_oracle[] = {
	{ 0x42ULL, "|OP LOAD|LVL N/A hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x200000042ULL, "|OP LOAD|LVL L1 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1200000042ULL, "|OP LOAD|LVL CXL hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1400000042ULL, "|OP LOAD|LVL I/O hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1600000042ULL, "|OP LOAD|LVL Any cache hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1800000042ULL, "|OP LOAD|LVL LFB/MAB hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1a00000042ULL, "|OP LOAD|LVL RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1c00000042ULL, "|OP LOAD|LVL PMEM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1e00000042ULL, "|OP LOAD|LVL N/A hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0xa00000002ULL, "|OP LOAD|LVL L5|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x2ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x22ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x82ULL, "|OP LOAD|LVL N/A miss|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x102ULL, "|OP LOAD|LVL L1|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x202ULL, "|OP LOAD|LVL LFB/MAB|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x2002ULL, "|OP LOAD|LVL Remote RAM (1 hop)|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x4002ULL, "|OP LOAD|LVL Remote RAM (2 hops)|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x8002ULL, "|OP LOAD|LVL Remote Cache (1 hop)|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x10002ULL, "|OP LOAD|LVL Remote Cache (2 hops)|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x20002ULL, "|OP LOAD|LVL I/O|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x40002ULL, "|OP LOAD|LVL Uncached|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x3a00000042ULL, "|OP LOAD|LVL Remote RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x600000842ULL, "|OP LOAD|LVL L3 or L3 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x2000000002ULL, "|OP LOAD|LVL Remote |SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x83a00000042ULL, "|OP LOAD|LVL Remote core, same node RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x80600000842ULL, "|OP LOAD|LVL core, same node L3 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x82000000002ULL, "|OP LOAD|LVL Remote core, same node |SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x203a00000042ULL, "|OP LOAD|LVL Remote board RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x180002ULL, "|OP LOAD|LVL N/A|SNP N/A or None|TLB N/A|LCK No|BLK  N/A" },
	{ 0xf80002ULL, "|OP LOAD|LVL N/A|SNP N/A or None or Hit or Miss or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0x4000000002ULL, "|OP LOAD|LVL N/A|SNP Fwd|TLB N/A|LCK No|BLK  N/A" },
	{ 0xc000200002ULL, "|OP LOAD|LVL N/A|SNP Hit or Fwd or Peer|TLB N/A|LCK No|BLK  N/A" },
	{ 0x4000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x8000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A hit|LCK No|BLK  N/A" },
	{ 0x18000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A hit miss|LCK No|BLK  N/A" },
	{ 0x68000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 hit|LCK No|BLK  N/A" },
	{ 0x1fc000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Walker or Fault hit miss|LCK No|BL" },
	{ 0x1ec000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Walker or Fault hit|LCK No|BLK  N/" },
	{ 0x100000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB Fault|LCK No|BLK  N/A" },
	{ 0x1000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A" },
	{ 0x2000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK Yes|BLK  N/A" },
	{ 0x3000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A" },
	{ 0x0ULL, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1ULL, "|OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x4ULL, "|OP STORE|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x8ULL, "|OP PFETCH|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x10ULL, "|OP EXEC|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1cULL, "|OP STORE|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x20000000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  Data" },
	{ 0x40000000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  Addr" },
	{ 0x60000000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  Data Addr" },
	{ 0x70000000002ULL, "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x11868100242ULL, "|OP LOAD|LVL LFB/MAB or LFB/MAB hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A" },
	{ 0x10268100142ULL, "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A" },
	{ 0x1026a100142ULL, "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB L1 or L2 hit|LCK Yes|BLK  N/A" },
	{ 0x10468100442ULL, "|OP LOAD|LVL L2 or L2 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A" },
	{ 0x10650100842ULL, "|OP LOAD|LVL L3 or L3 hit|SNP None|TLB L2 miss|LCK No|BLK  N/A" },
	{ 0x10668100842ULL, "|OP LOAD|LVL L3 or L3 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A" },
	{ 0xffffc7ffffffffffULL, "|OP N/A|LVL Remote N/A or L1 or LFB/MAB or L2 or L3 or Local RAM or Remote RAM (1" },
	{ 0x254c5d9dc9f8ULL, "|OP PFETCH|LVL board L6 hit miss|SNP N/A or None or HitM or Fwd|TLB N/A or L2 hit" },
	{ 0x649f28c105dULL, "|OP N/A|LVL Local RAM or Uncached or L4 hit|SNP N/A or HitM or Fwd|TLB L1 or L2 or" },
	{ 0x6cb0f88080bULL, "|OP N/A|LVL L3 or L5|SNP N/A or HitM or Fwd or Peer|TLB N/A or Fault hit|LCK N/A|B" },
};

static void rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
		s[--n] = '\0';
}

static void test_data_src_table(void)
{
	char buf[128], small[8];
	int bad = 0;

	for (size_t i = 0; i < sizeof(data_src_oracle) / sizeof(data_src_oracle[0]); i++) {
		pk_mem_data_src_str(data_src_oracle[i].v, buf, sizeof(buf));
		rstrip(buf);
		if (strcmp(buf, data_src_oracle[i].s)) {
			diag("0x%llx: got '%s' want '%s'", (unsigned long long)data_src_oracle[i].v, buf,
			     data_src_oracle[i].s);
			bad++;
		}
	}
	ok(!bad, "data_src column matches perf for %zu values",
	   sizeof(data_src_oracle) / sizeof(data_src_oracle[0]));
	pk_mem_lvl_str(0x11868100242ULL, buf, sizeof(buf));
	is_str(buf, "LFB/MAB or LFB/MAB hit", "mem key");
	pk_mem_snoop_str(0x11868100242ULL, buf, sizeof(buf));
	is_str(buf, "None", "snoop key");
	pk_mem_tlb_str(0x10650100842ULL, buf, sizeof(buf));
	is_str(buf, "L2 miss", "tlb key");
	pk_mem_lock_str(0x1026a100142ULL, buf, sizeof(buf));
	is_str(buf, "Yes", "lock key");
	is_int(pk_mem_lvl_str(0x11868100242ULL, small, sizeof(small)), 7, "truncated to the buffer");
	is_str(small, "LFB/MAB", "truncated text");
	is_int(pk_mem_data_src_str(0xffffc7ffffffffffULL, buf, sizeof(buf)), 82,
	       "script column capped at 82 bytes like perf");
}

/* ---- oracle runs of perf ------------------------------------------------------ */

static int have_perf(void)
{
	FILE *p = popen("perf version 2>/dev/null", "r");
	char line[128] = "";
	int okv;

	if (!p)
		return 0;
	okv = fgets(line, sizeof(line), p) && !strncmp(line, "perf version", 12);
	pclose(p);
	return okv;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* `perf script -F data_src` on @path: compare every line with pk_mem_data_src_str. */
static int script_compare(const char *path, int *lines)
{
	char cmd[600], line[512], mine[128];
	int bad = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "perf script -F data_src -i '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	*lines = 0;
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *end;
		unsigned long long v = strtoull(line, &end, 16);

		if (end == line || *end != ' ')
			continue;
		rstrip(end + 1);
		pk_mem_data_src_str(v, mine, sizeof(mine));
		rstrip(mine);
		(*lines)++;
		if (strcmp(mine, end + 1)) {
			if (bad++ < 3)
				diag("0x%llx: perf '%s', perfkit '%s'", v, end + 1, mine);
		}
	}
	pclose(p);
	return bad;
}

/* Offsets of the 72-byte samples of perf.data.weight_struct (data_src is their last u64). */
static size_t sample_offsets(const uint8_t *f, size_t len, size_t *offs, size_t max)
{
	uint64_t doff, dsize, pos;
	size_t n = 0;

	if (len < 104)
		return 0;
	memcpy(&doff, f + 40, 8);
	memcpy(&dsize, f + 48, 8);
	for (pos = doff; pos + 8 <= doff + dsize && pos + 8 <= len;) {
		uint32_t type;
		uint16_t size;

		memcpy(&type, f + pos, 4);
		memcpy(&size, f + pos + 6, 2);
		if (size < 8)
			break;
		if (type == PERF_RECORD_SAMPLE && size == 72 && n < max)
			offs[n++] = pos;
		pos += size;
	}
	return n;
}

static void test_data_src_perf(void)
{
	char path[512], dir[] = "/tmp/pk-sample-XXXXXX", copy[600];
	size_t len, offs[64], n;
	uint64_t vals[700], x = 0x9e3779b97f4a7c15ULL;
	size_t nv = 0;
	int lines, bad, total = 0, totbad = 0;
	uint8_t *f;

	snprintf(path, sizeof(path), "%s/data/perf.data/quipper/perf.data.weight_struct", shared_dir());
	f = slurp(path, &len);
	if (!f) {
		ok(1, "# SKIP %s not readable", path);
		return;
	}
	bad = script_compare(path, &lines);
	is_int(lines, 14, "perf script prints the 14 samples of weight_struct");
	is_int(bad, 0, "data_src column of weight_struct matches perf");

	/* Every field value, then random words (hops kept within perf's table). */
#define DS(op, lvl, snp, lck, tlb, num, rem, snx, blk, hops) \
	((uint64_t)(op) | (uint64_t)(lvl) << 5 | (uint64_t)(snp) << 19 | (uint64_t)(lck) << 24 | \
	 (uint64_t)(tlb) << 26 | (uint64_t)(num) << 33 | (uint64_t)(rem) << 37 | (uint64_t)(snx) << 38 | \
	 (uint64_t)(blk) << 40 | (uint64_t)(hops) << 43)
	for (unsigned i = 0; i < 16; i++) {
		vals[nv++] = DS(2, 2, 0, 0, 0, i, 0, 0, 0, 0);
		vals[nv++] = DS(i, 0, 0, 0, 0, i, 1, 0, 0, 0);
		vals[nv++] = DS(i + 16, 4, 0, 0, 0, i, 0, i & 3, i & 7, 0);
	}
	for (unsigned i = 0; i < 14; i++)
		vals[nv++] = DS(2, 1u << i, 0, 0, 0, 0, 0, 0, 0, 0);
	for (unsigned h = 0; h < 5; h++) {
		vals[nv++] = DS(2, 2, 0, 0, 0, 0xd, 1, 0, 0, h);
		vals[nv++] = DS(2, 0x42, 0, 0, 0, 3, 0, 0, 0, h);
		vals[nv++] = DS(2, 0, 0, 0, 0, 0, 1, 0, 0, h);
	}
	for (unsigned i = 0; i < 32; i++)
		vals[nv++] = DS(2, 0, i, 0, 0, 0, 0, i & 3, 0, 0);
	for (unsigned i = 0; i < 128; i++)
		vals[nv++] = DS(2, 0, 0, i & 3, i, 0, 0, 0, 0, 0);
	while (nv < 420) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		vals[nv] = x & ((1ULL << 43) - 1);
		if (nv & 1)
			vals[nv] |= (x >> 50) % 5 << 43;
		nv++;
	}
#undef DS
	n = sample_offsets(f, len, offs, 64);
	is_int(n, 14, "14 samples located in weight_struct");
	if (!mkdtemp(dir) || !n) {
		free(f);
		return;
	}
	snprintf(copy, sizeof(copy), "%s/ds.data", dir);
	for (size_t i = 0; i < nv; i += n) {
		FILE *o;

		for (size_t k = 0; k < n; k++) {
			uint64_t v = vals[i + k < nv ? i + k : i];

			memcpy(f + offs[k] + 64, &v, 8);
		}
		o = fopen(copy, "wb");
		if (!o || fwrite(f, 1, len, o) != len) {
			if (o)
				fclose(o);
			break;
		}
		fclose(o);
		bad = script_compare(copy, &lines);
		totbad += bad;
		total += lines;
	}
	unlink(copy);
	rmdir(dir);
	free(f);
	ok(total >= 410, "perf printed %d rewritten data_src values", total);
	is_int(totbad, 0, "all %d rewritten data_src values match perf's text", total);
}

/* perf report --mem-mode --sort mem,snoop,tlb,lock rows against the keys. */
static void test_mem_sort_keys(void)
{
	static const uint64_t srcs[] = { 0x11868100242ULL, 0x10668100842ULL, 0x10650100842ULL,
					 0x10268100142ULL, 0x1026a100142ULL, 0x10468100442ULL };
	char cmd[700], line[512], want[6][256], m[64], sn[64], t[64], lk[16];
	int rows = 0, matched = 0;
	FILE *p;

	for (size_t i = 0; i < 6; i++) {
		pk_mem_lvl_str(srcs[i], m, sizeof(m));
		pk_mem_snoop_str(srcs[i], sn, sizeof(sn));
		pk_mem_tlb_str(srcs[i], t, sizeof(t));
		pk_mem_lock_str(srcs[i], lk, sizeof(lk));
		snprintf(want[i], sizeof(want[i]), "%s|%s|%s|%s", m, sn, t, lk);
	}
	snprintf(cmd, sizeof(cmd), "%s/data/perf.data/quipper/perf.data.weight_struct", shared_dir());
	if (access(cmd, R_OK)) {
		ok(1, "# SKIP %s not readable", cmd);
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "perf report --stdio --mem-mode --sort mem,snoop,tlb,lock -i '%s/data/perf.data/quipper/perf.data.weight_struct' 2>/dev/null",
		 shared_dir());
	p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p)) {
		char got[256] = "";
		char *pct = strchr(line, '%'), *c;
		size_t k = 0;

		if (line[0] == '#' || !pct)
			continue;
		/* Columns are separated by two or more blanks. */
		for (c = pct + 1; *c == ' '; c++)
			;
		rstrip(c);
		for (; *c; c++) {
			if (c[0] == ' ' && c[1] == ' ') {
				while (c[1] == ' ')
					c++;
				got[k++] = '|';
			} else if (k < sizeof(got) - 1) {
				got[k++] = *c;
			}
		}
		got[k] = '\0';
		rows++;
		for (size_t i = 0; i < 6; i++)
			if (!strcmp(got, want[i])) {
				matched++;
				break;
			}
	}
	pclose(p);
	is_int(rows, 6, "perf report shows 6 memory rows");
	is_int(matched, 6, "each row equals our mem|snoop|tlb|lock text");
}

/* ---- real perf.data files ------------------------------------------------------ */

struct walk {
	uint64_t count[128];      /* per record type (< 128) */
	uint64_t samples, bad_samples, bad_trailers, bad_decodes, decoded;
	uint64_t sum_ip, sum_tid, sum_weight;
};

#define MAX_ATTRS 32

/*
 * Walk a file-mode, native-order, uncompressed perf.data: every SAMPLE must
 * parse, every kernel record's trailer must parse, and every record type
 * pk_rec_decode knows must decode. Returns -1 if the file is not of that kind.
 */
static int walk_file(const char *path, struct walk *w)
{
	struct pk_sample_layout lay[MAX_ATTRS];
	uint64_t ids[MAX_ATTRS][64];
	size_t nids[MAX_ATTRS] = { 0 };
	uint64_t attr_size, aoff, asize, doff, dsize, pos, nattrs;
	size_t len;
	uint8_t *f = slurp(path, &len);

	memset(w, 0, sizeof(*w));
	if (!f || len < 104 || memcmp(f, "PERFILE2", 8) || *(uint64_t *)(f + 8) != 104) {
		free(f);
		return -1;
	}
	memcpy(&attr_size, f + 16, 8);
	memcpy(&aoff, f + 24, 8);
	memcpy(&asize, f + 32, 8);
	memcpy(&doff, f + 40, 8);
	memcpy(&dsize, f + 48, 8);
	nattrs = attr_size > 16 ? asize / attr_size : 0;
	if (!nattrs || nattrs > MAX_ATTRS || aoff + asize > len || doff + dsize > len) {
		free(f);
		return -1;
	}
	for (uint64_t i = 0; i < nattrs; i++) {
		const uint8_t *a = f + aoff + i * attr_size;
		uint64_t ioff, isize;
		uint32_t sz;
		struct pk_attr pa;
		struct pk_diag d;

		memcpy(&sz, a + 4, 4);
		pk_diag_init(&d);
		if (pk_attr_import(&pa, a, sz, 0, aoff, &d) || (sz ? sz : 64) > attr_size - 16) {
			free(f);
			return -1;
		}
		pk_sample_layout_init(&lay[i], &pa.attr);
		memcpy(&ioff, a + attr_size - 16, 8);
		memcpy(&isize, a + attr_size - 8, 8);
		for (uint64_t k = 0; k < isize / 8 && k < 64 && ioff + 8 * k + 8 <= len; k++) {
			memcpy(&ids[i][k], f + ioff + 8 * k, 8);
			nids[i]++;
		}
	}
	for (pos = doff; pos + 8 <= doff + dsize;) {
		struct pk_sample_layout *l = &lay[0];
		uint32_t type;
		uint16_t size;
		struct pk_sample s;
		union pk_rec r;
		struct pk_diag d;
		uint64_t id;
		int err;
		/* an aligned copy, as the perfdata reader hands records over */
		uint64_t rec[65536 / 8];

		memcpy(&type, f + pos, 4);
		memcpy(&size, f + pos + 6, 2);
		if (size < 8 || pos + size > doff + dsize)
			break;
		memcpy(rec, f + pos, size);
		w->count[type < 128 ? type : 0]++;
		if (nattrs > 1 && (type == PERF_RECORD_SAMPLE ? lay[0].id_pos >= 0 :
				   type < 64 && lay[0].id_pos_from_end >= 0)) {
			size_t at = type == PERF_RECORD_SAMPLE ? 8 + (size_t)lay[0].id_pos
							       : size - (size_t)lay[0].id_pos_from_end;

			if (at + 8 <= size) {
				memcpy(&id, (uint8_t *)rec + at, 8);
				for (uint64_t i = 0; i < nattrs; i++)
					for (size_t k = 0; k < nids[i]; k++)
						if (ids[i][k] == id)
							l = &lay[i];
			}
		}
		pk_diag_init(&d);
		if (type == PERF_RECORD_SAMPLE) {
			w->samples++;
			if (pk_sample_parse(l, rec, size, &s, pos, &d)) {
				if (w->bad_samples++ < 2)
					diag("%s: %s at %llu", path, d.msg, (unsigned long long)d.offset);
			} else {
				w->sum_ip += s.ip;
				w->sum_tid += s.tid;
				w->sum_weight += s.weight;
			}
		} else if (type < 64 && pk_sample_id_parse(l, rec, size, &s, pos, &d)) {
			w->bad_trailers++;
		}
		err = pk_rec_decode(rec, size, type < 64 ? l->id_trailer_size : 0, &r, pos, &d);
		if (err == 0)
			w->decoded++;
		else if (err != -ENOENT && w->bad_decodes++ < 2)
			diag("%s: type %u: %s", path, type, d.msg);
		pos += size;
		if (type == 71 && err == 0)
			pos += r.auxtrace.size;
	}
	free(f);
	return 0;
}

static void test_real_files(void)
{
	static const char *const files[] = {
		"quipper/perf.data.weight_struct", "quipper/perf.data.branch-4.14",
		"quipper/perf.data.branch_stack_hw_index", "quipper/perf.data.branch_stack_spec",
		"quipper/perf.data.busy.1-3.8", "quipper/perf.data.callgraph_and_branch-3.8",
		"quipper/perf.data.ctx_switch_namespaces-4.14", "quipper/perf.data.group_desc-4.14",
		"quipper/perf.data.hw_and_sw-3.4", "quipper/perf.data.hybrid_topology",
		"quipper/perf.data.intel_pt-4.14", "quipper/perf.data.lost_samples-4.4",
		"quipper/perf.data.proc.map.timeout-3.18", "quipper/perf.data.armv7-3.4",
		"quipper/perf.data.i686-3.4", "perfparser/vector_static_gcc_perf.data",
		"perfparser/vector_static_gcc_perf.lbr.data", "perfparser/contentsize.data",
		"hotspot/perf.data.true.v2", "simpleperf/perf.data", "simpleperf/perf_g_fp.data",
		"simpleperf/generated_by_linux_perf.data",
	};
	int perf = have_perf();

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512], cmd[700], line[256];
		struct walk w;
		int named = 0, mism = 0;
		uint64_t sum_ip = 0, sum_tid = 0, nlines = 0;
		FILE *p;

		snprintf(path, sizeof(path), "%s/data/perf.data/%s", shared_dir(), files[i]);
		if (walk_file(path, &w)) {
			ok(1, "# SKIP %s: not a native file-mode perf.data here", files[i]);
			continue;
		}
		ok(w.samples && !w.bad_samples && !w.bad_trailers && !w.bad_decodes,
		   "%s: %llu samples parse, trailers and %llu records decode", files[i],
		   (unsigned long long)w.samples, (unsigned long long)w.decoded);
		if (!perf)
			continue;
		snprintf(cmd, sizeof(cmd), "perf report --stats -i '%s' 2>/dev/null", path);
		p = popen(cmd, "r");
		while (p && fgets(line, sizeof(line), p)) {
			char name[64];
			unsigned long long n;

			if (strstr(line, " stats:") && !strstr(line, "Aggregated"))
				break;   /* per-event sections follow */
			if (sscanf(line, " %63s events: %llu", name, &n) != 2 || !strcmp(name, "TOTAL"))
				continue;
			for (uint32_t t = 0; t < 128; t++) {
				if (pk_rec_type_name(t) && !strcmp(pk_rec_type_name(t), name)) {
					named++;
					if (w.count[t] != n && mism++ < 2)
						diag("%s: %s perf %llu perfkit %llu", files[i], name, n,
						     (unsigned long long)w.count[t]);
				}
			}
		}
		if (p)
			pclose(p);
		ok(named > 0 && !mism, "%s: %d record-type counts equal perf report --stats", files[i], named);

		/* tid and ip of every sample, summed, against perf script. */
		snprintf(cmd, sizeof(cmd), "perf script -G -F tid,ip -i '%s' 2>/dev/null", path);
		p = popen(cmd, "r");
		while (p && fgets(line, sizeof(line), p)) {
			unsigned long long tid, ip;

			if (sscanf(line, "%llu %llx", &tid, &ip) == 2) {
				sum_tid += tid;
				sum_ip += ip;
				nlines++;
			}
		}
		if (p)
			pclose(p);
		if (nlines == w.samples)
			ok(sum_ip == w.sum_ip && sum_tid == w.sum_tid, "%s: sample tids and ips equal perf script",
			   files[i]);
		else
			diag("%s: perf script printed %llu of %llu samples, not compared", files[i],
			     (unsigned long long)nlines, (unsigned long long)w.samples);
	}
}

/* perf report's "Total weight" of weight_struct (WEIGHT_STRUCT var1_dw summed). */
static void test_total_weight(void)
{
	char path[512], cmd[700], line[256];
	unsigned long long total = 0;
	struct walk w;
	FILE *p;

	snprintf(path, sizeof(path), "%s/data/perf.data/quipper/perf.data.weight_struct", shared_dir());
	if (walk_file(path, &w)) {
		ok(1, "# SKIP %s not readable", path);
		return;
	}
	snprintf(cmd, sizeof(cmd), "perf report --stdio --mem-mode --sort mem -i '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, "# Total weight : %llu", &total) == 1)
			break;
	if (p)
		pclose(p);
	is_int(total, 1725, "perf report: total weight 1725");
	is_int(w.sum_weight, total, "sum of decoded WEIGHT_STRUCT weights equals perf's total");
}

static void test_type_names(void)
{
	static const struct { uint32_t t; const char *n; } names[] = {
		{ 1, "MMAP" }, { 2, "LOST" }, { 3, "COMM" }, { 4, "EXIT" }, { 5, "THROTTLE" },
		{ 6, "UNTHROTTLE" }, { 7, "FORK" }, { 8, "READ" }, { 9, "SAMPLE" }, { 10, "MMAP2" },
		{ 11, "AUX" }, { 12, "ITRACE_START" }, { 13, "LOST_SAMPLES" }, { 14, "SWITCH" },
		{ 15, "SWITCH_CPU_WIDE" }, { 16, "NAMESPACES" }, { 17, "KSYMBOL" }, { 18, "BPF_EVENT" },
		{ 19, "CGROUP" }, { 20, "TEXT_POKE" }, { 21, "AUX_OUTPUT_HW_ID" },
		{ 22, "CALLCHAIN_DEFERRED" }, { 64, "ATTR" }, { 65, "EVENT_TYPE" },
		{ 66, "TRACING_DATA" }, { 67, "BUILD_ID" }, { 68, "FINISHED_ROUND" }, { 69, "ID_INDEX" },
		{ 70, "AUXTRACE_INFO" }, { 71, "AUXTRACE" }, { 72, "AUXTRACE_ERROR" },
		{ 73, "THREAD_MAP" }, { 74, "CPU_MAP" }, { 75, "STAT_CONFIG" }, { 76, "STAT" },
		{ 77, "STAT_ROUND" }, { 78, "EVENT_UPDATE" }, { 79, "TIME_CONV" }, { 80, "FEATURE" },
		{ 81, "COMPRESSED" }, { 82, "FINISHED_INIT" }, { 83, "COMPRESSED2" },
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!pk_rec_type_name(names[i].t) || strcmp(pk_rec_type_name(names[i].t), names[i].n))
			bad++;
	is_int(bad, 0, "record type names as perf prints them");
	ok(!pk_rec_type_name(0) && !pk_rec_type_name(23) && !pk_rec_type_name(63) &&
	   !pk_rec_type_name(32775) && !pk_rec_type_name(UINT32_MAX), "unknown types have no name");
}

int main(void)
{
	test_type_names();
	test_simple_fields();
	test_read();
	test_callchain_raw_branch();
	test_regs_stack_weight();
	test_all_fields();
	test_branch_flags_swap();
	test_trailer();
	test_rec_decode();
	test_swap_more();
	test_attr_import();
	test_attr_be_flags();
	test_data_src_table();
	if (have_perf()) {
		test_data_src_perf();
		test_mem_sort_keys();
		test_total_weight();
	} else {
		ok(1, "# SKIP perf not installed: data_src not compared with perf's output");
	}
	test_real_files();
	return done_testing();
}
