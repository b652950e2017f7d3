/*
 * Source lines and inline frames from DWARF through libdw: the file with
 * .debug_info found among the DSO's symbol candidates is opened once, the
 * DSO address (file-offset space) is turned back into a link-time address
 * through the PT_LOAD headers, dwarf_addrdie()+dwarf_getsrc_die() give
 * file:line and dwarf_getscopes() the chain of inlined subroutines (each
 * one's call site, innermost first). Results are cached per (DSO, address).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/internal.h"

#define SRCLINE_MAX 32

struct sl_ent {
	const struct sym_dso *dso;
	uint64_t addr;
	int n;
	struct pk_srcline *v;
	struct sl_ent *next;
};

struct sl_cache {
	struct sl_ent **h;
	size_t size, used;
};

static size_t sl_slot(const struct sl_cache *c, const struct sym_dso *d, uint64_t addr)
{
	uint64_t h = ((uint64_t)(uintptr_t)d * 0x9e3779b97f4a7c15ull) ^ (addr * 0xc2b2ae3d27d4eb4full);

	return (size_t)(h ^ (h >> 31)) & (c->size - 1);
}

static Dwarf *dso_dwarf(struct pk_symbols *s, struct sym_dso *d)
{
	if (d->dwarf_tried)
		return d->dwarf;
	d->dwarf_tried = 1;
	sym_dso_load(s, d);
	if (!d->dwarf_file)
		return NULL;
	d->dwarf_fd = open(d->dwarf_file, O_RDONLY | O_CLOEXEC);
	if (d->dwarf_fd < 0)
		return NULL;
	d->dwarf = dwarf_begin(d->dwarf_fd, DWARF_C_READ);
	if (!d->dwarf) {
		close(d->dwarf_fd);
		d->dwarf_fd = -1;
	}
	return d->dwarf;
}

/* File offset (what symbols and loc->addr use) back to the link-time address. */
static uint64_t to_vaddr(const struct sym_dso *d, uint64_t off)
{
	size_t i;

	for (i = 0; i < d->nr_loads; i++)
		if (off >= d->loads[i].off && off - d->loads[i].off < d->loads[i].size)
			return off - d->loads[i].off + d->loads[i].vaddr;
	return off;
}

/* A copy of the line table's file name @f, under the CU's compilation directory when relative. */
static const char *path_dup(struct pk_symbols *s, Dwarf_Die *cu, const char *f)
{
	Dwarf_Attribute a;
	const char *dir = f && f[0] != '/' && dwarf_attr(cu, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
	size_t nd, nf;
	char *p;

	if (!f)
		return NULL;
	if (!dir || !*dir)
		return sym_arena_strdup(&s->arena, f);
	nd = strlen(dir);
	nf = strlen(f);
	p = sym_arena_alloc(&s->arena, nd + 1 + nf + 1);
	if (!p)
		return NULL;
	memcpy(p, dir, nd);
	p[nd] = '/';
	memcpy(p + nd + 1, f, nf + 1);
	return p;
}

static const char *file_of(struct pk_symbols *s, Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t nfiles;

	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return path_dup(s, cu, dwarf_filesrc(files, idx, NULL, NULL));
}

/* Inlined subroutines containing @pc below @parent, outermost first. */
static int inline_chain(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *chain, int max)
{
	Dwarf_Die cur = *parent, child;
	int n = 0, depth = 0;

	while (n < max && depth++ < 256 && dwarf_child(&cur, &child) == 0) {
		int found = 0;

		do {
			int tag = dwarf_tag(&child);

			if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine &&
			    tag != DW_TAG_lexical_block && tag != DW_TAG_try_block &&
			    tag != DW_TAG_catch_block && tag != DW_TAG_namespace &&
			    tag != DW_TAG_class_type && tag != DW_TAG_structure_type)
				continue;
			if (tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
			    tag != DW_TAG_structure_type && dwarf_haspc(&child, pc) != 1)
				continue;
			if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			    tag == DW_TAG_structure_type) {
				/* descend only if a member function holds pc: checked one level down */
				Dwarf_Die sub;

				if (dwarf_child(&child, &sub) != 0)
					continue;
				do {
					if (dwarf_tag(&sub) == DW_TAG_subprogram && dwarf_haspc(&sub, pc) == 1) {
						found = 1;
						break;
					}
				} while (dwarf_siblingof(&sub, &sub) == 0);
				if (!found)
					continue;
				child = sub;
			}
			if (tag == DW_TAG_inlined_subroutine)
				chain[n++] = child;
			found = 1;
			break;
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!found)
			break;
		cur = child;
	}
	return n;
}

/*
 * No line for an address of a file with line tables: what binutils'
 * addr2line, which perf runs, answers there. Inside a compilation unit
 * without a row for it: an empty file name (":?"); elsewhere in a symbol
 * (crt1.o's _start): "??" ("??:?"); both line 0. Outside both, nothing.
 */
