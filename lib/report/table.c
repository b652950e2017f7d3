/*
 * The report module's flat tables: a three-word-key hash map (open
 * addressing, linear probing, power-of-two capacity, grown at 1/2 load), the
 * same probing as an index over a caller's array, and
 * a string interner that hands out small stable ids, with a pointer-keyed
 * cache so strings the session keeps stable are hashed once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"


int rp_map_init(struct rp_map *m, size_t cap)
{
	size_t n = 16;

	while (n < cap * 2)
		n <<= 1;
	m->slots = calloc(n, sizeof(*m->slots));
	if (!m->slots)
		return -ENOMEM;
	m->mask = n - 1;
	m->n = 0;
	return 0;
}

void rp_map_release(struct rp_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = m->n = 0;
}

void rp_map_clear(struct rp_map *m)
{
	if (m->slots && m->n)
		memset(m->slots, 0, (m->mask + 1) * sizeof(*m->slots));
	m->n = 0;
}

static int rp_map_grow(struct rp_map *m)
{
	size_t ncap = (m->mask + 1) * 2;
	struct rp_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i <= m->mask; i++) {
		struct rp_slot *s = &m->slots[i];
		size_t j;

		if (!s->used)
			continue;
		j = rp_hash3(s->a, s->b, s->c) & (ncap - 1);
		while (ns[j].used)
			j = (j + 1) & (ncap - 1);
		ns[j] = *s;
	}
	free(m->slots);
	m->slots = ns;
	m->mask = ncap - 1;
	return 0;
}

uint32_t *rp_map_find(const struct rp_map *m, uint64_t a, uint64_t b, uint64_t c)
{
	size_t i;

	if (!m->slots)
		return NULL;
	i = rp_hash3(a, b, c) & m->mask;
	for (;;) {
		struct rp_slot *s = &m->slots[i];

		if (!s->used)
			return NULL;
		if (s->a == a && s->b == b && s->c == c)
			return &s->val;
		i = (i + 1) & m->mask;
	}
}

uint32_t *rp_map_get(struct rp_map *m, uint64_t a, uint64_t b, uint64_t c, int *found,
		     uint32_t val_if_new)
{
	size_t i;

	if (!m->slots && rp_map_init(m, 16))
		return NULL;
	if ((m->n + 1) * 2 > m->mask + 1 && rp_map_grow(m))
		return NULL;
	i = rp_hash3(a, b, c) & m->mask;
	for (;;) {
		struct rp_slot *s = &m->slots[i];

		if (!s->used) {
			s->used = 1;
			s->a = a;
			s->b = b;
			s->c = c;
			s->val = val_if_new;
			m->n++;
			*found = 0;
			return &s->val;
		}
		if (s->a == a && s->b == b && s->c == c) {
			*found = 1;
			return &s->val;
		}
		i = (i + 1) & m->mask;
	}
}

/* ---- index maps ----------------------------------------------------------- */

int rp_ixmap_reserve(struct rp_ixmap *m)
{
	size_t ncap;
	struct rp_ix *ns;

	if (m->slots && (m->n + 1) * 2 <= m->mask + 1)
		return 0;
	ncap = m->slots ? (m->mask + 1) * 2 : 1024;
	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; m->slots && i <= m->mask; i++) {
		size_t j;

		if (!m->slots[i].idx1)
			continue;
		j = m->slots[i].hash & (ncap - 1);
		while (ns[j].idx1)
			j = (j + 1) & (ncap - 1);
		ns[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = ns;
	m->mask = ncap - 1;
	return 0;
}

void rp_ixmap_release(struct rp_ixmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = m->n = 0;
}

/* ---- strings ------------------------------------------------------------- */

static uint64_t rp_str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return rp_mix(h);
}

int rp_strtab_init(struct rp_strtab *t)
{
	memset(t, 0, sizeof(*t));
	t->mask = 255;
	t->slots = calloc(t->mask + 1, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	return rp_strtab_id(t, "") == 0 ? 0 : -ENOMEM;
}

void rp_strtab_release(struct rp_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->str[i]);
	free(t->str);
	free(t->slots);
	rp_map_release(&t->ptr);
	memset(t, 0, sizeof(*t));
}

static int rp_strtab_grow(struct rp_strtab *t)
{
	size_t ncap = (t->mask + 1) * 2;
	uint32_t *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t id = 0; id < t->n; id++) {
		size_t j = rp_str_hash(t->str[id]) & (ncap - 1);

		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = (uint32_t)id + 1;
	}
	free(t->slots);
	t->slots = ns;
	t->mask = ncap - 1;
	return 0;
}

uint32_t rp_strtab_id(struct rp_strtab *t, const char *s)
{
	size_t i;

	if (!s)
		s = "";
	if ((t->n + 1) * 2 > t->mask + 1 && rp_strtab_grow(t))
		return UINT32_MAX;
	i = rp_str_hash(s) & t->mask;
	while (t->slots[i]) {
		uint32_t id = t->slots[i] - 1;

		if (!strcmp(t->str[id], s))
			return id;
		i = (i + 1) & t->mask;
	}
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64;
		char **nstr = realloc(t->str, ncap * sizeof(*nstr));

		if (!nstr)
			return UINT32_MAX;
		t->str = nstr;
		t->cap = ncap;
	}
	t->str[t->n] = strdup(s);
	if (!t->str[t->n])
		return UINT32_MAX;
	t->slots[i] = (uint32_t)t->n + 1;
	return (uint32_t)t->n++;
}

uint32_t rp_strtab_id_ptr(struct rp_strtab *t, const char *s)
{
	uint32_t *v, id;
	int found;

	if (!s)
		return 0;
	v = rp_map_find(&t->ptr, (uintptr_t)s, 0, 0);
	if (v)
		return *v;
	id = rp_strtab_id(t, s);
	if (id == UINT32_MAX)
		return id;
	v = rp_map_get(&t->ptr, (uintptr_t)s, 0, 0, &found, id);
	return v ? id : UINT32_MAX;
}
