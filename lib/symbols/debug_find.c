/*
 * Where a DSO's symbols may live, in the order perf 6.1's dso__load() tries
 * them (binary_type_symtab[]): the .gnu_debuglink target (next to the binary,
 * in its .debug/, under /usr/lib/debug/<dir>), the build-id cache
 * (~/.debug/.build-id/xx/rest[/elf|/debug]), /usr/lib/debug/<path>.debug,
 * /usr/lib/debug/<path>, /usr/lib/debug/.build-id/xx/rest.debug, and the
 * binary itself (with the --symfs prefix).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbols/internal.h"

static int is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int sym_read_debuglink(const char *path, char *out, size_t sz)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int err = -ENOENT;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	errno = 0;              /* libelf leaves ENOMEM when an allocation of its failed */
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;
		size_t n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".gnu_debuglink"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || !data->d_size)
			break;
		n = strnlen(data->d_buf, data->d_size);
		if (n == 0 || n >= sz)
			break;
		memcpy(out, data->d_buf, n);
		out[n] = '\0';
		err = 0;
		break;
	}
out:
	if (err && errno == ENOMEM)
		err = -ENOMEM;
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

int sym_debug_candidates(struct pk_symbols *s, const struct sym_dso *d,
			 int (*fn)(void *arg, const char *path, int is_binary), void *arg,
			 int *out_of_memory)
{
	const char *name = d->pub.name;
	char bin[4096], p[4096], link[1024], sbid[41];
	int r, link_err = -ENOENT, has_bid = d->pub.build_id_size > 0;

	snprintf(bin, sizeof(bin), "%s%s", s->symfs, name);
	if (has_bid)
		pk_fmt_bytes_hex(sbid, d->pub.build_id, d->pub.build_id_size);

	/* 1. .gnu_debuglink */
	if (name[0] == '/' && is_regular(bin)) {
		link_err = sym_read_debuglink(bin, link, sizeof(link));
		*out_of_memory |= link_err == -ENOMEM;  /* the others are tried: the caller says so */
	}
	if (!link_err) {
		const char *slash = strrchr(bin, '/');
		int dl = slash ? (int)(slash - bin) : 0;
		int i;

		for (i = 0; i < 4; i++) {
			switch (i) {
			case 0: snprintf(p, sizeof(p), "%s", link); break;
			case 1: snprintf(p, sizeof(p), "%.*s/%s", dl, bin, link); break;
			case 2: snprintf(p, sizeof(p), "%.*s/.debug/%s", dl, bin, link); break;
			default: snprintf(p, sizeof(p), "/usr/lib/debug%.*s/%s", dl, bin, link); break;
			}
			if (is_regular(p)) {
				if ((r = fn(arg, p, 0)) != 0)
					return r;
				break;
			}
		}
	}
	/* 2, 3. the build-id cache */
	if (has_bid && s->home) {
		const char *base = d->kind == SYM_DSO_VDSO ? "vdso" : "elf";

		snprintf(p, sizeof(p), "%s/.debug/.build-id/%.2s/%s", s->home, sbid, sbid + 2);
		if (is_regular(p)) {
			if ((r = fn(arg, p, 0)) != 0)
				return r;
		} else {
			snprintf(p, sizeof(p), "%s/.debug/.build-id/%.2s/%s/%s", s->home, sbid, sbid + 2, base);
			if (is_regular(p) && (r = fn(arg, p, 0)) != 0)
				return r;
			snprintf(p, sizeof(p), "%s/.debug/.build-id/%.2s/%s/debug", s->home, sbid, sbid + 2);
			if (is_regular(p) && (r = fn(arg, p, 0)) != 0)
				return r;
		}
	}
	if (name[0] == '/') {
		/* 4. Fedora: /usr/lib/debug/<path>.debug; 5. Ubuntu: /usr/lib/debug/<path> */
		snprintf(p, sizeof(p), "%s/usr/lib/debug%s.debug", s->symfs, name);
		if (is_regular(p) && (r = fn(arg, p, 0)) != 0)
			return r;
		snprintf(p, sizeof(p), "%s/usr/lib/debug%s", s->symfs, name);
		if (is_regular(p) && (r = fn(arg, p, 0)) != 0)
			return r;
	}
	/* 6. /usr/lib/debug/.build-id/xx/rest.debug */
	if (has_bid) {
		snprintf(p, sizeof(p), "%s/usr/lib/debug/.build-id/%.2s/%s.debug", s->symfs, sbid, sbid + 2);
		if (is_regular(p) && (r = fn(arg, p, 0)) != 0)
			return r;
	}
	/* 7. the binary itself */
	if (is_regular(bin) && (r = fn(arg, bin, 1)) != 0)
		return r;
	return 0;
}
