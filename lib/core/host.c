/*
 * Facts about the machine perfkit runs on that the readers of recorded data
 * compare against: whether a recording's kernel is the running one, and the
 * running kernel's vDSO image (the kernel maps the same image into every
 * process, so ours stands for a recorded "[vdso]" of this kernel); how many
 * CPUs this process may use, for work split over threads; and the CPU's
 * vendor, for perf's per-vendor event defaults.
 */
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <perfkit/core.h>

#define PK_VDSO_MAX (16u << 20)   /* a vdso is a few pages; refuse anything absurd */

int pk_kernel_is_running(const char *osrelease)
{
	struct utsname u;

	return osrelease && uname(&u) == 0 && !strcmp(u.release, osrelease);
}

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
 * Extent of the image by its own headers (the kernel's image in our own
 * memory, not input bytes):
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
	return end;
}

int pk_vdso_self(const void **image, size_t *size)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	size_t len;

	*image = NULL;
	*size = 0;
	if (!base)
		return -ENOENT;
	len = maps_len(base);
	if (!len)
		len = header_len((const unsigned char *)base);
	if (!len || len > PK_VDSO_MAX)
		return -ENOENT;
	*image = (const void *)base;
	*size = len;
	return 0;
}

int pk_cpus_usable(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

void pk_cpu_vendor(char out[13])
{
	out[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	unsigned int eax, regs[3];

	/* leaf 0: the vendor's 12 characters in ebx, edx, ecx */
	if (__get_cpuid(0, &eax, &regs[0], &regs[2], &regs[1])) {
		memcpy(out, regs, 12);
		out[12] = '\0';
	}
#endif
}
