/*
 * Inline frames (--inline): each call-chain frame with a symbol is expanded
 * into the functions inlined at its address, innermost first, followed by
 * the frame itself, the way perf's append_inlines() fills its call-chain
 * cursor. The inline chain comes from pk_symbols_srcline() (DWARF through
 * libdw, cached per (DSO, address)).
 *
 * An inline frame needs a symbol to carry its name: like perf's
 * new_inline_sym(), the session synthesizes one pk_sym per (containing
 * symbol, inlined function name), with the containing symbol's start and
 * end so that symoff stays the offset in the containing function. Names are
 * interned, so equal names share one pointer (perf merges inlined call-graph
 * frames by name). The symbols live as long as the session.
 *
 * Per sample nothing is allocated once the tables hold the sample's
 * (symbol, name) pairs: the expanded frames and their flags go to reused
 * arrays, and a pointer-keyed cache maps the srcline cache's name strings to
 * the synthesized symbols without hashing text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "session/internal.h"

#define INL_MAX 32            /* inline levels looked at per frame (perf: MAX_INLINE_NEST 1024) */
#define INL_BLOCK 256         /* synthesized symbols per allocation block */

/* (a, b) pointer pair -> value pointer, open addressing. */
struct inl_slot {
	const void *a, *b;
	void *v;
};

struct inl_map {
	struct inl_slot *s;
	size_t mask, n;
};

struct inl_block {
	struct inl_block *next;
	uint32_t used;
	struct pk_sym v[INL_BLOCK];
};

struct pk_inline {
	struct inl_map by_ptr;        /* (containing sym, srcline's name pointer) -> sym */
	struct inl_map by_name;       /* (containing sym, interned name) -> sym */
	struct inl_map names;         /* (interned name, NULL) keyed by text hash: see name_intern */
	struct inl_block *blocks;
	struct pk_frames out;
	uint8_t *flags;
	uint32_t flags_cap;
};

static uint64_t pair_hash(const void *a, const void *b)
{
	return pk_hash_mix64((uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)b);
}

static uint64_t text_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return pk_hash_mix64(h);
}

static int map_grow(struct inl_map *m, uint64_t (*hash)(const struct inl_slot *))
{
	size_t ncap = m->s ? (m->mask + 1) * 2 : 256;
	struct inl_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	if (m->s) {
		for (size_t i = 0; i <= m->mask; i++) {
			size_t j;

			if (!m->s[i].a)
				continue;
			for (j = hash(&m->s[i]) & (ncap - 1); ns[j].a; j = (j + 1) & (ncap - 1))
				;
			ns[j] = m->s[i];
		}
		free(m->s);
	}
	m->s = ns;
	m->mask = ncap - 1;
	return 0;
}

static uint64_t slot_pair_hash(const struct inl_slot *s)
{
	return pair_hash(s->a, s->b);
}

static uint64_t slot_text_hash(const struct inl_slot *s)
{
	return text_hash(s->a);
}

/* The slot of (a, b) (a free one if absent), growing at 1/2 load. NULL on ENOMEM. */
static struct inl_slot *pair_slot(struct inl_map *m, const void *a, const void *b)
{
	size_t i;

	if ((!m->s || (m->n + 1) * 2 > m->mask + 1) && map_grow(m, slot_pair_hash))
		return NULL;
	for (i = pair_hash(a, b) & m->mask; m->s[i].a; i = (i + 1) & m->mask)
		if (m->s[i].a == a && m->s[i].b == b)
			return &m->s[i];
	return &m->s[i];
}

/* The one copy of @name. NULL on ENOMEM. */
static const char *name_intern(struct inl_map *m, const char *name)
{
	size_t i;
	char *copy;

	if ((!m->s || (m->n + 1) * 2 > m->mask + 1) && map_grow(m, slot_text_hash))
		return NULL;
	for (i = text_hash(name) & m->mask; m->s[i].a; i = (i + 1) & m->mask)
		if (!strcmp(m->s[i].a, name))
			return m->s[i].a;
	copy = strdup(name);
	if (!copy)
		return NULL;
	m->s[i].a = copy;
	m->n++;
	return copy;
}

