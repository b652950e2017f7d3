/*
 * The [vdso] image of this process, used for the symbols of a recorded
 * "[vdso]" DSO as perf 6.1 does (vdso.c: it copies the running process's
 * vdso out of memory): the kernel maps the same vdso into every process, so
 * when the file was recorded on this machine's kernel (same osrelease, or
 * unknown) or its build-id matches, the image in our own address space is the
 * one that ran.
 *
 * The image comes from pk_vdso_self() (core) and is copied so that libelf's
 * elf_memory() may work on it freely.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/internal.h"

int sym_vdso_image(void **image, size_t *size)
{
	const void *self;
	size_t len;
	void *copy;
	int err;

	*image = NULL;
	*size = 0;
	if ((err = pk_vdso_self(&self, &len)))
		return err;
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, self, len);
	*image = copy;
	*size = len;
	return 0;
}

int sym_same_kernel(const struct pk_symbols *s)
{
	return !s->osrelease || pk_kernel_is_running(s->osrelease);
}
