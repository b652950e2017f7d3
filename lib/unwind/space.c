/*
 * Address spaces for the unwinder: one libdwfl Dwfl per recorded process,
 * holding the files (modules) that the process's stacks went through, each
 * reported once at the base its mapping implies (map start - pgoff, as
 * perf's libdw unwinder does). Spaces are kept in a small LRU table;
 * a module that no longer matches the maps (exec, munmap + mmap) marks its
 * space stale and the space is rebuilt. Paths that cannot be opened are
 * remembered so a missing binary costs one open() per file, not per frame.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unwind/internal.h"

/* libdwfl module callbacks: modules are reported as ELF files, so find_elf
 * is never needed; .debug_frame may come from a separate debug file. */
static int find_elf_none(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			 char **file_name, Elf **elfp)
{
	(void)mod; (void)userdata; (void)modname; (void)base; (void)file_name; (void)elfp;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf_none,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

/* ---- unreadable paths ------------------------------------------------------ */

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

int pk_unwind_missing_has(const struct pk_unwind *uw, const char *path)
{
	uint32_t i;

	if (!uw->missing_cap)
		return 0;
	for (i = str_hash(path) & (uw->missing_cap - 1); uw->missing[i];
	     i = (i + 1) & (uw->missing_cap - 1))
		if (!strcmp(uw->missing[i], path))
			return 1;
	return 0;
}

void pk_unwind_missing_add(struct pk_unwind *uw, const char *path)
{
	uint32_t i;
	char *dup;

	if (pk_unwind_missing_has(uw, path))
		return;
	if ((uw->nr_missing + 1) * 2 > uw->missing_cap) {
		uint32_t cap = uw->missing_cap ? uw->missing_cap * 2 : 64, k;
		char **v;

		if (cap > (1u << 20))
			return;   /* only a cache: stop growing */
		v = calloc(cap, sizeof(*v));
		if (!v)
			return;
		for (k = 0; k < uw->missing_cap; k++) {
			if (!uw->missing[k])
				continue;
			for (i = str_hash(uw->missing[k]) & (cap - 1); v[i]; i = (i + 1) & (cap - 1))
				;
			v[i] = uw->missing[k];
		}
		free(uw->missing);
		uw->missing = v;
		uw->missing_cap = cap;
	}
	dup = strdup(path);
	if (!dup)
		return;
	for (i = str_hash(path) & (uw->missing_cap - 1); uw->missing[i]; i = (i + 1) & (uw->missing_cap - 1))
		;
	uw->missing[i] = dup;
	uw->nr_missing++;
	uw->stats.files_missing++;
}

void pk_unwind_missing_release(struct pk_unwind *uw)
{
	for (uint32_t i = 0; i < uw->missing_cap; i++)
		free(uw->missing[i]);
	free(uw->missing);
	uw->missing = NULL;
	uw->missing_cap = uw->nr_missing = 0;
}

/* ---- spaces ----------------------------------------------------------------- */

void pk_unwind_space_drop(struct pk_unwind *uw, struct pk_unwind_space *sp)
{
	if (!sp->dwfl)
		return;
	dwfl_end(sp->dwfl);
	for (uint32_t i = 0; i < sp->nr_mods; i++)
		free(sp->mods[i].path);
	free(sp->mods);
	uw->nr_modules -= sp->nr_mods < uw->nr_modules ? sp->nr_mods : uw->nr_modules;
	memset(sp, 0, sizeof(*sp));
}

static struct pk_unwind_space *lru(struct pk_unwind *uw)
{
	struct pk_unwind_space *old = NULL;

	for (uint32_t i = 0; i < uw->max_spaces; i++) {
		struct pk_unwind_space *sp = &uw->spaces[i];

		if (sp->dwfl && sp != uw->cur.space && (!old || sp->used < old->used))
			old = sp;
	}
	return old;
}

struct pk_unwind_space *pk_unwind_space_get(struct pk_unwind *uw, int32_t pid)
{
	struct pk_unwind_space *sp, *free_slot = NULL;
	uint32_t i;

	for (i = 0; i < uw->max_spaces; i++) {
		sp = &uw->spaces[i];
		if (sp->dwfl && sp->pid == pid) {
			sp->used = ++uw->clock;
			return sp;
		}
		if (!sp->dwfl && !free_slot)
			free_slot = sp;
	}
	if (!free_slot) {
		free_slot = lru(uw);
		pk_unwind_space_drop(uw, free_slot);
	}
	/* too many open files: drop the least recently used spaces */
	while (uw->nr_modules > PK_UNWIND_MAX_MODULES && (sp = lru(uw)) != NULL)
		pk_unwind_space_drop(uw, sp);
	sp = free_slot;
	sp->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!sp->dwfl)
		return NULL;
	if (!dwfl_attach_state(sp->dwfl, uw->arch_elf, pid > 0 ? pid : 1,
			       &pk_unwind_thread_callbacks, uw)) {
		dwfl_end(sp->dwfl);
		sp->dwfl = NULL;
		return NULL;
	}
	sp->pid = pid;
	sp->used = ++uw->clock;
	uw->stats.spaces_created++;
	return sp;
}

