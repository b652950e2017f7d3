/*
 * perf_event_attr in the text of perf's `# event :` header lines (perf
 * 6.1's perf_event_attr__fprintf): ", name = value" for each non-zero field,
 * in perf's order and spelling. Bit sets print as NAME|NAME in the order of
 * perf's name tables (not bit order); bits perf has no name for are left out.
 * Field meanings: ../shared/reference/perf-data.md §2.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include "perfdata/features_int.h"

struct bit_name {
	uint64_t bit;
	const char *name;
};

/* perf's table order: IDENTIFIER comes before REGS_INTR and DATA_SRC. */
static const struct bit_name sample_bits[] = {
	{ PERF_SAMPLE_IP, "IP" }, { PERF_SAMPLE_TID, "TID" }, { PERF_SAMPLE_TIME, "TIME" },
	{ PERF_SAMPLE_ADDR, "ADDR" }, { PERF_SAMPLE_READ, "READ" },
	{ PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" }, { PERF_SAMPLE_ID, "ID" },
	{ PERF_SAMPLE_CPU, "CPU" }, { PERF_SAMPLE_PERIOD, "PERIOD" },
	{ PERF_SAMPLE_STREAM_ID, "STREAM_ID" }, { PERF_SAMPLE_RAW, "RAW" },
	{ PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK" }, { PERF_SAMPLE_REGS_USER, "REGS_USER" },
	{ PERF_SAMPLE_STACK_USER, "STACK_USER" }, { PERF_SAMPLE_IDENTIFIER, "IDENTIFIER" },
	{ PERF_SAMPLE_REGS_INTR, "REGS_INTR" }, { PERF_SAMPLE_DATA_SRC, "DATA_SRC" },
	{ PERF_SAMPLE_WEIGHT, "WEIGHT" }, { PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" },
	{ 1ULL << 20, "AUX" }, { 1ULL << 21, "CGROUP" }, { 1ULL << 22, "DATA_PAGE_SIZE" },
	{ 1ULL << 23, "CODE_PAGE_SIZE" }, { 1ULL << 24, "WEIGHT_STRUCT" },
	{ 0, NULL },
};

static const struct bit_name read_bits[] = {
	{ PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED" },
	{ PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING" },
	{ PERF_FORMAT_ID, "ID" }, { PERF_FORMAT_GROUP, "GROUP" }, { 1ULL << 4, "LOST" },
	{ 0, NULL },
};

static const struct bit_name branch_bits[] = {
	{ 1ULL << 0, "USER" }, { 1ULL << 1, "KERNEL" }, { 1ULL << 2, "HV" }, { 1ULL << 3, "ANY" },
	{ 1ULL << 4, "ANY_CALL" }, { 1ULL << 5, "ANY_RETURN" }, { 1ULL << 6, "IND_CALL" },
	{ 1ULL << 7, "ABORT_TX" }, { 1ULL << 8, "IN_TX" }, { 1ULL << 9, "NO_TX" },
	{ 1ULL << 10, "COND" }, { 1ULL << 11, "CALL_STACK" }, { 1ULL << 12, "IND_JUMP" },
	{ 1ULL << 13, "CALL" }, { 1ULL << 14, "NO_FLAGS" }, { 1ULL << 15, "NO_CYCLES" },
	{ 1ULL << 16, "TYPE_SAVE" }, { 1ULL << 17, "HW_INDEX" }, { 1ULL << 18, "PRIV_SAVE" },
	{ 0, NULL },
};

static int p_bits(struct pk_buf *out, const char *field, uint64_t v, const struct bit_name *t)
{
	const char *sep = "";
	int err;

	if (!v)
		return 0;
	err = pk_buf_printf(out, ", %s = ", field);
	for (; !err && t->name; t++) {
		if (v & t->bit) {
			err = pk_buf_printf(out, "%s%s", sep, t->name);
			sep = "|";
		}
	}
	return err;
}

static int p_u(struct pk_buf *out, const char *field, uint64_t v)
{
	return v ? pk_buf_printf(out, ", %s = %" PRIu64, field, v) : 0;
}

static int p_x(struct pk_buf *out, const char *field, uint64_t v)
{
	return v ? pk_buf_printf(out, ", %s = %#" PRIx64, field, v) : 0;
}

int pk_attr_print(const struct pk_attr *pa, struct pk_buf *out)
{
	const struct perf_event_attr *a = &pa->attr;
	int err = 0;

	err |= p_u(out, "type", a->type);
	err |= p_u(out, "size", a->size);
	err |= p_x(out, "config", a->config);
	err |= p_u(out, "{ sample_period, sample_freq }", a->sample_period);
	err |= p_bits(out, "sample_type", a->sample_type, sample_bits);
	err |= p_bits(out, "read_format", a->read_format, read_bits);

	err |= p_u(out, "disabled", a->disabled);
	err |= p_u(out, "inherit", a->inherit);
	err |= p_u(out, "pinned", a->pinned);
	err |= p_u(out, "exclusive", a->exclusive);
	err |= p_u(out, "exclude_user", a->exclude_user);
	err |= p_u(out, "exclude_kernel", a->exclude_kernel);
	err |= p_u(out, "exclude_hv", a->exclude_hv);
	err |= p_u(out, "exclude_idle", a->exclude_idle);
	err |= p_u(out, "mmap", a->mmap);
	err |= p_u(out, "comm", a->comm);
	err |= p_u(out, "freq", a->freq);
	err |= p_u(out, "inherit_stat", a->inherit_stat);
	err |= p_u(out, "enable_on_exec", a->enable_on_exec);
	err |= p_u(out, "task", a->task);
	err |= p_u(out, "watermark", a->watermark);
	err |= p_u(out, "precise_ip", a->precise_ip);
	err |= p_u(out, "mmap_data", a->mmap_data);
	err |= p_u(out, "sample_id_all", a->sample_id_all);
	err |= p_u(out, "exclude_host", a->exclude_host);
	err |= p_u(out, "exclude_guest", a->exclude_guest);
	err |= p_u(out, "exclude_callchain_kernel", a->exclude_callchain_kernel);
	err |= p_u(out, "exclude_callchain_user", a->exclude_callchain_user);
	err |= p_u(out, "mmap2", a->mmap2);
	err |= p_u(out, "comm_exec", a->comm_exec);
	err |= p_u(out, "use_clockid", a->use_clockid);
	err |= p_u(out, "context_switch", a->context_switch);
	err |= p_u(out, "write_backward", a->write_backward);
	err |= p_u(out, "namespaces", a->namespaces);
	err |= p_u(out, "ksymbol", a->ksymbol);
	err |= p_u(out, "bpf_event", a->bpf_event);
	err |= p_u(out, "aux_output", a->aux_output);
	err |= p_u(out, "cgroup", a->cgroup);
	err |= p_u(out, "text_poke", a->text_poke);
	err |= p_u(out, "build_id", a->build_id);
	err |= p_u(out, "inherit_thread", a->inherit_thread);
	err |= p_u(out, "remove_on_exec", a->remove_on_exec);
	err |= p_u(out, "sigtrap", a->sigtrap);

	err |= p_u(out, "{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	err |= p_u(out, "bp_type", a->bp_type);
	err |= p_x(out, "{ bp_addr, config1 }", a->bp_addr);
	err |= p_x(out, "{ bp_len, config2 }", a->bp_len);
	err |= p_bits(out, "branch_sample_type", a->branch_sample_type, branch_bits);
	err |= p_x(out, "sample_regs_user", a->sample_regs_user);
	err |= p_u(out, "sample_stack_user", a->sample_stack_user);
	if (a->clockid)
		err |= pk_buf_printf(out, ", clockid = %" PRId64, (int64_t)a->clockid);
	err |= p_x(out, "sample_regs_intr", a->sample_regs_intr);
	err |= p_u(out, "aux_watermark", a->aux_watermark);
	err |= p_u(out, "sample_max_stack", a->sample_max_stack);
	err |= p_u(out, "aux_sample_size", a->aux_sample_size);
	err |= p_u(out, "sig_data", a->sig_data);
	/* Not known to perf 6.1; newer perf prints it here. */
	err |= p_x(out, "config3", pa->config3);
	return err ? -ENOMEM : 0;
}
