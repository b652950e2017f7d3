/*
 * The report histogram: one open-addressing hash table of entries keyed by
 * (event, sort-key values), periods accumulated per entry (Self, and
 * Children when cumulating), the defaults perf derives from the file
 * (children and call graphs only when call chains exist), and the order
 * entries are printed in: overhead first, then the sort keys ascending, as
 * perf's output tree orders them (rbtree_order.c). Samples the session's
 * filters dropped (rs->filtered) go in like the others; an entry one of
 * them made stays hidden whatever later samples add, as perf's filtered
 * hist entries do, and takes its place in the output order all the same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/session.h>
#include "internal.h"

/* --sort and -F into items; perf's default sort keys unless -F LIST or --sort gives some. */
static int rp_parse_columns(struct pk_report *r, struct pk_diag *d)
{
	const char *f = r->o.fields && *r->o.fields ? r->o.fields : NULL;
	const struct rp_item *first;
	int err = 0;

	r->fields_strict = f && *f != '+';
	if (r->o.sort && strstr(r->o.sort, "ipc"))      /* perf: its IPC columns are its own to add */
		return pk_diag_fail(d, -EINVAL, "unknown --sort key in '%s' (the IPC column comes with 'symbol')",
				    r->o.sort);
	if (r->o.sort && *r->o.sort)
		err = rp_items_parse(r, r->o.sort, "--sort", r->sort_items, &r->nr_sort_items, d);
	/* perf adds its IPC column (ipc_null, or ipc_lbr in branch mode) when --sort says "symbol" */
	if (!err && r->o.sort && strstr(r->o.sort, "symbol") &&
	    rp_items_add_key(r, &rp_ipc_keydef, r->sort_items, &r->nr_sort_items))
		err = pk_diag_fail(d, -EINVAL, "too many --sort keys in '%s'", r->o.sort);
	if (!err && f)
		err = rp_items_parse(r, f, "-F", r->field_items, &r->nr_field_items, d);
	if (!err && f && !r->fields_strict) {   /* "+sample,period": -n, --show-total-period */
		for (int i = 0; i < r->nr_field_items; i++) {
			if (r->field_items[i].kind == RP_I_SAMPLES)
				r->o.show_nr_samples = 1;
			else if (r->field_items[i].kind == RP_I_PERIOD)
				r->o.show_total_period = 1;
			else
				return pk_diag_fail(d, -EINVAL, "-F '%s': only sample and period add to the default columns",
						    f);
		}
	}
	if (!err && !r->nr_sort_items && !r->fields_strict)
		err = rp_items_parse(r, r->branch_mode ? "comm,dso_from,symbol_from,symbol_to,cycles" :
				     r->tracepoint_mode ? "trace" : "comm,dso,sym",
				     "--sort", r->sort_items, &r->nr_sort_items, d);
	/* perf's -p REGEX sorts by the parent too (last, unless --sort names it) */
	if (!err && r->o.parent_regex && !r->has_parent_key &&
	    rp_items_add_key(r, rp_keydef_find("parent"), r->sort_items, &r->nr_sort_items))
		err = pk_diag_fail(d, -EINVAL, "too many --sort keys with the parent's");
	if (err)
		return err;
	r->cpu_columns = r->o.show_cpu_utilization;
	for (int i = 0; i < r->nr_field_items; i++)
		r->cpu_columns |= r->field_items[i].kind == RP_I_SYS || r->field_items[i].kind == RP_I_US;
	for (int i = 0; i < r->nr_sort_items; i++)
		r->cpu_columns |= r->sort_items[i].kind == RP_I_SYS || r->sort_items[i].kind == RP_I_US;
	/* perf skips the first call-chain line when --sort starts with sym */
	first = r->nr_sort_items ? &r->sort_items[0] : NULL;
	r->sort_starts_sym = first && first->kind == RP_I_KEY &&
			     (r->keys[first->key]->id == RP_K_SYM || r->keys[first->key]->id == RP_K_SYMOFF);
	return 0;
}

