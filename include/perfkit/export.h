/*
 * perfkit export: resolved samples written in the formats other tools read:
 *  - folded: Brendan Gregg's collapsed stacks ("comm;root;...;leaf COUNT"),
 *    exactly what `perf script | stackcollapse-perf.pl` produces;
 *  - pprof: gzipped profile.proto (samples, locations, functions, mappings)
 *    that `go tool pprof` reads;
 *  - json: one document with events, threads, DSOs, symbols and stacks;
 *  - svg: an interactive flame graph in one self-contained SVG file.
 *
 * Stacks are interned as they arrive, so memory grows with distinct stacks.
 */
#ifndef PERFKIT_EXPORT_H
#define PERFKIT_EXPORT_H

#include <stdio.h>
#include <perfkit/core.h>
#include <perfkit/session.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pk_export_format {
	PK_EXPORT_FOLDED,
	PK_EXPORT_PPROF,
	PK_EXPORT_JSON,
	PK_EXPORT_SVG,
};

struct pk_export_opts {
	size_t sz;
	enum pk_export_format format;
	int weight_by_period;        /* folded/svg: sum periods instead of counting samples */
	int include_addrs;           /* folded: unresolved frames as hex, like stackcollapse --addrs */
	const char *title;           /* svg title, default "Flame Graph" */
};

struct pk_export;

/* Parse "folded", "pprof", "json", "svg"; -EINVAL otherwise. */
PK_API int pk_export_format_parse(const char *name, enum pk_export_format *out);

PK_API int pk_export_new(const struct pk_export_opts *opts, struct pk_export **out, struct pk_diag *d);
PK_API void pk_export_free(struct pk_export *e);
PK_API int pk_export_add(struct pk_export *e, const struct pk_rsample *rs);
/* Write the result to @out (binary for pprof). @ss gives event names and file facts. */
PK_API int pk_export_write(struct pk_export *e, struct pk_session *ss, FILE *out, struct pk_diag *d);

#ifdef __cplusplus
}
#endif
#endif
