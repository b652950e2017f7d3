/*
 * Private helpers shared by the header-feature parsers (features*.c) and the
 * --header-only printer (header_print.c, attr_print.c): a bounded cursor
 * over one feature section that byte-swaps on request and reports failures
 * with the absolute file offset, and perf's string / string-list readers.
 *
 * Layouts: ../shared/reference/perf-data.md §7.
 */
#ifndef PK_PERFDATA_FEATURES_INT_H
#define PK_PERFDATA_FEATURES_INT_H

#include <stddef.h>
#include <stdint.h>
#include <perfkit/core.h>
#include <perfkit/perfdata.h>

/* A cursor over the bytes of one feature section. */
struct pk_fcur {
	const uint8_t *p;
	size_t len, off;
	int swap;
	uint64_t base;          /* file offset of p[0] */
	const char *what;       /* feature name for messages */
	struct pk_diag *d;
};

void pk_fcur_init(struct pk_fcur *c, const void *buf, size_t len, int swap, uint64_t base,
		  const char *what, struct pk_diag *d);

static inline size_t pk_fcur_left(const struct pk_fcur *c)
{
	return c->len - c->off;
}

/* File offset of the cursor. */
static inline uint64_t pk_fcur_pos(const struct pk_fcur *c)
{
	return c->base + c->off;
}

/* Fail at the cursor with "truncated <what>: need N bytes, M left". */
int pk_fcur_short(struct pk_fcur *c, size_t need);
int pk_fcur_skip(struct pk_fcur *c, size_t n);
int pk_fcur_u16(struct pk_fcur *c, uint16_t *v);
int pk_fcur_u32(struct pk_fcur *c, uint32_t *v);
int pk_fcur_u64(struct pk_fcur *c, uint64_t *v);
/*
 * perf_header_string { u32 len; char str[len]; }: len counts the NUL and the
 * padding; a string without a NUL inside len is corrupt. *out is a copy
 * (malloc) of the text up to the first NUL.
 */
int pk_fcur_string(struct pk_fcur *c, char **out);
/* { u32 nr; perf_header_string s[nr]; }, nr bounded by the bytes left. */
int pk_fcur_string_list(struct pk_fcur *c, struct pk_feat_string_list *l);
/*
 * Read a u32 count of items of at least @min_item bytes each and check that
 * that many could fit in what is left (so allocations follow the input size).
 */
int pk_fcur_count(struct pk_fcur *c, size_t min_item, uint32_t *nr);

void pk_feat_string_list_free(struct pk_feat_string_list *l);

/* Parsers split out of features.c; each fills its members of @f. */
int pk_feat_parse_build_id(struct pk_features *f, struct pk_fcur *c);
int pk_feat_parse_event_desc(struct pk_features *f, struct pk_fcur *c);
int pk_feat_parse_cpu_topology(struct pk_features *f, struct pk_fcur *c);
int pk_feat_parse_numa(struct pk_features *f, struct pk_fcur *c);
int pk_feat_parse_cache(struct pk_features *f, struct pk_fcur *c);
int pk_feat_parse_mem_topology(struct pk_features *f, struct pk_fcur *c);
int pk_feat_parse_hybrid(struct pk_features *f, struct pk_fcur *c);

/* perf's upper-case feature name ("HOSTNAME"), as in "# missing features:". */
const char *pk_feature_name_upper(unsigned feat);

/*
 * perf_event_attr__fprintf() of perf 6.1: ", name = value" for every
 * non-zero field in perf's order and spelling, appended to @out.
 */
int pk_attr_print(const struct pk_attr *a, struct pk_buf *out);

/* header_print_topology.c: feature @feat as perf -I prints it (the topology features; others: nothing). */
int pk_header_print_full_only(const struct pk_features *f, unsigned feat, struct pk_buf *o);

#endif