int pk_report_new(const struct pk_report_opts *opts, struct pk_report **out, struct pk_diag *d)
{
	struct pk_report *r = calloc(1, sizeof(*r));
	int err;

	*out = NULL;
	if (!r)
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	if (opts) {
		size_t n = opts->sz && opts->sz < sizeof(r->o) ? opts->sz : sizeof(r->o);

		memcpy(&r->o, opts, n);
	} else {
		r->o.children = -1;
		r->o.cg_threshold = 0.5;
	}
	if (r->o.field_sep && !*r->o.field_sep)
		r->o.field_sep = NULL;          /* perf: -t '' aligns */
	if (r->o.cg_threshold < 0)
		r->o.cg_threshold = 0.5;
	err = rp_parse_columns(r, d);
	if (!err && r->has_parent_key) {
		const char *re = r->o.parent_regex ? r->o.parent_regex : "^sys_|^do_page_fault";

		if (regcomp(&r->parent_re, re, REG_EXTENDED | REG_NOSUB))
			err = pk_diag_fail(d, -EINVAL, "invalid parent regex '%s'", re);
		else
			r->parent_re_ok = 1;
	}
	if (!err)
		err = rp_strtab_init(&r->strs);
	if (!err)
		err = rp_strtab_init(&r->memo.comms);
	if (err) {
		pk_report_free(r);
		return err == -ENOMEM ? pk_diag_fail(d, err, "out of memory") : err;
	}
	*out = r;
	return 0;
}

int pk_report_needs_srcline(const struct pk_report *r)
{
	if (r->o.cg_by_address)
		return 1;               /* call-graph nodes print their source lines */
	for (int i = 0; i < r->nr_keys; i++)
		if (r->keys[i]->id == RP_K_SRCLINE || r->keys[i]->id == RP_K_SRCFILE)
			return 1;
	return 0;
}

void pk_report_free(struct pk_report *r)
{
	if (!r)
		return;
	pk_report_finish(r);
	if (r->parent_re_ok)
		regfree(&r->parent_re);
	rp_strtab_release(&r->strs);
	rp_trace_release(r);
	free(r->ent);
	free(r->ent_slots);
	free(r->nodes);
	rp_ixmap_release(&r->trie);
	free(r->pairs);
	rp_ixmap_release(&r->pair_idx);
	free(r->hists);
	free(r->scratch_ent);
	free(r->scratch_node);
	rp_memo_release(&r->memo);
	rp_map_release(&r->srcline_cache);
	free(r->rows_text);
	free(r->fcache);
	free(r->grp_leader);
	free(r->grp_nr);
	free(r);
}

static void rp_decide(struct pk_report *r, int has_callchain)
{
	if (r->decided)
		return;
	r->decided = 1;
	/* perf turns --children off when no event has call chains */
	r->children = has_callchain && r->o.children != 0;
	/*
	 * In pipe mode perf fixes its setup before any attr arrived: children
	 * is cancelled (no call chains seen yet) but the call-graph order stays
	 * the one chosen for children mode (caller).
	 */
	if (r->pipe) {
		r->children = 0;
		if (!r->o.cg_order_set && r->o.children != 0) {
			r->o.cg_order = PK_CG_CALLER;
			r->o.cg_order_set = 1;
		}
	}
	r->cg_mode = r->o.cg_mode;
	if (r->cg_mode == PK_CG_DEFAULT)
		r->cg_mode = has_callchain ? PK_CG_GRAPH : PK_CG_NONE;
	if (!has_callchain)
		r->cg_mode = PK_CG_NONE;
	if (r->branch_mode) {           /* perf: no children, no call chains per branch */
		r->children = 0;
		r->cg_mode = PK_CG_NONE;
	}
	r->use_callchain = r->cg_mode != PK_CG_NONE;
	r->cg_order = r->o.cg_order_set ? r->o.cg_order : (r->children ? PK_CG_CALLER : PK_CG_CALLEE);
	if (r->o.hierarchy)     /* perf turns Children off for it, after it chose the order */
		r->children = 0;
	r->memo_ok = rp_memo_usable(r);
}

void rp_report_decide(struct pk_report *r, const struct pk_evsel *ev)
{
	rp_decide(r, ev && (ev->attr.attr.sample_type & PERF_SAMPLE_CALLCHAIN));
}

