/*
 * In-place byte swap of records written on a machine of the other byte
 * order: kernel records 1..22 (payload, then the sample_id trailer),
 * PERF_RECORD_SAMPLE by layout (swap_sample.c) and the perf-tool records
 * 64..83. Integers are swapped by their width, strings and byte arrays are
 * left alone. The record header must already be in host order.
 *
 * Payload layouts (offsets from the record start; §6 of
 * ../shared/reference/perf-data.md; "s" = sample_id trailer follows):
 *   1 MMAP          8 u32 pid, 12 u32 tid, 16/24/32 u64 addr,len,pgoff, 40 name      s
 *   2 LOST          8 u64 id, 16 u64 lost                                             s
 *   3 COMM          8 u32 pid, 12 u32 tid, 16 comm                                    s
 *   4 EXIT, 7 FORK  8..20 u32 pid,ppid,tid,ptid, 24 u64 time                          s
 *   5/6 (UN)THROTTLE  8/16/24 u64 time,id,stream_id                                   s
 *   8 READ          8 u32 pid, 12 u32 tid, 16 u64 values[]                            s
 *   10 MMAP2        as MMAP to 40; 40 u32 maj, 44 u32 min, 48/56 u64 ino,ino_gen
 *                   (or 40 u8 size, 41 u8, 42 u16, 44 u8[20]); 64 u32 prot, 68 u32 flags s
 *                   (kernels 3.12-3.15: no prot/flags, the name at 64)
 *   11 AUX          8/16/24 u64 offset,size,flags                                     s
 *   12 ITRACE_START 8 u32 pid, 12 u32 tid                                             s
 *   13 LOST_SAMPLES 8 u64 lost                                                        s
 *   14 SWITCH       -                                                                 s
 *   15 SWITCH_CPU_WIDE 8 u32 next_prev_pid, 12 u32 next_prev_tid                      s
 *   16 NAMESPACES   8 u32 pid, 12 u32 tid, 16 u64 nr, 24 {u64 dev, ino}[nr]           s
 *   17 KSYMBOL      8 u64 addr, 16 u32 len, 20 u16 type, 22 u16 flags, 24 name        s
 *   18 BPF_EVENT    8 u16 type, 10 u16 flags, 12 u32 id, 16 u8 tag[8]                 s
 *   19 CGROUP       8 u64 id, 16 path                                                 s
 *   20 TEXT_POKE    8 u64 addr, 16 u16 old_len, 18 u16 new_len, 20 bytes              s
 *   21 AUX_OUTPUT_HW_ID 8 u64 hw_id                                                   s
 *   22 CALLCHAIN_DEFERRED 8 u64 cookie, 16 u64 nr, 24 u64 ips[nr]                     s
 *   64 ATTR         8 attr (attr.size bytes), then u64 ids[]
 *   65 EVENT_TYPE   8 u64 event_id, 16 char name[64]
 *   66 TRACING_DATA 8 u32 size
 *   67 BUILD_ID     8 s32 pid, 12 u8 build_id[24], 36 filename
 *   69 ID_INDEX     8 u64 nr, 16 {u64 id, idx, cpu, tid}[nr] (all u64)
 *   70 AUXTRACE_INFO 8 u32 type, 12 u32 reserved, 16 u64 priv[]
 *   71 AUXTRACE     8/16/24 u64 size,offset,reference, 32..44 u32 idx,tid,cpu,reserved
 *   72 AUXTRACE_ERROR 8..28 u32 type,code,cpu,pid,tid,fmt, 32 u64 ip, 40 char msg[64],
 *                   fmt >= 1: 104 u64 time; fmt >= 2: 112 u32 machine_pid, 116 u32 vcpu
 *   73 THREAD_MAP   8 u64 nr, 16 {u64 pid; char comm[16]}[nr]
 *   74 CPU_MAP      8 cpu_map_data (below)
 *   75 STAT_CONFIG  8 u64 nr, 16 {u64 tag, val}[nr]
 *   76 STAT         8 u64 id, 16 u32 cpu, 20 u32 thread, 24/32/40 u64 val,ena,run
 *   77 STAT_ROUND   8 u64 type, 16 u64 time
 *   78 EVENT_UPDATE 8 u64 type, 16 u64 id, 24 payload: SCALE (1) double, CPUS (3)
 *                   cpu_map_data, UNIT (0) / NAME (2) string
 *   79 TIME_CONV    8/16/24 u64 shift,mult,zero, [32/40 u64 cycles,mask; u8 flags]
 *   80 FEATURE      8 u64 feat_id; the feature bytes stay in the writer's order
 *   83 COMPRESSED2  8 u64 data_size; zstd bytes
 *   68 FINISHED_ROUND, 81 COMPRESSED, 82 FINISHED_INIT: nothing to swap
 * cpu_map_data at A: A u16 type; type 0 CPUS: A+2 u16 nr, A+4 u16 cpu[nr];
 *   type 1 MASK: A+2 u16 nr, A+4 u16 long_size, A+6 u32 mask[nr] (long_size 4)
 *   or A+6 u32 pad, A+10 u64 mask[nr] (long_size 8); type 2 RANGE: A+2 u8 any_cpu,
 *   A+3 u8 pad, A+4 u16 start_cpu, A+6 u16 end_cpu.
 */
