/*
 * ELF symbol loading through libelf, as perf 6.1's dso__load()/dso__load_sym()
 * does it: pick the first candidate file with a .symtab (debuglink, build-id
 * cache, debug dirs, the binary) and the first with a .dynsym as the
 * "runtime" file; keep functions, objects and text labels from allocated
 * sections; move each value into file-offset space (st_value - (p_vaddr -
 * p_offset) of its PT_LOAD) so that map_ip (ip - start + pgoff) finds it;
 * demangle; fix up ends and duplicates; then synthesize name@plt entries from
 * .rela.plt/.rel.plt as dso__synthesize_plt_symbols does. A [vdso] with no
 * saved copy is read from this process's own vdso image (vdso.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/internal.h"

struct symsrc {
	char *path;
	int fd;
	void *image;          /* in-memory ELF (the vdso copy), freed after elf_end */
	Elf *elf;
	GElf_Ehdr ehdr;
	Elf_Scn *symtab, *dynsym;
	GElf_Shdr symshdr, dynshdr;
	size_t dynsym_idx, shstrndx;
	int has_debug_info;
};

static void ss_close(struct symsrc *ss)
{
	if (ss->elf)
		elf_end(ss->elf);
	if (ss->fd >= 0)
		close(ss->fd);
	free(ss->image);
	free(ss->path);
	memset(ss, 0, sizeof(*ss));
	ss->fd = -1;
}

static int read_build_id_elf(Elf *elf, uint8_t *bid, size_t max)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    pk_range_ok(noff, 4, data->d_size) &&
			    memcmp((const char *)data->d_buf + noff, "GNU", 4) == 0 &&
			    pk_range_ok(doff, nh.n_descsz, data->d_size) && nh.n_descsz > 0) {
				size_t n = nh.n_descsz < max ? nh.n_descsz : max;

				memcpy(bid, (const char *)data->d_buf + doff, n);
				return (int)n;
			}
		}
	}
	return -ENOENT;
}

int sym_elf_read_build_id(const char *path, uint8_t *bid, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = -ENOENT;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	errno = 0;              /* libelf leaves ENOMEM when an allocation of its failed */
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		r = read_build_id_elf(elf, bid, max);
	if (r < 0 && errno == ENOMEM)
		r = -ENOMEM;
	if (elf)
		elf_end(elf);
	close(fd);
	return r;
}

int sym_vdso_build_id(uint8_t *bid, size_t max)
{
	void *image;
	size_t size;
	Elf *elf;
	int r;

	if ((r = sym_vdso_image(&image, &size)))
		return r;
	elf_version(EV_CURRENT);
	elf = elf_memory(image, size);
	r = elf && elf_kind(elf) == ELF_K_ELF ? read_build_id_elf(elf, bid, max) : -ENOENT;
	if (elf)
		elf_end(elf);
	free(image);
	return r;
}

/*
 * Check the ELF in ss->elf and find its symbol tables; closes @ss on
 * failure. -ENOMEM when libelf ran out of memory (it has no public error
 * code for it, but its failed allocation left errno ENOMEM: the callers
 * clear errno before elf_begin), else -ENOENT: not a usable ELF file.
 */
static int ss_setup(struct symsrc *ss, const char *path, const struct sym_dso *d)
{
	Elf_Scn *scn = NULL;
	int err;

	if (!ss->elf || elf_kind(ss->elf) != ELF_K_ELF || !gelf_getehdr(ss->elf, &ss->ehdr) ||
	    elf_getshdrstrndx(ss->elf, &ss->shstrndx))
		goto fail;
	if (d->pub.build_id_size) {
		uint8_t bid[20];
		int n = read_build_id_elf(ss->elf, bid, sizeof(bid));

		/* perf: a candidate whose build-id differs is not this DSO */
		if (n != d->pub.build_id_size || memcmp(bid, d->pub.build_id, (size_t)n))
			goto fail;
	}
	while ((scn = elf_nextscn(ss->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(ss->elf, ss->shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".symtab") && sh.sh_type == SHT_SYMTAB && !ss->symtab) {
			ss->symtab = scn;
			ss->symshdr = sh;
		} else if (!strcmp(name, ".dynsym") && sh.sh_type == SHT_DYNSYM && !ss->dynsym) {
			ss->dynsym = scn;
			ss->dynshdr = sh;
			ss->dynsym_idx = elf_ndxscn(scn);
		} else if (!strcmp(name, ".debug_info") && sh.sh_type != SHT_NOBITS) {
			ss->has_debug_info = 1;
		}
	}
	ss->path = strdup(path);
	if (!ss->path) {
		ss_close(ss);
		return -ENOMEM;
	}
	return 0;
fail:
	err = errno == ENOMEM ? -ENOMEM : -ENOENT;
	ss_close(ss);
	return err;
}

static int ss_open(struct symsrc *ss, const char *path, const struct sym_dso *d)
{
	memset(ss, 0, sizeof(*ss));
	ss->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ss->fd < 0)
		return -errno;
	errno = 0;
	ss->elf = elf_begin(ss->fd, ELF_C_READ_MMAP, NULL);
	return ss_setup(ss, path, d);
}

