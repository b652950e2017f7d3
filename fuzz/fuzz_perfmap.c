/*
 * libFuzzer target for the symbols module's text parsers: the same bytes go
 * to the perf-<pid>.map parser (JIT symbols) and to the /proc/kallsyms
 * parser. Neither may crash, read out of bounds, loop or hand a callback a
 * name that is not NUL-terminated within the length it reports. The map's
 * entries then make a table and, where they overlap, perf's tree
 * (perf_tree.c): a symbol found for an address must hold it.
 */
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include "symbols/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct pm_table {
	struct sym_rawvec rv;
	int n;
};

static int pm_cb(void *arg, uint64_t start, uint64_t sz, const char *name, size_t n)
{
	struct pm_table *t = arg;

	if (strlen(name) != n)
		abort();
	t->n++;
	return sym_rawvec_push(&t->rv, start, sz, "jit", STB_GLOBAL, STT_FUNC) ? -1 : 0;
}

/* Every entry's start, and the address after it, looked up in the table's tree. */
static void check_tree(struct sym_rawvec *rv)
{
	size_t size, i;
	uint32_t *tree, root;
	struct pk_sym *syms;

	sym_rawvec_sort(rv);
	size = sym_tree_size(rv);
	if (!size)
		return;
	tree = malloc(size * sizeof(*tree));
	syms = malloc(rv->n * sizeof(*syms));
	if (tree && syms && !sym_tree_build(rv, tree, &root)) {
		for (i = 0; i < rv->n; i++)
			syms[i] = (struct pk_sym){ .start = rv->v[i].start, .end = rv->v[i].end, .name = "jit" };
		for (i = 0; i < 2 * rv->n; i++) {
			uint64_t addr = rv->v[i / 2].start + i % 2;
			const struct pk_sym *f = sym_tree_find(syms, tree, root, addr);

			if (f && !sym_holds(f, addr))
				abort();
		}
	}
	free(tree);
	free(syms);
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
	struct pm_table t = { 0 };
	int k = 0, r;

	r = sym_perfmap_parse((const char *)data, size, pm_cb, &t);
	if (r >= 0 && r != t.n)
		abort();
	if (r >= 0)
		check_tree(&t.rv);
	sym_rawvec_release(&t.rv);
	sym_kallsyms_parse((const char *)data, size, ks_cb, &k);
	if ((size_t)k > size)
		abort();
	return 0;
}
