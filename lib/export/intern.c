/*
 * The export module's hash tables: interned strings, a pointer -> u32 map
 * and the stack trie (internal.h). All are open addressing with linear
 * probing over power-of-two slot arrays, grown at half load, so lookups
 * stay one or two cache lines and nothing is allocated per sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "export/internal.h"

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;   /* FNV-1a */

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return pk_hash_mix64(h);
}

int pk_exp_grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	size_t c = *cap;
	int err;

	if (need > UINT32_MAX / 2)
		return -ENOMEM;
	if ((err = pk_array_grow(p, &c, need, elem, 64)))
		return err;
	*cap = (uint32_t)c;
	return 0;
}

/* ---- strings --------------------------------------------------------------- */

void pk_exp_strtab_init(struct pk_exp_strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void pk_exp_strtab_release(struct pk_exp_strtab *t)
{
	free(t->pool);
	free(t->off);
	free(t->len);
	free(t->slots);
	pk_exp_strtab_init(t);
}

static int strtab_rehash(struct pk_exp_strtab *t)
{
	uint32_t ns = t->nslots ? t->nslots * 2 : 256;
	uint32_t *slots = calloc(ns, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (uint32_t id = 0; id < t->n; id++) {
		uint64_t h = hash_bytes(t->pool + t->off[id], t->len[id]);
		uint32_t i = (uint32_t)h & (ns - 1);

		while (slots[i])
			i = (i + 1) & (ns - 1);
		slots[i] = id + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = ns;
	return 0;
}

int pk_exp_str_intern(struct pk_exp_strtab *t, const char *s, size_t len, uint32_t *id)
{
	uint64_t h = hash_bytes(s, len);
	uint32_t i;
	int err;

	if (!t->nslots && (err = strtab_rehash(t)))
		return err;
	for (i = (uint32_t)h & (t->nslots - 1); t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
		uint32_t k = t->slots[i] - 1;

		if (t->len[k] == len && memcmp(t->pool + t->off[k], s, len) == 0) {
			*id = k;
			return 0;
		}
	}
	if (len > UINT32_MAX - 1 || t->pool_len + len + 1 > UINT32_MAX)
		return -ENOMEM;
	if (t->pool_len + len + 1 > t->pool_cap) {
		size_t c = t->pool_cap ? t->pool_cap : 4096;
		char *p;

		while (c < t->pool_len + len + 1)
			c *= 2;
		p = realloc(t->pool, c);
		if (!p)
			return -ENOMEM;
		t->pool = p;
		t->pool_cap = c;
	}
	if (t->n + 1 > t->cap) {
		uint32_t c1 = t->cap, c2 = t->cap;

		if ((err = pk_exp_grow((void **)&t->off, &c1, t->n + 1, sizeof(*t->off))) ||
		    (err = pk_exp_grow((void **)&t->len, &c2, t->n + 1, sizeof(*t->len))))
			return err;
		t->cap = c1 < c2 ? c1 : c2;
	}
	memcpy(t->pool + t->pool_len, s, len);
	t->pool[t->pool_len + len] = '\0';
	t->off[t->n] = (uint32_t)t->pool_len;
	t->len[t->n] = (uint32_t)len;
	t->pool_len += len + 1;
	t->slots[i] = t->n + 1;
	*id = t->n++;
	if (t->n * 2 > t->nslots)
		return strtab_rehash(t);
	return 0;
}

/* ---- pointers -------------------------------------------------------------- */

void pk_exp_ptrmap_release(struct pk_exp_ptrmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

int pk_exp_ptrmap_get(const struct pk_exp_ptrmap *m, uintptr_t key, uint32_t *val)
{
	if (!m->nslots)
		return 0;
	for (uint32_t i = (uint32_t)pk_hash_mix64(key) & (m->nslots - 1); m->keys[i];
	     i = (i + 1) & (m->nslots - 1)) {
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return 1;
		}
	}
	return 0;
}

static int ptrmap_rehash(struct pk_exp_ptrmap *m)
{
	uint32_t ns = m->nslots ? m->nslots * 2 : 256;
	uintptr_t *keys = calloc(ns, sizeof(*keys));
	uint32_t *vals = calloc(ns, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (uint32_t j = 0; j < m->nslots; j++) {
		uint32_t i;

		if (!m->keys[j])
			continue;
		for (i = (uint32_t)pk_hash_mix64(m->keys[j]) & (ns - 1); keys[i]; i = (i + 1) & (ns - 1))
			;
		keys[i] = m->keys[j];
		vals[i] = m->vals[j];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->nslots = ns;
	return 0;
}

int pk_exp_ptrmap_put(struct pk_exp_ptrmap *m, uintptr_t key, uint32_t val)
{
	uint32_t i;
	int err;

	if ((m->n + 1) * 2 > m->nslots && (err = ptrmap_rehash(m)))
		return err;
	for (i = (uint32_t)pk_hash_mix64(key) & (m->nslots - 1); m->keys[i]; i = (i + 1) & (m->nslots - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return 0;
}

/* ---- trie ------------------------------------------------------------------ */

static uint64_t node_hash(uint32_t parent, uint64_t key)
{
	return pk_hash_mix64(key * 0x9e3779b97f4a7c15ULL ^ parent);
}

int pk_exp_trie_init(struct pk_exp_trie *t)
{
	memset(t, 0, sizeof(*t));
	if (pk_exp_grow((void **)&t->nodes, &t->cap, 1, sizeof(*t->nodes)))
		return -ENOMEM;
	memset(&t->nodes[0], 0, sizeof(t->nodes[0]));
	t->n = 1;
	return 0;
}

void pk_exp_trie_release(struct pk_exp_trie *t)
{
	free(t->nodes);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static int trie_rehash(struct pk_exp_trie *t)
{
	uint32_t ns = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots = calloc(ns, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (uint32_t n = 1; n < t->n; n++) {
		uint32_t i = (uint32_t)node_hash(t->nodes[n].parent, t->nodes[n].key) & (ns - 1);

		while (slots[i])
			i = (i + 1) & (ns - 1);
		slots[i] = n;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = ns;
	return 0;
}

int pk_exp_trie_child(struct pk_exp_trie *t, uint32_t parent, uint64_t key, uint32_t *out)
{
	uint32_t i;
	struct pk_exp_node *nd;
	int err;

	if ((t->n + 1) * 2 > t->nslots && (err = trie_rehash(t)))
		return err;
	for (i = (uint32_t)node_hash(parent, key) & (t->nslots - 1); t->slots[i];
	     i = (i + 1) & (t->nslots - 1)) {
		nd = &t->nodes[t->slots[i]];
		if (nd->parent == parent && nd->key == key) {
			*out = t->slots[i];
			return 0;
		}
	}
	if ((err = pk_exp_grow((void **)&t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes))))
		return err;
	nd = &t->nodes[t->n];
	nd->parent = parent;
	nd->depth = t->nodes[parent].depth + 1;
	nd->key = key;
	nd->count = nd->period = 0;
	t->slots[i] = t->n;
	*out = t->n++;
	return 0;
}

uint32_t pk_exp_path(const struct pk_exp_trie *t, uint32_t n, uint32_t *ids, uint32_t max)
{
	uint32_t depth = t->nodes[n].depth;

	if (depth > max)
		depth = max;
	for (uint32_t i = depth; i > 0 && n; i--) {
		ids[i - 1] = n;
		n = t->nodes[n].parent;
	}
	return depth;
}

int pk_exp_totals(const struct pk_exp_trie *t, uint64_t **count, uint64_t **period)
{
	uint64_t *c = calloc(t->n, sizeof(*c));
	uint64_t *p = calloc(t->n, sizeof(*p));

	if (!c || !p) {
		free(c);
		free(p);
		return -ENOMEM;
	}
	/* children always have larger indexes than their parents */
	for (uint32_t n = t->n; n-- > 1;) {
		c[n] += t->nodes[n].count;
		p[n] += t->nodes[n].period;
		c[t->nodes[n].parent] += c[n];
		p[t->nodes[n].parent] += p[n];
	}
	c[0] += t->nodes[0].count;
	p[0] += t->nodes[0].period;
	*count = c;
	*period = p;
	return 0;
}