/* Fix children/call-graph defaults from every event of @ss (perf looks at the whole evlist). */
int pk_report_setup(struct pk_report *r, struct pk_session *ss)
{
	struct pk_perfdata *p = pk_session_data(ss);
	size_t n = pk_perfdata_nr_evsels(p);
	int cc = 0, mode_switched = 0;

	for (size_t i = 0; i < n; i++) {
		const struct pk_evsel *ev = pk_perfdata_evsel(p, i);

		if (ev && (ev->attr.attr.sample_type & PERF_SAMPLE_CALLCHAIN))
			cc = 1;
	}
	r->syms = pk_session_symbols(ss);
	r->feat = pk_perfdata_features(p);
	r->pipe = pk_perfdata_is_pipe(p);
	/*
	 * perf report switches to branch mode when the file has the
	 * BRANCH_STACK feature, and to tracepoint mode when a file's events
	 * are all tracepoints (a pipe's come too late for perf to look)
	 */
	if (pk_features_has(pk_perfdata_features(p), PK_FEAT_BRANCH_STACK) && r->syms && !r->branch_mode)
		r->branch_mode = mode_switched = 1;
	else if (!r->branch_mode && !r->tracepoint_mode && pk_perfdata_only_tracepoints(p))
		r->tracepoint_mode = mode_switched = 1;
	if (mode_switched) {
		/* and its default keys, unless --sort or -F LIST gave some */
		if (!(r->o.sort && *r->o.sort) && !r->fields_strict) {
			struct pk_diag d;

			pk_diag_init(&d);
			r->nr_keys = r->nr_sort_items = r->nr_field_items = 0;
			r->has_sym_key = r->has_parent_key = r->has_srcline_key = 0;
			if (rp_parse_columns(r, &d))
				return -EINVAL;
		}
	}
	/* perf knows the branch keys in branch mode only */
	for (int i = 0; i < r->nr_keys && !r->branch_mode; i++)
		if (r->keys[i]->id >= RP_K_DSO_FROM && r->keys[i]->id <= RP_K_CYCLES)
			return -ENOTSUP;
	if (r->pipe) {
		/* pipe mode: the attrs arrive with the records; the first sample decides */
		r->decided = 0;
		return 0;
	}
	rp_decide(r, cc);
	return 0;
}

static uint64_t rp_key_hash(const uint64_t *k, int nw)
{
	uint64_t h = 0x12345;

	for (int i = 0; i < nw; i++)
		h = (h ^ k[i]) * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
	return rp_mix(h);
}

/* Key words in use: the event, then two per sort key (the rest stay zero). */
static inline int rp_nwords(const struct pk_report *r)
{
	return 1 + 2 * r->nr_keys;
}

static int rp_ent_grow(struct pk_report *r)
{
	size_t ncap = r->ent_mask ? (r->ent_mask + 1) * 2 : 1024;
	uint32_t *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_ent; i++) {
		size_t j = r->ent[i].hash & (ncap - 1);

		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = (uint32_t)i + 1;
	}
	free(r->ent_slots);
	r->ent_slots = ns;
	r->ent_mask = ncap - 1;
	return 0;
}

