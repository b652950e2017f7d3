/*
 * "Did you mean" for a mistyped name (core/suggest.h): the candidate with the
 * smallest optimal-string-alignment distance (insertions, deletions,
 * substitutions and swaps of neighbours, ignoring case) wins when it is
 * within a third of the word's length.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "core/suggest.h"

#define NO_MATCH ((unsigned)-1)

void pk_suggest_init(struct pk_suggest *s, const char *word, size_t len)
{
	s->word = word;
	s->len = len > PK_SUGGEST_MAX ? PK_SUGGEST_MAX : len;
	s->best[0] = '\0';
	s->dist = NO_MATCH;
}

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;

	return m < c ? m : c;
}

/* Distance between @a (@la) and @b (@lb), both at most PK_SUGGEST_MAX long. */
static unsigned osa_distance(const char *a, size_t la, const char *b, size_t lb)
{
	unsigned rows[3][PK_SUGGEST_MAX + 2];
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

void pk_suggest_add(struct pk_suggest *s, const char *cand)
{
	size_t lc = strlen(cand);
	unsigned d;

	if (!s->len || lc > PK_SUGGEST_MAX)
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

void pk_suggest_hint(const struct pk_suggest *s, struct pk_diag *diag)
{
	if (s->dist != NO_MATCH && s->dist <= threshold(s->len))
		pk_diag_hint(diag, "did you mean '%s'?", s->best);
}
