/*
 * DWARF-mode call chains in the session: samples recorded with
 * `perf record --call-graph dwarf` carry REGS_USER and STACK_USER instead of
 * a user call chain. Like perf's thread__resolve_callchain() (callee order),
 * the frames unwound from the stack copy (lib/unwind) are appended after the
 * chain built from PERF_SAMPLE_CALLCHAIN (the kernel part), leaf first,
 * each resolved as a user address.
 *
 * The unwinder sees the thread's maps only through find_map(), answered here
 * with pk_symbols_resolve(), so it does not depend on the symbols module.
 */
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perfkit/unwind.h>
#include "session/internal.h"

struct map_ctx {
	struct pk_symbols *syms;
	const struct pk_thread *t;
};

static int find_map(void *arg, uint64_t addr, struct pk_unwind_map *m)
{
	struct map_ctx *c = arg;
	struct pk_location loc;

	pk_symbols_resolve(c->syms, c->t, PERF_RECORD_MISC_USER, addr, &loc);
	if (!loc.map)
		return 0;
	m->start = loc.map->start;
	m->end = loc.map->end;
	m->pgoff = loc.map->pgoff;
	m->path = loc.map->dso ? loc.map->dso->name : NULL;
	if (loc.map->dso && loc.map->dso->build_id_size) {
		m->build_id = loc.map->dso->build_id;
		m->build_id_size = loc.map->dso->build_id_size;
	}
	return 1;
}

int pk_session_unwind_user(struct pk_unwind **uwp, struct pk_perfdata *data, const char *symfs,
			   struct pk_symbols *syms, const struct pk_thread *t,
			   const struct pk_evsel *ev, const struct pk_sample *s, uint32_t max_stack,
			   struct pk_frames *out)
{
	uint64_t ips[PK_UNWIND_MAX_FRAMES];
	struct map_ctx mc = { .syms = syms, .t = t };
	struct pk_unwind_regs in;
	int n;

	if ((s->present & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) !=
	    (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER) ||
	    !s->regs_user_abi || !s->regs_user || !s->stack_user || !s->stack_user_dyn_size ||
	    max_stack == PK_SESSION_NO_STACK)
		return 0;
	if (!*uwp) {
		const struct pk_features *f = pk_perfdata_features(data);
		struct pk_unwind_opts o = {
			.sz = sizeof(o),
			.e_machine = pk_unwind_machine(f ? f->arch : NULL),
			.symfs = symfs,
		};

		/* recorded on this kernel: our own vDSO stands for a "[vdso]" without build-id */
		o.own_vdso = f && pk_kernel_is_running(f->osrelease);

		*uwp = pk_unwind_new(&o);
		if (!*uwp)
			return -ENOMEM;
	}
	in.abi = s->regs_user_abi;
	in.mask = ev->layout.regs_user_mask;
	in.regs = s->regs_user;
	in.stack = s->stack_user;
	/* dyn_size is what the kernel copied; never more than the blob itself */
	in.stack_size = s->stack_user_dyn_size < s->stack_user_size ? s->stack_user_dyn_size
								   : s->stack_user_size;
	n = pk_unwind_sample(*uwp, t->pid, t->tid, &in, find_map, &mc, ips,
			     max_stack ? max_stack : PK_SESSION_MAX_STACK);
	if (n == -ENOMEM)
		return n;
	if (n <= 0)
		return 0;
	if (pk_frames_reserve(out, (uint64_t)out->nr + (uint64_t)n) < 0)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct pk_location *loc = &out->v[out->nr++];

		pk_symbols_resolve(syms, t, PERF_RECORD_MISC_USER, ips[i], loc);
		loc->cpumode = PERF_RECORD_MISC_USER;
	}
	return 0;
}
