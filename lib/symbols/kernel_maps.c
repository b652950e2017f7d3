/*
 * The kernel's side of the recorded machine: the kernel map from the
 * "[kernel.kallsyms]" MMAP, module maps and their DSOs named as perf 6.1
 * names them (machine__findnew_module_dso: found by the short name "[mod]";
 * named by the path the build-id table lists for a kernel-space entry, else
 * "[mod]"), build-ids from the header, and KSYMBOL (BPF, out-of-line code).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "symbols/internal.h"

/* "[xfs]" stays; "/lib/modules/.../nf-nat.ko.xz" becomes "[nf_nat]" (kmod_path__parse_name). */
static void module_name(const char *path, char *out, size_t sz)
{
	const char *b = strrchr(path, '/');
	size_t n, i;

	if (path[0] == '[') {
		snprintf(out, sz, "%s", path);
		return;
	}
	b = b ? b + 1 : path;
	n = strcspn(b, ".");
	snprintf(out, sz, "[%.*s]", (int)n, b);
	for (i = 1; out[i]; i++)
		if (out[i] == '-')
			out[i] = '_';
}

/* perf's is_kernel_module()/kmod_path__parse(): "*.ko" optionally compressed. */
static int is_kmod_path(const char *path)
{
	static const char *const ext[] = { ".ko", ".ko.gz", ".ko.xz", ".ko.zst", ".ko.bz2" };
	size_t n = strlen(path), i;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t e = strlen(ext[i]);

		if (n > e && !strcmp(path + n - e, ext[i]))
			return 1;
	}
	return 0;
}

/* Before a DSO others may be reading changes its public fields. */
static void dso_changing(struct pk_symbols *s)
{
	if (s->on_dso_change)
		s->on_dso_change(s->on_dso_change_ctx);
}

PK_API int pk_symbols_on_dso_change(struct pk_symbols *s, void (*fn)(void *ctx), void *ctx)
{
	if (fn && s->on_dso_change)
		return -EBUSY;
	s->on_dso_change = fn;
	s->on_dso_change_ctx = ctx;
	return 0;
}

static void dso_make_module(struct pk_symbols *s, struct sym_dso *d, const char *short_name)
{
	int rename = strcmp(d->pub.short_name, short_name) != 0;

	if (rename || !d->pub.kernel)
		dso_changing(s);
	d->kind = SYM_DSO_MODULE;
	d->pub.kernel = 1;
	if (rename)
		sym_dso_set_short(s, d, short_name);
}

/*
 * perf's machine__findnew_module_dso(): the module's DSO is found by its
 * short name "[mod]". One made from the build-id table is named by the path
 * it lists (perf script prints that path); otherwise the DSO is named "[mod]"
 * (the path is only its long name).
 */
static struct sym_dso *module_dso(struct pk_symbols *s, const char *filename)
{
	char short_name[256];
	struct sym_dso *d;

	module_name(filename, short_name, sizeof(short_name));
	d = sym_dso_find(s, filename);
	if (d && d->kind == SYM_DSO_MODULE)
		return d;
	for (d = s->dsos; d; d = d->next)
		if (d->kind == SYM_DSO_MODULE && !strcmp(d->pub.short_name, short_name))
			return d;
	d = sym_dso_findnew(s, short_name, SYM_DSO_MODULE);
	if (d)
		dso_make_module(s, d, short_name);
	return d;
}

