/*
 * Kernel symbols from /proc/kallsyms text, parsed with perf's rules
 * (kallsyms__parse: "HEX TYPE NAME[\t[module]]" per line, malformed lines
 * skipped, names cut at 512 bytes), kept when the type is T/W/D/B in either
 * case, fixed up as perf does for kallsyms, then split: module symbols go to
 * the module's DSO relative to its map, or are dropped when no map exists.
 *
 * Used for symbols only when the file was recorded on this kernel (same
 * osrelease) or when a kallsyms file is given; another kernel's, named by its
 * build-id, come from perf's build-id cache (~/.debug/[kernel.kallsyms]/ID/
 * kallsyms, which perf record and perfkit record leave) when it has them; for
 * another kernel without a build-id only the kernel map's extent is taken
 * from them, as perf 6.1's map__fixup_start/end does. All-zero addresses
 * (kptr_restrict) load nothing.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "symbols/internal.h"

#define KSYM_NAME_LEN 512
#define KALLSYMS_MAX (256u << 20)

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * Layout of one line (no binary layout: text; see perf's lib/symbol/kallsyms.c):
 *   field   | form
 *   start   | hex digits, then one ' '
 *   type    | one character, then one ' '
 *   name    | up to KSYM_NAME_LEN bytes up to '\n' (module lines: "name\t[mod]")
 */
int sym_kallsyms_parse(const char *buf, size_t len, sym_kallsyms_fn fn, void *arg)
{
	size_t i = 0;
	char name[KSYM_NAME_LEN + 1];

	while (i < len) {
		uint64_t start = 0;
		size_t n = 0;
		int v, r;
		char type;

		/* io__get_hex: digits until a non-hex character, which must be ' ' */
		while (i < len && (v = hexval((unsigned char)buf[i])) >= 0) {
			start = (start << 4) | (uint64_t)v;
			i++;
			n++;
		}
		if (n == 0 || i >= len || buf[i] != ' ') {
			while (i < len && buf[i] != '\n')
				i++;
			i++;
			continue;
		}
		i++;
		if (i >= len)
			break;
		type = buf[i++];
		if (i >= len || buf[i] != ' ') {
			while (i < len && buf[i] != '\n')
				i++;
			i++;
			continue;
		}
		i++;
		n = 0;
		while (n < sizeof(name) && i < len && buf[i] != '\n')
			name[n++] = buf[i++];
		if (n == sizeof(name))
			n--;  /* perf's buffer holds KSYM_NAME_LEN+1 bytes, the last becomes the NUL */
		name[n] = '\0';
		if (i < len && buf[i] == '\n')
			i++;
		r = fn(arg, name, type, start);
		if (r)
			return r;
	}
	return 0;
}

struct kload {
	struct pk_symbols *s;
	struct sym_rawvec rv;
	uint64_t text_addr, stext_addr;
	int nonzero, err;
};

static int kload_fn(void *arg, const char *name, char type, uint64_t start)
{
	struct kload *k = arg;
	int t = toupper((unsigned char)type);
	uint8_t bind;

	if (start)
		k->nonzero = 1;
	if (!strcmp(name, "_text"))
		k->text_addr = start;
	else if (!strcmp(name, "_stext"))
		k->stext_addr = start;
	if (t != 'T' && t != 'W' && t != 'D' && t != 'B')
		return 0;
	if (name[0] == '$')
		return 0;
	bind = type == 'W' || type == 'w' ? STB_WEAK : isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL;
	k->err = sym_rawvec_push(&k->rv, start, 0, sym_arena_strdup(&k->s->arena, name), bind,
				 (t == 'T' || t == 'W') ? STT_FUNC : STT_OBJECT);
	return k->err;
}

/*
 * Another kernel's kallsyms in the build-id cache, as perf 6.1's
 * dso__find_kallsyms looks for them last: made s->kallsyms_path; 1 if there.
 */
