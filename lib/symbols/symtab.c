/*
 * Symbol table building: a string arena for names, a vector of raw symbols
 * as the loaders find them, and perf's post-processing of a table
 * (symbols__fixup_end: zero-sized symbols end where the next one starts;
 * symbols__fixup_duplicate: of symbols at one address keep the one
 * choose_best_symbol prefers), with the history perf's tree goes through
 * (perf_tree.c replays it where symbols overlap).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include "symbols/internal.h"

struct sym_arena_block {
	struct sym_arena_block *next;
	size_t used, cap;
	char data[];
};

void sym_arena_release(struct sym_arena *a)
{
	while (a->head) {
		struct sym_arena_block *b = a->head;

		a->head = b->next;
		free(b);
	}
}

void *sym_arena_alloc(struct sym_arena *a, size_t n)
{
	struct sym_arena_block *b = a->head;
	size_t need = (n + 7) & ~(size_t)7;

	if (need < n)
		return NULL;
	if (!b || b->cap - b->used < need) {
		size_t cap = need > 65536 ? need : 65536;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	b->used += need;
	return b->data + b->used - need;
}

const char *sym_arena_strndup(struct sym_arena *a, const char *s, size_t n)
{
	char *p;

	if (n == SIZE_MAX)
		return NULL;
	p = sym_arena_alloc(a, n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

const char *sym_arena_strdup(struct sym_arena *a, const char *s)
{
	return sym_arena_strndup(a, s, strlen(s));
}

int sym_rawvec_push(struct sym_rawvec *rv, uint64_t start, uint64_t size, const char *name,
		    uint8_t bind, uint8_t type)
{
	struct sym_raw *r;

	if (!name)
		return -ENOMEM;
	if (rv->n == rv->cap) {
		size_t cap = rv->cap ? rv->cap * 2 : 256;
		struct sym_raw *v = realloc(rv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rv->v = v;
		rv->cap = cap;
	}
	r = &rv->v[rv->n];
	r->start = start;
	/* perf's symbol__new: end = start + len, or start for zero length */
	r->end = size ? start + size : start;
	if (r->end < start)
		r->end = UINT64_MAX;
	r->name = name;
	r->idx = rv->next_idx++;
	r->bind = bind;
	r->type = type;
	rv->n++;
	return 0;
}

void sym_rawvec_release(struct sym_rawvec *rv)
{
	free(rv->v);
	free(rv->erased);
	memset(rv, 0, sizeof(*rv));
}

/* Note that @r leaves the table now, as perf erases it from its tree. */
static int log_erased(struct sym_rawvec *rv, const struct sym_raw *r)
{
	if (rv->nr_erased == rv->cap_erased) {
		size_t cap = rv->cap_erased ? rv->cap_erased * 2 : 64;
		struct sym_erased *v = realloc(rv->erased, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rv->erased = v;
		rv->cap_erased = cap;
	}
	rv->erased[rv->nr_erased++] = (struct sym_erased){ r->start, r->idx, rv->next_idx };
	return 0;
}

static int raw_cmp(const void *a, const void *b)
{
	const struct sym_raw *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

void sym_rawvec_sort(struct sym_rawvec *rv)
{
	if (rv->n > 1)
		qsort(rv->v, rv->n, sizeof(*rv->v), raw_cmp);
}

static uint64_t roundup_page(uint64_t x)
{
	return (x + 4095) & ~(uint64_t)4095;
}

void sym_fixup_end(struct sym_rawvec *rv, int is_kallsyms)
{
	size_t i;

	for (i = 1; i < rv->n; i++) {
		struct sym_raw *prev = &rv->v[i - 1], *curr = &rv->v[i];

		if (prev->end != prev->start)
			continue;
		/* kernel text and modules: do not let the last symbol swallow the gap */
		if (is_kallsyms && (!strchr(prev->name, '[') != !strchr(curr->name, '[')))
			prev->end = roundup_page(prev->end + 4096);
		else
			prev->end = curr->start;
	}
	if (rv->n && rv->v[rv->n - 1].end == rv->v[rv->n - 1].start)
		rv->v[rv->n - 1].end = roundup_page(rv->v[rv->n - 1].start) + 4096;
}

static int prefix_underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): 0 keeps @a, 1 keeps @b. */
static int choose_best(const struct sym_raw *a, const struct sym_raw *b)
{
	uint64_t la = a->end - a->start, lb = b->end - b->start;
	int wa, wb, ga, gb, ua, ub;
	size_t na, nb;

	if (lb == 0 && la > 0)
		return 0;
	if (la == 0 && lb > 0)
		return 1;
	wa = a->bind == STB_WEAK;
	wb = b->bind == STB_WEAK;
	if (wb && !wa)
		return 0;
	if (wa && !wb)
		return 1;
	ga = a->bind == STB_GLOBAL;
	gb = b->bind == STB_GLOBAL;
	if (ga && !gb)
		return 0;
	if (gb && !ga)
		return 1;
	ua = prefix_underscores(a->name);
	ub = prefix_underscores(b->name);
	if (ub > ua)
		return 0;
	if (ua > ub)
		return 1;
	na = strlen(a->name);
	nb = strlen(b->name);
	if (na > nb)
		return 0;
	if (na < nb)
		return 1;
	return 0;
}

/* In perf's order: the first of a run meets the next, the loser is erased, the winner meets the next. */
int sym_fixup_duplicate(struct sym_rawvec *rv)
{
	size_t i, out = 0;

	for (i = 0; i < rv->n; i++) {
		if (out && rv->v[out - 1].start == rv->v[i].start) {
			int keep_next = choose_best(&rv->v[out - 1], &rv->v[i]) == 1;

			if (log_erased(rv, keep_next ? &rv->v[out - 1] : &rv->v[i]))
				return -ENOMEM;
			if (keep_next)
				rv->v[out - 1] = rv->v[i];
			continue;
		}
		rv->v[out++] = rv->v[i];
	}
	rv->n = out;
	return 0;
}
