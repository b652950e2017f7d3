/*
 * Symbol demangling as perf 6.1 shows names: libiberty's cplus_demangle()
 * with no options (perf passes DMGL_PARAMS|DMGL_ANSI only with -v), which
 * handles C++ and Rust (legacy _ZN...17h<hash>E without the hash, and v0
 * _R...); a Rust hash left by an older libiberty is stripped as perf's
 * rust post-processing does; OCaml names ("camlModule__fn") as perf's
 * ocaml_demangle_sym.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "symbols/internal.h"

/* "...::h" followed by 16 hex digits at the end: a Rust legacy hash. */
static void strip_rust_hash(char *s)
{
	size_t n = strlen(s), i;

	if (n < 19)
		return;
	if (strncmp(s + n - 19, "::h", 3))
		return;
	for (i = n - 16; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return;
	s[n - 19] = '\0';
}

static char *ocaml_demangle(const char *sym)
{
	size_t len = strlen(sym), i = 4, j = 0;
	char *r;

	if (strncmp(sym, "caml", 4) || !isupper((unsigned char)sym[4]))
		return NULL;
	r = malloc(len + 1);
	if (!r)
		return NULL;
	while (i < len) {
		if (sym[i] == '_' && sym[i + 1] == '_') {
			r[j++] = '.';
			i += 2;
		} else if (sym[i] == '$' && isxdigit((unsigned char)sym[i + 1]) &&
			   isxdigit((unsigned char)sym[i + 2])) {
			char h[3] = { sym[i + 1], sym[i + 2], 0 };

			r[j++] = (char)strtol(h, NULL, 16);
			i += 3;
		} else {
			r[j++] = sym[i++];
		}
	}
	r[j] = '\0';
	return r;
}

char *sym_demangle(const char *name)
{
	char *d;

	if (!name || !name[0])
		return NULL;
	if (name[0] != '_')
		return ocaml_demangle(name);
	d = cplus_demangle(name, DMGL_NO_OPTS);
	if (d)
		strip_rust_hash(d);
	return d;
}

PK_API char *pk_demangle(const char *name)
{
	return sym_demangle(name);
}