/* This process's vdso image, for a "[vdso]" DSO of this kernel (see vdso.c). */
static int ss_open_vdso(struct symsrc *ss, const struct sym_dso *d)
{
	size_t size;
	int err;

	memset(ss, 0, sizeof(*ss));
	ss->fd = -1;
	err = sym_vdso_image(&ss->image, &size);
	if (err)
		return err;
	errno = 0;
	ss->elf = elf_memory(ss->image, size);
	return ss_setup(ss, d->pub.name, d);
}

struct pick {
	const struct sym_dso *d;
	struct symsrc syms, runtime, dbg;
	int have_syms, have_runtime, have_dbg;
	int out_of_memory;        /* a candidate could not be looked at */
};

static int pick_fn(void *arg, const char *path, int is_binary)
{
	struct pick *p = arg;
	struct symsrc ss;
	int used = 0, err;

	(void)is_binary;
	if ((err = ss_open(&ss, path, p->d))) {
		p->out_of_memory |= err == -ENOMEM;
		return 0;
	}
	if (!p->have_dbg && ss.has_debug_info) {
		/* remember the first file with DWARF for srcline */
		p->dbg.path = strdup(path);
		p->have_dbg = p->dbg.path != NULL;
		p->out_of_memory |= !p->have_dbg;
	}
	if (!p->have_syms && ss.symtab) {
		p->syms = ss;
		p->have_syms = used = 1;
	}
	if (!p->have_runtime && ss.dynsym) {
		if (used) {
			/* the same file serves both roles: open it again for the runtime role */
			struct symsrc again;

			if ((err = ss_open(&again, path, p->d)) == 0) {
				p->runtime = again;
				p->have_runtime = 1;
			}
			p->out_of_memory |= err == -ENOMEM;
		} else {
			p->runtime = ss;
			p->have_runtime = used = 1;
		}
	}
	if (!used)
		ss_close(&ss);
	return p->have_syms && p->have_runtime;
}

/* PT_LOAD containing @vaddr (perf's elf_read_program_header). */
static int find_load(const struct sym_dso *d, uint64_t vaddr, const struct sym_load **out)
{
	size_t i;

	for (i = 0; i < d->nr_loads; i++)
		if (vaddr >= d->loads[i].vaddr && vaddr - d->loads[i].vaddr < d->loads[i].size) {
			*out = &d->loads[i];
			return 0;
		}
	return -1;
}

static void read_loads(struct sym_dso *d, Elf *elf)
{
	size_t n, i, k = 0;

	if (elf_getphdrnum(elf, &n) || n == 0 || n > 65535)
		return;
	d->loads = calloc(n, sizeof(*d->loads));
	if (!d->loads)
		return;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t sz;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		sz = ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz;
		if (!sz)
			continue;
		d->loads[k].off = ph.p_offset;
		d->loads[k].vaddr = ph.p_vaddr;
		d->loads[k].size = sz;
		k++;
	}
	d->nr_loads = k;
}

static const char *sym_name(struct pk_symbols *s, const char *raw)
{
	char *dm = s->opts.no_demangle ? NULL : sym_demangle(raw);
	const char *r;

	if (!dm)
		return sym_arena_strdup(&s->arena, raw);
	r = sym_arena_strdup(&s->arena, dm);
	free(dm);
	return r;
}

