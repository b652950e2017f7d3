/*
 * Interning resolved samples into the stack trie, and naming frames the way
 * Brendan Gregg's stackcollapse-perf.pl names the lines of `perf script`:
 *
 *  - a resolved frame is its symbol name; a trailing "+0x<hex>" is removed
 *    and a frame whose name then starts with "(" is dropped;
 *  - names are split on "->" (inline chains), later parts get "_[i]";
 *  - an unresolved frame is "[" + basename of the DSO's name + "]"
 *    (so the kernel is "[[kernel.kallsyms]]"), or "[unknown]" without a map;
 *    with include_addrs "[<dso basename or unknown> <0xaddr>]";
 *  - a DSO whose name has a blank ("/memfd:jit (deleted)") makes the
 *    script's frame regex split perf script's line elsewhere: see
 *    fold_split_frame();
 *  - tidy: ';' becomes ':', everything from the first '(' that does not
 *    open "(anonymous namespace)" is cut unless the name looks like a Go
 *    method ("pkg.(*T).M"), '"' and '\'' are deleted, and for processes
 *    whose name starts with "java" a leading 'L' goes when the name has '/';
 *  - the process name (comm, spaces turned into '_', ":<tid>" when unknown)
 *    is the root frame; frames are root first; perf script prints at most
 *    127 frames (its --max-stack), the leaf-most ones.
 *
 * Names are computed once per symbol (or DSO) and cached by pointer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "export/internal.h"

int pk_export_format_parse(const char *name, enum pk_export_format *out)
{
	static const struct { const char *name; enum pk_export_format f; } tab[] = {
		{ "folded", PK_EXPORT_FOLDED }, { "pprof", PK_EXPORT_PPROF },
		{ "json", PK_EXPORT_JSON }, { "svg", PK_EXPORT_SVG },
	};

	for (size_t i = 0; name && i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (strcmp(name, tab[i].name) == 0) {
			*out = tab[i].f;
			return 0;
		}
	}
	return -EINVAL;
}

int pk_export_new(const struct pk_export_opts *opts, struct pk_export **out, struct pk_diag *d)
{
	struct pk_export *e;
	int err;

	*out = NULL;
	if (!opts || opts->sz < offsetof(struct pk_export_opts, format) + sizeof(opts->format))
		return pk_diag_fail(d, -EINVAL, "export options missing or too small");
	if (opts->format > PK_EXPORT_SVG)
		return pk_diag_fail(d, -EINVAL, "unknown export format %d", (int)opts->format);
	e = calloc(1, sizeof(*e));
	if (!e)
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	memcpy(&e->opts, opts, opts->sz < sizeof(e->opts) ? opts->sz : sizeof(e->opts));
	e->opts.sz = sizeof(e->opts);
	e->by_location = opts->format == PK_EXPORT_PPROF || opts->format == PK_EXPORT_JSON;
	e->folded_event = -1;
	pk_exp_strtab_init(&e->str);
	pk_buf_init(&e->tmp);
	if ((err = pk_exp_trie_init(&e->trie)) ||
	    (err = pk_exp_str_intern(&e->str, "[unknown]", 9, &e->unknown_id))) {
		pk_export_free(e);
		return pk_diag_fail(d, err, "out of memory");
	}
	*out = e;
	return 0;
}

void pk_export_free(struct pk_export *e)
{
	if (!e)
		return;
	pk_exp_strtab_release(&e->str);
	pk_exp_ptrmap_release(&e->names);
	pk_exp_trie_release(&e->trie);
	pk_exp_ptrmap_release(&e->map_ids);
	pk_exp_ptrmap_release(&e->func_ids);
	free(e->mappings);
	free(e->funcs);
	free(e->func_dsos);
	free(e->locs);
	free(e->loc_keys);
	free(e->loc_vals);
	pk_buf_release(&e->tmp);
	free(e);
}

/* ---- naming ---------------------------------------------------------------- */

static int is_go_method(const char *s, size_t len)
{
	const char *p = memmem(s, len, ".(", 2);

	return p && memmem(p + 2, len - (size_t)(p + 2 - s), ").", 2) != NULL;
}

