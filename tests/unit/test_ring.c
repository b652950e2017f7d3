/*
 * Unit tests for lib/ring: a simulated kernel producer over a ring in plain
 * memory (records of varying size across many wraps, headers split by the
 * end of the area, u64 position overflow), a slow consumer that makes the
 * producer drop records and report them with PERF_RECORD_LOST, the spans of
 * a pass, corrupt headers, and a live page-fault sampling event on this
 * thread whose samples plus lost records must add up to the event's count.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/ring.h>
#include "../tap.h"

/* ---- a simulated kernel producer ---------------------------------------- */

struct producer {
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t size;
	uint64_t head;
	uint64_t pending_lost;  /* dropped, not yet reported */
	uint64_t dropped;       /* dropped in all */
};

/* The size of sample @seq: 8..200, a multiple of 8, from a hash of @seq. */
static uint16_t rec_size(uint64_t seq)
{
	return (uint16_t)(8 + 8 * (pk_hash_mix64(seq + 1) % 25));
}

static unsigned char pay_byte(uint64_t seq, size_t i)
{
	return (unsigned char)(seq * 31 + i * 7 + 1);
}

/* Build sample @seq in @buf: header (misc = low 16 bits of seq), u64 seq, pattern. */
static uint16_t build_sample(unsigned char *buf, uint64_t seq)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, (uint16_t)seq, rec_size(seq) };

	memcpy(buf, &h, sizeof(h));
	if (h.size >= 16)
		memcpy(buf + 8, &seq, 8);
	for (size_t i = 16; i < h.size; i++)
		buf[i] = pay_byte(seq, i);
	return h.size;
}

static void prod_init(struct producer *p, struct perf_event_mmap_page *pc, unsigned char *data,
		      uint64_t size, uint64_t start)
{
	memset(pc, 0, sizeof(*pc));
	memset(data, 0xee, size);
	pc->data_head = start;
	pc->data_tail = start;
	*p = (struct producer){ .pc = pc, .data = data, .size = size, .head = start };
}

/* Copy a record in at the head if it fits before data_tail (non-overwrite), then publish. */
static int prod_put(struct producer *p, const unsigned char *rec, size_t n)
{
	uint64_t tail = __atomic_load_n(&p->pc->data_tail, __ATOMIC_ACQUIRE);

	if (n > p->size - (p->head - tail))
		return 0;
	for (size_t i = 0; i < n; i++)
		p->data[(p->head + i) & (p->size - 1)] = rec[i];
	p->head += n;
	__atomic_store_n(&p->pc->data_head, p->head, __ATOMIC_RELEASE);
	return 1;
}

/* Like the kernel's output path: a pending LOST record first, then the sample. */
static void prod_sample(struct producer *p, uint64_t seq)
{
	unsigned char buf[256];
	uint16_t n;

	if (p->pending_lost) {
		struct perf_event_header h = { PERF_RECORD_LOST, 0, 24 };
		uint64_t id = 42;

		memcpy(buf, &h, 8);
		memcpy(buf + 8, &id, 8);
		memcpy(buf + 16, &p->pending_lost, 8);
		if (!prod_put(p, buf, 24)) {
			p->pending_lost++;
			p->dropped++;
			return;
		}
		p->pending_lost = 0;
	}
	n = build_sample(buf, seq);
	if (!prod_put(p, buf, n)) {
		p->pending_lost++;
		p->dropped++;
	}
}

/* 1 if @h is sample @seq, intact. */
static int sample_ok(const struct perf_event_header *h, uint64_t seq)
{
	const unsigned char *b = (const unsigned char *)h;
	uint64_t got;

	if (h->type != PERF_RECORD_SAMPLE || h->misc != (uint16_t)seq || h->size != rec_size(seq))
		return 0;
	if (h->size >= 16) {
		memcpy(&got, b + 8, 8);
		if (got != seq)
			return 0;
	}
	for (size_t i = 16; i < h->size; i++)
		if (b[i] != pay_byte(seq, i))
			return 0;
	return 1;
}

