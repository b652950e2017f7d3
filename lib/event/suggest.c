/*
 * "Did you mean" suggestions for unknown event, tracepoint, PMU and term
 * names: the candidate with the smallest optimal-string-alignment distance
 * (insertions, deletions, substitutions and swaps of neighbours, ignoring
 * case) wins when it is within a third of the word's length. Also the glob
 * matcher used for tracepoint patterns, written to run in time proportional
 * to pattern times name length whatever the pattern.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

#define NO_MATCH ((unsigned)-1)

void ev_suggest_init(struct ev_suggest *s, const char *word, size_t len)
{
	s->word = word;
	s->len = len > EV_NAME_MAX ? EV_NAME_MAX : len;
	s->best[0] = '\0';
	s->dist = NO_MATCH;
}

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;

	return m < c ? m : c;
}

/* Distance between @a (@la) and @b (@lb), both at most EV_NAME_MAX long. */
static unsigned osa_distance(const char *a, size_t la, const char *b, size_t lb)
{
	unsigned rows[3][EV_NAME_MAX + 2];
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	for (size_t j = 0; j <= lb; j++)
		prev[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned *t;

		cur[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			unsigned cost = ca != cb;

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

static unsigned threshold(size_t len)
{
	return len < 6 ? 1 : (unsigned)(len / 3);
}

void ev_suggest_add(struct ev_suggest *s, const char *cand)
{
	size_t lc = strlen(cand);
	unsigned d;

	if (!s->len || lc > EV_NAME_MAX)
		return;
	if (lc == s->len && !memcmp(cand, s->word, lc))
		return;
	if ((lc > s->len ? lc - s->len : s->len - lc) > threshold(s->len))
		return;
	d = osa_distance(s->word, s->len, cand, lc);
	if (d < s->dist) {
		s->dist = d;
		snprintf(s->best, sizeof(s->best), "%s", cand);
	}
}

void ev_suggest_hint(const struct ev_suggest *s, struct pk_diag *diag)
{
	if (s->dist != NO_MATCH && s->dist <= threshold(s->len))
		pk_diag_hint(diag, "did you mean '%s'?", s->best);
}

static void add_syms(struct ev_suggest *s, const struct ev_sym *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ev_suggest_add(s, t[i].name);
		if (t[i].alias)
			ev_suggest_add(s, t[i].alias);
	}
}

void ev_suggest_events(struct ev_suggest *s, struct ev_ctx *c)
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
				ev_suggest_add(s, name);
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
			ev_suggest_add(s, al.v[j]);
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
