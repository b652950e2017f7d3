/*
 * Small helpers for unit tests that build fixture trees of files (fake
 * /proc and /sys): make directories, write a file, make a symlink, remove
 * a tree. Failures are reported as TAP diagnostics (tap.h first).
 */
#ifndef PERFKIT_TESTS_FIXTURE_FILES_H
#define PERFKIT_TESTS_FIXTURE_FILES_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static inline void mkdirs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void mkdirs(const char *fmt, ...)
{
	char path[1024], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	for (p = path + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	}
	mkdir(path, 0755);
}

static inline void put(const char *text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void put(const char *text, const char *fmt, ...)
{
	char path[1024];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	f = fopen(path, "w");
	if (!f) {
		diag("cannot create %s", path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

static inline void lnk(const char *target, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void lnk(const char *target, const char *fmt, ...)
{
	char path[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	unlink(path);
	if (symlink(target, path) < 0)
		diag("cannot link %s", path);
}

static inline void rm_tree(const char *dir)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
}

#endif
