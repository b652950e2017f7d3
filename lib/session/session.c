/*
 * perfkit session: one pass over a perf.data file joining the reader, the
 * side band and the filters. Side-band records (MMAP, MMAP2, COMM, FORK,
 * EXIT, KSYMBOL, HEADER_BUILD_ID, the BUILD_ID feature) are fed to the
 * symbols module in delivery order; each sample is then resolved (thread,
 * sampled ip, call chain) into a reused frame array, filtered, counted and
 * handed to the caller. Nothing is allocated per sample.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/perf_event.h>
#include <perfkit/unwind.h>
#include "session/internal.h"

#define PROGRESS_STEP (64ull << 20)

struct pk_session {
	struct pk_perfdata *data;
	struct pk_symbols *syms;
	struct pk_session_opts opts;
	struct pk_filter filter;
	struct pk_evswitch evswitch; /* --switch-on / --switch-off */
	char *osrelease;
	struct pk_session_counts *counts;
	size_t nr_counts;
	struct pk_frames frames;
	struct pk_inline *inl;       /* --inline: NULL when off */
	struct pk_unwind *unwind;    /* DWARF unwinder (unwind_user.c), made on the first stack copy */
	struct pk_read_state reads;  /* PERF_SAMPLE_READ values (sample_read.c) */
	uint64_t nr_unknown_id;      /* samples and read values of ids no attr owns */
	/* BUILD_ID feature entries already fed (the array may be replaced in pipe mode) */
	const struct pk_feat_build_id *fed_build_ids;
	uint32_t nr_fed_build_ids;
	regex_t ignore_re;           /* --ignore-callees */
	int ignore_re_ok;
};

/* What one pk_session_run() needs in its record callback. */
struct run_ctx {
	struct pk_session *ss;
	pk_rsample_fn on_sample;
	pk_record_fn on_record;
	void *ctx;
	struct pk_diag *d;
	uint64_t next_progress;
};

static const struct pk_session_counts zero_counts;


int pk_session_open(const char *path, const struct pk_session_opts *opts_in,
		    struct pk_session **out, struct pk_diag *d)
{
	struct pk_perfdata_opts popts = { .sz = sizeof(popts), .ordered = 1 };
	struct pk_symbols_opts sopts = { .sz = sizeof(sopts) };
	const struct pk_features *f;
	struct pk_session *ss;
	int ret;

