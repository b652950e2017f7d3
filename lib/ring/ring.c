/*
 * The perf_event mmap ring buffer reader: maps one control page plus a
 * power-of-two data area, walks the records the kernel published between
 * data_tail and data_head (reassembling the ones that wrap the end of the
 * area into a scratch buffer), and hands space back by storing data_tail.
 *
 * Control page (include/uapi/linux/perf_event.h, struct perf_event_mmap_page):
 *   data_head    u64  written by the kernel; read with acquire semantics
 *   data_tail    u64  written by us; stored with release semantics
 *   data_offset  u64  where the data area starts in the mapping (>= 4.1, else 0)
 *   data_size    u64  its size (>= 4.1, else 0: then page size * data pages)
 * Record (the data area is a sequence of these, positions modulo size):
 *   0  u32 type   4  u16 misc   6  u16 size (whole record, a multiple of 8)
 * Head and tail are free-running byte counters; the kernel never lets
 * head - tail exceed the data size in non-overwrite mode, so a pass that
 * claims more than that is treated as corrupt.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <perfkit/ring.h>

/* The largest record: its u16 size field, rounded up. */
#define PK_RING_SCRATCH (64 * 1024)

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* EPERM/ENOMEM from mmap: the locked-memory limit is the usual cause. */
static int mmap_fail(struct pk_diag *d, int err, size_t len)
{
	char mlock[64];

	if (pk_file_read_line("/proc/sys/kernel/perf_event_mlock_kb", mlock, sizeof(mlock)) < 0)
		snprintf(mlock, sizeof(mlock), "unknown");
	if (err != -EPERM && err != -ENOMEM)
		return pk_diag_fail(d, err, "mmap of %zu KiB failed: %s", len / 1024, strerror(-err));
	pk_diag_hint(d, "raise /proc/sys/kernel/perf_event_mlock_kb (now %s) or use -m with fewer pages",
		     mlock);
	return pk_diag_fail(d, err,
			    "mmap of %zu KiB failed: %s (see /proc/sys/kernel/perf_event_mlock_kb, "
			    "now %s KiB, or use -m with fewer pages)",
			    len / 1024, strerror(-err), mlock);
}

PK_API int pk_ring_mmap(struct pk_ring *r, int fd, size_t data_pages, struct pk_diag *d)
{
	long ps = sysconf(_SC_PAGESIZE);
	size_t page = ps > 0 ? (size_t)ps : 4096;
	struct perf_event_mmap_page *pc;
	uint64_t off, size;
	size_t len;
	void *map;

	memset(r, 0, sizeof(*r));
	if (!is_pow2(data_pages))
		return pk_diag_fail(d, -EINVAL,
				    "ring data pages must be a power of two, not %zu", data_pages);
	if (data_pages > (SIZE_MAX / page) - 1)
		return pk_diag_fail(d, -EINVAL, "ring of %zu data pages is too large", data_pages);
	len = (1 + data_pages) * page;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return mmap_fail(d, -errno, len);
	pc = map;
	off = pc->data_offset;
	size = pc->data_size;
	if (!off || !size) {
		off = page;
		size = (uint64_t)data_pages * page;
	}
	if (!pk_range_ok(off, size, len) || !is_pow2(size)) {
		munmap(map, len);
		return pk_diag_fail(d, -EPROTO, "ring control page gives data area %llu+%llu in a "
				    "%zu byte mapping", (unsigned long long)off,
				    (unsigned long long)size, len);
	}
	pk_ring_init_mem(r, pc, (unsigned char *)map + off, size);
	r->map = map;
	r->map_len = len;
	return 0;
}

PK_API void pk_ring_init_mem(struct pk_ring *r, struct perf_event_mmap_page *pc, void *data,
			     uint64_t size)
{
	memset(r, 0, sizeof(*r));
	r->pc = pc;
	r->data = data;
	r->size = size;
	r->tail = __atomic_load_n(&pc->data_tail, __ATOMIC_RELAXED);
	r->head = r->tail;
	r->pos = r->tail;
}

PK_API void pk_ring_unmap(struct pk_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	free(r->scratch);
	memset(r, 0, sizeof(*r));
}

PK_API uint64_t pk_ring_begin(struct pk_ring *r)
{
	r->head = __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
	/* pos may lag (an unfinished pass) but never lies outside [tail, head]. */
	if (r->pos - r->tail > r->head - r->tail)
		r->pos = r->tail;
	return r->head - r->tail;
}

/* Copy @n bytes at ring position @pos to @dst, in two pieces if they wrap. */
static void ring_copy(const struct pk_ring *r, void *dst, uint64_t pos, size_t n)
{
	uint64_t off = pos & (r->size - 1);
	size_t first = n;

	if (off + n > r->size)
		first = (size_t)(r->size - off);
	memcpy(dst, r->data + off, first);
	memcpy((unsigned char *)dst + first, r->data, n - first);
}

PK_API const struct perf_event_header *pk_ring_next(struct pk_ring *r, int *err)
{
	struct perf_event_header h;
	uint64_t avail = r->head - r->pos, off;

	*err = 0;
	if (!avail)
		return NULL;
	/* More than the area holds (or a head behind us): the counters are wrong. */
	if (avail > r->size || avail < sizeof(h) || !is_pow2(r->size)) {
		*err = -EBADMSG;
		return NULL;
	}
	ring_copy(r, &h, r->pos, sizeof(h));
	if (h.size < sizeof(h) || h.size % 8 || h.size > avail) {
		*err = -EBADMSG;
		return NULL;
	}
	off = r->pos & (r->size - 1);
	r->pos += h.size;
	if (off + h.size <= r->size && (uintptr_t)(r->data + off) % 8 == 0)
		return (const struct perf_event_header *)(r->data + off);
	if (!r->scratch && !(r->scratch = malloc(PK_RING_SCRATCH))) {
		r->pos -= h.size;
		*err = -ENOMEM;
		return NULL;
	}
	ring_copy(r, r->scratch, r->pos - h.size, h.size);
	return (const struct perf_event_header *)r->scratch;
}

PK_API int pk_ring_spans(const struct pk_ring *r, struct iovec iov[2])
{
	uint64_t avail = r->head - r->tail, off;

	if (!avail || avail > r->size)
		return 0;
	off = r->tail & (r->size - 1);
	iov[0].iov_base = r->data + off;
	if (off + avail <= r->size) {
		iov[0].iov_len = (size_t)avail;
		return 1;
	}
	iov[0].iov_len = (size_t)(r->size - off);
	iov[1].iov_base = r->data;
	iov[1].iov_len = (size_t)(avail - iov[0].iov_len);
	return 2;
}

PK_API void pk_ring_consume(struct pk_ring *r)
{
	r->tail = r->head;
	r->pos = r->head;
	__atomic_store_n(&r->pc->data_tail, r->tail, __ATOMIC_RELEASE);
}