uint32_t rp_entry_get(struct pk_report *r, const struct rp_keyctx *c)
{
	uint64_t key[RP_KEY_WORDS] = { 0 };
	uint64_t h;
	size_t i;

	key[0] = c->rs->evsel ? (uint64_t)c->rs->evsel->idx : 0;
	for (int k = 0; k < r->nr_keys; k++)
		if (rp_key_compute(r, r->keys[k], c, &key[1 + 2 * k]))
			return UINT32_MAX;
	h = rp_key_hash(key, rp_nwords(r));
	if ((r->nr_ent + 1) * 2 > r->ent_mask + 1 && rp_ent_grow(r))
		return UINT32_MAX;
	i = h & r->ent_mask;
	while (r->ent_slots[i]) {
		struct rp_entry *e = &r->ent[r->ent_slots[i] - 1];

		if (e->hash == h && !memcmp(e->key, key, (size_t)rp_nwords(r) * sizeof(key[0])))
			return r->ent_slots[i] - 1;
		i = (i + 1) & r->ent_mask;
	}
	if (pk_array_grow((void **)&r->ent, &r->cap_ent, r->nr_ent + 1, sizeof(*r->ent), 1024))
		return UINT32_MAX;
	{
		struct rp_entry *e = &r->ent[r->nr_ent];

		memset(e, 0, sizeof(*e));
		memcpy(e->key, key, sizeof(key));
		e->hash = h;
		e->evsel = (uint32_t)key[0];
		/* perf: its first sample's, whatever later ones say; -x: no parent match is one too */
		e->filtered = (c->rs->filtered ? RP_FILTERED_SAMPLE : 0) |
			      (r->o.exclude_other && !c->parent_id ? RP_FILTERED_PARENT : 0);
		if (rp_entry_display(r, e, c))
			return UINT32_MAX;
	}
	r->ent_slots[i] = (uint32_t)r->nr_ent + 1;
	return (uint32_t)r->nr_ent++;
}

static struct rp_hists *rp_hists(struct pk_report *r, size_t idx)
{
	if (idx >= r->nr_hists) {
		size_t n = idx + 1;
		struct rp_hists *nh = realloc(r->hists, n * sizeof(*nh));

		if (!nh)
			return NULL;
		memset(nh + r->nr_hists, 0, (n - r->nr_hists) * sizeof(*nh));
		r->hists = nh;
		r->nr_hists = n;
	}
	return &r->hists[idx];
}

int rp_comm_placeholder(const struct pk_thread *who)
{
	return !(who && who->comm && who->comm[0]);
}

uint32_t rp_comm_text_id(struct rp_strtab *t, const struct pk_rsample *rs, const struct pk_thread *who)
{
	char buf[32];

	if (who && who->comm && who->comm[0])
		return rp_strtab_id(t, who->comm);
	snprintf(buf, sizeof(buf), ":%d", who ? who->tid : (int)rs->s->tid);
	return rp_strtab_id(t, buf);
}

/* perf's parent: the first frame the regex matches, in the call graph's order (callers first for -g caller) */
static uint32_t rp_parent_id(struct pk_report *r, const struct pk_rsample *rs)
{
	for (uint32_t k = 0; k < rs->nr_frames; k++) {
		uint32_t i = r->cg_order == PK_CG_CALLER ? rs->nr_frames - 1 - k : k;
		const struct pk_sym *s = rs->frames[i].sym;

		if (s && s->name && !regexec(&r->parent_re, s->name, 0, NULL, 0))
			return rp_strtab_id(&r->strs, s->name);
	}
	return 0;
}

/*
 * Branch mode: every branch of the sample's branch stack is one entry at
 * the branch target with period 1 (perf's hist_iter_branch), no call chains.
 */
/* perf's he_stat__add_cpumode_period(): Self's kernel- and user-mode parts. */
static void rp_add_cpumode_period(struct rp_entry *e, uint8_t cpumode, uint64_t period)
{
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		e->self_sys += period;
	else if (cpumode == PERF_RECORD_MISC_USER)
		e->self_us += period;
}

static int rp_add_branches(struct pk_report *r, struct rp_hists *h, const struct pk_rsample *rs,
			   struct rp_keyctx *c)
{
	const struct pk_sample *s = rs->s;
	struct pk_location loc;
	/* perf's branch entries keep the sample's own level, wherever the branch went: 'k', '.',
	   or 'H' for any other cpumode (perf reads no guest) */
	char level = rs->cpumode == PERF_RECORD_MISC_KERNEL ? 'k' : rs->cpumode == PERF_RECORD_MISC_USER ? '.' : 'H';

