/*
 * Sample filters as perf report and perf script apply them: --comm, --pid,
 * --tid (comma-separated lists), --dso and --symbols (names), --cpu (a CPU
 * list like "0-3,5") and --time "START,END" in seconds with an optional
 * fraction (either bound may be empty; both are inclusive, like perf's
 * perf_time__skip_sample()).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "session/internal.h"

static void str_list_release(struct pk_str_list *l)
{
	for (uint32_t i = 0; i < l->nr; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->nr = 0;
}

/* Split @s at commas into @l (empty items dropped). */
static int str_list_parse(struct pk_str_list *l, const char *s)
{
	const char *p = s;

	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n) {
			char **v = realloc(l->v, (l->nr + 1) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			l->v = v;
			v[l->nr] = strndup(p, n);
			if (!v[l->nr])
				return -ENOMEM;
			l->nr++;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int str_list_has(const struct pk_str_list *l, const char *s)
{
	if (!s)
		return 0;
	for (uint32_t i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

static int int_list_parse(struct pk_int_list *l, const char *s, const char *what, struct pk_diag *d)
{
	struct pk_str_list sl = { 0 };
	int ret = str_list_parse(&sl, s);

	if (ret < 0)
		goto out;
	l->v = calloc(sl.nr ? sl.nr : 1, sizeof(*l->v));
	if (!l->v) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < sl.nr; i++) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(sl.v[i], &end, 10);
		if (errno || *end || end == sl.v[i]) {
			ret = pk_diag_fail(d, -EINVAL, "invalid %s '%s'", what, sl.v[i]);
			goto out;
		}
		l->v[l->nr++] = v;
	}
out:
	str_list_release(&sl);
	return ret;
}

static int int_list_has(const struct pk_int_list *l, int64_t v)
{
	for (uint32_t i = 0; i < l->nr; i++)
		if (l->v[i] == v)
			return 1;
	return 0;
}

/* "SEC[.FRAC]" into ns, as perf's parse_timestr_sec_nsec(); "" leaves *ns 0. */
static int parse_sec_nsec(const char *s, size_t n, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0;
	int digits = 0;

	*ns = 0;
	while (n && s[0] == ' ') {
		s++;
		n--;
	}
	if (!n)
		return 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > (UINT64_MAX / 1000000000ull) / 10)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
		digits++;
	}
	if (!digits)
		return -EINVAL;
	if (i < n && s[i] == '.') {
		int fd = 0;

		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			if (fd >= 9)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(s[i] - '0');
			fd++;
		}
		for (; fd < 9; fd++)
			frac *= 10;
	}
	if (i != n)
		return -EINVAL;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

int pk_filter_parse_time(const char *s, uint64_t *start, uint64_t *end)
{
	const char *comma = strchr(s, ',');
	size_t n1 = comma ? (size_t)(comma - s) : strlen(s);

	*start = *end = 0;
	if (parse_sec_nsec(s, n1, start) < 0)
		return -EINVAL;
	if (comma && parse_sec_nsec(comma + 1, strlen(comma + 1), end) < 0)
		return -EINVAL;
	if (*end && *start > *end)
		return -EINVAL;
	return 0;
}

void pk_filter_release(struct pk_filter *f)
{
	str_list_release(&f->comms);
	str_list_release(&f->dsos);
	str_list_release(&f->symbols);
	free(f->pids.v);
	free(f->tids.v);
	free(f->cpus);
	memset(f, 0, sizeof(*f));
}

int pk_filter_parse(struct pk_filter *f, const struct pk_session_filter *in, struct pk_diag *d)
{
	int ret = 0;

	memset(f, 0, sizeof(*f));
	if (!in)
		return 0;
	if (in->comms && (ret = str_list_parse(&f->comms, in->comms)) < 0)
		goto fail;
	if (in->dsos && (ret = str_list_parse(&f->dsos, in->dsos)) < 0)
		goto fail;
	if (in->symbols && (ret = str_list_parse(&f->symbols, in->symbols)) < 0)
		goto fail;
	if (in->pids && (ret = int_list_parse(&f->pids, in->pids, "pid", d)) < 0)
		goto fail;
	if (in->tids && (ret = int_list_parse(&f->tids, in->tids, "tid", d)) < 0)
		goto fail;
	if (in->cpus) {
		int *cpus = NULL;
		int n = pk_cpulist_parse(in->cpus, &cpus, d);

		if (n < 0) {
			ret = n;
			goto fail;
		}
		f->max_cpu = n ? cpus[n - 1] : 0;
		f->cpus = calloc((size_t)f->max_cpu / 8 + 1, 1);
		if (!f->cpus) {
			free(cpus);
			ret = -ENOMEM;
			goto fail;
		}
		for (int i = 0; i < n; i++)
			if (cpus[i] >= 0)
				f->cpus[cpus[i] / 8] |= (uint8_t)(1u << (cpus[i] % 8));
		free(cpus);
	}
	if (in->time && pk_filter_parse_time(in->time, &f->time_start, &f->time_end) < 0) {
		ret = pk_diag_fail(d, -EINVAL, "invalid time range '%s'", in->time);
		pk_diag_hint(d, "use START,END in seconds, e.g. --time 1783.70,1783.90");
		goto fail;
	}
	f->need_symbols = in->dsos || in->symbols;
	f->hide_unresolved = in->hide_unresolved;
	f->active = in->comms || in->pids || in->tids || in->cpus || f->need_symbols ||
		    f->time_start || f->time_end || f->hide_unresolved;
	return 0;
fail:
	pk_filter_release(f);
	return ret;
}

int pk_filter_in_range(const struct pk_filter *f, const struct pk_sample *s)
{
	if (f->time_start && s->time < f->time_start)
		return 0;
	if (f->time_end && s->time > f->time_end)
		return 0;
	if (f->cpus && (s->present & PERF_SAMPLE_CPU)) {
		if ((int64_t)s->cpu > f->max_cpu ||
		    !(f->cpus[s->cpu / 8] & (1u << (s->cpu % 8))))
			return 0;
	}
	return 1;
}

int pk_filter_match_thread(const struct pk_filter *f, const struct pk_thread *t)
{
	if (f->pids.nr && !int_list_has(&f->pids, t->pid))
		return 0;
	if (f->tids.nr && !int_list_has(&f->tids, t->tid))
		return 0;
	if (f->comms.nr && !str_list_has(&f->comms, t->comm))
		return 0;
	return 1;
}

int pk_filter_match_loc(const struct pk_filter *f, const struct pk_location *loc)
{
	if (f->dsos.nr) {
		if (!loc->dso)
			return 0;
		if (!str_list_has(&f->dsos, loc->dso->short_name) &&
		    !str_list_has(&f->dsos, loc->dso->name))
			return 0;
	}
	if (f->symbols.nr && (!loc->sym || !str_list_has(&f->symbols, loc->sym->name)))
		return 0;
	return 1;
}
