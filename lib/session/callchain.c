/*
 * Call chains: turning PERF_SAMPLE_CALLCHAIN into the frame list perf
 * prints and aggregates.
 *
 * The kernel writes { u64 nr; u64 ips[nr]; } with PERF_CONTEXT_* markers
 * (values >= PERF_CONTEXT_MAX as unsigned) in front of each part: kernel
 * frames after PERF_CONTEXT_KERNEL, user frames after PERF_CONTEXT_USER
 * (../shared/reference/perf-data.md §3). perf 6.1 walks the chain leaf
 * first with cpumode starting as USER; HV/KERNEL/USER markers switch the
 * cpumode and are dropped; any other marker (the GUEST ones, USER_DEFERRED)
 * makes perf discard the whole chain; --max-stack counts address entries
 * only. The first address is normally the sampled ip itself and perf keeps
 * it, so frame 0 repeats the sample's ip. In caller order (Children's
 * default) perf walks from the far end instead, so --max-stack keeps the
 * outermost entries and the markers it meets, the ones that can discard the
 * chain, are those above the kept entries (callers_walk_start()).
 *
 * With an LBR call stack (branch_sample_type CALL_STACK) perf keeps the
 * kernel part of the chain (up to and including PERF_CONTEXT_USER) and
 * replaces the user part by branch[0].to followed by every branch's from.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "session/internal.h"

void pk_frames_release(struct pk_frames *f)
{
	free(f->v);
	f->v = NULL;
	f->nr = f->cap = 0;
}

int pk_frames_ignore_callees(struct pk_frames *f, const regex_t *re, int callers_first,
			     struct pk_location *self)
{
	uint32_t m = UINT32_MAX;

	for (uint32_t k = 0; k < f->nr; k++) {
		uint32_t i = callers_first ? f->nr - 1 - k : k;

		if (f->v[i].sym && !regexec(re, f->v[i].sym->name, 0, NULL, 0))
			m = i;          /* perf resets its cursor there: the last match wins */
	}
	if (m == UINT32_MAX)
		return 0;
	*self = f->v[m];
	if (callers_first) {
		f->nr = m + 1;  /* the match and its callees, frames 0..m */
	} else {
		memmove(f->v, f->v + m, (f->nr - m) * sizeof(*f->v));
		f->nr -= m;     /* the match and its callers */
	}
	return 1;
}

void pk_frames_drop_unresolved(struct pk_frames *f)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->nr; i++)
		if (f->v[i].sym)
			f->v[n++] = f->v[i];
	f->nr = n;
}