	*out = NULL;
	ss = calloc(1, sizeof(*ss));
	if (!ss)
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	if (opts_in) {
		size_t n = opts_in->sz && opts_in->sz < sizeof(ss->opts) ? opts_in->sz : sizeof(ss->opts);

		memcpy(&ss->opts, opts_in, n);
		popts.ordered = ss->opts.ordered;
		popts.deliver_header_records = ss->opts.deliver_header_records;
		if (n >= offsetof(struct pk_session_opts, symbols) + sizeof(ss->opts.symbols))
			sopts = ss->opts.symbols;
	} else {
		ss->opts.ordered = 1;
	}
	ss->opts.sz = sizeof(ss->opts);
	ret = pk_filter_parse(&ss->filter, &ss->opts.filter, d);
	if (ret < 0)
		goto fail;
	if (ss->opts.ignore_callees) {
		if (regcomp(&ss->ignore_re, ss->opts.ignore_callees, REG_EXTENDED | REG_NOSUB)) {
			ret = pk_diag_fail(d, -EINVAL, "invalid --ignore-callees regex '%s'", ss->opts.ignore_callees);
			goto fail;
		}
		ss->ignore_re_ok = 1;
	}
	ret = pk_perfdata_open(path, &popts, &ss->data, d);
	if (ret < 0)
		goto fail;
	if ((ret = pk_evswitch_init(&ss->evswitch, &ss->opts.filter, ss->data, d)) < 0)
		goto fail;
	f = pk_perfdata_features(ss->data);
	if (ss->opts.time_relative && f) {
		if (ss->filter.time_start || ss->filter.time_end)
			ss->filter.time_start += f->first_sample_time;
		if (ss->filter.time_end)
			ss->filter.time_end += f->first_sample_time;
	}
	if (!sopts.osrelease && f && f->osrelease) {
		ss->osrelease = strdup(f->osrelease);
		sopts.osrelease = ss->osrelease;
	}
	if (ss->opts.inline_frames) {
		sopts.want_srcline = 1;
		ss->inl = pk_inline_new();
		if (!ss->inl) {
			ret = pk_diag_fail(d, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	sopts.sz = sizeof(sopts);
	sopts.recorded_kernel_only = 1;     /* perf reading a file: no kernel MMAP, no kernel map */
	ss->syms = pk_symbols_new(&sopts);
	if (!ss->syms) {
		ret = pk_diag_fail(d, -ENOMEM, "out of memory");
		goto fail;
	}
	*out = ss;
	return 0;
fail:
	pk_session_close(ss);
	return ret;
}

void pk_session_close(struct pk_session *ss)
{
	if (!ss)
		return;
	if (ss->syms)
		pk_symbols_free(ss->syms);
	if (ss->data)
		pk_perfdata_close(ss->data);
	pk_filter_release(&ss->filter);
	if (ss->ignore_re_ok)
		regfree(&ss->ignore_re);
	pk_frames_release(&ss->frames);
	pk_inline_free(ss->inl);
	pk_unwind_free(ss->unwind);
	pk_read_state_release(&ss->reads);
	free(ss->counts);
	free(ss->osrelease);
	free(ss);
}

struct pk_perfdata *pk_session_data(struct pk_session *ss)
{
	return ss->data;
}

const struct pk_session_filter *pk_session_filter(const struct pk_session *ss)
{
	return &ss->opts.filter;
}

struct pk_symbols *pk_session_symbols(struct pk_session *ss)
{
	return ss->syms;
}

const struct pk_session_counts *pk_session_counts(const struct pk_session *ss, size_t evsel_idx)
{
	if (!ss || evsel_idx >= ss->nr_counts)
		return &zero_counts;
	return &ss->counts[evsel_idx];
}

static struct pk_session_counts *counts_for(struct pk_session *ss, size_t idx)
{
	if (idx >= ss->nr_counts) {
		size_t n = idx + 1 > ss->nr_counts * 2 ? idx + 1 : ss->nr_counts * 2;
		struct pk_session_counts *c = realloc(ss->counts, n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + ss->nr_counts, 0, (n - ss->nr_counts) * sizeof(*c));
		ss->counts = c;
		ss->nr_counts = n;
	}
	return &ss->counts[idx];
}

/* Feed the BUILD_ID feature's entries once (again if pipe mode replaced them). */
static void feed_build_ids(struct pk_session *ss)
{
	const struct pk_features *f = pk_perfdata_features(ss->data);

	if (!f || (f->build_ids == ss->fed_build_ids && f->nr_build_ids == ss->nr_fed_build_ids))
		return;
	for (uint32_t i = 0; i < f->nr_build_ids; i++) {
		const struct pk_feat_build_id *b = &f->build_ids[i];

		if (b->filename)
			pk_symbols_build_id_misc(ss->syms, b->pid, b->misc, b->filename, b->build_id, b->size);
	}
	ss->fed_build_ids = f->build_ids;
	ss->nr_fed_build_ids = f->nr_build_ids;
}

/* The sample_id trailer size of a kernel record (its evsel's, else the first evsel's). */
static uint32_t trailer_size(struct pk_session *ss, const struct pk_record *r)
{
	const struct pk_evsel *ev = r->evsel;

	if (r->hdr->type >= PK_RECORD_HEADER_ATTR)
		return 0;
	if (!ev && pk_perfdata_nr_evsels(ss->data))
		ev = pk_perfdata_evsel(ss->data, 0);
	return ev && ev->layout.sample_id_all ? ev->layout.id_trailer_size : 0;
}

/* Apply a side-band record to the symbols module. 0 or -errno. */
static int side_band(struct pk_session *ss, const struct pk_record *r, struct pk_diag *d)
{
	return pk_symbols_feed(ss->syms, r->hdr, trailer_size(ss, r), r->file_offset, d);
}

/* What the filters made of a sample. */
enum verdict {
	KEPT,
	FILTERED,       /* by --comm, --pid, --tid, --dso or --symbols */
	OUT_OF_RANGE,   /* by --time or --cpu, or unresolved under -U: left out of the totals */
};

/* Count @rs for its evsel and hand it to the caller, or count it as filtered out. */
static int deliver(struct run_ctx *rc, struct pk_rsample *rs, enum verdict v)
{
	struct pk_session_counts *cnt = counts_for(rc->ss, (size_t)rs->evsel->idx);

	if (!cnt)
		return pk_diag_fail(rc->d, -ENOMEM, "out of memory");
	cnt->nr_samples++;
	cnt->total_period += rs->period;
	if (v == KEPT)
		return rc->on_sample ? rc->on_sample(rc->ctx, rs) : 0;
	cnt->nr_filtered++;
	cnt->filtered_period += rs->period;
	if (v == OUT_OF_RANGE) {
		cnt->nr_out_of_range++;
		cnt->out_of_range_period += rs->period;
		return 0;
	}
	return rc->ss->opts.deliver_filtered && rc->on_sample ? rc->on_sample(rc->ctx, rs) : 0;
}

static int deliver_kept(void *ctx, struct pk_rsample *rs)
{
	return deliver(ctx, rs, KEPT);
}

static int deliver_filtered(void *ctx, struct pk_rsample *rs)
{
	return deliver(ctx, rs, FILTERED);
}

static int deliver_out_of_range(void *ctx, struct pk_rsample *rs)
{
	return deliver(ctx, rs, OUT_OF_RANGE);
}

/* @rs as it is, or per read value when its attr has PERF_SAMPLE_READ (sample_read.c). */
static int deliver_sample(struct run_ctx *rc, struct pk_rsample *rs, enum verdict v)
{
	static int (*const by_verdict[])(void *, struct pk_rsample *) = {
		[KEPT] = deliver_kept, [FILTERED] = deliver_filtered,
		[OUT_OF_RANGE] = deliver_out_of_range,
	};
	struct pk_session *ss = rc->ss;
	int ret;

	if (!(rs->s->present & PERF_SAMPLE_READ))
		return deliver(rc, rs, v);
	ret = pk_read_deliver(&ss->reads, ss->data, rs, by_verdict[v], rc, &ss->nr_unknown_id);
	return ret == -ENOMEM ? pk_diag_fail(rc->d, ret, "out of memory") : ret;
}

static int handle_sample(struct run_ctx *rc, const struct pk_record *r)
{
	struct pk_session *ss = rc->ss;
	const struct pk_sample *s = &r->sample;
	const struct pk_evsel *ev = r->evsel;
	struct pk_rsample rs;
	int32_t pid = -1, tid = -1;
	int ret;

	if (!ev) {          /* no attr matches the id: perf skips it too, and counts it */
		ss->nr_unknown_id++;
		return 0;
	}
	memset(&rs, 0, sizeof(rs));
	rs.rec = r;
	rs.evsel = ev;
	rs.s = s;
	/* perf's evsel__parse_sample: the attr's fixed period when the sample carries none */
	if (s->present & PERF_SAMPLE_PERIOD)
		rs.period = s->period;
	else if (!ev->attr.attr.freq && ev->attr.attr.sample_period)
		rs.period = ev->attr.attr.sample_period;
	else
		rs.period = 1;
	if (s->present & PERF_SAMPLE_TID) {
		pid = (int32_t)s->pid;
		tid = (int32_t)s->tid;
	}
	rs.thread = pk_symbols_thread(ss->syms, pid, tid);
	if (!rs.thread)
		return pk_diag_fail(rc->d, -ENOMEM, "out of memory");
	if (ss->filter.active && !pk_filter_in_range(&ss->filter, s))
		return deliver_sample(rc, &rs, OUT_OF_RANGE);
	if (!ss->evswitch.late && pk_evswitch_discard(&ss->evswitch, ev))
		return deliver_sample(rc, &rs, OUT_OF_RANGE);
	if (ss->filter.active && !pk_filter_match_thread(&ss->filter, rs.thread)) {
		if (!ss->opts.deliver_filtered)
			return deliver_sample(rc, &rs, FILTERED);
		rs.filtered = 1;
	}
	rs.cpumode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (s->present & PERF_SAMPLE_IP) {
		pk_symbols_resolve(ss->syms, rs.thread, rs.cpumode, s->ip, &rs.self);
	} else {
		rs.self.cpumode = rs.cpumode;
	}
	/* perf report -U: after resolving, before any count, whatever the other filters said */
	if (ss->filter.hide_unresolved && !rs.self.sym)
		return deliver_sample(rc, &rs, OUT_OF_RANGE);
	if (!rs.filtered && ss->filter.need_symbols && !pk_filter_match_loc(&ss->filter, &rs.self)) {
		if (!ss->opts.deliver_filtered)
			return deliver_sample(rc, &rs, FILTERED);
		rs.filtered = 1;
	}
	if (ss->evswitch.late && !rs.filtered && pk_evswitch_discard(&ss->evswitch, ev))
		return deliver_sample(rc, &rs, OUT_OF_RANGE);
	ret = pk_callchain_build(ss->syms, rs.thread, s,
				 !!(ev->attr.attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK),
				 ss->opts.max_stack, ss->opts.max_stack_callers, &ss->frames);
	if (ret < 0)
		return pk_diag_fail(rc->d, ret, "out of memory");
	/* --call-graph dwarf: user frames unwound from the stack copy (unwind_user.c) */
	if (ss->opts.unwind_dwarf >= 0 &&
	    pk_session_unwind_user(&ss->unwind, ss->data, ss->opts.symbols.symfs, ss->syms,
				   rs.thread, ev, s, ss->opts.max_stack, &ss->frames) < 0)
		return pk_diag_fail(rc->d, -ENOMEM, "out of memory");
	/* perf --ignore-callees: a matching frame becomes the sample's location (its root_al) */
	if (ss->ignore_re_ok)
		pk_frames_ignore_callees(&ss->frames, &ss->ignore_re, ss->opts.max_stack_callers, &rs.self);
	/* perf -U: its call-chain cursor never gets a frame without a symbol */
	if (ss->filter.hide_unresolved)
		pk_frames_drop_unresolved(&ss->frames);
	rs.nr_frames = ss->frames.nr;
	rs.frames = ss->frames.v;
	if (ss->inl && rs.nr_frames && pk_inline_expand(ss->inl, ss->syms, &rs) < 0)
		return pk_diag_fail(rc->d, -ENOMEM, "out of memory");
	return deliver_sample(rc, &rs, rs.filtered ? FILTERED : KEPT);
}

/* A LOST_SAMPLES record counts for the event its id names (perf's per-event stats). */
static int count_lost_samples(struct run_ctx *rc, const struct pk_record *r)
{
	struct pk_session_counts *cnt;
	struct pk_diag d;
	union pk_rec u;

	pk_diag_init(&d);
	if (!r->evsel || pk_rec_decode(r->hdr, r->hdr->size, trailer_size(rc->ss, r), &u,
				       r->file_offset, &d))
		return 0;   /* too short to say: the file's stats skip it too */
	cnt = counts_for(rc->ss, (size_t)r->evsel->idx);
	if (!cnt)
		return pk_diag_fail(rc->d, -ENOMEM, "out of memory");
	cnt->nr_lost_samples += u.lost_samples;
	return 0;
}

/* The records perf report --tasks (and --mmaps) processes. */
static int makes_tasks(const struct pk_session *ss, uint32_t type)
{
	switch (type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return 1;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return ss->opts.tasks_only == PK_SESSION_TASKS_MMAPS;
	default:
		return type >= PK_RECORD_HEADER_ATTR;    /* the file's own description */
	}
}

static int on_record(void *ctx, const struct pk_record *r)
{
	struct run_ctx *rc = ctx;
	struct pk_session *ss = rc->ss;
	int ret;

	if (ss->opts.progress) {
		uint64_t pos = pk_perfdata_position(ss->data);

		if (pos >= rc->next_progress) {
			ss->opts.progress(ss->opts.progress_ctx, pos, pk_perfdata_size(ss->data));
			rc->next_progress = pos + PROGRESS_STEP;
		}
	}
	if (ss->opts.tasks_only && !makes_tasks(ss, r->hdr->type))
		return 0;
	if (r->hdr->type == PERF_RECORD_SAMPLE) {
		if (rc->on_record && (ret = rc->on_record(rc->ctx, r)) != 0)
			return ret;
		return handle_sample(rc, r);
	}
	if (r->hdr->type == PERF_RECORD_LOST_SAMPLES && (ret = count_lost_samples(rc, r)) < 0)
		return ret;
	ret = side_band(ss, r, rc->d);
	if (ret < 0)
		return ret;
	if (r->hdr->type >= PK_RECORD_HEADER_ATTR)
		feed_build_ids(ss);
	return rc->on_record ? rc->on_record(rc->ctx, r) : 0;
}

int pk_session_run(struct pk_session *ss, pk_rsample_fn on_sample, pk_record_fn on_record_fn,
		   void *ctx, struct pk_diag *d)
{
	struct run_ctx rc = {
		.ss = ss, .on_sample = on_sample, .on_record = on_record_fn, .ctx = ctx, .d = d,
	};
	size_t n = pk_perfdata_nr_evsels(ss->data);
	int ret;

	if (n && !counts_for(ss, n - 1))
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	feed_build_ids(ss);
	ret = pk_perfdata_foreach(ss->data, on_record, &rc, d);
	if (ss->nr_unknown_id)
		pk_log(PK_LOG_WARN, "%llu samples with id not present in the header",
		       (unsigned long long)ss->nr_unknown_id);
	return ret;
}
