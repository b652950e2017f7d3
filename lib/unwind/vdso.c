/*
 * The vDSO for the unwinder: "[vdso]" has no file, but when the recording
 * was made on this machine's kernel the vDSO mapped into perfkit itself is
 * the same image (perf uses its own copy the same way). Its CFI lets the
 * walk leave a sample taken inside clock_gettime() and friends.
 *
 * The image comes from pk_vdso_self() (core), copied once into a
 * memfd (libdwfl reports modules from file descriptors) and used when the
 * map's build-id equals the image's, or, without a build-id, when the caller
 * said the file was recorded on this kernel (pk_unwind_opts.own_vdso).
 *
 *   ELF64 header fields read (the image is our own memory, not input):
 *   off 32 e_phoff (8), off 40 e_shoff (8), off 54 e_phentsize (2),
 *   off 56 e_phnum (2), off 58 e_shentsize (2), off 60 e_shnum (2)
 */
#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "unwind/internal.h"

/* The build-id note of the image (size 0 if none). */
static void image_build_id(const unsigned char *img, size_t size, uint8_t *out, uint8_t *out_size)
{
	Elf64_Ehdr eh;

	*out_size = 0;
	memcpy(&eh, img, sizeof(eh));
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		uint64_t off = eh.e_phoff + (uint64_t)i * sizeof(ph), p, end;

		if (off > size || size - off < sizeof(ph))
			return;
		memcpy(&ph, img + off, sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset > size || size - ph.p_offset < ph.p_filesz)
			continue;
		for (p = ph.p_offset, end = ph.p_offset + ph.p_filesz; end - p >= sizeof(Elf64_Nhdr);) {
			Elf64_Nhdr nh;
			uint64_t name = p + sizeof(nh), desc;

			memcpy(&nh, img + p, sizeof(nh));
			desc = name + ((nh.n_namesz + 3ull) & ~3ull);
			if (desc > end || end - desc < nh.n_descsz)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(img + name, "GNU", 4) && nh.n_descsz && nh.n_descsz <= 20) {
				memcpy(out, img + desc, nh.n_descsz);
				*out_size = (uint8_t)nh.n_descsz;
				return;
			}
			p = desc + ((nh.n_descsz + 3ull) & ~3ull);
		}
	}
}

/* Copy this process's vDSO into a memfd once; -1 if there is none. */
static int vdso_open(struct pk_unwind *uw)
{
	const void *self;
	const unsigned char *img;
	Elf64_Ehdr eh;
	size_t size;
	int fd;

	if (uw->vdso_fd != -2)
		return uw->vdso_fd;
	uw->vdso_fd = -1;
	if (pk_vdso_self(&self, &size) || size < sizeof(eh))
		return -1;
	img = self;
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != uw->e_machine)
		return -1;
	fd = memfd_create("perfkit-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, img, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	image_build_id(img, size, uw->vdso_build_id, &uw->vdso_build_id_size);
	uw->vdso_fd = fd;
	return fd;
}

int pk_unwind_vdso_fd(struct pk_unwind *uw, const struct pk_unwind_map *m)
{
	int fd = vdso_open(uw);

	if (fd < 0)
		return -1;
	if (m->build_id && m->build_id_size) {
		uint8_t n = m->build_id_size < uw->vdso_build_id_size ? m->build_id_size
								       : uw->vdso_build_id_size;

		/* perf pads build-ids to 20 bytes: compare the image's length */
		if (!n || memcmp(m->build_id, uw->vdso_build_id, n))
			return -1;
	} else if (!uw->own_vdso) {
		return -1;
	}
	return dup(fd);
}

void pk_unwind_vdso_release(struct pk_unwind *uw)
{
	if (uw->vdso_fd >= 0)
		close(uw->vdso_fd);
	uw->vdso_fd = -2;
}