static int no_line(struct pk_srcline *out, int in_cu, int in_sym)
{
	if (!in_cu && !in_sym)
		return 0;
	out->file = in_cu ? "" : "??";
	out->line = 0;
	out->func = NULL;
	return 1;
}

/* @sym is one of the file's symbol table (what addr2line sees), not a synthesized name@plt. */
static int in_symtab(const struct pk_sym *sym)
{
	size_t n = sym ? strlen(sym->name) : 0;

	return sym && !(n >= 4 && !strcmp(sym->name + n - 4, "@plt"));
}

static int resolve(struct pk_symbols *s, struct sym_dso *d, uint64_t addr, int in_sym,
		   struct pk_srcline *out, int max)
{
	Dwarf *dw = dso_dwarf(s, d);
	Dwarf_Addr va = to_vaddr(d, addr);
	Dwarf_Die cu, chain[SRCLINE_MAX];
	Dwarf_Line *line;
	int lineno = 0, n = 0, ns, i;
	const char *f;

	if (!dw || max <= 0)
		return 0;
	if (!dwarf_addrdie(dw, va, &cu))
		return no_line(out, 0, in_sym);
	line = dwarf_getsrc_die(&cu, va);
	if (!line || dwarf_lineno(line, &lineno) != 0)
		return no_line(out, 1, in_sym);
	f = dwarf_linesrc(line, NULL, NULL);
	out[n].file = path_dup(s, &cu, f);
	out[n].line = (uint32_t)lineno;
	out[n].func = NULL;
	n++;
	/* dwarf_getscopes() jumps to the abstract origin after the first inline
	 * instance, so walk the concrete tree to get every nesting level */
	ns = inline_chain(&cu, va, chain, SRCLINE_MAX);
	for (i = ns - 1; i >= 0 && n < max; i--) {
		Dwarf_Attribute a;
		Dwarf_Word cf = 0, cl = 0;
		const char *name;

		name = dwarf_diename(&chain[i]);
		if (dwarf_attr(&chain[i], DW_AT_call_file, &a))
			dwarf_formudata(&a, &cf);
		if (dwarf_attr(&chain[i], DW_AT_call_line, &a))
			dwarf_formudata(&a, &cl);
		out[n].file = file_of(s, &cu, cf);
		out[n].line = (uint32_t)cl;
		out[n].func = name ? sym_arena_strdup(&s->arena, name) : NULL;
		n++;
	}
	return n;
}

PK_API const char *pk_srcline_shown_file(const char *file, int full_path)
{
	const char *base = full_path ? NULL : strrchr(file, '/');

	return base ? base + 1 : file;
}

PK_API int pk_symbols_srcline(struct pk_symbols *s, const struct pk_location *loc,
			      struct pk_srcline *out, int max)
{
	struct sl_cache *c;
	struct sl_ent *e;
	struct sym_dso *d;
	struct pk_srcline tmp[SRCLINE_MAX];
	size_t b;
	int n, i;

	if (!s || !loc || !loc->dso || !s->opts.want_srcline || !out || max <= 0)
		return 0;
	d = (struct sym_dso *)loc->dso;
	if (d->kind != SYM_DSO_USER && d->kind != SYM_DSO_VDSO)
		return 0;
	c = s->srcline_cache;
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return 0;
		c->size = 1024;
		c->h = calloc(c->size, sizeof(*c->h));
		if (!c->h) {
			free(c);
			return 0;
		}
		s->srcline_cache = c;
	}
	b = sl_slot(c, d, loc->addr);
	for (e = c->h[b]; e; e = e->next)
		if (e->dso == d && e->addr == loc->addr)
			goto hit;
	n = resolve(s, d, loc->addr, in_symtab(loc->sym), tmp, SRCLINE_MAX);
	e = sym_arena_alloc(&s->arena, sizeof(*e));
	if (!e)
		return 0;
	e->dso = d;
	e->addr = loc->addr;
	e->n = n;
	e->v = n ? sym_arena_alloc(&s->arena, (size_t)n * sizeof(*e->v)) : NULL;
	if (n && !e->v)
		return 0;
	if (n)
		memcpy(e->v, tmp, (size_t)n * sizeof(*tmp));
	e->next = c->h[b];
	c->h[b] = e;
hit:
	n = e->n < max ? e->n : max;
	for (i = 0; i < n; i++)
		out[i] = e->v[i];
	return n;
}

void sym_srcline_free_all(struct pk_symbols *s)
{
	struct sl_cache *c = s->srcline_cache;
	struct sym_dso *d;

	for (d = s->dsos; d; d = d->next) {
		if (d->dwarf)
			dwarf_end(d->dwarf);
		if (d->dwarf_fd >= 0)
			close(d->dwarf_fd);
		d->dwarf = NULL;
		d->dwarf_fd = -1;
	}
	if (c) {
		free(c->h);
		free(c);
	}
	s->srcline_cache = NULL;
}
