/*
 * Reading a counter from user space through its perf_event_mmap_page,
 * without a system call: the kernel publishes the counter's base value and
 * hardware index under a sequence lock, user space adds the live value of
 * the hardware counter (rdpmc) and advances the enabled/running times with
 * the time stamp counter. When the page cannot give a value (no rdpmc, the
 * event is not on a hardware counter right now) the caller uses read(2).
 */
#include <errno.h>
#include <perfkit/counter.h>

/* Give up after this many torn reads; the kernel's updates are short. */
#define PK_SEQ_RETRIES 10000

#if defined(__x86_64__) || defined(__i386__)
static uint64_t x86_rdpmc(uint32_t index)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(index));
	return lo | (uint64_t)hi << 32;
}

static uint64_t x86_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | (uint64_t)hi << 32;
}
#define PK_HAVE_RDPMC 1
#else
#define PK_HAVE_RDPMC 0
#endif

/* Orders the page's loads between the two reads of the lock. */
static inline void read_barrier(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/* The fields of one consistent snapshot of the page. */
struct page_snap {
	uint32_t index;
	int64_t offset;
	uint64_t ena, run;
	bool user_rdpmc, user_time, time_short;
	uint16_t pmc_width, time_shift;
	uint32_t time_mult;
	uint64_t time_offset, time_cycles, time_mask;
	uint64_t pmc, cyc;
};

/*
 * TSC cycles to nanoseconds as the ABI defines it, split into quotient and
 * remainder so that cyc * time_mult cannot overflow:
 *   quot = cyc >> shift; rem = cyc & ((1 << shift) - 1);
 *   delta = time_offset + quot * mult + ((rem * mult) >> shift)
 */
static uint64_t tsc_delta_ns(const struct page_snap *p)
{
	uint64_t cyc = p->cyc, quot, rem;
	unsigned shift = p->time_shift & 63;

	if (p->time_short)
		cyc = p->time_cycles + ((cyc - p->time_cycles) & p->time_mask);
	quot = cyc >> shift;
	rem = cyc & (((uint64_t)1 << shift) - 1);
	return p->time_offset + quot * p->time_mult + ((rem * p->time_mult) >> shift);
}

static int64_t sign_extend(uint64_t v, unsigned width)
{
	unsigned sh;

	if (width == 0 || width >= 64)
		return (int64_t)v;
	sh = 64 - width;
	return (int64_t)(v << sh) >> sh;
}

int pk_mmap_page_read(const volatile struct perf_event_mmap_page *pc,
		      struct pk_counts *out, pk_rdpmc_fn rdpmc, pk_rdtsc_fn rdtsc)
{
	struct page_snap p = { 0 };
	uint32_t seq;
	int tries = 0;

#if PK_HAVE_RDPMC
	if (!rdpmc)
		rdpmc = x86_rdpmc;
	if (!rdtsc)
		rdtsc = x86_rdtsc;
#else
	if (!rdpmc || !rdtsc)
		return -EAGAIN;
#endif
	do {
		if (++tries > PK_SEQ_RETRIES)
			return -EAGAIN;
		seq = pc->lock;
		read_barrier();
		p.index = pc->index;
		p.offset = pc->offset;
		p.ena = pc->time_enabled;
		p.run = pc->time_running;
		p.user_rdpmc = pc->cap_user_rdpmc;
		p.user_time = pc->cap_user_time;
		p.time_short = pc->cap_user_time_short;
		p.pmc_width = pc->pmc_width;
		p.time_shift = pc->time_shift;
		p.time_mult = pc->time_mult;
		p.time_offset = pc->time_offset;
		if (p.time_short) {
			p.time_cycles = pc->time_cycles;
			p.time_mask = pc->time_mask;
		}
		if (!p.user_rdpmc || !p.index)
			return -EAGAIN;
		p.pmc = rdpmc(p.index - 1);
		if (p.user_time)
			p.cyc = rdtsc();
		read_barrier();
	} while (pc->lock != seq);

	out->val = (uint64_t)p.offset + (uint64_t)sign_extend(p.pmc, p.pmc_width);
	out->ena = p.ena;
	out->run = p.run;
	out->lost = 0;       /* not published in the page */
	if (p.user_time) {
		uint64_t delta = tsc_delta_ns(&p);

		/* The event is on a counter (index != 0): both times advance. */
		out->ena += delta;
		out->run += delta;
	}
	return 0;
}