/* Sequence number of an intact sample: the u64, or misc for 8-byte ones. */
static uint64_t sample_seq(const struct perf_event_header *h, uint64_t hint)
{
	uint64_t s = hint;

	if (h->size >= 16)
		memcpy(&s, (const unsigned char *)h + 8, 8);
	else
		s = (hint & ~(uint64_t)0xffff) | h->misc;
	return s;
}

/* ---- 1 and 3: wraps, split headers, spans -------------------------------- */

#define DSIZE 512

static void test_wraps(uint64_t start, const char *what)
{
	struct perf_event_mmap_page *pc = calloc(1, sizeof(*pc));
	unsigned char *data = malloc(DSIZE), *a = malloc(DSIZE), *b = malloc(DSIZE);
	struct producer p;
	struct pk_ring r;
	uint64_t seq = 0, next = 0, total = 20000;
	int bad = 0, err = 0, span_bad = 0, inplace_bad = 0;
	long wrapped = 0, split_hdr = 0, passes = 0, two = 0, one = 0, zero_bad = 0;

	prod_init(&p, pc, data, DSIZE, start);
	pk_ring_init_mem(&r, pc, data, DSIZE);
	while (next < total && passes < 1000000) {
		struct iovec iov[2];
		size_t alen = 0, blen = 0;
		uint64_t avail;
		int ns;

		/* Fill a random amount, up to what fits. */
		for (int k = (int)(pk_hash_mix64(passes) % 8); k >= 0 && seq < total; k--) {
			unsigned char buf[256];
			uint16_t n = build_sample(buf, seq);

			if (!prod_put(&p, buf, n))
				break;
			seq++;
		}
		passes++;
		avail = pk_ring_begin(&r);
		ns = pk_ring_spans(&r, iov);
		if (!avail) {
			zero_bad += ns != 0;
			continue;
		}
		if (ns < 1 || ns > 2 || ns != ((r.tail & (DSIZE - 1)) + avail > DSIZE ? 2 : 1)) {
			span_bad++;
			continue;
		}
		ns == 2 ? two++ : one++;
		for (int i = 0; i < ns; i++) {
			memcpy(a + alen, iov[i].iov_base, iov[i].iov_len);
			alen += iov[i].iov_len;
		}
		for (const struct perf_event_header *h; (h = pk_ring_next(&r, &err));) {
			uint64_t off = (r.pos - h->size) & (DSIZE - 1);

			if (!sample_ok(h, next))
				bad++;
			if ((const unsigned char *)h == r.scratch) {
				wrapped++;
				split_hdr += off + 8 > DSIZE;
			} else if ((const unsigned char *)h != data + off || off % 8) {
				inplace_bad++;
			}
			if (blen + h->size <= DSIZE) {
				memcpy(b + blen, h, h->size);
				blen += h->size;
			}
			next++;
		}
		if (err)
			break;
		if (alen != avail || blen != avail || memcmp(a, b, alen))
			span_bad++;
		pk_ring_consume(&r);
		if (pc->data_tail != p.head)
			span_bad++;
	}
	is_int(err, 0, "%s: no error from pk_ring_next", what);
	is_int(next, total, "%s: every record arrives", what);
	is_int(bad, 0, "%s: every record intact and in order", what);
	is_int(inplace_bad, 0, "%s: unwrapped aligned records are returned in place", what);
	ok(wrapped > 100, "%s: records wrapping the end were reassembled (%ld)", what, wrapped);
	if (start % 8)
		ok(split_hdr > 10, "%s: headers split by the end were reassembled (%ld)", what,
		   split_hdr);
	is_int(span_bad, 0, "%s: spans equal the records of each pass, tail stored", what);
	ok(one > 100 && two > 100, "%s: passes with one span (%ld) and two spans (%ld)", what, one,
	   two);
	is_int(zero_bad, 0, "%s: an empty pass has no spans", what);
	pk_ring_unmap(&r);
	free(pc);
	free(data);
	free(a);
	free(b);
}

/* ---- 2: slow consumer, lost records -------------------------------------- */

