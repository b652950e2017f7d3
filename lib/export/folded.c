/*
 * Folded stacks, the input of flamegraph.pl: one line per distinct stack,
 * "comm;root;...;leaf COUNT", sorted bytewise like stackcollapse-perf.pl's
 * `sort { $a cmp $b }`. COUNT is the number of samples, or the sum of their
 * periods with opts.weight_by_period.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "export/internal.h"

/* Compare the stacks only (the text before the last space), bytewise. */
static int cmp_lines(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t lx = (size_t)(strrchr(x, ' ') - x), ly = (size_t)(strrchr(y, ' ') - y);
	int c = memcmp(x, y, lx < ly ? lx : ly);

	if (c)
		return c;
	return lx < ly ? -1 : lx > ly;
}

int pk_exp_folded_lines(struct pk_export *e, char ***lines, size_t *nr)
{
	const struct pk_exp_trie *t = &e->trie;
	uint32_t path[PK_EXP_MAX_STACK + 2];
	char **out = NULL;
	size_t n = 0, cap = 0;
	struct pk_buf b;
	int err = 0;

	pk_buf_init(&b);
	for (uint32_t i = 1; i < t->n; i++) {
		const struct pk_exp_node *nd = &t->nodes[i];
		uint64_t v = e->opts.weight_by_period ? nd->period : nd->count;
		uint32_t depth;

		if (!nd->count)
			continue;
		depth = pk_exp_path(t, i, path, PK_EXP_MAX_STACK + 2);
		b.len = 0;
		for (uint32_t k = 0; k < depth && !err; k++) {
			const struct pk_exp_node *p = &t->nodes[path[k]];
			uint32_t id = k == 0 ? (uint32_t)(p->key & 0xffffffffu) : (uint32_t)p->key;
			const char *s = pk_exp_str(&e->str, id);

			if (k)
				err = pk_buf_append(&b, ";", 1);
			if (!err)
				err = pk_buf_append(&b, s, e->str.len[id]);
		}
		if (!err)
			err = pk_buf_printf(&b, " %" PRIu64, v);
		if (!err && n == cap) {
			char **q = realloc(out, (cap ? cap * 2 : 256) * sizeof(*out));

			if (!q)
				err = -ENOMEM;
			else {
				out = q;
				cap = cap ? cap * 2 : 256;
			}
		}
		if (!err && !(out[n] = strdup(b.data)))
			err = -ENOMEM;
		if (err)
			break;
		n++;
	}
	pk_buf_release(&b);
	if (err) {
		while (n)
			free(out[--n]);
		free(out);
		return err;
	}
	if (n)
		qsort(out, n, sizeof(*out), cmp_lines);
	*lines = out;
	*nr = n;
	return 0;
}

int pk_exp_write_folded(struct pk_export *e, FILE *out, struct pk_diag *d)
{
	char **lines;
	size_t n;
	int err = pk_exp_folded_lines(e, &lines, &n);

	if (err)
		return pk_diag_fail(d, err, "out of memory");
	for (size_t i = 0; i < n; i++) {
		fputs(lines[i], out);
		fputc('\n', out);
		free(lines[i]);
	}
	free(lines);
	return 0;
}