	for (uint64_t i = 0; i < s->branch_nr; i++) {
		struct perf_branch_entry be;
		struct pk_location from;
		uint32_t ei;

		memcpy(&be, &s->branch[i], sizeof(be));
		pk_symbols_resolve(r->syms, rs->thread, pk_symbols_addr_cpumode(be.to), be.to, &loc);
		pk_symbols_resolve(r->syms, rs->thread, pk_symbols_addr_cpumode(be.from), be.from, &from);
		c->loc = &loc;
		c->from = &from;
		c->cycles = be.cycles;
		c->level = level;
		ei = rp_entry_get(r, c);
		if (ei == UINT32_MAX)
			return -ENOMEM;
		r->ent[ei].self += 1;
		r->ent[ei].nr_self++;
		if (r->cpu_columns)
			rp_add_cpumode_period(&r->ent[ei], rs->cpumode, 1);
		h->nr_samples++;
		h->total_period += 1;
	}
	return 0;
}

/* Everything one sample adds, with every lookup (see memo.c for the shortcut). */
static int rp_add_full(struct pk_report *r, const struct pk_rsample *rs, const struct rp_keyctx *c)
{
	struct rp_entry *e;
	uint32_t ei, pair = UINT32_MAX;
	int err;

	ei = rp_entry_get(r, c);
	if (ei == UINT32_MAX)
		return -ENOMEM;
	e = &r->ent[ei];
	e->self += rs->period;
	e->nr_self++;
	if (r->cpu_columns)
		rp_add_cpumode_period(e, rs->cpumode, rs->period);
	if (r->children) {
		e->acc += rs->period;
		e->nr_acc++;
	}
	if (!r->use_callchain && !r->children)
		return 0;
	err = rp_path_intern(r, rs);
	if (err)
		return err;
	if (r->use_callchain) {
		if (rs->nr_frames > e->max_depth)
			e->max_depth = rs->nr_frames;
		err = rp_pair_add(r, ei, rs->nr_frames ? r->scratch_node[rs->nr_frames] : 0, rs->period,
				  &pair);
		if (err)
			return err;
	}
	if ((err = rp_memo_op(r, ei, pair, RP_MEMO_SELF | (r->children ? RP_MEMO_ACC : 0))))
		return err;
	if (r->children && rs->nr_frames)
		return rp_children_add(r, rs, c, ei);
	return 0;
}

int rp_add_sample(struct pk_report *r, const struct pk_rsample *rs, const struct pk_thread *who,
		  uint32_t stack, int hit)
{
	struct rp_keyctx c = { .rs = rs, .who = who, .loc = &rs->self, .self = 1 };
	int err;

	if (hit) {
		rp_memo_replay(r, stack, rs->period);
		return 0;
	}
	c.comm_id = rp_comm_text_id(&r->strs, rs, who);
	if (c.comm_id == UINT32_MAX)
		return -ENOMEM;
	if (rp_comm_placeholder(who) && rs->thread) {
		c.placeholder_comm = 1;
		r->placeholder_comms = 1;
	}
	if (r->has_parent_key) {
		c.parent_id = rp_parent_id(r, rs);
		if (c.parent_id == UINT32_MAX)
			return -ENOMEM;
	}
	if (stack == RP_NO_STACK)
		return rp_add_full(r, rs, &c);
	if ((err = rp_memo_record(r, stack)))
		return err;
	err = rp_add_full(r, rs, &c);
	rp_memo_end(r);
	return err;
}

static int add_one(struct pk_report *r, const struct pk_rsample *rs)
{
	uint32_t stack = RP_NO_STACK;
	struct rp_hists *h;
	int err, hit = 0;

	if (!r->decided)
		rp_report_decide(r, rs->evsel);
	h = rp_hists(r, rs->evsel ? (size_t)rs->evsel->idx : 0);
	if (!h)
		return -ENOMEM;
	h->used = 1;
	h->evsel = rs->evsel;
	if (r->branch_mode && (rs->s->present & PERF_SAMPLE_BRANCH_STACK)) {
		struct rp_keyctx c = { .rs = rs, .who = rs->thread };

		c.comm_id = rp_comm_text_id(&r->strs, rs, rs->thread);
		if (c.comm_id == UINT32_MAX)
			return -ENOMEM;
		return rp_add_branches(r, h, rs, &c);
	}
	h->nr_samples++;
	h->total_period += rs->period;
	if (rs->nr_frames)
		h->has_callchain = 1;
	/* a ":TID" comm's rows are the thread's own (rp_first_comms()): not memoized across threads */
	if (r->memo_ok && rs->nr_frames && !rp_comm_placeholder(rs->thread) &&
	    (err = rp_memo_lookup(r, rs, &stack, &hit)))
		return err;
	if (r->pl || (!r->pl_tried && rp_pipeline_start(r)))
		return rp_pipeline_push(r, rs, stack, hit);
	return rp_add_sample(r, rs, rs->thread, stack, hit);
}

