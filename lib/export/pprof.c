/*
 * pprof export: a gzipped profile.proto message (github.com/google/pprof,
 * proto/profile.proto) as `go tool pprof`, Pyroscope and Parca read it.
 *
 *   Profile   1 sample_type (ValueType)*  2 sample*  3 mapping*  4 location*
 *             5 function*  6 string_table*  10 duration_nanos
 *             11 period_type (ValueType)  12 period
 *   ValueType 1 type (string index)  2 unit (string index)
 *   Sample    1 location_id (packed, leaf first)  2 value (packed)  3 label*
 *   Label     1 key  2 str
 *   Mapping   1 id  2 memory_start  3 memory_limit  4 file_offset  5 filename
 *             6 build_id (hex string)  7 has_functions
 *   Location  1 id  2 mapping_id  3 address  4 line (Line: 1 function_id)
 *   Function  1 id  2 name  3 system_name  4 filename
 *
 * string_table[0] is "". Values per event are [samples (count), period
 * (nanoseconds for cpu-clock/task-clock, else count)]; with several events
 * each gets its own pair and a sample fills the pair of its event. Each
 * sample carries its process name as label "comm". Locations are one per
 * (mapping, address); functions one per symbol; unresolved addresses have
 * a location without a line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "export/internal.h"
#include "export/pbuf.h"

struct pp {
	struct pk_export *e;
	uint32_t main_map;           /* index of the mapping written first (pprof's main binary) */
	struct pk_exp_strtab st;
	struct pk_buf body, msg, scratch;
	uint64_t *ids, *vals;
};

static int S(struct pp *p, const char *s, uint64_t *idx)
{
	uint32_t id;
	int err = pk_exp_str_intern(&p->st, s ? s : "", s ? strlen(s) : 0, &id);

	*idx = id;
	return err;
}

static int value_type(struct pp *p, uint32_t field, const char *type, const char *unit)
{
	uint64_t t, u;
	int err;

	p->msg.len = 0;
	if ((err = S(p, type, &t)) || (err = S(p, unit, &u)) ||
	    (err = pk_pb_uint(&p->msg, 1, t)) || (err = pk_pb_uint(&p->msg, 2, u)))
		return err;
	return pk_pb_bytes(&p->body, field, p->msg.data, p->msg.len);
}

static int write_samples(struct pp *p)
{
	struct pk_export *e = p->e;
	const struct pk_exp_trie *t = &e->trie;
	uint32_t path[PK_EXP_MAX_STACK + 2];
	uint32_t nvals = e->nr_events * 2;
	uint64_t key;
	int err;

	if ((err = S(p, "comm", &key)))
		return err;
	for (uint32_t i = 1; i < t->n; i++) {
		const struct pk_exp_node *nd = &t->nodes[i];
		uint32_t depth, ev, nids = 0;
		uint64_t comm;
		struct pk_buf lab;

		if (!nd->count)
			continue;
		depth = pk_exp_path(t, i, path, PK_EXP_MAX_STACK + 2);
		ev = (uint32_t)(t->nodes[path[0]].key >> 32);
		for (uint32_t k = depth; k-- > 1;)
			p->ids[nids++] = t->nodes[path[k]].key + 1;
		memset(p->vals, 0, nvals * sizeof(*p->vals));
		p->vals[ev * 2] = nd->count;
		p->vals[ev * 2 + 1] = nd->period;
		if ((err = S(p, pk_exp_str(&e->str, (uint32_t)t->nodes[path[0]].key), &comm)))
			return err;
		p->msg.len = 0;
		if ((err = pk_pb_packed(&p->msg, 1, p->ids, nids, &p->scratch)) ||
		    (err = pk_pb_packed(&p->msg, 2, p->vals, nvals, &p->scratch)))
			return err;
		pk_buf_init(&lab);
		if ((err = pk_pb_uint(&lab, 1, key)) || (err = pk_pb_uint(&lab, 2, comm)) ||
		    (err = pk_pb_bytes(&p->msg, 3, lab.data, lab.len))) {
			pk_buf_release(&lab);
			return err;
		}
		pk_buf_release(&lab);
		if ((err = pk_pb_bytes(&p->body, 2, p->msg.data, p->msg.len)))
			return err;
	}
	return 0;
}

