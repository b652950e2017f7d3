/*
 * The aggregation behind `perfkit top`: records in, per-interval rows out.
 *
 * Side band goes straight to a pk_symbols session. Samples are decoded when
 * fed into a small pending array (event, pid/tid, cpumode, ip, period) and
 * resolved at flush time, after every ring of the round was drained, so a
 * sample drained before the MMAP that maps it still finds its symbol. Each
 * resolved sample bumps one entry of an open-addressing hash keyed by
 * (event, level, DSO, symbol, or address when no symbol); the table is
 * emptied at the end of every interval, so memory follows the distinct
 * symbols of one interval, not the samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/sample.h>
#include <perfkit/top.h>

struct top_event {
	struct perf_event_attr attr;
	struct pk_sample_layout layout;
	char *name;
};

struct top_id {
	uint64_t id;
	uint32_t event;
};

/* A sample waiting for its side band (see the file comment). */
struct top_pending {
	uint64_t ip, period;
	int32_t pid, tid;
	uint32_t event;
	uint16_t misc;
};

struct top_entry {
	uint32_t event;
	char level;
	const struct pk_dso *dso;
	const struct pk_sym *sym;
	uint64_t addr;
	uint64_t samples, period;
};

struct pk_top {
	struct pk_symbols *syms;
	struct top_event *ev;
	size_t nr_ev;
	struct top_id *ids;              /* sorted by id */
	size_t nr_ids;
	struct top_pending *pend;
	size_t nr_pend, cap_pend;
	struct top_entry *ent;
	size_t nr_ent, cap_ent;
	uint32_t *slots;                 /* entry index + 1, 0 empty; size a power of two */
	size_t nr_slots;
	struct pk_top_event_stats *stats;   /* per event, this interval */
	struct pk_top_event_stats *closed;  /* per event, the last closed interval */
	struct pk_top_row *rows;         /* of the last closed interval */
	size_t cap_rows;
	uint64_t lost, lost_total, unknown, bad, index;
	uint64_t start_ns;
};

PK_API struct pk_top *pk_top_new(const struct pk_top_opts *opts)
{
	struct pk_symbols_opts defaults = { .sz = sizeof(defaults) };
	struct pk_top *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->syms = pk_symbols_new(opts && opts->symbols ? opts->symbols : &defaults);
	if (!t->syms) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->start_ns = pk_now_ns();
	return t;
}

PK_API void pk_top_free(struct pk_top *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_ev; i++)
		free(t->ev[i].name);
	free(t->ev);
	free(t->ids);
	free(t->pend);
	free(t->ent);
	free(t->slots);
	free(t->stats);
	free(t->closed);
	free(t->rows);
	pk_symbols_free(t->syms);
	free(t);
}

PK_API struct pk_symbols *pk_top_symbols(struct pk_top *t)
{
	return t->syms;
}