static void test_slow_consumer(void)
{
	struct perf_event_mmap_page *pc = calloc(1, sizeof(*pc));
	unsigned char *data = malloc(DSIZE);
	struct producer p;
	struct pk_ring r;
	uint64_t seq = 0, seen = 0, lost = 0, lost_since = 0, nlost_recs = 0;
	int64_t last = -1;
	int err = 0, bad = 0, gap_bad = 0, back = 0;

	prod_init(&p, pc, data, DSIZE, 0);
	pk_ring_init_mem(&r, pc, data, DSIZE);
	for (int burst = 0; burst < 500; burst++) {
		int n = 10 + (int)(pk_hash_mix64((uint64_t)burst) % 60);

		for (int k = 0; k < n; k++, seq++)
			prod_sample(&p, seq);
		pk_ring_begin(&r);
		for (const struct perf_event_header *h; (h = pk_ring_next(&r, &err));) {
			if (h->type == PERF_RECORD_LOST) {
				uint64_t v;

				memcpy(&v, (const unsigned char *)h + 16, 8);
				bad += h->size != 24;
				lost += v;
				lost_since += v;
				nlost_recs++;
				continue;
			}
			uint64_t s = sample_seq(h, last < 0 ? 0 : (uint64_t)last + 1 + lost_since);

			if (!sample_ok(h, s))
				bad++;
			if ((int64_t)s <= last)
				back++;
			if (s - (uint64_t)(last + 1) != lost_since)
				gap_bad++;
			last = (int64_t)s;
			lost_since = 0;
			seen++;
		}
		pk_ring_consume(&r);
		if (err)
			break;
	}
	/* Flush: one more sample reports what is pending. */
	prod_sample(&p, seq++);
	pk_ring_begin(&r);
	for (const struct perf_event_header *h; (h = pk_ring_next(&r, &err));) {
		if (h->type == PERF_RECORD_LOST) {
			uint64_t v;

			memcpy(&v, (const unsigned char *)h + 16, 8);
			lost += v;
			nlost_recs++;
		} else {
			seen++;
			bad += !sample_ok(h, seq - 1);
		}
	}
	pk_ring_consume(&r);
	is_int(err, 0, "slow consumer: no error");
	is_int(bad, 0, "slow consumer: no corrupt record");
	is_int(back, 0, "slow consumer: sequence numbers never go backwards");
	is_int(gap_bad, 0, "slow consumer: each gap in the sequence equals the lost reported in it");
	ok(lost > 1000 && nlost_recs > 100, "slow consumer: the producer lost records (%llu in %llu)",
	   (unsigned long long)lost, (unsigned long long)nlost_recs);
	is_int(lost, p.dropped, "slow consumer: lost records report every drop");
	is_int(seen + lost, seq, "slow consumer: seen + lost = produced");
	pk_ring_unmap(&r);
	free(pc);
	free(data);
}

/* ---- 4: corrupt headers --------------------------------------------------- */

static void put_hdr(struct perf_event_mmap_page *pc, unsigned char *data, uint64_t at,
		    uint16_t size, uint64_t head)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, size };

	memcpy(data + at, &h, 8);
	pc->data_head = head;
}