#include <errno.h>
#include "internal.h"

struct sw {
	uint8_t *r;
	size_t end;       /* end of the payload (trailer excluded) */
	uint32_t type;
	uint64_t off;
	struct pk_diag *d;
};

static int have(const struct sw *s, uint64_t at, uint64_t n)
{
	if (!pk_range_ok(at, n, s->end))
		return PK_CORRUPT(s->d, s->off + (at < s->end ? at : s->end),
				  "record type %u of %zu payload bytes too short to swap (%llu bytes at %llu)",
				  s->type, s->end, (unsigned long long)n, (unsigned long long)at);
	return 0;
}

/* Swap consecutive fields at @p whose widths in bytes are the digits of @widths. */
static void swf(uint8_t *p, const char *widths)
{
	for (; *widths; widths++) {
		switch (*widths) {
		case '2': pk_sw16(p); p += 2; break;
		case '4': pk_sw32(p); p += 4; break;
		case '8': pk_sw64(p); p += 8; break;
		}
	}
}

/* Fixed fields at 8 described by @widths; fails if the payload is shorter than @need. */
static int fixed(const struct sw *s, size_t need, const char *widths)
{
	int err = have(s, 0, need);

	if (!err)
		swf(s->r + 8, widths);
	return err;
}

/* @n u64 from @at, bounded. */
static int u64s(const struct sw *s, uint64_t at, uint64_t n)
{
	if (at > s->end || n > (s->end - at) / 8)
		return PK_CORRUPT(s->d, s->off + (at < s->end ? at : s->end),
				  "record type %u: %llu u64 at %llu run past its end",
				  s->type, (unsigned long long)n, (unsigned long long)at);
	pk_sw64_n(s->r + at, n);
	return 0;
}

static int cpu_map(const struct sw *s, uint64_t at)
{
	uint16_t type, nr, long_size;
	int err = have(s, at, 2);

	if (err)
		return err;
	pk_sw16(s->r + at);
	type = pk_ld16(s->r + at);
	switch (type) {
	case 0: /* CPUS */
		if ((err = have(s, at + 2, 2)))
			return err;
		pk_sw16(s->r + at + 2);
		nr = pk_ld16(s->r + at + 2);
		if ((err = have(s, at + 4, 2ULL * nr)))
			return err;
		for (unsigned i = 0; i < nr; i++)
			pk_sw16(s->r + at + 4 + 2 * i);
		return 0;
	case 1: /* MASK */
		if ((err = have(s, at + 2, 4)))
			return err;
		swf(s->r + at + 2, "22");
		nr = pk_ld16(s->r + at + 2);
		long_size = pk_ld16(s->r + at + 4);
		if (long_size == 4) {
			if ((err = have(s, at + 6, 4ULL * nr)))
				return err;
			for (unsigned i = 0; i < nr; i++)
				pk_sw32(s->r + at + 6 + 4 * i);
			return 0;
		}
		if (long_size == 8)
			return u64s(s, at + 10, nr);
		return PK_CORRUPT(s->d, s->off + at + 4, "cpu map mask long_size %u is not 4 or 8",
				  long_size);
	case 2: /* RANGE */
		if ((err = have(s, at + 2, 6)))
			return err;
		swf(s->r + at + 4, "22");
		return 0;
	default:
		return PK_CORRUPT(s->d, s->off + at, "unknown cpu map type %u", type);
	}
}