/* Mapping ids as written: the main binary's mapping is swapped to the front. */
static uint64_t map_id(const struct pp *p, uint32_t idx1)
{
	if (!idx1)
		return 0;
	if (idx1 - 1 == p->main_map)
		return 1;
	if (idx1 == 1)
		return p->main_map + 1;
	return idx1;
}

/*
 * pprof takes the first mapping for the profiled program: pick the mapping
 * of a DSO named like the first process seen, else the first one that is
 * neither the kernel nor a [special] area.
 */
static void pick_main(struct pp *p)
{
	const struct pk_export *e = p->e;
	const char *comm = NULL;
	uint32_t other = UINT32_MAX;

	for (uint32_t n = 1; n < e->trie.n && !comm; n++)
		if (e->trie.nodes[n].depth == 1)
			comm = pk_exp_str(&e->str, (uint32_t)e->trie.nodes[n].key);
	p->main_map = 0;
	for (uint32_t i = 0; i < e->nr_mappings; i++) {
		const struct pk_dso *dso = e->mappings[i].map->dso;
		const char *base;

		if (!dso || !dso->name || dso->kernel || dso->name[0] == '[')
			continue;
		base = strrchr(dso->name, '/');
		base = base ? base + 1 : dso->name;
		if (comm && strncmp(base, comm, 15) == 0) {
			p->main_map = i;
			return;
		}
		if (other == UINT32_MAX)
			other = i;
	}
	if (other != UINT32_MAX)
		p->main_map = other;
}

static int write_tables(struct pp *p)
{
	struct pk_export *e = p->e;
	uint64_t s1, s2, s3;
	int err;

	pick_main(p);
	for (uint32_t k = 0; k < e->nr_mappings; k++) {
		uint32_t i = k == 0 ? p->main_map : k == p->main_map ? 0 : k;
		const struct pk_map *m = e->mappings[i].map;
		const struct pk_dso *dso = m->dso;
		size_t nb = dso ? (dso->build_id_size < 20 ? dso->build_id_size : 20) : 0;
		char hex[41];

		pk_fmt_bytes_hex(hex, nb ? dso->build_id : NULL, nb);
		p->msg.len = 0;
		if ((err = S(p, dso && dso->name ? dso->name : "[unknown]", &s1)) || (err = S(p, hex, &s2)) ||
		    (err = pk_pb_uint(&p->msg, 1, k + 1)) || (err = pk_pb_uint(&p->msg, 2, m->start)) ||
		    (err = pk_pb_uint(&p->msg, 3, m->end)) || (err = pk_pb_uint(&p->msg, 4, m->pgoff)) ||
		    (err = pk_pb_uint(&p->msg, 5, s1)) || (err = pk_pb_uint(&p->msg, 6, s2)) ||
		    (err = pk_pb_uint(&p->msg, 7, 1)) ||
		    (err = pk_pb_bytes(&p->body, 3, p->msg.data, p->msg.len)))
			return err;
	}
	for (uint32_t i = 0; i < e->nr_locs; i++) {
		const struct pk_exp_loc *l = &e->locs[i];
		struct pk_buf lb;

		p->msg.len = 0;
		if ((err = pk_pb_uint(&p->msg, 1, i + 1)) || (err = pk_pb_uint(&p->msg, 2, map_id(p, l->mapping))) ||
		    (err = pk_pb_uint(&p->msg, 3, l->ip)))
			return err;
		if (l->func) {
			pk_buf_init(&lb);
			err = pk_pb_uint(&lb, 1, l->func);
			if (!err)
				err = pk_pb_bytes(&p->msg, 4, lb.data, lb.len);
			pk_buf_release(&lb);
			if (err)
				return err;
		}
		if ((err = pk_pb_bytes(&p->body, 4, p->msg.data, p->msg.len)))
			return err;
	}
	for (uint32_t i = 0; i < e->nr_funcs; i++) {
		const struct pk_sym *sym = e->funcs[i];
		const struct pk_dso *dso = e->func_dsos[i];

		p->msg.len = 0;
		if ((err = S(p, sym->name, &s1)) || (err = S(p, dso && dso->name ? dso->name : "", &s3)) ||
		    (err = pk_pb_uint(&p->msg, 1, i + 1)) || (err = pk_pb_uint(&p->msg, 2, s1)) ||
		    (err = pk_pb_uint(&p->msg, 3, s1)) || (err = pk_pb_uint(&p->msg, 4, s3)) ||
		    (err = pk_pb_bytes(&p->body, 5, p->msg.data, p->msg.len)))
			return err;
	}
	return 0;
}

