/*
 * JIT symbols from /tmp/perf-<pid>.map, the text file JITs write for perf:
 * one "START SIZE name" line per function, START and SIZE in hex (strtoull
 * base 16: optional 0x). Parsed like perf 6.1's dso__load_perf_map(): the
 * last character of each line is dropped as its newline, lines too short to
 * hold a name are skipped, names are not demangled and sizes are not fixed up.
 */
#include <errno.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/internal.h"

#define PERFMAP_MAX (1u << 30)

/*
 * Layout of one line (text; perf's util/symbol.c dso__load_perf_map):
 *   field | form
 *   start | hex (strtoull base 16), one separator character
 *   size  | hex, one separator character
 *   name  | the rest of the line (at least 2 characters before the newline)
 */
int sym_perfmap_parse(const char *buf, size_t len, sym_perfmap_fn fn, void *arg)
{
	size_t pos = 0;
	char *line = NULL;
	size_t cap = 0;
	int nr = 0;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) + 1 : len - pos;
		uint64_t start, size;
		size_t l, k;
		char *end;
		int r;

		if (ll + 1 > cap) {
			char *p = realloc(line, ll + 1);

			if (!p) {
				free(line);
				return -ENOMEM;
			}
			line = p;
			cap = ll + 1;
		}
		memcpy(line, buf + pos, ll);
		pos += ll;
		line[--ll] = '\0';   /* the newline, or the last character */
		start = strtoull(line, &end, 16);
		l = (size_t)(end - line) + 1;
		if (l + 2 >= ll)
			continue;
		size = strtoull(line + l, &end, 16);
		l = (size_t)(end - line) + 1;
		if (l + 2 >= ll)
			continue;
		k = strlen(line + l);
		r = fn(arg, start, size, line + l, k);
		if (r < 0) {
			free(line);
			return r;
		}
		nr++;
	}
	free(line);
	return nr;
}

struct pmload {
	struct pk_symbols *s;
	struct sym_rawvec rv;
};

static int pm_fn(void *arg, uint64_t start, uint64_t size, const char *name, size_t n)
{
	struct pmload *p = arg;

	return sym_rawvec_push(&p->rv, start, size, sym_arena_strndup(&p->s->arena, name, n),
			       STB_GLOBAL, STT_FUNC);
}

int sym_perfmap_load(struct pk_symbols *s, struct sym_dso *d)
{
	struct pmload p = { .s = s };
	struct pk_buf b;
	char path[4096];
	int pid, err;

	if (sscanf(d->pub.name, "/tmp/perf-%d.map", &pid) != 1)
		return 0;
	snprintf(path, sizeof(path), "%s/perf-%d.map", s->tmp_dir, pid);
	pk_buf_init(&b);
	err = pk_file_read_all(path, &b, PERFMAP_MAX);
	if (!err)
		err = sym_perfmap_parse(b.data ? b.data : "", b.len, pm_fn, &p);
	pk_buf_release(&b);
	if (err > 0) {
		sym_rawvec_sort(&p.rv);
		d->pub.symsrc = sym_arena_strdup(&s->arena, path);
		err = sym_dso_set_syms(s, d, &p.rv);
	}
	sym_rawvec_release(&p.rv);
	return err < 0 ? err : 0;
}