static int load_syms(struct pk_symbols *s, struct sym_dso *d, struct symsrc *syms,
		     struct symsrc *rt, struct sym_rawvec *rv)
{
	Elf_Scn *tab = syms->symtab ? syms->symtab : syms->dynsym;
	GElf_Shdr tsh = syms->symtab ? syms->symshdr : syms->dynshdr;
	Elf_Data *data = elf_getdata(tab, NULL);
	size_t nsyms, i;

	if (!data || !tsh.sh_entsize)
		return 0;
	nsyms = data->d_size / gelf_fsize(syms->elf, ELF_T_SYM, 1, EV_CURRENT);
	for (i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Shdr sh;
		Elf_Scn *sec;
		Elf *secelf = syms->elf;
		size_t secstr = syms->shstrndx;
		const char *name, *secname;
		const struct sym_load *ld;
		int type, vis, is_label, is_func;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		vis = GELF_ST_VISIBILITY(sym.st_other);
		is_func = (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT) &&
			  sym.st_name != 0 && sym.st_shndx != SHN_UNDEF;
		is_label = type == STT_NOTYPE && sym.st_name != 0 && sym.st_shndx != SHN_UNDEF &&
			   sym.st_shndx != SHN_ABS && vis != STV_HIDDEN && vis != STV_INTERNAL;
		if (!is_func && !is_label)
			continue;
		if (sym.st_shndx >= SHN_LORESERVE)
			continue;
		sec = elf_getscn(syms->elf, sym.st_shndx);
		if (!sec || !gelf_getshdr(sec, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (sh.sh_type == SHT_NOBITS && rt != syms) {
			/* a debug file's sections are NOBITS: take the runtime file's */
			sec = elf_getscn(rt->elf, sym.st_shndx);
			if (!sec || !gelf_getshdr(sec, &sh))
				continue;
			secelf = rt->elf;
			secstr = rt->shstrndx;
		}
		secname = elf_strptr(secelf, secstr, sh.sh_name);
		/* perf's elf_sec__filter: a label counts in a text or data section */
		if (is_label && (!secname || (!strstr(secname, "text") && !strstr(secname, "data"))))
			continue;
		name = elf_strptr(syms->elf, tsh.sh_link, sym.st_name);
		if (!name)
			continue;
		if (find_load(d, sym.st_value, &ld) == 0)
			sym.st_value -= ld->vaddr - ld->off;
		else
			sym.st_value -= sh.sh_addr - sh.sh_offset;
		if (sym_rawvec_push(rv, sym.st_value, sym.st_size, sym_name(s, name),
				    GELF_ST_BIND(sym.st_info), (uint8_t)type))
			return -ENOMEM;
	}
	return 0;
}

static Elf_Scn *section_by_name(struct symsrc *ss, const char *want, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(ss->elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, out))
			continue;
		name = elf_strptr(ss->elf, ss->shstrndx, out->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

static void synth_plt(struct pk_symbols *s, struct symsrc *rt, struct sym_rawvec *rv)
{
	GElf_Shdr rel_sh, plt_sh, str_sh;
	Elf_Scn *rel = section_by_name(rt, ".rela.plt", &rel_sh);
	Elf_Data *reld, *symd, *strd;
	uint64_t off, hdr, ent, nrel, i;
	char buf[1024];

	if (!rt->dynsym)
		return;
	if (!rel)
		rel = section_by_name(rt, ".rel.plt", &rel_sh);
	if (!rel || rel_sh.sh_link != rt->dynsym_idx || !rel_sh.sh_entsize ||
	    !section_by_name(rt, ".plt", &plt_sh))
		return;
	reld = elf_getdata(rel, NULL);
	symd = elf_getdata(rt->dynsym, NULL);
	if (!reld || !symd || !gelf_getshdr(elf_getscn(rt->elf, rt->dynshdr.sh_link), &str_sh))
		return;
	strd = elf_getdata(elf_getscn(rt->elf, rt->dynshdr.sh_link), NULL);
	if (!strd || !strd->d_size)
		return;
	switch (rt->ehdr.e_machine) {
	case EM_ARM: hdr = 20; ent = 12; break;
	case EM_AARCH64: hdr = 32; ent = 16; break;
	case EM_SPARC: hdr = 48; ent = 12; break;
	case EM_SPARCV9: hdr = 128; ent = 32; break;
	default: hdr = ent = plt_sh.sh_entsize; break;
	}
	off = plt_sh.sh_offset + hdr;
	nrel = rel_sh.sh_size / rel_sh.sh_entsize;
	for (i = 0; i < nrel; i++) {
		GElf_Sym sym;
		const char *name = NULL;
		char *dm = NULL;
		size_t idx;

		if (rel_sh.sh_type == SHT_RELA) {
			GElf_Rela r;

			if (!gelf_getrela(reld, (int)i, &r))
				break;
			idx = GELF_R_SYM(r.r_info);
		} else if (rel_sh.sh_type == SHT_REL) {
			GElf_Rel r;

			if (!gelf_getrel(reld, (int)i, &r))
				break;
			idx = GELF_R_SYM(r.r_info);
		} else
			break;
		if (gelf_getsym(symd, (int)idx, &sym) && sym.st_name < strd->d_size)
			name = (const char *)strd->d_buf + sym.st_name;
		if (!name || !memchr(name, 0, strd->d_size - sym.st_name))
			name = "";
		if (!s->opts.no_demangle)
			dm = sym_demangle(name);
		snprintf(buf, sizeof(buf), "%s@plt", dm ? dm : name);
		free(dm);
		if (sym_rawvec_push(rv, off, ent, sym_arena_strdup(&s->arena, buf), STB_GLOBAL,
				    STT_FUNC))
			break;
		off += ent;
	}
}

int sym_elf_load(struct pk_symbols *s, struct sym_dso *d)
{
	struct pick p;
	struct symsrc *syms, *rt;
	struct sym_rawvec rv = { 0 };
	char bin[4096];
	int err = 0;

	elf_version(EV_CURRENT);
	memset(&p, 0, sizeof(p));
	p.syms.fd = p.runtime.fd = p.dbg.fd = -1;
	p.d = d;
	/* perf reads the build-id from the binary when the file gave none */
	if (!d->pub.build_id_size && d->pub.name[0] == '/') {
		uint8_t bid[20];
		int n;

		snprintf(bin, sizeof(bin), "%s%s", s->symfs, d->pub.name);
		n = sym_elf_read_build_id(bin, bid, sizeof(bid));
		if (n > 0) {
			memcpy(d->pub.build_id, bid, (size_t)n);
			d->pub.build_id_size = (uint8_t)n;
		}
		p.out_of_memory |= n == -ENOMEM;
	}
	sym_debug_candidates(s, d, pick_fn, &p, &p.out_of_memory);
	/*
	 * [vdso] with no saved copy: perf reads the running process's vdso.
	 * With a build-id the image must match it; without one, the file must
	 * come from this kernel.
	 */
	if (!p.have_syms && !p.have_runtime && d->kind == SYM_DSO_VDSO &&
	    !strcmp(d->pub.name, "[vdso]") && (d->pub.build_id_size || sym_same_kernel(s))) {
		struct symsrc ss;
		int r = ss_open_vdso(&ss, d);

		if (r == 0) {
			if (ss.symtab || ss.dynsym) {
				p.syms = ss;
				p.have_syms = 1;
			} else {
				ss_close(&ss);
			}
		} else {
			p.out_of_memory |= r == -ENOMEM;
		}
	}
	syms = p.have_syms ? &p.syms : (p.have_runtime ? &p.runtime : NULL);
	rt = p.have_runtime ? &p.runtime : syms;
	if (p.have_dbg) {
		d->dwarf_file = sym_arena_strdup(&s->arena, p.dbg.path);
		p.out_of_memory |= !d->dwarf_file;
	}
	free(p.dbg.path);
	if (!syms)
		goto out;
	read_loads(d, rt->elf);
	d->pub.symsrc = sym_arena_strdup(&s->arena, syms->path);
	err = load_syms(s, d, syms, rt, &rv);
	if (!err && rv.n) {
		sym_rawvec_sort(&rv);
		sym_fixup_end(&rv, 0);
		err = sym_fixup_duplicate(&rv);
		if (!err) {
			synth_plt(s, rt, &rv);
			sym_rawvec_sort(&rv);
			err = sym_dso_set_syms(s, d, &rv);
		}
	}
out:
	sym_rawvec_release(&rv);
	if (p.have_syms)
		ss_close(&p.syms);
	if (p.have_runtime)
		ss_close(&p.runtime);
	/* a file that could not be looked at for want of memory: said by sym_dso_load */
	return err ? err : p.out_of_memory ? -ENOMEM : 0;
}