static int build(struct pp *p)
{
	struct pk_export *e = p->e;
	uint64_t zero;
	int err;

	if ((err = S(p, "", &zero)))
		return err;
	for (uint32_t ev = 0; ev < e->nr_events; ev++) {
		char name[256];

		if (ev == 0)
			snprintf(name, sizeof(name), "samples");
		else
			snprintf(name, sizeof(name), "%s_samples", pk_exp_event_name(&e->events[ev]));
		if ((err = value_type(p, 1, name, "count")) ||
		    (err = value_type(p, 1, pk_exp_event_name(&e->events[ev]),
				      pk_exp_event_unit(&e->events[ev]))))
			return err;
	}
	if ((err = write_samples(p)) || (err = write_tables(p)))
		return err;
	if (e->nr_events) {
		const struct pk_exp_event *ev = &e->events[0];
		const struct perf_event_attr *a = ev->evsel ? &ev->evsel->attr.attr : NULL;
		uint64_t period = 0;

		if (a && a->freq && a->sample_freq && !strcmp(pk_exp_event_unit(ev), "nanoseconds"))
			period = 1000000000ull / a->sample_freq;
		else if (a && !a->freq)
			period = a->sample_period;
		if ((err = value_type(p, 11, pk_exp_event_name(ev), pk_exp_event_unit(ev))) ||
		    (err = pk_pb_uint(&p->body, 12, period)))
			return err;
	}
	if (e->last_time > e->first_time &&
	    (err = pk_pb_uint(&p->body, 10, e->last_time - e->first_time)))
		return err;
	for (uint32_t i = 0; i < p->st.n; i++) {
		if ((err = pk_pb_bytes(&p->body, 6, pk_exp_str(&p->st, i), p->st.len[i])))
			return err;
	}
	return 0;
}

int pk_exp_write_pprof(struct pk_export *e, FILE *out, struct pk_diag *d)
{
	struct pp p;
	int err;

	memset(&p, 0, sizeof(p));
	p.e = e;
	pk_exp_strtab_init(&p.st);
	pk_buf_init(&p.body);
	pk_buf_init(&p.msg);
	pk_buf_init(&p.scratch);
	p.ids = calloc(PK_EXP_MAX_STACK + 2, sizeof(*p.ids));
	p.vals = calloc(e->nr_events * 2 + 2, sizeof(*p.vals));
	err = p.ids && p.vals ? build(&p) : -ENOMEM;
	if (!err && (err = pk_gzip_write(p.body.data ? p.body.data : "", p.body.len, out)))
		pk_diag_fail(d, err, "cannot write the gzipped profile");
	else if (err)
		pk_diag_fail(d, err, "out of memory");
	free(p.ids);
	free(p.vals);
	pk_buf_release(&p.body);
	pk_buf_release(&p.msg);
	pk_buf_release(&p.scratch);
	pk_exp_strtab_release(&p.st);
	return err;
}
