/*
 * perf report's column elision (its sort__setup_elide): a --comm, --dso or
 * --symbols filter of exactly one name makes that sort key's column say the
 * same thing on every line, so perf hides the column and names the value
 * above the report instead ("# comm: ls"), one line per hidden key in
 * sort-key order. When that would hide every column, all are shown again
 * (the lines stay). perf 6.1 elides only its comm, dso and sym keys.
 */
#include <stdio.h>
#include <string.h>
#include "internal.h"

/*
 * The one name of the comma-separated @list into @buf (empty items do not
 * count, repeats count once), or NULL when it has none or several.
 */
static const char *single_name(const char *list, char *buf, size_t size)
{
	const char *p = list, *first = NULL;
	size_t first_n = 0;

	while (p && *p) {
		size_t n = strcspn(p, ",");

		if (n && !first) {
			first = p;
			first_n = n;
		} else if (n && (n != first_n || strncmp(p, first, n))) {
			return NULL;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	if (!first || first_n >= size)
		return NULL;
	memcpy(buf, first, first_n);
	buf[first_n] = '\0';
	return buf;
}

void rp_elide_setup(struct pk_report *r, const struct pk_session_filter *f, FILE *out)
{
	int shown = 0;

	memset(r->elided, 0, sizeof(r->elided));
	if (!f)
		return;
	for (int k = 0; k < r->nr_keys; k++) {
		const char *list = NULL, *what = NULL, *name;
		char buf[1024];

		switch (r->keys[k]->id) {
		case RP_K_COMM: list = f->comms; what = "comm"; break;
		case RP_K_DSO: list = f->dsos; what = "dso"; break;
		case RP_K_SYM: list = f->symbols; what = "symbol"; break;
		default: break;
		}
		name = list ? single_name(list, buf, sizeof(buf)) : NULL;
		if (name) {
			fprintf(out, "# %s: %s\n", what, name);
			r->elided[k] = 1;
		} else {
			shown++;
		}
	}
	if (!shown)
		memset(r->elided, 0, sizeof(r->elided));
}