static void test_corrupt(void)
{
	struct perf_event_mmap_page *pc = calloc(1, sizeof(*pc));
	unsigned char *data = calloc(1, 256);
	struct pk_ring r;
	struct iovec iov[2];
	int err;

	static const struct { uint16_t size; uint64_t head; const char *what; } cases[] = {
		{ 0, 64, "size 0" },
		{ 12, 64, "size 12" },
		{ 4, 64, "size 4" },
		{ 72, 64, "size past head" },
		{ 8, 4, "head 4 bytes past tail" },
		{ 8, 4096, "head a whole area past tail" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(pc, 0, sizeof(*pc));
		pk_ring_init_mem(&r, pc, data, 256);
		put_hdr(pc, data, 0, cases[i].size, cases[i].head);
		pk_ring_begin(&r);
		err = 0;
		ok(pk_ring_next(&r, &err) == NULL, "corrupt %s: no record", cases[i].what);
		is_int(err, -EBADMSG, "corrupt %s: -EBADMSG", cases[i].what);
		err = 0;
		ok(pk_ring_next(&r, &err) == NULL && err == -EBADMSG,
		   "corrupt %s: stays failed, no progress", cases[i].what);
		is_int(r.pos, 0, "corrupt %s: position not advanced", cases[i].what);
		pk_ring_unmap(&r);
	}
	/* A good record, then size 0: the first is returned, then the error. */
	memset(pc, 0, sizeof(*pc));
	pk_ring_init_mem(&r, pc, data, 256);
	put_hdr(pc, data, 0, 16, 32);
	put_hdr(pc, data, 16, 0, 32);
	pk_ring_begin(&r);
	ok(pk_ring_next(&r, &err) == (void *)data && err == 0, "good record before a bad one");
	ok(pk_ring_next(&r, &err) == NULL && err == -EBADMSG, "then the bad one fails");
	/* Past the area: spans refuse too. */
	pc->data_head = 1000;
	pk_ring_begin(&r);
	is_int(pk_ring_spans(&r, iov), 0, "no spans when head is more than the area ahead");
	memset(pc, 0, sizeof(*pc));
	pk_ring_init_mem(&r, pc, data, 256);
	is_int(pk_ring_begin(&r), 0, "empty pass");
	ok(pk_ring_next(&r, &err) == NULL && err == 0, "empty pass: NULL without error");
	is_int(pk_ring_spans(&r, iov), 0, "empty pass: no spans");
	/* A wrapping record whose header wraps too, at the u64 end of positions. */
	memset(pc, 0, sizeof(*pc));
	pc->data_tail = UINT64_MAX - 3;  /* 252 in the area: header split 4 + 4 */
	pk_ring_init_mem(&r, pc, data, 256);
	{
		struct perf_event_header h = { 77, 5, 24 };
		unsigned char rec[24];

		memcpy(rec, &h, 8);
		for (int i = 8; i < 24; i++)
			rec[i] = (unsigned char)i;
		for (int i = 0; i < 24; i++)
			data[(uint64_t)(UINT64_MAX - 3 + (uint64_t)i) & 255] = rec[i];
		pc->data_head = UINT64_MAX - 3 + 24;
		is_int(pk_ring_begin(&r), 24, "pass across the u64 wrap holds 24 bytes");
		const struct perf_event_header *g = pk_ring_next(&r, &err);

		ok(g && err == 0 && memcmp(g, rec, 24) == 0,
		   "record with a split header across the u64 wrap is reassembled");
		is_int(pk_ring_spans(&r, iov), 2, "and its pass has two spans");
		ok(iov[0].iov_len == 4 && iov[1].iov_len == 20 && iov[1].iov_base == (void *)data,
		   "spans of 4 and 20 bytes");
		pk_ring_consume(&r);
		is_int(pc->data_tail, 20, "tail stored past the u64 wrap");
	}
	pk_ring_unmap(&r);
	free(pc);
	free(data);
}

/* ---- 5: the real kernel --------------------------------------------------- */

static void test_mmap_errors(void)
{
	struct pk_diag d;
	struct pk_ring r;

	pk_diag_init(&d);
	is_int(pk_ring_mmap(&r, -1, 3, &d), -EINVAL, "3 data pages: -EINVAL");
	ok(strstr(d.msg, "power of two") != NULL, "diag says power of two: %s", d.msg);
	pk_diag_init(&d);
	is_int(pk_ring_mmap(&r, -1, 0, &d), -EINVAL, "0 data pages: -EINVAL");
	pk_diag_init(&d);
	is_int(pk_ring_mmap(&r, -1, 1, &d), -EBADF, "bad fd: -EBADF");
	ok(strstr(d.msg, "mmap of 8 KiB failed") != NULL || getpagesize() != 4096,
	   "diag names the mapping size: %s", d.msg);
}

struct live {
	uint64_t samples, lost, other, bad_type, bad_tid, time_back, throttles, recs;
	uint64_t last_time;
	int err;
};

static void drain(struct pk_ring *r, struct live *lv, uint32_t tid)
{
	pk_ring_begin(r);
	for (const struct perf_event_header *h; (h = pk_ring_next(r, &lv->err));) {
		const unsigned char *b = (const unsigned char *)h;

		lv->recs++;
		switch (h->type) {
		case PERF_RECORD_SAMPLE: {
			uint32_t t;
			uint64_t tm;

			if (h->size < 32) {
				lv->bad_type++;
				break;
			}
			memcpy(&t, b + 20, 4);  /* ip (8), pid (4), tid (4), time (8) */
			memcpy(&tm, b + 24, 8);
			lv->bad_tid += t != tid;
			lv->time_back += tm < lv->last_time;
			lv->last_time = tm;
			lv->samples++;
			break;
		}
		case PERF_RECORD_LOST: {
			uint64_t v;

			memcpy(&v, b + 16, 8);
			lv->lost += h->size >= 24 ? v : 0;
			break;
		}
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
			lv->throttles++;
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			lv->other++;
			break;
		default:
			lv->bad_type++;
		}
	}
	pk_ring_consume(r);
}

static void fault_pages(int npages)
{
	long ps = getpagesize();
	unsigned char *m = mmap(NULL, (size_t)(npages * ps), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return;
	for (int i = 0; i < npages; i++)
		((volatile unsigned char *)m)[i * ps] = 1;
	munmap(m, (size_t)(npages * ps));
}

static void test_live(void)
{
	struct perf_event_attr attr;
	struct pk_diag d;
	struct pk_ring r;
	struct live lv = { 0 };
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	uint64_t count = 0;
	int fd, ret;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.mmap = 1;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		ok(1, "# SKIP live ring: perf_event_open(page-faults) failed: %s", strerror(errno));
		return;
	}
	pk_diag_init(&d);
	ret = pk_ring_mmap(&r, fd, 1, &d);
	if (ret < 0) {
		ok(1, "# SKIP live ring: pk_ring_mmap failed: %s", d.msg);
		close(fd);
		return;
	}
	is_int(r.size, getpagesize(), "live: data area is one page");
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	/*
	 * Bursts of 64 faults with a sleep of at least a tick between them stay
	 * under the throttle (max_sample_rate / HZ per tick, 100 at 100000 and
	 * HZ=1000); draining every 4th burst (256 samples of 32 bytes into a
	 * 4 KiB area) makes the ring wrap and lose.
	 */
	for (int burst = 0; burst < 120; burst++) {
		struct timespec ts = { 0, 4000000 };

		for (int i = 0; i < 16; i++)
			fault_pages(4);
		if (burst % 4 == 3)
			drain(&r, &lv, tid);
		nanosleep(&ts, NULL);
	}
	/* Make room, then one more fault: its output writes the pending LOST first. */
	drain(&r, &lv, tid);
	fault_pages(1);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(&r, &lv, tid);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	diag("live: %llu faults counted, %llu samples, %llu lost, %llu throttle records",
	     (unsigned long long)count, (unsigned long long)lv.samples,
	     (unsigned long long)lv.lost, (unsigned long long)lv.throttles);
	is_int(lv.err, 0, "live: no corrupt record");
	is_int(lv.bad_type, 0, "live: every record has a known type and size");
	is_int(lv.bad_tid, 0, "live: every sample's tid is gettid()");
	is_int(lv.time_back, 0, "live: sample times are nondecreasing");
	ok(count >= 120 * 64, "live: the event counted at least the faults caused (%llu)",
	   (unsigned long long)count);
	ok(lv.samples <= count, "live: no more samples than faults");
	ok(lv.lost > 0, "live: the slow consumer lost samples (%llu)", (unsigned long long)lv.lost);
	if (lv.throttles == 0)
		is_int(lv.samples + lv.lost, count, "live: samples + lost = faults counted");
	else  /* Throttled faults are counted but neither sampled nor lost. */
		ok(lv.samples + lv.lost <= count + lv.throttles,
		   "live (throttled): samples + lost <= faults counted");
	pk_ring_unmap(&r);
	is_int(r.map == NULL && r.scratch == NULL, 1, "unmap clears the ring");
	close(fd);
}

int main(void)
{
	test_wraps(0, "aligned");
	test_wraps(4, "header split");
	test_wraps((UINT64_MAX - 4095) & ~(uint64_t)7, "u64 overflow");
	test_slow_consumer();
	test_corrupt();
	test_mmap_errors();
	test_live();
	return done_testing();
}
