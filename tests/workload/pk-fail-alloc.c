/*
 * pk-fail-alloc.so: allocation failure on demand, loaded with LD_PRELOAD
 * into perfkit so that a test can make each of its allocations fail in
 * turn. It stands in front of malloc, calloc, realloc, posix_memalign,
 * aligned_alloc, memalign, strdup and strndup, and counts the calls made
 * by the main program itself (the caller's address lies in the
 * executable's code: perfkit and the library linked into it, not libc or
 * the libraries it loads), in a program named perfkit only. With
 * $PK_FAIL_ALLOC=N the Nth counted call fails (NULL, errno ENOMEM) and
 * every other call is served by libc. With $PK_FAIL_ALLOC_COUNT naming a
 * file, the number of counted calls is written there at exit, so that the
 * test knows how many places a run can fail at.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);

static uintptr_t text_lo, text_hi;      /* the main program's executable segments */
static unsigned long fail_at;           /* 0: none */
static unsigned long counted;

static int main_program_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (!text_lo || lo < text_lo)
			text_lo = lo;
		if (lo + ph->p_memsz > text_hi)
			text_hi = lo + ph->p_memsz;
	}
	return 1;   /* the first object is the main program: stop there */
}

/* Only perfkit counts: not a wrapper such as timeout(1), nor the commands perfkit runs. */
__attribute__((constructor)) static void fail_alloc_init(void)
{
	const char *n = getenv("PK_FAIL_ALLOC");
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *base;

	if (len <= 0)
		return;
	exe[len] = '\0';
	base = strrchr(exe, '/');
	if (strcmp(base ? base + 1 : exe, "perfkit"))
		return;
	fail_at = n ? strtoul(n, NULL, 10) : 0;
	dl_iterate_phdr(main_program_text, NULL);
}

__attribute__((destructor)) static void fail_alloc_report(void)
{
	const char *path = getenv("PK_FAIL_ALLOC_COUNT");
	char line[32];
	int fd, len;

	if (!path || (fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return;
	len = snprintf(line, sizeof(line), "%lu\n", __atomic_load_n(&counted, __ATOMIC_RELAXED));
	if (write(fd, line, (size_t)len) != len)
		len = 0;
	close(fd);
}

/* Whether the call from @caller fails: the main program's Nth call does. */
static int fails(const void *caller)
{
	uintptr_t at = (uintptr_t)caller;

	if (at < text_lo || at >= text_hi)
		return 0;
	if (__atomic_add_fetch(&counted, 1, __ATOMIC_RELAXED) != fail_at)
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t size)
{
	return fails(__builtin_return_address(0)) ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	return fails(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	return fails(__builtin_return_address(0)) ? NULL : __libc_realloc(p, size);
}

void *memalign(size_t align, size_t size)
{
	return fails(__builtin_return_address(0)) ? NULL : __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	return fails(__builtin_return_address(0)) ? NULL : __libc_memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	if (fails(__builtin_return_address(0)))
		return ENOMEM;
	p = __libc_memalign(align, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

char *strndup(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *p;

	if (fails(__builtin_return_address(0)) || !(p = __libc_malloc(n + 1)))
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *strdup(const char *s)
{
	size_t n = strlen(s);
	char *p;

	if (fails(__builtin_return_address(0)) || !(p = __libc_malloc(n + 1)))
		return NULL;
	return memcpy(p, s, n + 1);
}
