/*
 * pk-fail-alloc.so: allocation failure on demand, loaded with LD_PRELOAD
 * into perfkit so that a test can make each of its allocations fail in
 * turn. It stands in front of malloc, calloc, realloc, posix_memalign,
 * aligned_alloc, memalign, strdup and strndup, and of the libc calls that
 * allocate for their caller (fopen, fdopen, opendir, fdopendir, realpath
 * with no buffer, regcomp), and counts the calls made by the main program
 * itself (the caller's address lies in the executable's code: perfkit and
 * the library linked into it, not libc or the libraries it loads), in a
 * program named perfkit only. $PK_FAIL_ALLOC_LIBS, a list of library
 * names separated by ':' ("libxml2:libzstd"), counts the calls made from
 * those libraries' code as well: their own allocations, which they report
 * to perfkit as errors of their own. With $PK_FAIL_ALLOC=N the Nth counted
 * call fails (NULL or an error code, errno ENOMEM) and every other call is
 * served by libc. With $PK_FAIL_ALLOC_COUNT naming a file, the number of
 * counted calls is written there at exit, so that the test knows how many
 * places a run can fail at; with $PK_FAIL_ALLOC_WHERE naming one, the call
 * that fails writes there its name and where it was called from ("fopen
 * perfkit+0x4a2f1", an address addr2line takes).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);

static int active;                      /* this program is perfkit */
static unsigned long fail_at;           /* 0: none */
static unsigned long counted;
static const char *also_libs;           /* $PK_FAIL_ALLOC_LIBS */

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
	also_libs = getenv("PK_FAIL_ALLOC_LIBS");
	active = 1;
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

/* One executable segment of a loaded object, and whether calls from it count. */
struct code_range {
	uintptr_t lo, hi;
	int counts;
};

static struct code_range ranges[64];    /* the segments calls came from so far */
static unsigned n_ranges;

/*
 * Whether calls from the object @path count: the main program's (dl_iterate_phdr
 * names it "") and those of the libraries $PK_FAIL_ALLOC_LIBS names.
 */
static int object_counts(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *p, *end;

	if (!*path)
		return 1;
	for (p = also_libs ? also_libs : ""; *p; p = *end ? end + 1 : end) {
		size_t len;

		end = strchrnul(p, ':');
		len = (size_t)(end - p);
		if (len && !strncmp(base, p, len) && (base[len] == '.' || base[len] == '-'))
			return 1;
	}
	return 0;
}

/* A caller's address, and whether calls from there count. */
struct lookup {
	uintptr_t at;
	int counts;
};

/*
 * dl_iterate_phdr: the executable segment holding the caller, kept in
 * ranges[] (under the loader's lock, which dl_iterate_phdr holds: one
 * thread adds at a time, and readers see an entry once it is whole).
 */
static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lookup *l = arg;
	unsigned n = n_ranges;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || l->at < lo ||
		    l->at >= lo + ph->p_memsz)
			continue;
		l->counts = object_counts(info->dlpi_name);
		if (n < sizeof(ranges) / sizeof(ranges[0])) {
			ranges[n] = (struct code_range){ lo, lo + ph->p_memsz, l->counts };
			__atomic_store_n(&n_ranges, n + 1, __ATOMIC_RELEASE);
		}
		return 1;
	}
	return 0;
}

/*
 * Whether a call from @caller counts. Each segment is looked up once: a
 * library loaded later, as libxml2 is, at its first call.
 */
static int caller_counts(const void *caller)
{
	struct lookup l = { (uintptr_t)caller, 0 };
	unsigned i, n;

	if (!active)
		return 0;
	n = __atomic_load_n(&n_ranges, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++)
		if (l.at >= ranges[i].lo && l.at < ranges[i].hi)
			return ranges[i].counts;
	dl_iterate_phdr(find_object, &l);
	return l.counts;
}

/* Write to $PK_FAIL_ALLOC_WHERE which call, @name from @caller, failed. */
static void tell_where(const char *name, const void *caller)
{
	const char *path = getenv("PK_FAIL_ALLOC_WHERE");
	const char *obj = "?";
	uintptr_t base = 0;
	char line[512];
	Dl_info info;
	int fd, len;

	if (!path || (fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return;
	if (dladdr(caller, &info) && info.dli_fname) {
		obj = strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname;
		base = (uintptr_t)info.dli_fbase;
	}
	/* the address the call returns to, less one: inside the call instruction */
	len = snprintf(line, sizeof(line), "%s %s+%#lx\n", name, obj,
		       (unsigned long)((uintptr_t)caller - base - 1));
	if (write(fd, line, (size_t)len) != len)
		len = 0;
	close(fd);
}

/* Whether the call @name from @caller fails: the Nth counted call does. */
static int fails(const char *name, const void *caller)
{
	if (!caller_counts(caller))
		return 0;
	if (__atomic_add_fetch(&counted, 1, __ATOMIC_RELAXED) != fail_at)
		return 0;
	tell_where(name, caller);
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t size)
{
	return fails("malloc", __builtin_return_address(0)) ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	return fails("calloc", __builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	return fails("realloc", __builtin_return_address(0)) ? NULL : __libc_realloc(p, size);
}

void *memalign(size_t align, size_t size)
{
	return fails("memalign", __builtin_return_address(0)) ? NULL : __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	return fails("aligned_alloc", __builtin_return_address(0)) ? NULL : __libc_memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	if (fails("posix_memalign", __builtin_return_address(0)))
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

	if (fails("strndup", __builtin_return_address(0)) || !(p = __libc_malloc(n + 1)))
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *strdup(const char *s)
{
	size_t n = strlen(s);
	char *p;

	if (fails("strdup", __builtin_return_address(0)) || !(p = __libc_malloc(n + 1)))
		return NULL;
	return memcpy(p, s, n + 1);
}

/* libc's own version of @name, the one this library stands in front of. */
static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		abort();
	return f;
}

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);

	if (fails("fopen", __builtin_return_address(0)))
		return NULL;
	if (!real)
		real = next("fopen");
	return real(path, mode);
}

/* (the same call on a 64-bit system, where off_t is 64 bits either way) */
FILE *fopen64(const char *path, const char *mode) __attribute__((alias("fopen")));

FILE *fdopen(int fd, const char *mode)
{
	static FILE *(*real)(int, const char *);

	if (fails("fdopen", __builtin_return_address(0)))
		return NULL;
	if (!real)
		real = next("fdopen");
	return real(fd, mode);
}

DIR *opendir(const char *path)
{
	static DIR *(*real)(const char *);

	if (fails("opendir", __builtin_return_address(0)))
		return NULL;
	if (!real)
		real = next("opendir");
	return real(path);
}

DIR *fdopendir(int fd)
{
	static DIR *(*real)(int);

	if (fails("fdopendir", __builtin_return_address(0)))
		return NULL;
	if (!real)
		real = next("fdopendir");
	return real(fd);
}

/* realpath allocates only when it is given no buffer. */
char *realpath(const char *path, char *resolved)
{
	static char *(*real)(const char *, char *);

	if (!resolved && fails("realpath", __builtin_return_address(0)))
		return NULL;
	if (!real)
		real = next("realpath");
	return real(path, resolved);
}

int regcomp(regex_t *re, const char *pattern, int flags)
{
	static int (*real)(regex_t *, const char *, int);

	if (fails("regcomp", __builtin_return_address(0)))
		return REG_ESPACE;
	if (!real)
		real = next("regcomp");
	return real(re, pattern, flags);
}
