/*
 * The DSO table: one pk_dso per name, named the way perf names them
 * (dso__set_basename: short name is the basename of the path, "[JIT] tid N"
 * for /tmp/perf-N.map), loaded lazily on first lookup from the right source
 * (ELF file, kallsyms, perf map), with a sorted symbol array searched by
 * binary search.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/internal.h"

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

struct sym_dso *sym_dso_find(struct pk_symbols *s, const char *name)
{
	struct sym_dso *d;

	if (!s->dso_hash)
		return NULL;
	for (d = s->dso_hash[str_hash(name) & (s->dso_hash_size - 1)]; d; d = d->hnext)
		if (strcmp(d->pub.name, name) == 0)
			return d;
	return NULL;
}

static int dso_hash_grow(struct pk_symbols *s)
{
	size_t n = s->dso_hash_size ? s->dso_hash_size * 2 : 256, i;
	struct sym_dso **h = calloc(n, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (i = 0; i < s->dso_hash_size; i++) {
		struct sym_dso *d = s->dso_hash[i], *nx;

		for (; d; d = nx) {
			size_t b = str_hash(d->pub.name) & (n - 1);

			nx = d->hnext;
			d->hnext = h[b];
			h[b] = d;
		}
	}
	free(s->dso_hash);
	s->dso_hash = h;
	s->dso_hash_size = n;
	return 0;
}

void sym_dso_set_short(struct pk_symbols *s, struct sym_dso *d, const char *short_name)
{
	const char *p = sym_arena_strdup(&s->arena, short_name);

	if (p)
		d->pub.short_name = p;
}

/* perf's dso__set_basename(). */
static void dso_set_basename(struct pk_symbols *s, struct sym_dso *d)
{
	const char *name = d->pub.name, *slash;
	char buf[64];
	int tid;

	if (sscanf(name, "/tmp/perf-%d.map", &tid) == 1) {
		snprintf(buf, sizeof(buf), "[JIT] tid %d", tid);
		sym_dso_set_short(s, d, buf);
		return;
	}
	slash = strrchr(name, '/');
	if (slash && slash[1])
		d->pub.short_name = slash + 1;
	else if (slash) {
		/* basename("a/b/") is "b" */
		const char *end = slash, *b;

		while (end > name && end[-1] == '/')
			end--;
		b = end;
		while (b > name && b[-1] != '/')
			b--;
		d->pub.short_name = end > b ? sym_arena_strndup(&s->arena, b, (size_t)(end - b)) : "/";
		if (!d->pub.short_name)
			d->pub.short_name = d->pub.name;
	} else
		d->pub.short_name = name;
}

struct sym_dso *sym_dso_findnew(struct pk_symbols *s, const char *name, enum sym_dso_kind kind)
{
	struct sym_dso *d = sym_dso_find(s, name);
	size_t b;

	if (d)
		return d;
	if ((!s->dso_hash || s->nr_dsos >= s->dso_hash_size) && dso_hash_grow(s))
		return sym_out_of_memory(s);
	d = calloc(1, sizeof(*d));
	if (!d)
		return sym_out_of_memory(s);
	d->pub.name = sym_arena_strdup(&s->arena, name);
	if (!d->pub.name) {
		free(d);
		return sym_out_of_memory(s);
	}
	d->kind = kind;
	d->dwarf_fd = -1;
	d->pub.kernel = kind == SYM_DSO_KERNEL || kind == SYM_DSO_MODULE || kind == SYM_DSO_KSYM;
	if (kind == SYM_DSO_USER || kind == SYM_DSO_PERFMAP)
		dso_set_basename(s, d);
	else
		d->pub.short_name = d->pub.name;
	if (kind == SYM_DSO_NODSO || kind == SYM_DSO_KSYM)
		d->pub.loaded = 1;
	d->next = s->dsos;
	s->dsos = d;
	s->nr_dsos++;
	b = str_hash(d->pub.name) & (s->dso_hash_size - 1);
	d->hnext = s->dso_hash[b];
	s->dso_hash[b] = d;
	return d;
}

/* The table of sorted @rv, with perf's tree after it in the same block where symbols overlap. */
int sym_dso_set_syms(struct pk_symbols *s, struct sym_dso *d, struct sym_rawvec *rv)
{
	size_t i, tree_len = sym_tree_size(rv);
	uint32_t *tree = NULL, root = 0;
	struct pk_sym *v;

	v = rv->n ? malloc(rv->n * sizeof(*v) + tree_len * sizeof(*tree)) : NULL;
	if (rv->n && !v)
		return -ENOMEM;
	for (i = 0; i < rv->n; i++) {
		v[i].start = rv->v[i].start;
		v[i].end = rv->v[i].end;
		v[i].name = rv->v[i].name;
	}
	if (tree_len) {
		tree = (uint32_t *)(v + rv->n);
		if (sym_tree_build(rv, tree, &root)) {
			free(v);
			return -ENOMEM;
		}
	}
	if (d->syms && sym_keep_old(s, d->syms)) {
		free(v);
		return -ENOMEM;
	}
	d->syms = v;
	d->nr_syms = rv->n;
	d->tree = tree;
	d->tree_root = root;
	d->pub.has_symbols = rv->n > 0;
	sym_cache_clear(s);
	return 0;
}