int pk_frames_reserve(struct pk_frames *f, uint64_t n)
{
	struct pk_location *v;
	uint64_t cap;

	if (n <= f->cap)
		return 0;
	if (n > UINT32_MAX / 2)
		return -ENOMEM;
	cap = f->cap ? f->cap : 64;
	while (cap < n)
		cap *= 2;
	v = realloc(f->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	f->v = v;
	f->cap = (uint32_t)cap;
	return 0;
}

/* Apply one entry: a marker changes *cpumode (returns 1 to skip, -1 to discard all). */
static int context_marker(uint64_t ip, uint8_t *cpumode)
{
	if (ip < (uint64_t)PERF_CONTEXT_MAX)
		return 0;
	switch (ip) {
	case (uint64_t)PERF_CONTEXT_HV:
		*cpumode = PERF_RECORD_MISC_HYPERVISOR;
		return 1;
	case (uint64_t)PERF_CONTEXT_KERNEL:
		*cpumode = PERF_RECORD_MISC_KERNEL;
		return 1;
	case (uint64_t)PERF_CONTEXT_USER:
		*cpumode = PERF_RECORD_MISC_USER;
		return 1;
	default:
		return -1;   /* perf: "invalid callchain context", chain discarded */
	}
}

static void add_frame(struct pk_symbols *syms, const struct pk_thread *t, uint8_t cpumode,
		      uint64_t ip, struct pk_frames *out)
{
	struct pk_location *loc = &out->v[out->nr++];

	pk_symbols_resolve(syms, t, cpumode, ip, loc);
	loc->cpumode = cpumode;
}

/* perf's resolve_lbr_callchain_sample(), callee order. 1 if it applied, 0 if not. */
static int build_lbr(struct pk_symbols *syms, const struct pk_thread *t, const struct pk_sample *s,
		     uint32_t max_stack, struct pk_frames *out)
{
	uint64_t chain_nr = s->callchain_nr < max_stack ? s->callchain_nr : max_stack;
	uint64_t i, k;
	uint8_t cpumode = PERF_RECORD_MISC_USER;

	for (i = 0; i < chain_nr; i++)
		if (s->callchain[i] == (uint64_t)PERF_CONTEXT_USER)
			break;
	if (i == chain_nr)
		return 0;
	if (pk_frames_reserve(out, i + 1 + s->branch_nr + 1) < 0)
		return -ENOMEM;
	for (k = 0; k <= i; k++) {
		int m = context_marker(s->callchain[k], &cpumode);

		if (m < 0) {
			out->nr = 0;
			return 1;
		}
		if (!m)
			add_frame(syms, t, cpumode, s->callchain[k], out);
	}
	if (!s->branch_nr)
		return 1;
	cpumode = PERF_RECORD_MISC_USER;
	add_frame(syms, t, cpumode, s->branch[0].to, out);
	for (k = 0; k < s->branch_nr; k++)
		add_frame(syms, t, cpumode, s->branch[k].from, out);
	return 1;
}

/*
 * Where the walk of a chain cut to its @max_stack outermost address entries
 * starts (callers first, perf's caller order). perf walks from the far end
 * and stops after the last entry it keeps, so it sees every marker above that
 * entry and the one that sets its cpumode (the nearest below), never the
 * markers further down. The walk starts at that nearest marker (0 without
 * one); *@first_kept is the innermost entry kept. Without a cut, 0 and 0.
 */
static uint64_t callers_walk_start(const struct pk_sample *s, uint32_t max_stack,
				   uint64_t *first_kept)
{
	uint64_t i = s->callchain_nr, n = 0;

	*first_kept = 0;
	while (i > 0 && n < max_stack)
		n += s->callchain[--i] < (uint64_t)PERF_CONTEXT_MAX;
	if (n < max_stack)
		return 0;       /* perf walks the whole chain */
	*first_kept = i;
	while (i > 0 && s->callchain[--i] < (uint64_t)PERF_CONTEXT_MAX)
		;
	return i;
}

int pk_callchain_build(struct pk_symbols *syms, const struct pk_thread *t,
		       const struct pk_sample *s, int lbr_callstack, uint32_t max_stack,
		       int keep_callers, struct pk_frames *out)
{
	uint8_t cpumode = PERF_RECORD_MISC_USER;
	uint32_t nr_entries = 0;
	uint64_t i, start = 0, first_kept = 0;
	int ret;

	out->nr = 0;
	if (!(s->present & PERF_SAMPLE_CALLCHAIN) || !s->callchain_nr || max_stack == PK_SESSION_NO_STACK)
		return 0;
	if (!max_stack)
		max_stack = PK_SESSION_MAX_STACK;
	if (keep_callers)
		start = callers_walk_start(s, max_stack, &first_kept);
	if (lbr_callstack && (s->present & PERF_SAMPLE_BRANCH_STACK) && s->branch) {
		ret = build_lbr(syms, t, s, max_stack, out);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	if (pk_frames_reserve(out, s->callchain_nr < max_stack ? s->callchain_nr : max_stack) < 0)
		return -ENOMEM;
	/* Callers first, the markers above the kept entries count too (perf walks them). */
	for (i = start; i < s->callchain_nr && (keep_callers || nr_entries < max_stack); i++) {
		uint64_t ip = s->callchain[i];
		int m = context_marker(ip, &cpumode);

		if (m < 0) {
			out->nr = 0;
			return 0;
		}
		if (m || i < first_kept)
			continue;
		nr_entries++;
		add_frame(syms, t, cpumode, ip, out);
	}
	return 0;
}
