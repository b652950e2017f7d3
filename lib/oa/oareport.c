/*
 * A recording read through its metric set: the timelines of
 * pk_oa_timeline_build() with every segment's counters evaluated, the
 * metric file found by platform, the counters to show chosen. This is what
 * `perfkit oa report` prints (lib/oa/oareport_print.c) and what IGT's
 * i915-perf-reader -c computes, without its crashes: an unknown metric set,
 * an unknown device or a missing metric file are errors that name what is
 * missing; no reports give zero segments.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <perfkit/oa.h>

/* The metric file to load for @rec, into *@path (malloc'ed). */
static int find_metrics(const struct pk_oa_summary_opts *o, const struct pk_oa_recording *rec,
			const struct pk_oa_platform *p, char **path, struct pk_diag *diag)
{
	char buf[4096];
	int err;

	if (!o->metrics_file && !p)
		return pk_diag_fail(diag, -ENODEV,
				    "device 0x%04x is not known to perfkit, so its metric file cannot be found: give it with --metrics FILE",
				    pk_oa_recording_device(rec)->device_id);
	err = pk_oa_metrics_path(o->metrics_file, o->metrics_dir, p ? p->metrics : NULL, buf,
				 sizeof(buf), diag);
	if (err) {
		if (diag && !o->metrics_file)
			pk_diag_hint(diag, "give the metric file with --metrics FILE (Intel's oa-%s.xml, as IGT and Mesa ship it), or -c none for the segments without counters",
				     p->metrics);
		return err;
	}
	*path = strdup(buf);
	return *path ? 0 : -ENOMEM;
}

static int by_symbol(const void *a, const void *b, void *ctx)
{
	const struct pk_oa_counter_info *c = ((const struct pk_oa_set_info *)ctx)->counters;

	return strcmp(c[*(const uint32_t *)a].symbol_name, c[*(const uint32_t *)b].symbol_name);
}

/* s->sel from @list ("all" or names separated by commas). */
static int select_counters(struct pk_oa_summary *s, const char *list, struct pk_diag *diag)
{
	const struct pk_oa_set_info *set = s->set;
	size_t cap = 0;
	int err;

	if (!list || !strcmp(list, "all")) {
		s->sel = calloc(set->n_counters ? set->n_counters : 1, sizeof(*s->sel));
		if (!s->sel)
			return -ENOMEM;
		for (size_t i = 0; i < set->n_counters; i++)
			if (pk_oa_eval_available(s->eval, i))
				s->sel[s->n_sel++] = (uint32_t)i;
		qsort_r(s->sel, s->n_sel, sizeof(*s->sel), by_symbol, (void *)set);
		return 0;
	}
	for (const char *p = list; ; ) {
		size_t n = strcspn(p, ",");
		char name[256];
		int i;

		if (n == 0 || n >= sizeof(name))
			return pk_diag_fail(diag, -EINVAL, "invalid counter list '%s'", list);
		memcpy(name, p, n);
		name[n] = '\0';
		i = pk_oa_set_counter_index(set, name);
		if (i < 0) {
			err = pk_diag_fail(diag, -EINVAL, "counter '%s' not in metric set '%s' (%s)", name,
					   set->symbol_name, s->metrics_path);
			pk_oa_set_suggest_counter(set, name, n, diag);
			return err;
		}
		if (pk_array_grow((void **)&s->sel, &cap, s->n_sel + 1, sizeof(*s->sel), 16))
			return -ENOMEM;
		s->sel[s->n_sel++] = (uint32_t)i;
		if (!p[n])
			break;
		p += n + 1;
	}
	return 0;
}

static int load_set(struct pk_oa_summary *s, const struct pk_oa_summary_opts *o, struct pk_diag *diag)
{
	const struct pk_oa_device_info *di = pk_oa_recording_device(s->rec);
	const char *key = o->set ? o->set : di->metric_set_name;
	struct pk_oa_devvars vars;
	char subject[sizeof(diag->subject)] = "";
	int err;

	if (diag)
		memcpy(subject, diag->subject, sizeof(subject));
	if ((err = find_metrics(o, s->rec, s->platform, &s->metrics_path, diag)))
		return err;
	if ((err = pk_oa_metrics_load_for(s->metrics_path, key, &s->metrics, diag)))
		return err;
	/* the loader named the XML file; what follows is about the caller's subject again */
	if (diag)
		pk_diag_subject(diag, subject);
	if (!*key)
		return pk_diag_fail(diag, -ENOENT,
				    "the %s does not name its metric set: give one by name or GUID (-m SET)",
				    pk_oa_recording_is_stream(s->rec) ? "stream" : "recording");
	s->set = pk_oa_metrics_find_set(s->metrics, key);
	if (!s->set) {
		err = pk_diag_fail(diag, -ENOENT, "metric set '%s' not found in %s", key,
				   s->metrics_path);
		pk_oa_metrics_suggest_set(s->metrics, key, diag);
		return err;
	}
	if (pk_oa_recording_is_stream(s->rec) && !di->metric_set_uuid[0])
		s->uuid_mismatch = false;      /* a stream's set is the caller's word: no uuid to differ */
	else
		s->uuid_mismatch = !s->set->hw_config_guid ||
				   strcasecmp(s->set->hw_config_guid, di->metric_set_uuid) != 0;
	pk_oa_devvars_from_recording(&vars, s->rec);
	if ((err = pk_oa_eval_new(s->set, &vars, pk_oa_recording_decoder(s->rec)->fmt, &s->eval,
				  diag)))
		return err;
	return select_counters(s, o->counters, diag);
}

