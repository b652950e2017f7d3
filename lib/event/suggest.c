/*
 * The candidates for "did you mean" (core/suggest.h) when an event name is
 * unknown: every generic, cache and sysfs alias name. Also the glob matcher
 * used for tracepoint patterns, written to run in time proportional to
 * pattern times name length whatever the pattern.
 */
#include <string.h>
#include "internal.h"

static void add_syms(struct pk_suggest *s, const struct ev_sym *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		pk_suggest_add(s, t[i].name);
		if (t[i].alias)
			pk_suggest_add(s, t[i].alias);
	}
}

void ev_suggest_events(struct pk_suggest *s, struct ev_ctx *c)
{
	struct ev_names pmus;
	char name[64];

	add_syms(s, ev_hw_syms, ev_nr_hw_syms);
	add_syms(s, ev_sw_syms, ev_nr_sw_syms);
	for (unsigned cache = 0; cache < PERF_COUNT_HW_CACHE_MAX; cache++) {
		for (unsigned op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!ev_cache_op_valid(cache, op))
				continue;
			for (unsigned res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX; res++) {
				ev_cache_name(cache, op, res, name, sizeof(name));
				pk_suggest_add(s, name);
			}
		}
	}
	if (ev_pmu_list(c->sysfs, &pmus))
		return;
	for (size_t i = 0; i < pmus.n; i++) {
		struct ev_names al;

		if (ev_pmu_aliases(c->sysfs, pmus.v[i], &al))
			continue;
		for (size_t j = 0; j < al.n; j++)
			pk_suggest_add(s, al.v[j]);
		ev_names_release(&al);
	}
	ev_names_release(&pmus);
}

/* ---- globs ---------------------------------------------------------------- */

bool ev_is_glob(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return true;
	return false;
}

/*
 * Match @ch against the element at *@pp ('?', a [set] or a literal) and
 * move *@pp past it. An unterminated '[' is a literal.
 */
static bool match_one(const char **pp, char ch)
{
	const char *p = *pp, *q;
	bool neg, hit = false;

	if (*p == '?') {
		*pp = p + 1;
		return true;
	}
	if (*p != '[') {
		*pp = p + 1;
		return *p == ch;
	}
	q = p + 1;
	neg = *q == '!' || *q == '^';
	if (neg)
		q++;
	if (*q == ']')	/* a leading ']' is a member */
		q++;
	q = strchr(q, ']');
	if (!q) {
		*pp = p + 1;
		return ch == '[';
	}
	p += neg ? 2 : 1;
	for (const char *r = p; r < q; r++) {
		if (r + 2 < q && r[1] == '-') {
			hit |= ch >= r[0] && ch <= r[2];
			r += 2;
		} else {
			hit |= ch == *r;
		}
	}
	*pp = q + 1;
	return hit != neg;
}

bool ev_glob_match(const char *pat, const char *name)
{
	const char *p = pat, *n = name, *star_p = NULL, *star_n = NULL;

	while (*n) {
		const char *next = p;

		if (*p == '*') {
			star_p = ++p;
			star_n = n;
			continue;
		}
		if (*p && match_one(&next, *n)) {
			p = next;
			n++;
			continue;
		}
		if (!star_p)
			return false;
		p = star_p;
		n = ++star_n;
	}
	while (*p == '*')
		p++;
	return !*p;
}