/*
 * After a failure every later sample is refused with the same error: the
 * report is incomplete, and the memo may hold a stack whose first sample
 * was never added (a later hit would replay what was never recorded).
 */
int pk_report_add(struct pk_report *r, const struct pk_rsample *rs)
{
	if (!r->add_err)
		r->add_err = add_one(r, rs);
	return r->add_err;
}

int pk_report_finish(struct pk_report *r)
{
	int err = r->pl ? rp_pipeline_stop(r) : 0;

	if (!err && r->placeholder_comms)
		err = rp_first_comms(r);
	return err;
}

/* ---- output order ---------------------------------------------------------- */

/* perf's hist_entry__sort(), negated: < 0 when @ia prints first */
static int rp_entry_before(uint32_t ia, uint32_t ib, void *ctx)
{
	const struct pk_report *r = ctx;
	const struct rp_entry *a = &r->ent[ia], *b = &r->ent[ib];

	return rp_rows_before(r, &a, &b, 1);
}

uint32_t *rp_collapsed_entries(struct pk_report *r, uint32_t evsel, size_t *n)
{
	uint32_t *v = malloc((r->nr_ent ? r->nr_ent : 1) * sizeof(*v));
	size_t k = 0;

	*n = 0;
	if (!v)
		return NULL;
	rp_layout(r);
	for (size_t i = 0; i < r->nr_ent; i++)
		if (r->ent[i].evsel == evsel)
			v[k++] = (uint32_t)i;
	if (rp_collapse_order(r, v, k)) {
		free(v);
		return NULL;
	}
	*n = k;
	return v;
}

uint32_t *rp_sorted_entries(struct pk_report *r, uint32_t evsel, size_t *n)
{
	uint32_t *v = rp_collapsed_entries(r, evsel, n);

	if (v && rp_rbtree_order(v, *n, rp_entry_before, r)) {
		free(v);
		*n = 0;
		return NULL;
	}
	return v;
}

size_t pk_report_rows(struct pk_report *r, size_t evsel_idx, struct pk_report_row *rows, size_t max)
{
	size_t n, len = 0;
	uint32_t *order;
	char buf[1024];
	char *text;

	if (pk_report_finish(r))
		return 0;
	order = rp_sorted_entries(r, (uint32_t)evsel_idx, &n);
	if (!order)
		return 0;
	{                               /* the rows printed: not the filtered entries */
		size_t kept = 0;

		for (size_t i = 0; i < n; i++)
			if (!r->ent[order[i]].filtered)
				order[kept++] = order[i];
		n = kept;
	}
	free(r->rows_text);
	r->rows_text = NULL;
	/* pass 1: size; pass 2: fill */
	for (size_t i = 0; i < n && i < max; i++)
		for (int k = 0; k < r->nr_keys; k++)
			len += rp_key_text(r, r->keys[k], &r->ent[order[i]], buf, sizeof(buf)) + 2;
	text = r->rows_text = malloc(len + 1);
	if (!text) {
		free(order);
		return 0;
	}
	for (size_t i = 0; i < n && i < max; i++) {
		const struct rp_entry *e = &r->ent[order[i]];

		rows[i].key = text;
		for (int k = 0; k < r->nr_keys; k++) {
			if (k) {
				memcpy(text, "  ", 2);
				text += 2;
			}
			text += rp_key_text(r, r->keys[k], e, text, len + 1 - (size_t)(text - r->rows_text));
		}
		*text++ = '\0';
		rows[i].self_period = e->self;
		rows[i].children_period = e->acc;
		rows[i].nr_samples = e->nr_self;
	}
	free(order);
	return n;
}