void sym_kernel_mmap(struct pk_symbols *s, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *filename, const uint8_t *bid, uint8_t bid_size)
{
	static const char kname[] = "[kernel.kallsyms]";
	int is_kernel = strncmp(filename, kname, sizeof(kname) - 2) == 0;
	struct sym_map *m;
	struct sym_dso *d;

	if (filename[0] == '/' || (!is_kernel && filename[0] == '[')) {
		d = module_dso(s, filename);
		if (!d)
			return;
		sym_dso_set_build_id(d, bid, bid_size);
		m = sym_map_new(s, d, start, len, 0, PROT_EXEC, 0, 0);
		if (m)
			sym_maps_insert(s, s->kmaps, m);
		return;
	}
	if (!is_kernel)
		return;
	d = s->kernel ? s->kernel : sym_dso_findnew(s, kname, SYM_DSO_KERNEL);
	if (!d)
		return;
	d->kind = SYM_DSO_KERNEL;
	if (!d->pub.kernel) {
		dso_changing(s);
		d->pub.kernel = 1;
	}
	s->kernel = d;
	sym_dso_set_build_id(d, bid, bid_size);
	if (s->kernel_map)
		sym_maps_remove(s->kmaps, s->kernel_map);
	if (start == 0 && len == 0)
		len = UINT64_MAX;
	m = sym_map_new(s, d, start, len, 0, PROT_EXEC, 0, 1);
	if (!m)
		return;
	s->kernel_map = m;
	sym_maps_insert(s, s->kmaps, m);
	if (pgoff)
		s->kernel_ref_addr = pgoff;
}

PK_API void pk_symbols_build_id_misc(struct pk_symbols *s, int32_t pid, uint16_t misc,
				     const char *filename, const uint8_t *build_id, uint8_t size)
{
	struct sym_dso *d;
	enum sym_dso_kind kind = SYM_DSO_USER;

	(void)pid;
	if (!s || !filename || !build_id || !size)
		return;
	if (!strcmp(filename, "[kernel.kallsyms]"))
		kind = SYM_DSO_KERNEL;
	else if (((misc & 7) == CPUMODE_KERNEL || (misc & 7) == CPUMODE_GUEST_KERNEL) &&
		 filename[0] == '/' && is_kmod_path(filename))
		kind = SYM_DSO_MODULE;  /* kept under its path, short name "[mod]" */
	else if (sym_is_vdso(filename))
		kind = SYM_DSO_VDSO;
	else if (!strncmp(filename, "/tmp/perf-", 10))
		kind = SYM_DSO_PERFMAP;
	d = sym_dso_findnew(s, filename, kind);
	if (!d)
		return;
	if (kind == SYM_DSO_KERNEL)
		s->kernel = d;
	if (kind == SYM_DSO_MODULE) {
		char short_name[256];

		module_name(filename, short_name, sizeof(short_name));
		dso_make_module(s, d, short_name);
	}
	sym_dso_set_build_id(d, build_id, size);
}

PK_API void pk_symbols_build_id(struct pk_symbols *s, int32_t pid, const char *filename,
				const uint8_t *build_id, uint8_t size)
{
	pk_symbols_build_id_misc(s, pid, pid == -1 ? CPUMODE_KERNEL : CPUMODE_USER, filename,
				 build_id, size);
}

PK_API void pk_symbols_ksymbol(struct pk_symbols *s, uint64_t addr, uint32_t len, const char *name,
			       int unregister)
{
	struct sym_map *m;
	struct sym_dso *d;

	if (!s || !name)
		return;
	m = sym_maps_find(s->kmaps, addr);
	if (unregister) {
		if (!m)
			return;
		if (m != s->kernel_map)
			sym_maps_remove(s->kmaps, m);
		else
			sym_dso_remove_sym(s, (struct sym_dso *)m->pub.dso, sym_map_ip(m, m->pub.start));
		sym_cache_clear(s);
		return;
	}
	if (!m) {
		d = sym_dso_findnew(s, name, SYM_DSO_KSYM);
		if (!d)
			return;
		m = sym_map_new(s, d, addr, len, 0, PROT_EXEC, 0, 0);
		if (!m || sym_maps_insert(s, s->kmaps, m))
			return;
	}
	/* perf inserts the symbol at the found map's start, as machine.c does */
	sym_dso_insert_sym(s, (struct sym_dso *)m->pub.dso, sym_map_ip(m, m->pub.start), len, name);
}
