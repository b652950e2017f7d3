/*
 * perfkit ring: the kernel's mmap ring buffer of a sampling event
 * (perf_event_open(2), "MMAP layout"): one control page followed by a
 * power-of-two data area the kernel writes records into.
 *
 * Protocol (include/uapi/linux/perf_event.h, kernel/events/ring_buffer.c):
 * the consumer reads data_head with acquire semantics (smp_rmb after the
 * load), reads the records between its tail and that head, then stores
 * data_tail with release semantics (smp_mb before the store) so the kernel
 * may reuse the space. The kernel only publishes whole records; a record may
 * wrap the end of the data area (its header too) and is then reassembled
 * into a scratch buffer. When the consumer falls behind the kernel drops
 * samples and later writes a PERF_RECORD_LOST: nothing published is ever
 * overwritten (non-overwrite mode).
 *
 * A pass: pk_ring_begin() snapshots the head; pk_ring_next() walks the
 * records of the pass; pk_ring_spans() gives the unconsumed bytes of the pass
 * as at most two contiguous spans (to write them straight from the buffer);
 * pk_ring_consume() hands the whole pass back to the kernel.
 */
#ifndef PERFKIT_RING_H
#define PERFKIT_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <perfkit/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pk_ring {
	volatile struct perf_event_mmap_page *pc;   /* control page */
	unsigned char *data;         /* data area */
	uint64_t size;               /* data area bytes (a power of two) */
	void *map;                   /* the whole mapping (NULL when not mmap'ed by us) */
	size_t map_len;
	uint64_t tail;               /* consumed up to here (what data_tail says) */
	uint64_t head;               /* head snapshot of the current pass */
	uint64_t pos;                /* pk_ring_next()'s read position, tail <= pos <= head */
	unsigned char *scratch;      /* reassembly of wrapped records (64 KiB, allocated on need) */
};

/*
 * Map the ring of @fd: one control page and @data_pages pages of data
 * (a power of two, as perf's -m). 0 or -errno with @d set (EPERM/ENOMEM from
 * mmap explain perf_event_mlock_kb).
 */
PK_API int pk_ring_mmap(struct pk_ring *r, int fd, size_t data_pages, struct pk_diag *d);

/*
 * A ring over memory the caller owns (tests, replay): @pc the control page,
 * @data the data area of @size bytes (a power of two). Positions start at
 * pc->data_tail.
 */
PK_API void pk_ring_init_mem(struct pk_ring *r, struct perf_event_mmap_page *pc, void *data,
			     uint64_t size);

/* Unmap (when mapped by pk_ring_mmap) and free the scratch buffer. */
PK_API void pk_ring_unmap(struct pk_ring *r);

/* Start a pass: read data_head (acquire). Returns the bytes the pass holds. */
PK_API uint64_t pk_ring_begin(struct pk_ring *r);

/*
 * The next record of the pass, contiguous and 8-byte aligned (in the data
 * area, or reassembled in the scratch buffer when it wraps), or NULL at the
 * end of the pass. A header that cannot be right (size < 8, not a multiple
 * of 8, or reaching past the head) also returns NULL, with *@err = -EBADMSG
 * (else *@err = 0): the ring is then unusable.
 */
PK_API const struct perf_event_header *pk_ring_next(struct pk_ring *r, int *err);

/*
 * The bytes of the pass from the tail to the head as at most two contiguous
 * spans in the data area (the second when the pass wraps). Returns how many
 * spans are used (0, 1 or 2).
 */
PK_API int pk_ring_spans(const struct pk_ring *r, struct iovec iov[2]);

/* End the pass: everything up to the head is consumed; data_tail is stored (release). */
PK_API void pk_ring_consume(struct pk_ring *r);

#ifdef __cplusplus
}
#endif
#endif