int pk_exp_tidy(const char *s, size_t len, int java, struct pk_buf *out)
{
	static const char anon[] = "anonymous namespace)";
	size_t cut = len, start = out->len;
	int err;

	if (!is_go_method(s, len)) {
		for (size_t i = 0; i < len; i++) {
			if (s[i] == '(' && !(len - i - 1 >= sizeof(anon) - 1 &&
					     memcmp(s + i + 1, anon, sizeof(anon) - 1) == 0)) {
				cut = i;
				break;
			}
		}
	}
	if ((err = pk_buf_reserve(out, cut)))
		return err;
	for (size_t i = 0; i < cut; i++) {
		char c = s[i];

		if (c == '"' || c == '\'')
			continue;
		out->data[out->len++] = c == ';' ? ':' : c;
	}
	out->data[out->len] = '\0';
	if (java && out->len > start && out->data[start] == 'L' &&
	    memchr(out->data + start, '/', out->len - start)) {
		memmove(out->data + start, out->data + start + 1, out->len - start - 1);
		out->data[--out->len] = '\0';
	}
	return 0;
}

static int is_hex_lower(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Length of @s without a trailing "+0x<hex>". */
static size_t strip_offset(const char *s, size_t len)
{
	size_t i = len;

	while (i > 0 && is_hex_lower(s[i - 1]))
		i--;
	if (i < len && i >= 3 && memcmp(s + i - 3, "+0x", 3) == 0)
		return i - 3;
	return len;
}

/* 1 when @s holds a blank, as Perl's \s sees it */
static int has_blank(const char *s)
{
	return strpbrk(s, " \t\n\v\f\r") != NULL;
}

/*
 * stackcollapse-perf.pl's rules for the frame whose perf script text is
 * @name (@len bytes: a symbol, or "[unknown]") from module @mod (@mod_len)
 * at @ip, into e->tmp: a trailing "+0x<hex>" goes, a name starting with "("
 * is dropped (*skip), the name splits on "->" into parts (later parts get
 * "_[i]"), an "[unknown]" part becomes "[" + @mod's basename + "]" (or
 * "[unknown]" when @mod is "[unknown]"), and every part is tidied.
 */
static int fold_frame(struct pk_export *e, const char *name, size_t len, const char *mod,
		      size_t mod_len, uint64_t ip, int java, int *skip)
{
	struct pk_buf *b = &e->tmp;
	size_t piece = 0;
	int err;

	b->len = 0;
	len = strip_offset(name, len);
	if (len && name[0] == '(') {
		*skip = 1;
		return 0;
	}
	while (1) {
		const char *arrow = memmem(name, len, "->", 2);
		size_t n = arrow ? (size_t)(arrow - name) : len, mark;

		if (piece && (err = pk_buf_append(b, ";", 1)))
			return err;
		mark = b->len;
		if (n == 9 && !memcmp(name, "[unknown]", 9)) {
			int known = !(mod_len == 9 && !memcmp(mod, "[unknown]", 9));
			const char *base = mod, *slash;
			char part[4200];
			int k;

			while ((slash = memchr(base, '/', mod_len - (size_t)(base - mod))))
				base = slash + 1;
			if (!known)
				base = "unknown";
			k = (int)(known ? mod_len - (size_t)(base - mod) : 7);
			if (e->opts.include_addrs)
				k = snprintf(part, sizeof(part), "[%.*s <%" PRIx64 ">]", k, base, ip);
			else
				k = snprintf(part, sizeof(part), "[%.*s]", k, base);
			if (k < 0)
				return -EINVAL;
			/* the bracketed name goes through tidy too, as in stackcollapse-perf.pl */
			err = pk_exp_tidy(part, strlen(part), java, b);
		} else {
			err = pk_exp_tidy(name, n, java, b);
		}
		if (err)
			return err;
		/* later parts are inlined: "_[i]" unless the part already says so */
		if (piece && !memmem(b->data + mark, b->len - mark, "_[i]", 4) &&
		    (err = pk_buf_append(b, "_[i]", 4)))
			return err;
		piece++;
		if (!arrow)
			return 0;
		len -= n + 2;
		name = arrow + 2;
	}
}

/*
 * A module whose name has a blank: stackcollapse-perf.pl splits perf
 * script's line "NAME+0x<off> (MODULE)" by /(.+) \((\S*)\)/, at the last
 * " (" that non-blanks and a ')' follow. For "/memfd:jit (deleted)" that is
 * " (deleted)": the name is "NAME+0x<off> (/memfd:jit", whose tidy cuts at
 * the '(' (leaving "NAME+0x<off> "). No such " (" (as in "/a dir/lib.so"):
 * the line is not a frame to it, and the frame is dropped.
 */
static int fold_split_frame(struct pk_export *e, const struct pk_location *loc, const char *mod,
			    int java, int *skip)
{
	char text[4400];
	int len;

	if (loc->sym && loc->sym->name)
		len = snprintf(text, sizeof(text), "%s+0x%" PRIx64 " (%s)", loc->sym->name,
			       pk_location_shown_symoff(loc), mod);
	else
		len = snprintf(text, sizeof(text), "[unknown] (%s)", mod);
	if (len < 0 || (size_t)len >= sizeof(text))
		return -EINVAL;
	for (size_t i = (size_t)len; i-- > 1;) {
		size_t close = 0;

		if (text[i] != ' ' || text[i + 1] != '(')
			continue;
		for (size_t j = i + 2; j < (size_t)len && !strchr(" \t\n\v\f\r", text[j]); j++)
			if (text[j] == ')')
				close = j;
		if (close)
			return fold_frame(e, text, i, text + i + 2, close - i - 2, loc->ip, java, skip);
	}
	*skip = 1;
	return 0;
}

/* Build the name of @loc into e->tmp; *skip for frames stackcollapse drops. */
static int build_name(struct pk_export *e, const struct pk_location *loc, int java, int *skip)
{
	const struct pk_dso *dso = loc->dso ? loc->dso : loc->map ? loc->map->dso : NULL;
	const char *mod = dso && dso->name ? dso->name : "[unknown]";

	*skip = 0;
	if (has_blank(mod))
		return fold_split_frame(e, loc, mod, java, skip);
	if (loc->sym && loc->sym->name)
		return fold_frame(e, loc->sym->name, strlen(loc->sym->name), mod, strlen(mod), loc->ip, java,
				  skip);
	return fold_frame(e, "[unknown]", 9, mod, strlen(mod), loc->ip, java, skip);
}

int pk_exp_frame_name(struct pk_export *e, const struct pk_location *loc, int java,
		      uint32_t *id, int *skip)
{
	const struct pk_dso *dso = loc->dso ? loc->dso : loc->map ? loc->map->dso : NULL;
	uintptr_t key = 0;
	uint32_t v;
	int err;

	*skip = 0;
	if (loc->sym) {
		/* in a module with a blank in its name, the offset may stay in the name */
		if (!(dso && dso->name && has_blank(dso->name)))
			key = (uintptr_t)loc->sym | (java ? 1 : 0);
	} else if (dso && !e->opts.include_addrs)
		key = (uintptr_t)dso | 2 | (java ? 1 : 0);
	else if (!dso && !e->opts.include_addrs) {
		*id = e->unknown_id;
		return 0;
	}
	if (key && pk_exp_ptrmap_get(&e->names, key, &v)) {
		if (!v)
			*skip = 1;
		else
			*id = v - 1;
		return 0;
	}
	if ((err = build_name(e, loc, java, skip)))
		return err;
	if (!*skip && (err = pk_exp_str_intern(&e->str, e->tmp.data ? e->tmp.data : "", e->tmp.len, id)))
		return err;
	if (key && (err = pk_exp_ptrmap_put(&e->names, key, *skip ? 0 : *id + 1)))
		return err;
	return 0;
}

/* ---- events ---------------------------------------------------------------- */

const char *pk_exp_event_name(const struct pk_exp_event *ev)
{
	return ev->evsel && ev->evsel->name ? ev->evsel->name : "samples";
}

const char *pk_exp_event_unit(const struct pk_exp_event *ev)
{
	const struct perf_event_attr *a = ev->evsel ? &ev->evsel->attr.attr : NULL;

	if (a && a->type == PERF_TYPE_SOFTWARE &&
	    (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK))
		return "nanoseconds";
	return "count";
}

static int event_index(struct pk_export *e, const struct pk_evsel *evsel, uint32_t *out)
{
	for (uint32_t i = 0; i < e->nr_events; i++) {
		if (e->events[i].evsel == evsel) {
			*out = i;
			return 0;
		}
	}
	if (e->nr_events == PK_EXP_MAX_EVENTS)
		return -E2BIG;
	e->events[e->nr_events].evsel = evsel;
	*out = e->nr_events++;
	return 0;
}

/* ---- locations (pprof, json) ------------------------------------------------ */

static uint64_t loc_hash(uint32_t mapping, uint64_t ip)
{
	return pk_hash_mix64(ip * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)mapping << 17));
}