static struct pk_sym *sym_new(struct pk_inline *in)
{
	struct inl_block *b = in->blocks;

	if (!b || b->used == INL_BLOCK) {
		b = malloc(sizeof(*b));
		if (!b)
			return NULL;
		b->next = in->blocks;
		b->used = 0;
		in->blocks = b;
	}
	return &b->v[b->used++];
}

/* The synthesized symbol for @func inlined in @base. NULL on ENOMEM. */
static const struct pk_sym *inline_sym(struct pk_inline *in, const struct pk_sym *base,
				       const char *func)
{
	struct inl_slot *p, *q;
	const char *name;
	struct pk_sym *sym;

	if (!func)
		func = "??";   /* perf's name when addr2line gives none */
	p = pair_slot(&in->by_ptr, base, func);
	if (!p)
		return NULL;
	if (p->a)
		return p->v;
	name = name_intern(&in->names, func);
	if (!name)
		return NULL;
	q = pair_slot(&in->by_name, base, name);
	if (!q)
		return NULL;
	if (!q->a) {
		sym = sym_new(in);
		if (!sym)
			return NULL;
		sym->start = base->start;
		sym->end = base->end;
		sym->name = name;
		q->a = base;
		q->b = name;
		q->v = sym;
		in->by_name.n++;
	}
	/* by_name may have grown, but by_ptr's slot p is still valid */
	p->a = base;
	p->b = func;
	p->v = q->v;
	in->by_ptr.n++;
	return p->v;
}

struct pk_inline *pk_inline_new(void)
{
	return calloc(1, sizeof(struct pk_inline));
}

void pk_inline_free(struct pk_inline *in)
{
	if (!in)
		return;
	while (in->blocks) {
		struct inl_block *b = in->blocks;

		in->blocks = b->next;
		free(b);
	}
	if (in->names.s)
		for (size_t i = 0; i <= in->names.mask; i++)
			free((void *)in->names.s[i].a);
	free(in->names.s);
	free(in->by_ptr.s);
	free(in->by_name.s);
	free(in->flags);
	pk_frames_release(&in->out);
	free(in);
}

static int push(struct pk_inline *in, const struct pk_location *loc, const struct pk_sym *sym,
		uint8_t inlined)
{
	uint32_t k = in->out.nr;

	if (pk_frames_reserve(&in->out, (uint64_t)k + 1))
		return -ENOMEM;
	if (k >= in->flags_cap) {
		uint32_t ncap = in->out.cap;
		uint8_t *f = realloc(in->flags, ncap);

		if (!f)
			return -ENOMEM;
		in->flags = f;
		in->flags_cap = ncap;
	}
	in->out.v[k] = *loc;
	in->out.v[k].sym = sym;
	in->flags[k] = inlined;
	in->out.nr = k + 1;
	return 0;
}

int pk_inline_expand(struct pk_inline *in, struct pk_symbols *syms, struct pk_rsample *rs)
{
	struct pk_srcline sl[INL_MAX];
	uint32_t i, first = UINT32_MAX;

	rs->inlined = NULL;
	/* find the first frame with inline functions; most frames have none */
	for (i = 0; i < rs->nr_frames; i++) {
		const struct pk_location *fr = &rs->frames[i];

		if (fr->sym && fr->dso && !fr->dso->kernel && pk_symbols_srcline(syms, fr, sl, 2) > 1) {
			first = i;
			break;
		}
	}
	if (first == UINT32_MAX)
		return 0;
	in->out.nr = 0;
	for (i = 0; i < rs->nr_frames; i++) {
		const struct pk_location *fr = &rs->frames[i];
		int n = 0;

		if (i >= first && fr->sym && fr->dso && !fr->dso->kernel)
			n = pk_symbols_srcline(syms, fr, sl, INL_MAX);
		for (int k = 1; k < n; k++) {
			const struct pk_sym *sym = inline_sym(in, fr->sym, sl[k].func);

			if (!sym || push(in, fr, sym, 1))
				return -ENOMEM;
		}
		if (push(in, fr, fr->sym, 0))
			return -ENOMEM;
	}
	rs->nr_frames = in->out.nr;
	rs->frames = in->out.v;
	rs->inlined = in->flags;
	return 0;
}
