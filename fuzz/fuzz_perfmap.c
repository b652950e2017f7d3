/*
 * libFuzzer target for the symbols module's text parsers: the same bytes go
 * to the perf-<pid>.map parser (JIT symbols) and to the /proc/kallsyms
 * parser. Neither may crash, read out of bounds, loop or hand a callback a
 * name that is not NUL-terminated within the length it reports.
 */
#include <stdlib.h>
#include <string.h>
#include "symbols/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int pm_cb(void *arg, uint64_t start, uint64_t sz, const char *name, size_t n)
{
	(void)start;
	(void)sz;
	if (strlen(name) != n)
		abort();
	++*(int *)arg;
	return 0;
}

static int ks_cb(void *arg, const char *name, char type, uint64_t start)
{
	(void)type;
	(void)start;
	if (strlen(name) > 512)
		abort();
	++*(int *)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int n = 0, k = 0, r;

	r = sym_perfmap_parse((const char *)data, size, pm_cb, &n);
	if (r >= 0 && r != n)
		abort();
	sym_kallsyms_parse((const char *)data, size, ks_cb, &k);
	if ((size_t)k > size)
		abort();
	return 0;
}
