/*
 * Memory made cheap to fill: pages mapped before they are written, and
 * large arrays in huge pages. A page fault costs about 0.5 us on
 * bare metal and 20 us in this project's VMs; memory a program fills
 * straight after allocating it (megabytes of segments joined into one
 * array) takes one fault per 4 KB page. MADV_POPULATE_WRITE (Linux 5.14)
 * maps a whole range in one system call instead; older kernels refuse it,
 * and the pages then fault as before.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <perfkit/core.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Below this, the system call costs about what the faults it saves do. */
#define PREFAULT_MIN_BYTES (64u << 10)

void pk_prefault_write(void *p, size_t len)
{
	long sz = sysconf(_SC_PAGESIZE);         /* glibc keeps it: no system call */
	uintptr_t page = sz > 0 ? (uintptr_t)sz : 4096, start, end;

	if (len < PREFAULT_MIN_BYTES)
		return;
	/* the first and last pages may hold other data: writing is only simulated, contents stay */
	start = (uintptr_t)p & ~(page - 1);
	end = ((uintptr_t)p + len + page - 1) & ~(page - 1);
	madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

/* A huge page (x86-64, arm64 with 4 KB pages): arrays this large are aligned to one. */
#define HUGE_PAGE_BYTES (2u << 20)

void *pk_realloc_huge(void *p, size_t old_len, size_t len)
{
	void *q;

	if (len < HUGE_PAGE_BYTES)
		return realloc(p, len);
	if (posix_memalign(&q, HUGE_PAGE_BYTES, len))
		return NULL;
	/* where transparent huge pages are "madvise" (Debian's default), asked for here */
	madvise(q, len, MADV_HUGEPAGE);
	if (p) {
		memcpy(q, p, old_len < len ? old_len : len);
		free(p);
	}
	return q;
}