static int swap_kernel_payload(const struct sw *s, uint16_t misc)
{
	uint64_t nr;
	int err;

	switch (s->type) {
	case PERF_RECORD_MMAP:
		return fixed(s, 40, "44888");
	case PERF_RECORD_LOST:
		return fixed(s, 24, "88");
	case PERF_RECORD_COMM:
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return fixed(s, 16, "44");
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		return fixed(s, 32, "44448");
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_AUX:
		return fixed(s, 32, "888");
	case PERF_RECORD_READ:
		if ((err = fixed(s, 16, "44")))
			return err;
		return u64s(s, 16, (s->end - 16) / 8);
	case PERF_RECORD_MMAP2:
		if ((err = fixed(s, 64, "44888")))
			return err;
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
			pk_sw16(s->r + 42);
		else
			swf(s->r + 40, "4488");
		if (pk_mmap2_no_prot(s->r, s->end, 1))
			return 0;   /* 3.12-3.15 layout: the name starts at 64 */
		if ((err = have(s, 0, 72)))
			return err;
		swf(s->r + 64, "44");
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_CGROUP:
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		return fixed(s, 16, "8");
	case PERF_RECORD_SWITCH:
		return 0;
	case PERF_RECORD_NAMESPACES:
		if ((err = fixed(s, 24, "448")))
			return err;
		nr = pk_ld64(s->r + 16);
		if (nr > UINT64_MAX / 2)
			return PK_CORRUPT(s->d, s->off + 16, "namespaces nr %llu is too large",
					  (unsigned long long)nr);
		return u64s(s, 24, 2 * nr);
	case PERF_RECORD_KSYMBOL:
		return fixed(s, 24, "8422");
	case PERF_RECORD_BPF_EVENT:
		return fixed(s, 24, "224");
	case PERF_RECORD_TEXT_POKE:
		return fixed(s, 20, "822");
	case PK_REC_CALLCHAIN_DEFERRED:
		if ((err = fixed(s, 24, "88")))
			return err;
		return u64s(s, 24, pk_ld64(s->r + 16));
	default:
		return -ENOENT;
	}
}

static int swap_trailer(uint8_t *p, uint64_t t)
{
	if (t & PERF_SAMPLE_TID) {
		swf(p, "44");
		p += 8;
	}
	if (t & PERF_SAMPLE_TIME)
		pk_sw64(p), p += 8;
	if (t & PERF_SAMPLE_ID)
		pk_sw64(p), p += 8;
	if (t & PERF_SAMPLE_STREAM_ID)
		pk_sw64(p), p += 8;
	if (t & PERF_SAMPLE_CPU) {
		swf(p, "44");
		p += 8;
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		pk_sw64(p);
	return 0;
}

static int swap_attr_record(const struct sw *s)
{
	uint32_t size;
	int err = have(s, 0, 8 + PERF_ATTR_SIZE_VER0);

	if (err)
		return err;
	size = bswap_32(pk_ld32(s->r + 12));
	if (!size)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0)
		return PK_CORRUPT(s->d, s->off + 12, "attr size %u is below 64", size);
	if ((err = have(s, 8, size)))
		return err;
	pk_attr_swap_inplace(s->r + 8, size < PK_ATTR_SIZE_MAX ? size : PK_ATTR_SIZE_MAX);
	return u64s(s, 8 + (uint64_t)size, (s->end - 8 - size) / 8);
}

