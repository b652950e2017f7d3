/*
 * "Did you mean" for a mistyped name (suggest.c): offer every candidate,
 * then the one with the smallest optimal-string-alignment distance
 * (insertions, deletions, substitutions and swaps of neighbours, ignoring
 * case) becomes a hint when it is within a third of the word's length.
 * Used for event, tracepoint and PMU names and OA counters and metric sets.
 */
#ifndef PK_CORE_SUGGEST_H
#define PK_CORE_SUGGEST_H

#include <stddef.h>
#include <perfkit/core.h>

/* Longest word or candidate compared (longer candidates are skipped). */
#define PK_SUGGEST_MAX 255

struct pk_suggest {
	const char *word;
	size_t len;
	char best[PK_SUGGEST_MAX + 1];
	unsigned dist;
};

/* Start looking for a correction of @word (@len bytes, cut to PK_SUGGEST_MAX). */
void pk_suggest_init(struct pk_suggest *s, const char *word, size_t len);
/* Consider @cand as a correction of the word. */
void pk_suggest_add(struct pk_suggest *s, const char *cand);
/* If a close enough candidate was seen, write "did you mean 'x'?" into @diag. */
void pk_suggest_hint(const struct pk_suggest *s, struct pk_diag *diag);

#endif
