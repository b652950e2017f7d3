/*
 * Build-ids of files, for perf.data's BUILD_ID feature: from an ELF file's
 * SHT_NOTE sections (libelf), or from a file of raw ELF notes as the kernel
 * exports them (/sys/kernel/notes for vmlinux, /sys/module/M/notes/ for
 * modules), or from this process's vdso image, which is the running kernel's
 * [vdso] (perf records its build-id too). Note layout (ELF gABI): u32 namesz, u32 descsz, u32 type, name
 * padded to 4, desc padded to 4; the build-id is type NT_GNU_BUILD_ID (3)
 * with name "GNU".
 */
#include <elf.h>
#include <errno.h>
#include <string.h>
#include "internal.h"

#define NOTES_MAX 65536

int pk_build_id_of_elf(const char *path, uint8_t *bid, size_t max)
{
	return sym_elf_read_build_id(path, bid, max);
}

int pk_build_id_of_vdso(uint8_t *bid, size_t max)
{
	return sym_vdso_build_id(bid, max);
}

int pk_build_id_of_notes(const char *path, uint8_t *bid, size_t max)
{
	struct pk_buf b;
	size_t off = 0;
	int err;

	pk_buf_init(&b);
	if ((err = pk_file_read_all(path, &b, NOTES_MAX))) {
		pk_buf_release(&b);
		return err;
	}
	err = -ENOENT;
	while (pk_range_ok(off, 12, b.len)) {
		uint32_t nh[3];
		size_t name_off = off + 12, desc_off;

		memcpy(nh, b.data + off, sizeof(nh));
		desc_off = name_off + ((nh[0] + 3ULL) & ~3ULL);
		if (!pk_range_ok(name_off, nh[0], b.len) || !pk_range_ok(desc_off, nh[1], b.len))
			break;
		if (nh[2] == NT_GNU_BUILD_ID && nh[0] == 4 && !memcmp(b.data + name_off, "GNU", 4) &&
		    nh[1]) {
			size_t n = nh[1] < max ? nh[1] : max;

			memcpy(bid, b.data + desc_off, n);
			err = (int)n;
			break;
		}
		off = desc_off + ((nh[1] + 3ULL) & ~3ULL);
	}
	pk_buf_release(&b);
	return err;
}