static int id_cmp(const void *a, const void *b)
{
	const struct top_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

PK_API int pk_top_add_event(struct pk_top *t, const struct perf_event_attr *attr, const char *name,
			    const uint64_t *ids, uint32_t nr_ids)
{
	struct top_event *ev;
	struct pk_top_event_stats *st;
	struct top_id *ni;

	if (!attr || (nr_ids && !ids) || t->nr_ev >= UINT32_MAX)
		return -EINVAL;
	ev = realloc(t->ev, (t->nr_ev + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	t->ev = ev;
	st = realloc(t->stats, (t->nr_ev + 1) * sizeof(*st));
	if (!st)
		return -ENOMEM;
	t->stats = st;
	st = realloc(t->closed, (t->nr_ev + 1) * sizeof(*st));
	if (!st)
		return -ENOMEM;
	t->closed = st;
	ni = realloc(t->ids, (t->nr_ids + nr_ids + 1) * sizeof(*ni));
	if (!ni)
		return -ENOMEM;
	t->ids = ni;
	ev = &t->ev[t->nr_ev];
	memset(ev, 0, sizeof(*ev));
	/* attrs of older headers are shorter; copy what the caller's struct holds */
	memcpy(&ev->attr, attr, attr->size && attr->size < sizeof(ev->attr) ? attr->size : sizeof(ev->attr));
	ev->attr.size = sizeof(ev->attr);
	pk_sample_layout_init(&ev->layout, &ev->attr);
	ev->name = strdup(name ? name : "");
	if (!ev->name)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr_ids; i++) {
		t->ids[t->nr_ids].id = ids[i];
		t->ids[t->nr_ids].event = (uint32_t)t->nr_ev;
		t->nr_ids++;
	}
	qsort(t->ids, t->nr_ids, sizeof(*t->ids), id_cmp);
	memset(&t->stats[t->nr_ev], 0, sizeof(t->stats[0]));
	t->nr_ev++;
	/* names and attrs may have moved with realloc: re-point every stats entry */
	for (size_t i = 0; i < t->nr_ev; i++) {
		t->stats[i].name = t->ev[i].name;
		t->stats[i].attr = &t->ev[i].attr;
	}
	return (int)(t->nr_ev - 1);
}

/* The event of @id, or -1. */
static int event_of_id(const struct pk_top *t, uint64_t id)
{
	size_t lo = 0, hi = t->nr_ids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ids[mid].id == id)
			return (int)t->ids[mid].event;
		if (t->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * The event @rec belongs to: with one event always 0; else by the id where
 * event 0's layout places it (IDENTIFIER puts it at the same place for all).
 * -1 when the record has no id or it matches no event.
 */
static int record_event(const struct pk_top *t, const struct perf_event_header *rec)
{
	const struct pk_sample_layout *l = &t->ev[0].layout;
	uint64_t id;

	if (t->nr_ev == 1)
		return 0;
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (l->id_pos < 0 || (size_t)l->id_pos + 16 > rec->size)
			return -1;
		memcpy(&id, (const char *)rec + 8 + l->id_pos, sizeof(id));
	} else {
		if (!l->sample_id_all || l->id_pos_from_end < 8 ||
		    (size_t)l->id_pos_from_end > (size_t)rec->size - 8)
			return -1;
		memcpy(&id, (const char *)rec + rec->size - l->id_pos_from_end, sizeof(id));
	}
	return event_of_id(t, id);
}

static int queue_sample(struct pk_top *t, const struct perf_event_header *rec, struct pk_diag *d)
{
	int evi = record_event(t, rec);
	const struct top_event *ev;
	struct top_pending *p;
	struct pk_sample s;
	int ret;

	if (evi < 0) {
		t->unknown++;
		return 0;
	}
	ev = &t->ev[evi];
	ret = pk_sample_parse(&ev->layout, rec, rec->size, &s, 0, d);
	if (ret < 0) {
		t->bad++;
		return ret;
	}
	if (t->nr_pend == t->cap_pend) {
		size_t cap = t->cap_pend ? t->cap_pend * 2 : 1024;

		p = realloc(t->pend, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->pend = p;
		t->cap_pend = cap;
	}
	p = &t->pend[t->nr_pend++];
	p->ip = s.present & PERF_SAMPLE_IP ? s.ip : 0;
	/* perf's evsel__parse_sample: the attr's fixed period when the sample carries none */
	if (s.present & PERF_SAMPLE_PERIOD)
		p->period = s.period;
	else if (!ev->attr.freq && ev->attr.sample_period)
		p->period = ev->attr.sample_period;
	else
		p->period = 1;
	p->pid = s.present & PERF_SAMPLE_TID ? (int32_t)s.pid : -1;
	p->tid = s.present & PERF_SAMPLE_TID ? (int32_t)s.tid : -1;
	p->event = (uint32_t)evi;
	p->misc = rec->misc;
	return 0;
}

static int side_band(struct pk_top *t, const struct perf_event_header *rec, struct pk_diag *d)
{
	int evi = record_event(t, rec);
	const struct top_event *ev = &t->ev[evi < 0 ? 0 : evi];
	uint32_t trailer = ev->layout.sample_id_all ? ev->layout.id_trailer_size : 0;
	union pk_rec u;
	int ret;

	if (rec->type != PERF_RECORD_LOST && rec->type != PERF_RECORD_LOST_SAMPLES)
		return pk_symbols_feed(t->syms, rec, trailer, 0, d);
	ret = pk_rec_decode(rec, rec->size, trailer, &u, 0, d);
	if (ret < 0) {
		t->bad++;
		return ret == -ENOENT ? 0 : ret;
	}
	if (rec->type == PERF_RECORD_LOST) {
		t->lost += u.lost.lost;
		t->lost_total += u.lost.lost;
	} else {
		t->lost += u.lost_samples;
		t->lost_total += u.lost_samples;
	}
	return 0;
}

PK_API int pk_top_feed(struct pk_top *t, const struct perf_event_header *rec, struct pk_diag *d)
{
	if (!t->nr_ev)
		return pk_diag_fail(d, -EINVAL, "no event registered");
	if (rec->size < sizeof(*rec)) {
		t->bad++;
		return PK_CORRUPT(d, 0, "record of %u bytes, shorter than its header", rec->size);
	}
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		return queue_sample(t, rec, d);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return side_band(t, rec, d);
	default:
		return 0;
	}
}

PK_API int pk_top_feed_synth(void *ctx, const struct perf_event_header *rec)
{
	struct pk_diag d;
	int ret;

	pk_diag_init(&d);
	ret = pk_top_feed(ctx, rec, &d);
	/* a malformed synthesized record is skipped (counted in nr_bad), not fatal */
	return ret == -EBADMSG ? 0 : ret;
}

/* ---- the interval's table ------------------------------------------------ */

static char level_of(uint8_t cpumode)
{
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL:
		return 'k';
	case PERF_RECORD_MISC_GUEST_KERNEL:
		return 'g';
	case PERF_RECORD_MISC_GUEST_USER:
		return 'u';
	case PERF_RECORD_MISC_HYPERVISOR:
		return 'H';
	default:
		return '.';
	}
}

static uint64_t entry_hash(uint32_t event, char level, const void *dso, const void *sym, uint64_t addr)
{
	uint64_t h = pk_hash_mix64((uint64_t)(uintptr_t)dso ^ ((uint64_t)event << 40) ^ (uint64_t)(unsigned char)level);

	h = pk_hash_mix64(h ^ (uint64_t)(uintptr_t)sym);
	return pk_hash_mix64(h ^ addr);
}

static int table_grow(struct pk_top *t)
{
	size_t n = t->nr_slots ? t->nr_slots * 2 : 1024;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr_ent; i++) {
		const struct top_entry *e = &t->ent[i];
		size_t j = entry_hash(e->event, e->level, e->dso, e->sym, e->addr) & (n - 1);

		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nr_slots = n;
	return 0;
}

/* The entry of the key, created with zero counts. NULL on ENOMEM. */
static struct top_entry *entry_get(struct pk_top *t, uint32_t event, char level, const struct pk_dso *dso,
				   const struct pk_sym *sym, uint64_t addr)
{
	struct top_entry *e;
	size_t j;

	if ((t->nr_ent + 1) * 2 > t->nr_slots && table_grow(t))
		return NULL;
	j = entry_hash(event, level, dso, sym, addr) & (t->nr_slots - 1);
	for (; t->slots[j]; j = (j + 1) & (t->nr_slots - 1)) {
		e = &t->ent[t->slots[j] - 1];
		if (e->event == event && e->level == level && e->dso == dso && e->sym == sym && e->addr == addr)
			return e;
	}
	if (t->nr_ent == t->cap_ent) {
		size_t cap = t->cap_ent ? t->cap_ent * 2 : 256;

		e = realloc(t->ent, cap * sizeof(*e));
		if (!e)
			return NULL;
		t->ent = e;
		t->cap_ent = cap;
	}
	e = &t->ent[t->nr_ent];
	memset(e, 0, sizeof(*e));
	e->event = event;
	e->level = level;
	e->dso = dso;
	e->sym = sym;
	e->addr = addr;
	t->slots[j] = (uint32_t)++t->nr_ent;
	return e;
}

PK_API int pk_top_flush(struct pk_top *t)
{
	size_t i;

	for (i = 0; i < t->nr_pend; i++) {
		const struct top_pending *p = &t->pend[i];
		uint8_t cpumode = p->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		struct pk_top_event_stats *st = &t->stats[p->event];
		struct pk_thread *th = pk_symbols_thread(t->syms, p->pid, p->tid);
		struct pk_location loc;
		struct top_entry *e;
		uint64_t addr;

		if (!th)
			goto nomem;
		memset(&loc, 0, sizeof(loc));
		pk_symbols_resolve(t->syms, th, cpumode, p->ip, &loc);
		addr = loc.sym ? 0 : loc.map ? loc.addr : p->ip;
		e = entry_get(t, p->event, level_of(cpumode), loc.dso, loc.sym, addr);
		if (!e)
			goto nomem;
		e->samples++;
		e->period += p->period;
		st->samples++;
		st->period += p->period;
		if (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL)
			st->kernel++;
		if (p->misc & PERF_RECORD_MISC_EXACT_IP)
			st->exact++;
	}
	t->nr_pend = 0;
	return 0;
nomem:
	/* keep what is not counted yet for the next try */
	memmove(t->pend, t->pend + i, (t->nr_pend - i) * sizeof(*t->pend));
	t->nr_pend -= i;
	return -ENOMEM;
}

static void clear_interval(struct pk_top *t, uint64_t now)
{
	t->nr_ent = 0;
	if (t->slots)
		memset(t->slots, 0, t->nr_slots * sizeof(*t->slots));
	for (size_t i = 0; i < t->nr_ev; i++) {
		t->stats[i].samples = t->stats[i].period = 0;
		t->stats[i].kernel = t->stats[i].exact = 0;
	}
	t->lost = t->unknown = t->bad = 0;
	t->start_ns = now;
}

PK_API void pk_top_reset(struct pk_top *t)
{
	t->nr_pend = 0;
	clear_interval(t, pk_now_ns());
}

static int row_cmp(const void *a, const void *b)
{
	const struct pk_top_row *x = a, *y = b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	c = strcmp(x->dso, y->dso);
	if (c)
		return c;
	if (x->sym && y->sym && (c = strcmp(x->sym, y->sym)))
		return c;
	if (!x->sym != !y->sym)
		return x->sym ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

PK_API int pk_top_interval_end(struct pk_top *t, struct pk_top_interval *out)
{
	uint64_t now = pk_now_ns();
	int ret = pk_top_flush(t);

	if (ret)
		return ret;
	if (t->nr_ent > t->cap_rows) {
		struct pk_top_row *rows = realloc(t->rows, t->nr_ent * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		t->rows = rows;
		t->cap_rows = t->nr_ent;
	}
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < t->nr_ent; i++) {
		const struct top_entry *e = &t->ent[i];
		struct pk_top_row *r = &t->rows[i];
		uint64_t total = t->stats[e->event].samples;

		r->event = e->event;
		r->level = e->level;
		r->dso = e->dso ? e->dso->short_name : "[unknown]";
		r->sym = e->sym ? e->sym->name : NULL;
		r->addr = e->addr;
		r->samples = e->samples;
		r->period = e->period;
		r->percent = total ? (double)e->samples * 100.0 / (double)total : 0.0;
	}
	if (t->nr_ent)
		qsort(t->rows, t->nr_ent, sizeof(*t->rows), row_cmp);
	out->index = t->index++;
	out->duration_ns = now > t->start_ns ? now - t->start_ns : 0;
	for (size_t i = 0; i < t->nr_ev; i++) {
		out->nr_samples += t->stats[i].samples;
		out->nr_kernel += t->stats[i].kernel;
	}
	out->nr_lost = t->lost;
	out->nr_lost_total = t->lost_total;
	out->nr_unknown = t->unknown;
	out->nr_bad = t->bad;
	out->nr_rows = t->nr_ent;
	out->rows = t->rows;
	/* handed out as a copy, which the next interval does not touch */
	memcpy(t->closed, t->stats, t->nr_ev * sizeof(*t->closed));
	out->events = t->closed;
	out->nr_events = t->nr_ev;
	clear_interval(t, now);
	return 0;
}
