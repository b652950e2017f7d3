/*
 * The [vdso] image of this process, used for the symbols of a recorded
 * "[vdso]" DSO as perf 6.1 does (vdso.c: it copies the running process's
 * vdso out of memory): the kernel maps the same vdso into every process, so
 * when the file was recorded on this machine's kernel (same osrelease, or
 * unknown) or its build-id matches, the image in our own address space is the
 * one that ran.
 *
 * The image is found with getauxval(AT_SYSINFO_EHDR) and its length is the
 * [vdso] mapping's in /proc/self/maps, or, failing that, the extent its own
 * ELF headers give (program headers' PT_LOAD ends, the section header
 * table). It is copied so that libelf's elf_memory() may work on it freely.
 */
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include "symbols/internal.h"

#define VDSO_MAX (16u << 20)   /* a vdso is a few pages; refuse anything absurd */

/* Length of the mapping that starts at @base, from /proc/self/maps; 0 unknown. */
static size_t maps_len(uintptr_t base)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	size_t len = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base && hi > lo) {
			len = hi - lo;
			break;
		}
	}
	fclose(f);
	return len;
}

/*
 * Extent of the image by its own headers (the kernel's image, in our own
 * memory: the headers are the kernel's, not input bytes).
 *   offset | size          | field
 *   e_phoff| phnum*phentsz | program headers: PT_LOAD p_offset + p_filesz
 *   e_shoff| shnum*shentsz | section header table (the image's end)
 */
static size_t header_len(const unsigned char *base)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	size_t end, i;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_phentsize != sizeof(ElfW(Phdr)))
		return 0;
	end = (size_t)eh->e_phoff + (size_t)eh->e_phnum * eh->e_phentsize;
	for (i = 0; i < eh->e_phnum; i++) {
		const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff + i * sizeof(*ph));

		if (ph->p_type == PT_LOAD && (size_t)(ph->p_offset + ph->p_filesz) > end)
			end = (size_t)(ph->p_offset + ph->p_filesz);
	}
	if ((size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize > end)
		end = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	return end <= VDSO_MAX ? end : 0;
}

int sym_vdso_image(void **image, size_t *size)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	size_t len;
	void *copy;

	*image = NULL;
	*size = 0;
	if (!base)
		return -ENOENT;
	len = maps_len(base);
	if (!len)
		len = header_len((const unsigned char *)base);
	if (!len || len > VDSO_MAX)
		return -ENOENT;
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, (const void *)base, len);
	*image = copy;
	*size = len;
	return 0;
}

int sym_vdso_same_kernel(const struct pk_symbols *s)
{
	struct utsname u;

	return !s->osrelease || (uname(&u) == 0 && !strcmp(u.release, s->osrelease));
}