static int cached_kallsyms(struct pk_symbols *s)
{
	const struct sym_dso *k = s->kernel;
	char path[4096], sbid[2 * 20 + 1];
	char *dup;
	struct stat st;

	if (!s->home || !k->pub.build_id_size || k->pub.build_id_size > 20)
		return 0;
	pk_fmt_bytes_hex(sbid, k->pub.build_id, k->pub.build_id_size);
	if ((size_t)snprintf(path, sizeof(path), "%s/.debug/[kernel.kallsyms]/%s/kallsyms", s->home,
			     sbid) >= sizeof(path) || stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	if (!(dup = strdup(path))) {
		sym_out_of_memory(s);   /* warned: the kernel's addresses stay unresolved */
		return 0;
	}
	free(s->kallsyms_path);
	s->kallsyms_path = dup;
	return 1;
}

/*
 * 1: load this machine's kallsyms (or the cached ones of the file's kernel)
 * as the kernel's symbols; 2: the file comes from another kernel that the
 * file gives no build-id for: read them only for the kernel map's extent
 * (perf 6.1 then loads the running kernel's kallsyms anyway and bounds the
 * kernel map by them, so addresses outside print [unknown]); 0: do not read
 * them (--symfs, or another kernel's build-id not in the cache: perf finds
 * no kallsyms and keeps the recorded map).
 */
static int kallsyms_usable(struct pk_symbols *s)
{
	if (s->kallsyms_ok >= 0)
		return s->kallsyms_ok;
	s->kallsyms_ok = 0;
	if (s->opts.kallsyms)
		s->kallsyms_ok = 1;      /* an explicit file is trusted */
	else if (s->symfs[0])
		s->kallsyms_ok = 0;      /* perf: no local files under --symfs */
	else if (sym_same_kernel(s))
		s->kallsyms_ok = 1;
	else if (!s->kernel || !s->kernel->pub.build_id_size)
		s->kallsyms_ok = 2;      /* perf's dso__find_kallsyms: no build-id, running kernel's */
	else
		s->kallsyms_ok = cached_kallsyms(s);
	return s->kallsyms_ok;
}

static struct sym_map *module_map(struct pk_symbols *s, const char *mod)
{
	size_t i;

	for (i = 0; i < s->kmaps->n; i++) {
		struct sym_map *m = s->kmaps->v[i];

		if (!strcmp(m->pub.dso->short_name, mod) &&
		    ((struct sym_dso *)m->pub.dso)->kind == SYM_DSO_MODULE)
			return m;
	}
	return NULL;
}

/* Module symbols go to their module's DSO (or, with @drop_only, are just removed). */
static void split_modules(struct pk_symbols *s, struct sym_rawvec *rv, int drop_only)
{
	struct sym_rawvec mod = { 0 };
	size_t i, out = 0;

	for (i = 0; i < rv->n; i++) {
		const char *tab = strchr(rv->v[i].name, '\t');
		struct sym_map *m;

		if (!tab) {
			rv->v[out++] = rv->v[i];
			continue;
		}
		if (drop_only)
			continue;
		m = module_map(s, tab + 1);
		if (!m)
			continue;   /* perf: /proc/{kallsyms,modules} inconsistency, symbol dropped */
		mod.n = 0;
		mod.next_idx = 0;
		{
			struct sym_dso *d = (struct sym_dso *)m->pub.dso;
			size_t j = i;
			uint64_t base = m->pub.start;

			/* all consecutive symbols of this module */
			for (; j < rv->n; j++) {
				const char *t2 = strchr(rv->v[j].name, '\t');

				if (!t2 || strcmp(t2 + 1, tab + 1))
					continue;
				if (sym_rawvec_push(&mod, rv->v[j].start - base,
						    rv->v[j].end - rv->v[j].start,
						    sym_arena_strndup(&s->arena, rv->v[j].name,
								      (size_t)(t2 - rv->v[j].name)),
						    rv->v[j].bind, rv->v[j].type))
					break;
				rv->v[j].name = "\t";  /* consumed */
			}
			if (!d->pub.has_symbols) {
				sym_rawvec_sort(&mod);
				sym_dso_set_syms(s, d, &mod);
			}
			d->pub.loaded = 1;
		}
	}
	rv->n = out;
	sym_rawvec_release(&mod);
}

/*
 * perf's map__fixup_start/end after kallsyms loaded: the kernel map spans
 * the kernel's symbols [first start, last end). With no kernel MMAP in the
 * file, perf made the map from the running kernel: make it here.
 */
static void fixup_kernel_map(struct pk_symbols *s, struct sym_dso *d, uint64_t start,
			     uint64_t end)
{
	struct sym_map *m = s->kernel_map;

	if (!m) {
		m = sym_arena_alloc(&s->arena, sizeof(*m));
		if (!m)
			return;
		memset(m, 0, sizeof(*m));
		m->pub.start = start;
		m->pub.end = end;
		m->pub.dso = &d->pub;
		m->pub.prot = PROT_EXEC;
		m->identity = 1;
		if (sym_maps_insert(s, s->kmaps, m) == 0)
			s->kernel_map = m;
		return;
	}
	m->pub.start = start;
	m->pub.end = end;
}

int sym_kallsyms_load(struct pk_symbols *s)
{
	struct kload k;
	struct pk_buf b;
	struct sym_dso *d = s->kernel;
	uint64_t delta = 0, ref;
	size_t i;
	int err, mode;

	if (!d || !(mode = kallsyms_usable(s)))
		return 0;
	memset(&k, 0, sizeof(k));
	k.s = s;
	pk_buf_init(&b);
	err = pk_file_read_all(s->kallsyms_path, &b, KALLSYMS_MAX);
	if (err) {
		pk_buf_release(&b);
		return mode == 1 ? err : 0;
	}
	sym_kallsyms_parse(b.data ? b.data : "", b.len, kload_fn, &k);
	pk_buf_release(&b);
	if (k.err || !k.nonzero) {
		/* kptr_restrict: every address reads 0, nothing can be resolved */
		sym_rawvec_release(&k.rv);
		return k.err;
	}
	s->kallsyms_read = 1;
	/* the kernel may sit elsewhere than when recorded (KASLR): perf's kallsyms__delta */
	ref = k.text_addr ? k.text_addr : k.stext_addr;
	if (s->kernel_ref_addr && ref)
		delta = ref - s->kernel_ref_addr;
	sym_rawvec_sort(&k.rv);
	sym_fixup_end(&k.rv, 1);
	if (sym_fixup_duplicate(&k.rv)) {
		sym_rawvec_release(&k.rv);
		return -ENOMEM;
	}
	/* another kernel's file: its modules keep no symbols, the names are not used */
	split_modules(s, &k.rv, mode == 2);
	for (i = 0; i < k.rv.n; i++) {
		k.rv.v[i].start -= delta;
		k.rv.v[i].end -= delta;
	}
	if (k.rv.n)
		fixup_kernel_map(s, d, k.rv.v[0].start, k.rv.v[k.rv.n - 1].end);
	if (mode == 1) {
		d->pub.symsrc = s->kallsyms_path;
		err = sym_dso_set_syms(s, d, &k.rv);
	}
	sym_rawvec_release(&k.rv);
	return err;
}
