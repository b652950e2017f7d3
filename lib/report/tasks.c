/*
 * perf report --tasks and --mmaps: the machine's threads as a tree, each
 * under the thread that FORKed it (its ppid), with --mmaps each thread's
 * maps under it, in perf 6.1's layout:
 *
 *   "# %8s %8s %8s  %s" pid tid ppid comm, then per thread
 *   "  %8d %8d %8d |" pid tid ppid, one blank per tree level, the comm
 *   (":TID" before any COMM), and with --mmaps per map the line's indent,
 *   two blanks and "START-END rwxp PGOFF(%08x) INODE DSO-NAME".
 *
 * perf keeps its threads in 256 tables by tid % 256, each sorted by tid,
 * and walks them in that order: a thread whose chain of ppids ends at a
 * root (ppid -1) is hung under its parent, in that walk's order, and roots
 * are listed as the walk reaches them. A ppid no thread has is an error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <perfkit/report.h>
#include <perfkit/session.h>
#include <perfkit/symbols.h>

#define PERF_THREAD_TABLES 256

struct task {
	const struct pk_thread *t;
	size_t first_child, next_sibling;   /* indexes, NONE for none */
	size_t last_child;
	int listed;
};
#define NONE SIZE_MAX

struct tasks {
	struct task *v;
	size_t n, cap;
	uint32_t *by_tid;           /* indexes into v, by tid (find_tid) */
};

static int collect(void *ctx, const struct pk_thread *t)
{
	struct tasks *ts = ctx;

	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? ts->cap * 2 : 64;
		struct task *v = realloc(ts->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ts->v = v;
		ts->cap = cap;
	}
	ts->v[ts->n++] = (struct task){ .t = t, .first_child = NONE, .next_sibling = NONE,
					.last_child = NONE };
	return 0;
}

/* perf's walk order: table tid % 256 (as unsigned), then tid. */
static int walk_order(const void *a, const void *b)
{
	const struct task *x = a, *y = b;
	uint32_t tx = (uint32_t)x->t->tid % PERF_THREAD_TABLES, ty = (uint32_t)y->t->tid % PERF_THREAD_TABLES;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return (x->t->tid > y->t->tid) - (x->t->tid < y->t->tid);
}

static int tid_order(const void *a, const void *b, void *arg)
{
	const struct tasks *ts = arg;
	int32_t x = ts->v[*(const uint32_t *)a].t->tid, y = ts->v[*(const uint32_t *)b].t->tid;

	return (x > y) - (x < y);
}

/* The task of thread @tid (a machine holds one thread per tid), NONE if none. */
static size_t find_tid(const struct tasks *ts, int32_t tid)
{
	size_t lo = 0, hi = ts->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int32_t t = ts->v[ts->by_tid[mid]].t->tid;

		if (t == tid)
			return ts->by_tid[mid];
		if (t < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NONE;
}

static void add_child(struct tasks *ts, size_t parent, size_t child)
{
	struct task *p = &ts->v[parent];

	if (p->last_child == NONE)
		p->first_child = child;
	else
		ts->v[p->last_child].next_sibling = child;
	p->last_child = child;
}

/*
 * Hang @i and its not yet listed ancestors under their parents; the root
 * reached, if not listed before, is returned to be listed (NONE otherwise).
 * -ENOENT in *@err when a ppid names no thread.
 */
static size_t hang(struct tasks *ts, size_t i, int *err)
{
	for (;;) {
		struct task *k = &ts->v[i];
		size_t parent;

		if (k->listed)
			return NONE;
		if (k->t->ppid == -1)
			return i;
		parent = find_tid(ts, k->t->ppid);
		if (parent == NONE) {
			*err = -ENOENT;
			return NONE;
		}
		k->listed = 1;
		add_child(ts, parent, i);
		i = parent;
	}
}

struct map_line {
	FILE *out;
	int indent;
};

static int print_map(void *ctx, const struct pk_map *m)
{
	const struct map_line *ml = ctx;

	fprintf(ml->out, "%*s  %" PRIx64 "-%" PRIx64 " %c%c%c%c %08" PRIx64 " %" PRIu64 " %s\n",
		ml->indent, "", m->start, m->end, (m->prot & PROT_READ) ? 'r' : '-',
		(m->prot & PROT_WRITE) ? 'w' : '-', (m->prot & PROT_EXEC) ? 'x' : '-',
		(m->flags & MAP_SHARED) ? 's' : 'p', m->pgoff, m->ino, m->dso ? m->dso->name : "");
	return 0;
}

static void print_task(struct pk_symbols *syms, const struct tasks *ts, size_t i, int level,
		       int maps, FILE *out)
{
	const struct pk_thread *t = ts->v[i].t;
	struct map_line ml = { .out = out };

	ml.indent = fprintf(out, "  %8d %8d %8d |%*s", t->pid, t->tid, t->ppid, level, "");
	if (t->comm[0])
		fprintf(out, "%s\n", t->comm);
	else
		fprintf(out, ":%d\n", t->tid);
	if (maps)
		pk_symbols_foreach_map(syms, t, print_map, &ml);
	for (size_t c = ts->v[i].first_child; c != NONE; c = ts->v[c].next_sibling)
		print_task(syms, ts, c, level + 1, maps, out);
}

PK_API int pk_report_print_tasks(struct pk_session *ss, int maps, FILE *out)
{
	struct pk_symbols *syms = pk_session_symbols(ss);
	struct tasks ts = { 0 };
	size_t *roots = NULL, nr_roots = 0;
	int err = pk_symbols_foreach_thread(syms, collect, &ts);

	if (!err && ts.n && (!(roots = malloc(ts.n * sizeof(*roots))) ||
			     !(ts.by_tid = malloc(ts.n * sizeof(*ts.by_tid)))))
		err = -ENOMEM;
	if (!err) {
		qsort(ts.v, ts.n, sizeof(*ts.v), walk_order);
		for (size_t i = 0; i < ts.n; i++)
			ts.by_tid[i] = (uint32_t)i;
		qsort_r(ts.by_tid, ts.n, sizeof(*ts.by_tid), tid_order, &ts);
		for (size_t i = 0; i < ts.n && !err; i++) {
			size_t root = hang(&ts, i, &err);

			if (root != NONE) {
				ts.v[root].listed = 1;
				roots[nr_roots++] = root;
			}
		}
	}
	if (!err) {
		fprintf(out, "# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
		for (size_t r = 0; r < nr_roots; r++)
			print_task(syms, &ts, roots[r], 0, maps, out);
	}
	free(roots);
	free(ts.by_tid);
	free(ts.v);
	return err;
}