static int swap_tool(const struct sw *s)
{
	uint64_t nr;
	uint32_t fmt;
	int err;

	switch (s->type) {
	case PK_REC_HEADER_ATTR:
		return swap_attr_record(s);
	case PK_REC_HEADER_EVENT_TYPE:
	case PK_REC_HEADER_FEATURE:
	case PK_REC_COMPRESSED2:
		return fixed(s, 16, "8");
	case PK_REC_HEADER_TRACING_DATA:
		return fixed(s, 12, "4");
	case PK_REC_HEADER_BUILD_ID:
		return fixed(s, 12, "4");
	case PK_REC_FINISHED_ROUND:
	case PK_REC_COMPRESSED:
	case PK_REC_FINISHED_INIT:
		return 0;
	case PK_REC_ID_INDEX:
		/* nr entries of 4 u64, possibly followed by more u64 (machine_pid, vcpu). */
		if ((err = have(s, 0, 16)))
			return err;
		return u64s(s, 8, (s->end - 8) / 8);
	case PK_REC_AUXTRACE_INFO:
		if ((err = fixed(s, 16, "44")))
			return err;
		return u64s(s, 16, (s->end - 16) / 8);
	case PK_REC_AUXTRACE:
		return fixed(s, 48, "8884444");
	case PK_REC_AUXTRACE_ERROR:
		if ((err = fixed(s, 104, "4444448")))
			return err;
		fmt = pk_ld32(s->r + 28);
		if (fmt >= 1 && s->end >= 112)
			pk_sw64(s->r + 104);
		if (fmt >= 2 && s->end >= 120)
			swf(s->r + 112, "44");
		return 0;
	case PK_REC_THREAD_MAP:
		if ((err = fixed(s, 16, "8")))
			return err;
		nr = pk_ld64(s->r + 8);
		if (nr > (s->end - 16) / 24)
			return PK_CORRUPT(s->d, s->off + 8, "thread map of %llu entries does not fit",
					  (unsigned long long)nr);
		for (uint64_t i = 0; i < nr; i++)
			pk_sw64(s->r + 16 + 24 * i);
		return 0;
	case PK_REC_CPU_MAP:
		return cpu_map(s, 8);
	case PK_REC_STAT_CONFIG:
		if ((err = fixed(s, 16, "8")))
			return err;
		nr = pk_ld64(s->r + 8);
		if (nr > (s->end - 16) / 16)
			return PK_CORRUPT(s->d, s->off + 8, "stat config of %llu entries does not fit",
					  (unsigned long long)nr);
		return u64s(s, 16, 2 * nr);
	case PK_REC_STAT:
		return fixed(s, 48, "844888");
	case PK_REC_STAT_ROUND:
		return fixed(s, 24, "88");
	case PK_REC_EVENT_UPDATE:
		if ((err = fixed(s, 24, "88")))
			return err;
		switch (pk_ld64(s->r + 8)) {
		case 1: /* SCALE: double */
			return u64s(s, 24, 1);
		case 3: /* CPUS */
			return cpu_map(s, 24);
		default: /* UNIT, NAME: strings */
			return 0;
		}
	case PK_REC_TIME_CONV:
		if ((err = fixed(s, 32, "888")))
			return err;
		if (s->end >= 48)
			swf(s->r + 32, "88");
		return 0;
	default:
		return -ENOENT;
	}
}

int pk_record_swap(void *rec, size_t len, const struct pk_sample_layout *l,
		   uint64_t off, struct pk_diag *d)
{
	struct sw s = { .r = rec, .end = len, .off = off, .d = d };
	uint32_t trailer = 0;
	uint16_t misc;
	int err;

	if (len < sizeof(struct perf_event_header))
		return PK_CORRUPT(d, off, "record of %zu bytes is shorter than its header", len);
	s.type = pk_ld32(s.r);
	misc = pk_ld16(s.r + 4);
	if (s.type == PERF_RECORD_SAMPLE) {
		if (!l)
			return pk_diag_fail(d, -EINVAL, "swapping a sample needs its attr's layout");
		return pk_swap_sample(s.r, len, l, off, d);
	}
	if (s.type >= PK_REC_HEADER_ATTR)
		return swap_tool(&s);
	if (s.type == 0 || s.type > PK_REC_CALLCHAIN_DEFERRED)
		return -ENOENT;
	if (l && l->sample_id_all)
		trailer = l->id_trailer_size;
	if (trailer > len - 8)
		return PK_CORRUPT(d, off, "record of %zu bytes is too short for its %u-byte sample_id trailer",
				  len, trailer);
	s.end = len - trailer;
	err = swap_kernel_payload(&s, misc);
	if (err)
		return err;
	if (trailer)
		swap_trailer(s.r + s.end, l->sample_type);
	return 0;
}