int pk_oa_summary_init(struct pk_oa_summary *s, const struct pk_oa_recording *rec,
		       const struct pk_oa_summary_opts *opts, struct pk_diag *diag)
{
	static const struct pk_oa_summary_opts none = { .sz = sizeof(none) };
	struct pk_oa_summary_opts o = none;
	int err;

	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	memset(s, 0, sizeof(*s));
	s->rec = rec;
	if (o.timeline) {
		s->tl = *o.timeline;          /* released with the summary from here on */
		memset(o.timeline, 0, sizeof(*o.timeline));
	}
	s->platform = pk_oa_recording_platform(rec);
	s->lost = pk_oa_recording_reports_lost(rec) + pk_oa_recording_buffers_lost(rec);
	if (!o.counters || strcmp(o.counters, "none") != 0) {
		if ((err = load_set(s, &o, diag)))
			goto fail;
	}
	if (!o.timeline && (err = pk_oa_timeline_build(rec, &s->tl, diag)))
		goto fail;
	return 0;
fail:
	pk_oa_summary_release(s);
	return err;
}

void pk_oa_summary_release(struct pk_oa_summary *s)
{
	pk_oa_timeline_release(&s->tl);
	pk_oa_eval_free(s->eval);
	pk_oa_metrics_free(s->metrics);
	free(s->metrics_path);
	free(s->sel);
	memset(s, 0, sizeof(*s));
}

/* The deltas of report pair @i, @i + 1 into @d (PK_OA_MAX_VALUES). */
static int pair_deltas(const struct pk_oa_summary *s, size_t i, uint64_t *d)
{
	if (i >= pk_oa_recording_n_reports(s->rec) || i + 1 >= pk_oa_recording_n_reports(s->rec))
		return -ERANGE;
	memset(d, 0, PK_OA_MAX_VALUES * sizeof(*d));
	pk_oa_accumulate(pk_oa_recording_decoder(s->rec), pk_oa_recording_report(s->rec, i),
			 pk_oa_recording_report(s->rec, i + 1), d);
	return 0;
}

/* The deltas of segment @i into @d (PK_OA_MAX_VALUES). */
static int segment_deltas(const struct pk_oa_summary *s, size_t i, uint64_t *d)
{
	return pk_oa_timeline_deltas(&s->tl, s->rec, i, d);
}

int pk_oa_summary_values(const struct pk_oa_summary *s, size_t i, struct pk_oa_value *values)
{
	uint64_t d[PK_OA_MAX_VALUES];
	int err;

	if (i >= s->tl.n_segments)
		return -ERANGE;
	if (!s->eval)
		return -ENOENT;
	if ((err = segment_deltas(s, i, d)))
		return err;
	pk_oa_eval_run(s->eval, d, values);
	return 0;
}

int pk_oa_summary_pair(const struct pk_oa_summary *s, size_t i, struct pk_oa_value *values,
		       uint64_t *deltas)
{
	uint64_t d[PK_OA_MAX_VALUES];
	int err = pair_deltas(s, i, d);

	if (err)
		return err;
	if (deltas)
		memcpy(deltas, d, sizeof(d));
	if (!s->eval)
		return -ENOENT;
	pk_oa_eval_run(s->eval, d, values);
	return 0;
}

/* The batch of @n deltas from @first that @deltas_of gives, evaluated together. */
static int eval_batch(const struct pk_oa_summary *s, size_t first, size_t n, struct pk_oa_value *values,
		      bool *ok, int (*deltas_of)(const struct pk_oa_summary *, size_t, uint64_t *))
{
	uint64_t d[PK_OA_EVAL_BATCH][PK_OA_MAX_VALUES];

	if (n > PK_OA_EVAL_BATCH)
		return -EINVAL;
	if (!s->eval)
		return -ENOENT;
	for (size_t j = 0; j < PK_OA_EVAL_BATCH; j++) {
		bool got = j < n && deltas_of(s, first + j, d[j]) == 0;

		if (j < n)
			ok[j] = got;
		if (!got)
			memset(d[j], 0, sizeof(d[j]));
	}
	pk_oa_eval_run_batch(s->eval, (const uint64_t (*)[PK_OA_MAX_VALUES])d, values);
	return 0;
}

int pk_oa_summary_values_batch(const struct pk_oa_summary *s, size_t first, size_t n,
			       struct pk_oa_value *values, bool *ok)
{
	return eval_batch(s, first, n, values, ok, segment_deltas);
}

int pk_oa_summary_pairs_batch(const struct pk_oa_summary *s, size_t first, size_t n,
			      struct pk_oa_value *values, bool *ok)
{
	return eval_batch(s, first, n, values, ok, pair_deltas);
}
