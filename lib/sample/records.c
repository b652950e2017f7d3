/*
 * Payloads of the non-sample records perfkit interprets (MMAP, MMAP2, COMM,
 * FORK, EXIT, LOST, THROTTLE, UNTHROTTLE, SWITCH, SWITCH_CPU_WIDE, KSYMBOL,
 * LOST_SAMPLES, HEADER_BUILD_ID, AUXTRACE) and perf's names of all record
 * types. Strings must end with a NUL inside the payload (before the
 * sample_id trailer); fixed fields must fit in it.
 *
 * Layouts, offsets from the record start (../shared/reference/perf-data.md §6):
 *   MMAP (1)        8 pid u32, 12 tid u32, 16 addr u64, 24 len u64, 32 pgoff u64, 40 filename[]
 *   MMAP2 (10)      as MMAP to 40; 40 maj u32, 44 min u32, 48 ino u64, 56 ino_generation u64
 *                   or, with misc MMAP_BUILD_ID (1 << 14): 40 build_id_size u8, 41 u8,
 *                   42 u16, 44 build_id[20]; then 64 prot u32, 68 flags u32, 72 filename[]
 *                   (kernels 3.12-3.15 wrote no prot/flags: filename[] at 64)
 *   COMM (3)        8 pid u32, 12 tid u32, 16 comm[]
 *   EXIT (4), FORK (7)  8 pid, 12 ppid, 16 tid, 20 ptid (u32), 24 time u64
 *   LOST (2)        8 id u64, 16 lost u64
 *   THROTTLE (5), UNTHROTTLE (6)  8 time, 16 id, 24 stream_id (u64)
 *   LOST_SAMPLES (13)  8 lost u64
 *   SWITCH (14)     no payload; misc SWITCH_OUT (1 << 13), SWITCH_OUT_PREEMPT (1 << 14)
 *   SWITCH_CPU_WIDE (15)  8 next_prev_pid u32, 12 next_prev_tid u32
 *   KSYMBOL (17)    8 addr u64, 16 len u32, 20 ksym_type u16, 22 flags u16, 24 name[]
 *   HEADER_BUILD_ID (67; type 0 inside the BUILD_ID feature)
 *                   8 pid s32, 12 build_id[20], 32 size u8 (valid with misc bit 15),
 *                   33 u8, 34 u16, 36 filename[]
 *   AUXTRACE (71)   8 size, 16 offset, 24 reference (u64), 32 idx, 36 tid, 40 cpu,
 *                   44 reserved (u32); trace data follows outside header.size
 */
#include <errno.h>
#include "internal.h"

#define MISC_SWITCH_OUT          (1U << 13)
#define MISC_SWITCH_OUT_PREEMPT  (1U << 14)
#define MISC_COMM_EXEC           (1U << 13)
#define MISC_MMAP_BUILD_ID       (1U << 14)
#define MISC_BUILD_ID_SIZE       (1U << 15)

