/*
 * perf script -F srccode (Linux perf 6.1): after a sample's line, the line
 * of source at its address, "|%-8d %s": the line's number and its text,
 * read from the source file the line tables name. As perf does, a thread
 * does not repeat the line it printed last (its srccode_state), and
 * nothing is printed where the file cannot be read or has no such line.
 * Source files are read once and kept, at most SRCCODE_MAX_FILES of them
 * (the oldest goes), each up to SRCCODE_MAX_BYTES.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/core.h>
#include "script/internal.h"

#define SRCCODE_MAX_FILES 32
#define SRCCODE_MAX_BYTES (64u << 20)

/* A source file read whole, with where each line starts. */
struct src_file {
	const char *path;            /* the line tables' (interned by the symbols: compared by pointer) */
	struct pk_buf text;
	size_t *starts;              /* offset of line i + 1 */
	size_t nr_lines;
	int unreadable;              /* could not be read: nothing to print from it */
};

/* What a thread printed last (perf's srccode_state). */
struct src_state {
	const struct pk_thread *thread;
	const char *file;
	uint32_t line;
};

struct pk_srccode {
	struct src_file files[SRCCODE_MAX_FILES];
	size_t nr_files, next_evict;
	struct src_state *states;    /* open addressing by thread pointer */
	size_t states_cap, nr_states;
};

static void file_release(struct src_file *f)
{
	pk_buf_release(&f->text);
	free(f->starts);
	memset(f, 0, sizeof(*f));
}

void pk_srccode_free(struct pk_srccode *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->nr_files; i++)
		file_release(&sc->files[i]);
	free(sc->states);
	free(sc);
}

/* Read @path and index its lines into @f. */
static void file_load(struct src_file *f, const char *path)
{
	size_t n = 1;

	memset(f, 0, sizeof(*f));
	f->path = path;
	pk_buf_init(&f->text);
	if (pk_file_read_all(path, &f->text, SRCCODE_MAX_BYTES) < 0) {
		f->unreadable = 1;
		return;
	}
	for (size_t i = 0; i + 1 < f->text.len; i++)
		n += f->text.data[i] == '\n';
	f->starts = f->text.len ? malloc(n * sizeof(*f->starts)) : NULL;
	if (!f->starts) {
		f->unreadable = 1;
		return;
	}
	f->starts[f->nr_lines++] = 0;
	for (size_t i = 0; i + 1 < f->text.len; i++)
		if (f->text.data[i] == '\n')
			f->starts[f->nr_lines++] = i + 1;
}

/* The file @path, read on first use (the oldest of a full cache makes room). */
static struct src_file *file_get(struct pk_srccode *sc, const char *path)
{
	struct src_file *f;

	for (size_t i = 0; i < sc->nr_files; i++)
		if (sc->files[i].path == path || !strcmp(sc->files[i].path, path))
			return &sc->files[i];
	if (sc->nr_files < SRCCODE_MAX_FILES) {
		f = &sc->files[sc->nr_files++];
	} else {
		f = &sc->files[sc->next_evict];
		sc->next_evict = (sc->next_evict + 1) % SRCCODE_MAX_FILES;
		file_release(f);
	}
	file_load(f, path);
	return f;
}

/* Thread @t's state, made when new; NULL when out of memory. */
static struct src_state *state_of(struct pk_srccode *sc, const struct pk_thread *t)
{
	size_t mask, i;

	if ((sc->nr_states + 1) * 2 > sc->states_cap) {
		size_t ncap = sc->states_cap ? sc->states_cap * 2 : 64;
		struct src_state *ns = calloc(ncap, sizeof(*ns));

		if (!ns)
			return NULL;
		for (size_t k = 0; k < sc->states_cap; k++) {
			if (!sc->states[k].thread)
				continue;
			for (i = ((uintptr_t)sc->states[k].thread >> 4) & (ncap - 1); ns[i].thread;
			     i = (i + 1) & (ncap - 1))
				;
			ns[i] = sc->states[k];
		}
		free(sc->states);
		sc->states = ns;
		sc->states_cap = ncap;
	}
	mask = sc->states_cap - 1;
	for (i = ((uintptr_t)t >> 4) & mask; sc->states[i].thread; i = (i + 1) & mask)
		if (sc->states[i].thread == t)
			return &sc->states[i];
	sc->states[i].thread = t;
	sc->nr_states++;
	return &sc->states[i];
}

int pk_srccode_print(struct pk_srccode **scp, struct pk_symbols *syms, const struct pk_thread *t,
		     const struct pk_location *loc, struct pk_obuf *o)
{
	struct pk_srccode *sc = *scp;
	struct pk_srcline sl;
	struct src_state *st;
	struct src_file *f;
	size_t from, to;

	if (!loc->map || !loc->dso || pk_symbols_srcline(syms, loc, &sl, 1) < 1 || !sl.file)
		return 0;
	if (!sc && !(sc = *scp = calloc(1, sizeof(*sc))))
		return -ENOMEM;
	if (!(st = state_of(sc, t)))
		return -ENOMEM;
	if (st->file && !strcmp(st->file, sl.file) && st->line == sl.line)
		return 0;                       /* the thread's last line: not again */
	f = file_get(sc, sl.file);
	if (f->unreadable || sl.line == 0 || sl.line > f->nr_lines)
		return 0;
	from = f->starts[sl.line - 1];
	to = sl.line < f->nr_lines ? f->starts[sl.line] - 1 : f->text.len;
	if (to > from && f->text.data[to - 1] == '\n')
		to--;                           /* the last line's own newline */
	pk_obuf_putc(o, '|');
	pk_obuf_uint(o, sl.line, -8);
	pk_obuf_putc(o, ' ');
	pk_obuf_write(o, f->text.data + from, to - from);
	pk_obuf_putc(o, '\n');
	st->file = sl.file;
	st->line = sl.line;
	return 0;
}
