/*
 * The order of perf's collapsed tree: its hist entries ordered by the sort
 * keys alone (rp_key_collapse_cmp(): symbols by DSO and address), which is
 * the order perf inserts them into its output tree (rbtree_order.c).
 *
 * For the keys comm, dso and symbol (perf's default; symbol after dso) each
 * entry's place is first packed into a few integers (string ranks, the
 * symbol's address), so the sort reads one small array instead of chasing
 * entries and symbols through memory. Other keys, a symbol key without dso
 * before it (perf compares DSOs inside it, but not for two unresolved
 * symbols) and inline symbols (compared by name) take the comparison
 * function.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define PACK_WORDS 5            /* comm 1 + dso 1 + symbol 3 */

struct packed {
	uint64_t w[PACK_WORDS];
	uint32_t entry;
};

static int entry_cmp(const void *pa, const void *pb, void *r)
{
	const struct pk_report *rep = r;

	return rp_entry_collapse_cmp(rep, &rep->ent[*(const uint32_t *)pa], &rep->ent[*(const uint32_t *)pb]);
}

static int packed_cmp(const void *pa, const void *pb, void *words)
{
	const struct packed *a = pa, *b = pb;

	for (int i = 0; i < *(const int *)words; i++)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

static int id_cmp(const void *pa, const void *pb, void *str)
{
	const char *const *s = str;

	return strcmp(s[*(const uint32_t *)pa], s[*(const uint32_t *)pb]);
}

/* rank[id]: the place of string @id among the table's strings in strcmp order */
static uint32_t *string_ranks(const struct rp_strtab *t)
{
	uint32_t *ids = malloc((t->n ? t->n : 1) * sizeof(*ids));
	uint32_t *rank = malloc((t->n ? t->n : 1) * sizeof(*rank));

	if (!ids || !rank) {
		free(ids);
		free(rank);
		return NULL;
	}
	for (uint32_t i = 0; i < t->n; i++)
		ids[i] = i;
	qsort_r(ids, t->n, sizeof(*ids), id_cmp, t->str);
	for (uint32_t i = 0; i < t->n; i++)
		rank[ids[i]] = i;
	free(ids);
	return rank;
}

/* Words per entry when every key packs (comm, dso, or symbol after dso; no inline symbol among @v), else 0. */
static int packed_words(const struct pk_report *r, const uint32_t *v, size_t n)
{
	int words = 0, dso_seen = 0;

	for (int i = 0; i < r->nr_keys; i++) {
		switch (r->keys[i]->id) {
		case RP_K_COMM:
			words++;
			break;
		case RP_K_DSO:
			words++;
			dso_seen = 1;
			break;
		case RP_K_SYM:
			if (!dso_seen)
				return 0;
			words += 3;
			break;
		default:
			return 0;
		}
	}
	if (words > PACK_WORDS)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (r->ent[v[i]].inlined)
			return 0;
	return words;
}

/*
 * The words of @e, compared as unsigned integers in rp_key_collapse_cmp()'s
 * order: an unknown DSO after every named one; within a DSO, resolved symbols
 * first, by start and end, then unresolved ones by address as a signed number
 * (perf's signed difference, but for addresses 2^63 or more apart).
 */
static void pack(const struct pk_report *r, const uint32_t *rank, const struct rp_entry *e, uint64_t *w)
{
	const uint64_t sign = 1ULL << 63;
	int k = 0;

	for (int i = 0; i < r->nr_keys; i++) {
		switch (r->keys[i]->id) {
		case RP_K_COMM:
			w[k++] = rank[e->comm_id];
			break;
		case RP_K_DSO:
			w[k++] = e->dso_id ? rank[e->dso_id] : UINT64_MAX;
			break;
		default:        /* RP_K_SYM */
			w[k++] = !e->sym;
			w[k++] = (e->sym ? e->sym->start : e->ip) ^ sign;
			w[k++] = e->sym ? e->sym->end ^ sign : 0;
			break;
		}
	}
}

int rp_collapse_order(struct pk_report *r, uint32_t *v, size_t n)
{
	int words = packed_words(r, v, n);
	struct packed *p;
	uint32_t *rank;

	if (!words) {
		qsort_r(v, n, sizeof(*v), entry_cmp, r);
		return 0;
	}
	rank = string_ranks(&r->strs);
	p = malloc((n ? n : 1) * sizeof(*p));
	if (!rank || !p) {
		free(rank);
		free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		pack(r, rank, &r->ent[v[i]], p[i].w);
		p[i].entry = v[i];
	}
	qsort_r(p, n, sizeof(*p), packed_cmp, &words);
	for (size_t i = 0; i < n; i++)
		v[i] = p[i].entry;
	free(p);
	free(rank);
	return 0;
}