static int loc_rehash(struct pk_export *e)
{
	uint32_t ns = e->loc_nslots ? e->loc_nslots * 2 : 1024;
	uint32_t *vals = calloc(ns, sizeof(*vals));

	if (!vals)
		return -ENOMEM;
	for (uint32_t l = 0; l < e->nr_locs; l++) {
		uint32_t i = (uint32_t)loc_hash(e->locs[l].mapping, e->locs[l].ip) & (ns - 1);

		while (vals[i])
			i = (i + 1) & (ns - 1);
		vals[i] = l + 1;
	}
	free(e->loc_vals);
	e->loc_vals = vals;
	e->loc_nslots = ns;
	return 0;
}

static int location_id(struct pk_export *e, const struct pk_location *loc, uint32_t *out)
{
	uint32_t mapping = 0, func = 0, i, v;
	struct pk_exp_loc *l;
	int err;

	if (loc->map) {
		if (pk_exp_ptrmap_get(&e->map_ids, (uintptr_t)loc->map, &v)) {
			mapping = v;
		} else {
			if ((err = pk_exp_grow((void **)&e->mappings, &e->cap_mappings, e->nr_mappings + 1,
					sizeof(*e->mappings))))
				return err;
			e->mappings[e->nr_mappings].map = loc->map;
			mapping = ++e->nr_mappings;
			if ((err = pk_exp_ptrmap_put(&e->map_ids, (uintptr_t)loc->map, mapping)))
				return err;
		}
	}
	if ((e->nr_locs + 1) * 2 > e->loc_nslots && (err = loc_rehash(e)))
		return err;
	for (i = (uint32_t)loc_hash(mapping, loc->ip) & (e->loc_nslots - 1); e->loc_vals[i];
	     i = (i + 1) & (e->loc_nslots - 1)) {
		l = &e->locs[e->loc_vals[i] - 1];
		if (l->mapping == mapping && l->ip == loc->ip) {
			*out = e->loc_vals[i] - 1;
			return 0;
		}
	}
	if (loc->sym) {
		if (pk_exp_ptrmap_get(&e->func_ids, (uintptr_t)loc->sym, &v)) {
			func = v;
		} else {
			uint32_t c1 = e->cap_funcs, c2 = e->cap_funcs;

			if ((err = pk_exp_grow((void **)&e->funcs, &c1, e->nr_funcs + 1, sizeof(*e->funcs))) ||
			    (err = pk_exp_grow((void **)&e->func_dsos, &c2, e->nr_funcs + 1, sizeof(*e->func_dsos))))
				return err;
			e->cap_funcs = c1 < c2 ? c1 : c2;
			e->funcs[e->nr_funcs] = loc->sym;
			e->func_dsos[e->nr_funcs] = loc->dso ? loc->dso : loc->map ? loc->map->dso : NULL;
			func = ++e->nr_funcs;
			if ((err = pk_exp_ptrmap_put(&e->func_ids, (uintptr_t)loc->sym, func)))
				return err;
		}
	}
	if ((err = pk_exp_grow((void **)&e->locs, &e->cap_locs, e->nr_locs + 1, sizeof(*e->locs))))
		return err;
	l = &e->locs[e->nr_locs];
	l->mapping = mapping;
	l->func = func;
	l->ip = loc->ip;
	l->addr = loc->addr;
	l->dso = loc->dso ? loc->dso : loc->map ? loc->map->dso : NULL;
	l->sym = loc->sym;
	e->loc_vals[i] = e->nr_locs + 1;
	*out = e->nr_locs++;
	return 0;
}