/*
 * Rebuild @d's table with one symbol added (KSYMBOL); the old array stays
 * alive. Where symbols then overlap, the tree is the one of inserting them
 * in address order, the new one last.
 */
int sym_dso_insert_sym(struct pk_symbols *s, struct sym_dso *d, uint64_t start, uint64_t len,
		       const char *name)
{
	struct sym_rawvec rv = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < d->nr_syms && !err; i++) {
		err = sym_rawvec_push(&rv, d->syms[i].start, d->syms[i].end - d->syms[i].start,
				      d->syms[i].name, 1, 2);
		if (!err && d->syms[i].end == d->syms[i].start)
			rv.v[rv.n - 1].end = d->syms[i].end;
	}
	if (!err)
		err = sym_rawvec_push(&rv, start, len, sym_arena_strdup(&s->arena, name), 1, 2);
	if (!err) {
		sym_rawvec_sort(&rv);
		err = sym_dso_set_syms(s, d, &rv);
	}
	sym_rawvec_release(&rv);
	return err;
}

void sym_dso_remove_sym(struct pk_symbols *s, struct sym_dso *d, uint64_t addr)
{
	const struct pk_sym *sym = sym_dso_find_sym(d, addr);
	struct pk_sym *v;
	size_t i, k = 0;

	if (!sym)
		return;
	v = d->nr_syms > 1 ? malloc((d->nr_syms - 1) * sizeof(*v)) : NULL;
	if (d->nr_syms > 1 && !v)
		return;
	for (i = 0; i < d->nr_syms; i++)
		if (&d->syms[i] != sym)
			v[k++] = d->syms[i];
	if (sym_keep_old(s, d->syms)) {
		free(v);
		return;
	}
	d->syms = v;
	d->nr_syms = k;
	d->tree = NULL;   /* no history to replay: where symbols overlap, the innermost answers */
	d->pub.has_symbols = k > 0;
	sym_cache_clear(s);
}

const struct pk_sym *sym_dso_find_sym(const struct sym_dso *d, uint64_t addr)
{
	size_t lo = 0, hi = d->nr_syms, i;

	if (d->tree)
		return sym_tree_find(d->syms, d->tree, d->tree_root, addr);

	/* last symbol with start <= addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* a symbol nested in a bigger one may end before addr: look a little further back */
	for (i = 0; i < 4 && lo > i; i++)
		if (sym_holds(&d->syms[lo - 1 - i], addr))
			return &d->syms[lo - 1 - i];
	return NULL;
}

/*
 * Read @d's symbols, once. Without them its addresses stay unresolved;
 * where that is for want of memory, not of a symbol file, it is said.
 */
void sym_dso_load(struct pk_symbols *s, struct sym_dso *d)
{
	int err = 0;

	if (d->pub.loaded)
		return;
	d->pub.loaded = 1;
	switch (d->kind) {
	case SYM_DSO_USER:
	case SYM_DSO_VDSO:
		err = sym_elf_load(s, d);
		break;
	case SYM_DSO_KERNEL:
		err = sym_kallsyms_load(s);
		break;
	case SYM_DSO_MODULE:
		/* module symbols come from kallsyms, split off when the kernel loads */
		if (s->kernel && !s->kernel->pub.loaded) {
			d->pub.loaded = 0;
			sym_dso_load(s, s->kernel);
			d->pub.loaded = 1;
		}
		break;
	case SYM_DSO_PERFMAP:
		err = sym_perfmap_load(s, d);
		break;
	default:
		break;
	}
	if (err == -ENOMEM)             /* a file perf would have preferred may be the one left out */
		pk_log(PK_LOG_WARN, "'%s': out of memory reading its symbols: %s", d->pub.name,
		       d->nr_syms ? "some may be missing or come from another file"
				  : "its addresses are shown unresolved");
}

void sym_dso_free_all(struct pk_symbols *s)
{
	struct sym_dso *d = s->dsos, *nx;

	for (; d; d = nx) {
		nx = d->next;
		free(d->syms);
		free(d->loads);
		free(d);
	}
	s->dsos = NULL;
	free(s->dso_hash);
	s->dso_hash = NULL;
}
