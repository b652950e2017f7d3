/*
 * pk-slow-open.so: slow file opens on demand, loaded with LD_PRELOAD into
 * perfkit so that a test can make loading symbols take as long as it does
 * on a loaded machine or under a sanitizer. Every open() or open64() of a
 * path that contains $PK_SLOW_OPEN_MATCH (default ".so") sleeps
 * $PK_SLOW_OPEN_MS milliseconds (default 0: no delay) before it opens,
 * with libc's open() (the same as open64() on 64-bit systems).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*open_fn)(const char *, int, ...);

static void maybe_sleep(const char *path)
{
	const char *ms = getenv("PK_SLOW_OPEN_MS"), *match = getenv("PK_SLOW_OPEN_MATCH");
	long n = ms ? strtol(ms, NULL, 10) : 0;
	struct timespec ts;

	if (n <= 0 || !path || !strstr(path, match && *match ? match : ".so"))
		return;
	ts.tv_sec = n / 1000;
	ts.tv_nsec = n % 1000 * 1000000L;
	while (nanosleep(&ts, &ts))
		;
}

int open(const char *path, int flags, ...)
{
	open_fn real = (open_fn)dlsym(RTLD_NEXT, "open");
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	maybe_sleep(path);
	return real(path, flags, mode);
}

/* the same function on 64-bit systems, which programs built with large-file support call */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));