/* ---- adding samples ---------------------------------------------------------- */

static int comm_id(struct pk_export *e, const struct pk_rsample *rs, uint32_t *id)
{
	const char *comm = rs->thread && rs->thread->comm ? rs->thread->comm : "";
	char buf[64];
	size_t n;

	if (!*comm) {
		snprintf(buf, sizeof(buf), ":%d", rs->thread ? (int)rs->thread->tid : (int)rs->s->tid);
		comm = buf;
	}
	n = strlen(comm);
	if (e->by_location)
		return pk_exp_str_intern(&e->str, comm, n, id);
	/* stackcollapse-perf.pl: spaces in the process name become '_' */
	if (!strchr(comm, ' '))
		return pk_exp_str_intern(&e->str, comm, n, id);
	{
		char tmp[256];

		if (n >= sizeof(tmp))
			n = sizeof(tmp) - 1;
		for (size_t i = 0; i < n; i++)
			tmp[i] = comm[i] == ' ' ? '_' : comm[i];
		return pk_exp_str_intern(&e->str, tmp, n, id);
	}
}

int pk_export_add(struct pk_export *e, const struct pk_rsample *rs)
{
	const struct pk_location *frames = rs->frames;
	uint32_t nr = rs->nr_frames, ev, comm, node;
	uint64_t period = rs->period;
	int java, err;

	if ((err = event_index(e, rs->evsel, &ev)))
		return err;
	e->events[ev].samples++;
	e->events[ev].period += period;
	if (rs->s && (rs->s->present & PERF_SAMPLE_TIME)) {
		if (!e->first_time || rs->s->time < e->first_time)
			e->first_time = rs->s->time;
		if (rs->s->time > e->last_time)
			e->last_time = rs->s->time;
	}
	if (!e->by_location) {
		/* stackcollapse-perf.pl keeps the first event type it meets */
		if (e->folded_event < 0)
			e->folded_event = (int)ev;
		if ((int)ev != e->folded_event) {
			e->nr_dropped++;
			return 0;
		}
	}
	if ((err = comm_id(e, rs, &comm)))
		return err;
	if ((err = pk_exp_trie_child(&e->trie, 0, pk_exp_level1_key(ev, comm), &node)))
		return err;
	/*
	 * Without a call chain the sampled ip is the stack. A chain that came
	 * out empty (perf discards one with an invalid context marker) stays
	 * empty: the sample counts for its comm alone, as perf script shows it.
	 */
	if (!nr || !frames) {
		if (rs->s && (rs->s->present & PERF_SAMPLE_CALLCHAIN) && rs->s->callchain_nr) {
			nr = 0;
		} else {
			frames = &rs->self;
			nr = 1;
		}
	}
	if (nr > PK_EXP_MAX_STACK)
		nr = PK_EXP_MAX_STACK;
	java = strncmp(pk_exp_str(&e->str, comm), "java", 4) == 0;
	for (uint32_t i = nr; i-- > 0;) {
		uint32_t id;
		int skip = 0;

		if (e->by_location)
			err = location_id(e, &frames[i], &id);
		else
			err = pk_exp_frame_name(e, &frames[i], java, &id, &skip);
		if (err)
			return err;
		if (skip)
			continue;
		if ((err = pk_exp_trie_child(&e->trie, node, id, &node)))
			return err;
	}
	e->trie.nodes[node].count++;
	e->trie.nodes[node].period += period;
	return 0;
}

int pk_export_write(struct pk_export *e, struct pk_session *ss, FILE *out, struct pk_diag *d)
{
	int err;

	(void)ss;   /* event names come from the samples' evsels */
	switch (e->opts.format) {
	case PK_EXPORT_FOLDED: err = pk_exp_write_folded(e, out, d); break;
	case PK_EXPORT_SVG: err = pk_exp_write_svg(e, out, d); break;
	case PK_EXPORT_PPROF: err = pk_exp_write_pprof(e, out, d); break;
	case PK_EXPORT_JSON: err = pk_exp_write_json(e, out, d); break;
	default: return pk_diag_fail(d, -EINVAL, "unknown export format");
	}
	if (err)
		return err;
	if (fflush(out) || ferror(out))
		return pk_diag_fail(d, -EIO, "write error");
	return 0;
}