/* Remember that @mod was reported for @path at @base (its userdata is the index + 1). */
static int mod_add(struct pk_unwind *uw, struct pk_unwind_space *sp, Dwfl_Module *mod,
		   const char *path, uint64_t base)
{
	void **userdata;

	if (sp->nr_mods == sp->cap_mods) {
		uint32_t cap = sp->cap_mods ? sp->cap_mods * 2 : 8;
		struct pk_unwind_mod *v = realloc(sp->mods, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sp->mods = v;
		sp->cap_mods = cap;
	}
	sp->mods[sp->nr_mods].path = strdup(path);
	if (!sp->mods[sp->nr_mods].path)
		return -ENOMEM;
	sp->mods[sp->nr_mods].base = base;
	sp->nr_mods++;
	uw->nr_modules++;
	uw->stats.modules_reported++;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = (void *)(uintptr_t)sp->nr_mods;
	return 0;
}

static const struct pk_unwind_mod *mod_of(const struct pk_unwind_space *sp, Dwfl_Module *mod)
{
	void **userdata;
	uintptr_t idx;

	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	idx = (uintptr_t)*userdata;
	return idx && idx <= sp->nr_mods ? &sp->mods[idx - 1] : NULL;
}

/* A path names a file to open (absolute, not "//anon"), or is the vDSO. */
static int is_file(const char *path)
{
	return path && ((path[0] == '/' && path[1] != '/') || !strcmp(path, "[vdso]"));
}

static Dwfl_Module *report(struct pk_unwind *uw, struct pk_unwind_space *sp,
			   const struct pk_unwind_map *m, uint64_t base)
{
	char file[PATH_MAX];
	Dwfl_Module *mod = NULL;
	int n;

	n = snprintf(file, sizeof(file), "%s%s", uw->symfs ? uw->symfs : "", m->path);
	dwfl_report_begin_add(sp->dwfl);
	if (m->path[0] == '[') {
		int fd = pk_unwind_vdso_fd(uw, m);

		if (fd >= 0) {
			mod = dwfl_report_elf(sp->dwfl, m->path, m->path, fd, base, false);
			if (!mod)
				close(fd);   /* consumed only on success */
		}
	} else if (n > 0 && (size_t)n < sizeof(file))
		mod = dwfl_report_elf(sp->dwfl, m->path, file, -1, base, false);
	if (!mod && m->path[0] == '/' && m->build_id && m->build_id_size && m->build_id_size <= 20 && uw->home) {
		char hex[41];

		pk_fmt_bytes_hex(hex, m->build_id, m->build_id_size);
		n = snprintf(file, sizeof(file), "%s/.debug/.build-id/%.2s/%s/elf", uw->home, hex,
			     hex + 2);
		if (n > 0 && (size_t)n < sizeof(file))
			mod = dwfl_report_elf(sp->dwfl, m->path, file, -1, base, false);
	}
	dwfl_report_end(sp->dwfl, NULL, NULL);
	if (!mod) {
		pk_unwind_missing_add(uw, m->path);
		return NULL;
	}
	if (mod_add(uw, sp, mod, m->path, base) < 0)
		return NULL;
	return mod;
}

Dwfl_Module *pk_unwind_module_at(struct pk_unwind *uw, uint64_t addr)
{
	struct pk_unwind_space *sp = uw->cur.space;
	const struct pk_unwind_mod *pm;
	struct pk_unwind_map m;
	Dwfl_Module *mod;
	uint64_t base;

	memset(&m, 0, sizeof(m));
	if (uw->cur.find_map(uw->cur.ctx, addr, &m) != 1 || addr < m.start || addr >= m.end ||
	    !is_file(m.path))
		return NULL;
	base = m.start - m.pgoff;
	mod = dwfl_addrmodule(sp->dwfl, addr);
	if (mod) {
		pm = mod_of(sp, mod);
		if (pm && pm->base == base && !strcmp(pm->path, m.path))
			return mod;
		sp->stale = 1;   /* the maps changed under this module */
		return NULL;
	}
	if (pk_unwind_missing_has(uw, m.path))
		return NULL;
	for (uint32_t i = 0; i < sp->nr_mods; i++)
		if (sp->mods[i].base == base && !strcmp(sp->mods[i].path, m.path))
			return NULL;   /* reported already, and its segments miss @addr */
	mod = report(uw, sp, &m, base);
	if (!mod)
		return NULL;
	/* a file whose segments do not cover @addr: not what is mapped there */
	return dwfl_addrmodule(sp->dwfl, addr) == mod ? mod : NULL;
}