static const char *const rec_names[] = {
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	[PERF_RECORD_MMAP2] = "MMAP2",
	[PERF_RECORD_AUX] = "AUX",
	[PERF_RECORD_ITRACE_START] = "ITRACE_START",
	[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PERF_RECORD_SWITCH] = "SWITCH",
	[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PERF_RECORD_NAMESPACES] = "NAMESPACES",
	[PERF_RECORD_KSYMBOL] = "KSYMBOL",
	[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PERF_RECORD_CGROUP] = "CGROUP",
	[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	[PK_REC_CALLCHAIN_DEFERRED] = "CALLCHAIN_DEFERRED",
	[PK_REC_HEADER_ATTR] = "ATTR",
	[PK_REC_HEADER_EVENT_TYPE] = "EVENT_TYPE",
	[PK_REC_HEADER_TRACING_DATA] = "TRACING_DATA",
	[PK_REC_HEADER_BUILD_ID] = "BUILD_ID",
	[PK_REC_FINISHED_ROUND] = "FINISHED_ROUND",
	[PK_REC_ID_INDEX] = "ID_INDEX",
	[PK_REC_AUXTRACE_INFO] = "AUXTRACE_INFO",
	[PK_REC_AUXTRACE] = "AUXTRACE",
	[PK_REC_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
	[PK_REC_THREAD_MAP] = "THREAD_MAP",
	[PK_REC_CPU_MAP] = "CPU_MAP",
	[PK_REC_STAT_CONFIG] = "STAT_CONFIG",
	[PK_REC_STAT] = "STAT",
	[PK_REC_STAT_ROUND] = "STAT_ROUND",
	[PK_REC_EVENT_UPDATE] = "EVENT_UPDATE",
	[PK_REC_TIME_CONV] = "TIME_CONV",
	[PK_REC_HEADER_FEATURE] = "FEATURE",
	[PK_REC_COMPRESSED] = "COMPRESSED",
	[PK_REC_FINISHED_INIT] = "FINISHED_INIT",
	[PK_REC_COMPRESSED2] = "COMPRESSED2",
	[PK_REC_BPF_METADATA] = "BPF_METADATA",
	[PK_REC_SCHEDSTAT_CPU] = "SCHEDSTAT_CPU",
	[PK_REC_SCHEDSTAT_DOMAIN] = "SCHEDSTAT_DOMAIN",
};

const char *pk_rec_type_name(uint32_t type)
{
	if (type >= sizeof(rec_names) / sizeof(rec_names[0]))
		return NULL;
	return rec_names[type];
}

/* The payload [8, end) a decoder may read. */
struct payload {
	const uint8_t *r;
	size_t end;
	uint32_t type;
	uint64_t off;
	struct pk_diag *d;
};

static int fixed(const struct payload *p, size_t n)
{
	if (p->end < n)
		return PK_CORRUPT(p->d, p->off,
				  "%s record payload of %zu bytes is shorter than its %zu fixed bytes",
				  pk_rec_type_name(p->type) ? pk_rec_type_name(p->type) : "build-id",
				  p->end - 8, n - 8);
	return 0;
}

/* A NUL-terminated string from @at to the payload end. */
static int string(const struct payload *p, size_t at, const char **out)
{
	int err = fixed(p, at);

	if (err)
		return err;
	if (!memchr(p->r + at, '\0', p->end - at))
		return PK_CORRUPT(p->d, p->off + at, "%s record string is not NUL-terminated",
				  pk_rec_type_name(p->type) ? pk_rec_type_name(p->type) : "build-id");
	*out = (const char *)p->r + at;
	return 0;
}

static int dec_mmap(const struct payload *p, uint16_t misc, struct pk_rec_mmap *m)
{
	int err = fixed(p, p->type == PERF_RECORD_MMAP2 ? 64 : 40);

	if (err)
		return err;
	m->pid = pk_ld32(p->r + 8);
	m->tid = pk_ld32(p->r + 12);
	m->start = pk_ld64(p->r + 16);
	m->len = pk_ld64(p->r + 24);
	m->pgoff = pk_ld64(p->r + 32);
	if (p->type == PERF_RECORD_MMAP)
		return string(p, 40, &m->filename);
	m->mmap2 = 1;
	if (misc & MISC_MMAP_BUILD_ID) {
		m->build_id_size = p->r[40];
		if (m->build_id_size > 20)
			return PK_CORRUPT(p->d, p->off + 40,
					  "MMAP2 build-id size %u is larger than 20", m->build_id_size);
		m->build_id = p->r + 44;
	} else {
		m->maj = pk_ld32(p->r + 40);
		m->min = pk_ld32(p->r + 44);
		m->ino = pk_ld64(p->r + 48);
		m->ino_generation = pk_ld64(p->r + 56);
	}
	if (pk_mmap2_no_prot(p->r, p->end, 0))
		return string(p, 64, &m->filename);
	if ((err = fixed(p, 72)))
		return err;
	m->prot = pk_ld32(p->r + 64);
	m->flags = pk_ld32(p->r + 68);
	return string(p, 72, &m->filename);
}

static int dec_build_id(const struct payload *p, uint16_t misc, struct pk_rec_build_id *b)
{
	int err = fixed(p, 36);

	if (err)
		return err;
	memcpy(&b->pid, p->r + 8, sizeof(b->pid));
	b->misc = misc;
	b->size = 20;
	if (misc & MISC_BUILD_ID_SIZE) {
		b->size = p->r[32];
		if (b->size > 20)
			return PK_CORRUPT(p->d, p->off + 32, "build-id size %u is larger than 20",
					  b->size);
	}
	b->build_id = p->r + 12;
	return string(p, 36, &b->filename);
}

void pk_rec_namespace_link(const struct pk_rec_namespaces *n, uint64_t i, uint64_t *dev, uint64_t *ino)
{
	*dev = pk_ld64(n->links + 16 * i);
	*ino = pk_ld64(n->links + 16 * i + 8);
}

int pk_rec_decode(const void *rec, size_t len, uint32_t trailer, union pk_rec *out,
		  uint64_t off, struct pk_diag *d)
{
	struct payload p = { .r = rec, .off = off, .d = d };
	uint16_t misc;
	int err;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(struct perf_event_header))
		return PK_CORRUPT(d, off, "record of %zu bytes is shorter than its header", len);
	p.type = pk_ld32(p.r);
	misc = pk_ld16(p.r + 4);
	if (trailer > len - 8)
		return PK_CORRUPT(d, off, "record of %zu bytes is too short for its %u-byte sample_id trailer",
				  len, trailer);
	p.end = len - trailer;

	switch (p.type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return dec_mmap(&p, misc, &out->mmap);
	case PERF_RECORD_COMM:
		err = fixed(&p, 16);
		if (err)
			return err;
		out->comm.pid = pk_ld32(p.r + 8);
		out->comm.tid = pk_ld32(p.r + 12);
		out->comm.exec = !!(misc & MISC_COMM_EXEC);
		return string(&p, 16, &out->comm.comm);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		err = fixed(&p, 32);
		if (err)
			return err;
		out->task.pid = pk_ld32(p.r + 8);
		out->task.ppid = pk_ld32(p.r + 12);
		out->task.tid = pk_ld32(p.r + 16);
		out->task.ptid = pk_ld32(p.r + 20);
		out->task.time = pk_ld64(p.r + 24);
		return 0;
	case PERF_RECORD_LOST:
		err = fixed(&p, 24);
		if (err)
			return err;
		out->lost.id = pk_ld64(p.r + 8);
		out->lost.lost = pk_ld64(p.r + 16);
		return 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		err = fixed(&p, 32);
		if (err)
			return err;
		out->throttle.time = pk_ld64(p.r + 8);
		out->throttle.id = pk_ld64(p.r + 16);
		out->throttle.stream_id = pk_ld64(p.r + 24);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		err = fixed(&p, 16);
		if (err)
			return err;
		out->lost_samples = pk_ld64(p.r + 8);
		return 0;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		out->sw.out = !!(misc & MISC_SWITCH_OUT);
		out->sw.preempt = !!(misc & MISC_SWITCH_OUT_PREEMPT);
		if (p.type == PERF_RECORD_SWITCH)
			return 0;
		err = fixed(&p, 16);
		if (err)
			return err;
		out->sw.next_prev_pid = pk_ld32(p.r + 8);
		out->sw.next_prev_tid = pk_ld32(p.r + 12);
		return 0;
	case PERF_RECORD_KSYMBOL:
		err = fixed(&p, 24);
		if (err)
			return err;
		out->ksymbol.addr = pk_ld64(p.r + 8);
		out->ksymbol.len = pk_ld32(p.r + 16);
		out->ksymbol.ksym_type = pk_ld16(p.r + 20);
		out->ksymbol.flags = pk_ld16(p.r + 22);
		return string(&p, 24, &out->ksymbol.name);
	case PERF_RECORD_NAMESPACES:
		err = fixed(&p, 24);
		if (err)
			return err;
		out->namespaces.pid = pk_ld32(p.r + 8);
		out->namespaces.tid = pk_ld32(p.r + 12);
		out->namespaces.nr = pk_ld64(p.r + 16);
		if (out->namespaces.nr > (p.end - 24) / 16)
			return PK_CORRUPT(d, off + 16, "NAMESPACES record of %zu bytes cannot hold %llu namespaces",
					  p.end, (unsigned long long)out->namespaces.nr);
		out->namespaces.links = p.r + 24;
		return 0;
	case PERF_RECORD_BPF_EVENT:
		err = fixed(&p, 16);
		if (err)
			return err;
		out->bpf_event.type = pk_ld16(p.r + 8);
		out->bpf_event.flags = pk_ld16(p.r + 10);
		out->bpf_event.id = pk_ld32(p.r + 12);
		return 0;
	case PERF_RECORD_CGROUP:
		err = fixed(&p, 16);
		if (err)
			return err;
		out->cgroup.id = pk_ld64(p.r + 8);
		return string(&p, 16, &out->cgroup.path);
	case 0: /* build-id entry of the BUILD_ID feature section */
	case PK_REC_HEADER_BUILD_ID:
		return dec_build_id(&p, misc, &out->build_id);
	case PK_REC_AUXTRACE:
		err = fixed(&p, 48);
		if (err)
			return err;
		out->auxtrace.size = pk_ld64(p.r + 8);
		out->auxtrace.offset = pk_ld64(p.r + 16);
		out->auxtrace.reference = pk_ld64(p.r + 24);
		out->auxtrace.idx = pk_ld32(p.r + 32);
		out->auxtrace.tid = pk_ld32(p.r + 36);
		out->auxtrace.cpu = pk_ld32(p.r + 40);
		return 0;
	default:
		return -ENOENT;
	}
}
