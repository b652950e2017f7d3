/*
 * The perf_event_attr of a sampling event, set up the way perf record's
 * evsel__config() does for the same options: sample fields (IP, TID, TIME,
 * PERIOD in frequency mode, CPU for CPU targets, IDENTIFIER with several
 * events, CALLCHAIN, user registers and stack for DWARF unwinding, branch
 * stacks, data addresses, RAW for tracepoints), frequency or period, the
 * side-band bits on the tracking event, and the clock.
 */
#include <errno.h>
#include <string.h>
#include "internal.h"

/* x86-64 user registers perf samples for DWARF unwinding (PERF_REGS_MASK: all but segments). */
#define PK_X86_64_REGS_MASK 0xff0fffULL

/* perf's default DWARF stack copy, and the most the kernel takes (u16 sample size). */
#define PK_DWARF_STACK_DEFAULT 8192
#define PK_DWARF_STACK_MAX 65528

int pk_rec_attr_setup(struct perf_event_attr *a, const struct pk_event *ev,
		      const struct pk_record_opts *o, const struct pk_rec_attr_ctx *c)
{
	*a = ev->attr;
	a->size = sizeof(*a);
	if (ev->precise_max)        /* perf's evsel__config: P starts at the top */
		a->precise_ip = 3;
	a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (c->nr_events > 1)
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	if (o->all_cpus || o->cpu_list || o->sample_cpu)
		a->sample_type |= PERF_SAMPLE_CPU;
	if (ev->kind == PK_EVENT_TRACEPOINT) {
		/* perf samples every tracepoint hit with its raw fields */
		a->sample_type |= PERF_SAMPLE_RAW;
		a->freq = 0;
		a->sample_period = o->period ? o->period : 1;
	} else if (o->period) {
		a->freq = 0;
		a->sample_period = o->period;
	} else if (!a->sample_period) {
		a->freq = 1;
		a->sample_freq = o->freq ? o->freq : 4000;
		a->sample_type |= PERF_SAMPLE_PERIOD;
	}
	switch (o->callgraph) {
	case PK_CALLGRAPH_FP:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		break;
	case PK_CALLGRAPH_DWARF: {
		uint32_t sz = o->dwarf_stack_size ? o->dwarf_stack_size : PK_DWARF_STACK_DEFAULT;

		if (sz > PK_DWARF_STACK_MAX)
			return -EINVAL;
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = PK_X86_64_REGS_MASK;
		a->sample_stack_user = (sz + 7) & ~7u;
		a->exclude_callchain_user = 1;
		/* perf's unwinder finds .eh_frame in the read-only segments: map them too */
		a->mmap_data = c->tracking;
		break;
	}
	default:
		break;
	}
	if (o->branch_sample_type) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = o->branch_sample_type;
	}
	if (o->data_addr) {
		a->sample_type |= PERF_SAMPLE_ADDR;
		a->mmap_data = c->tracking;
	}
	a->sample_id_all = 1;
	if (c->count_guests)
		a->exclude_guest = 0;
	a->inherit = !o->no_inherit && !c->cpu_target;
	/*
	 * perf's read formats, which its reader wants equal for all events:
	 * ids always, and each event's dropped samples where the kernel counts
	 * them (perf 6.1 writes them as LOST_SAMPLES at the end); with S, a
	 * group's samples carry the whole group's counts, and such a group is
	 * not inherited.
	 */
	a->read_format |= PERF_FORMAT_ID;
	if (c->read_lost)
		a->read_format |= PERF_FORMAT_LOST;
	if ((a->sample_type & PERF_SAMPLE_READ) && c->group_size > 1) {
		a->read_format |= PERF_FORMAT_GROUP;
		a->inherit = 0;
	}
	a->disabled = 1;
	a->enable_on_exec = c->workload;
	if (c->tracking) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->ksymbol = 1;
		a->bpf_event = 1;
		a->context_switch = !!o->switch_events;
	}
	if (o->clockid >= 0) {
		a->use_clockid = 1;
		a->clockid = o->clockid;
	}
	return 0;
}

/* perf's -j names (tools/perf/util/parse-branch-options.c facts). */
static const struct { const char *name; uint64_t bit; } branch_names[] = {
	{ "u", PERF_SAMPLE_BRANCH_USER },
	{ "k", PERF_SAMPLE_BRANCH_KERNEL },
	{ "hv", PERF_SAMPLE_BRANCH_HV },
	{ "any", PERF_SAMPLE_BRANCH_ANY },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL },
	{ "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX },
	{ "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond", PERF_SAMPLE_BRANCH_COND },
	{ "ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call", PERF_SAMPLE_BRANCH_CALL },
	{ "save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE },
};

int pk_record_branch_parse(const char *spec, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = spec;

	while (*p) {
		size_t n = strcspn(p, ",");
		size_t i;

		for (i = 0; i < sizeof(branch_names) / sizeof(branch_names[0]); i++)
			if (strlen(branch_names[i].name) == n && !strncmp(p, branch_names[i].name, n))
				break;
		if (i == sizeof(branch_names) / sizeof(branch_names[0]))
			return -EINVAL;
		v |= branch_names[i].bit;
		p += n;
		if (*p == ',')
			p++;
	}
	/* privilege levels alone mean "any branch" at those levels, as perf does */
	if (!(v & ~(uint64_t)(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL |
			      PERF_SAMPLE_BRANCH_HV)))
		v |= PERF_SAMPLE_BRANCH_ANY;
	*out = v;
	return 0;
}
