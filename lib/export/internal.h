/*
 * perfkit export, private: the tables every output format is built from.
 *
 *  - pk_exp_strtab: interned strings (frame names, comms, DSO names), id ->
 *    text, with an open-addressing hash on the bytes;
 *  - pk_exp_ptrmap: pointer -> u32 (symbol, DSO and map objects of the
 *    symbols module never move, so their addresses are stable keys);
 *  - pk_exp_trie: call stacks interned as a trie of (parent node, key)
 *    pairs in one flat array plus a hash; a sample costs one hash probe per
 *    frame and no allocation once the tables have grown to the input.
 *
 * Level 1 of the trie is (event index, comm); below it the keys are frame
 * name ids (folded, svg) or location ids (pprof, json), root first.
 */
#ifndef PERFKIT_EXPORT_INTERNAL_H
#define PERFKIT_EXPORT_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <perfkit/core.h>
#include <perfkit/export.h>

/* ---- interned strings ---------------------------------------------------- */

struct pk_exp_strtab {
	char *pool;                  /* NUL-terminated strings back to back */
	size_t pool_len, pool_cap;
	uint32_t *off;               /* id -> offset in pool */
	uint32_t *len;               /* id -> length */
	uint32_t n, cap;
	uint32_t *slots;             /* id + 1, 0 = empty */
	uint32_t nslots;             /* power of two */
};

/* Grow the array *@p of @elem-byte items (capacity *@cap, doubling) to hold @need. 0 or -ENOMEM. */
int pk_exp_grow(void **p, uint32_t *cap, uint32_t need, size_t elem);

void pk_exp_strtab_init(struct pk_exp_strtab *t);
void pk_exp_strtab_release(struct pk_exp_strtab *t);
/* Intern @len bytes at @s; *id gets the string's id. 0 or -ENOMEM. */
int pk_exp_str_intern(struct pk_exp_strtab *t, const char *s, size_t len, uint32_t *id);
static inline const char *pk_exp_str(const struct pk_exp_strtab *t, uint32_t id)
{
	return t->pool + t->off[id];
}

/* ---- pointer map ---------------------------------------------------------- */

struct pk_exp_ptrmap {
	uintptr_t *keys;             /* 0 = empty */
	uint32_t *vals;
	uint32_t n, nslots;
};

void pk_exp_ptrmap_release(struct pk_exp_ptrmap *m);
/* 1 and *val if @key is present, else 0. @key must not be 0. */
int pk_exp_ptrmap_get(const struct pk_exp_ptrmap *m, uintptr_t key, uint32_t *val);
int pk_exp_ptrmap_put(struct pk_exp_ptrmap *m, uintptr_t key, uint32_t val);

/* ---- stack trie ----------------------------------------------------------- */

struct pk_exp_node {
	uint32_t parent;             /* node index; node 0 is the root above everything */
	uint32_t depth;              /* 0 for the root, 1 for (event, comm) nodes */
	uint64_t key;
	uint64_t count, period;      /* samples ending exactly here (self) */
};

struct pk_exp_trie {
	struct pk_exp_node *nodes;
	uint32_t n, cap;
	uint32_t *slots;             /* node index, 0 = empty (the root is never a child) */
	uint32_t nslots;
};

int pk_exp_trie_init(struct pk_exp_trie *t);
void pk_exp_trie_release(struct pk_exp_trie *t);
/* The child of @parent with @key, created if absent. 0 or -ENOMEM. */
int pk_exp_trie_child(struct pk_exp_trie *t, uint32_t parent, uint64_t key, uint32_t *out);

static inline uint64_t pk_exp_level1_key(uint32_t ev, uint32_t comm)
{
	return (uint64_t)ev << 32 | comm;
}

/* ---- pprof/json locations ------------------------------------------------- */

struct pk_exp_mapping {
	const struct pk_map *map;    /* NULL: never (unmapped frames use mapping 0) */
};

struct pk_exp_loc {
	uint32_t mapping;            /* index + 1 into mappings, 0 = none */
	uint32_t func;               /* index + 1 into funcs, 0 = no symbol */
	uint64_t ip;                 /* runtime address */
	uint64_t addr;               /* DSO-relative address */
	const struct pk_dso *dso;
	const struct pk_sym *sym;
};

/* ---- the export ----------------------------------------------------------- */

#define PK_EXP_MAX_EVENTS 64
#define PK_EXP_MAX_STACK 127         /* perf script's default --max-stack */

struct pk_exp_event {
	const struct pk_evsel *evsel;
	uint64_t samples, period;
};

struct pk_export {
	struct pk_export_opts opts;
	int by_location;             /* pprof/json: trie keyed by location ids */
	struct pk_exp_strtab str;    /* frame names, comms, DSO names */
	struct pk_exp_ptrmap names;  /* sym (or dso, tagged) pointer -> name id + 1 */
	uint32_t unknown_id;         /* "[unknown]" */
	struct pk_exp_trie trie;
	struct pk_exp_event events[PK_EXP_MAX_EVENTS];
	uint32_t nr_events;
	int folded_event;            /* folded/svg keep only the first event seen (-1 none) */
	uint64_t nr_dropped;         /* samples of other events (folded/svg) */
	/* locations (pprof/json) */
	struct pk_exp_ptrmap map_ids;   /* map pointer -> mapping index + 1 */
	struct pk_exp_mapping *mappings;
	uint32_t nr_mappings, cap_mappings;
	struct pk_exp_ptrmap func_ids;  /* sym pointer -> func index + 1 */
	const struct pk_sym **funcs;
	const struct pk_dso **func_dsos;
	uint32_t nr_funcs, cap_funcs;
	struct pk_exp_loc *locs;
	uint32_t nr_locs, cap_locs;
	uint64_t *loc_keys;             /* open addressing over (mapping, ip), value loc + 1 */
	uint32_t *loc_vals;
	uint32_t loc_nslots;
	uint64_t first_time, last_time;
	struct pk_buf tmp;
};

/* Name of a frame per stackcollapse-perf.pl's rules; sets *skip for frames it drops. */
int pk_exp_frame_name(struct pk_export *e, const struct pk_location *loc, int java,
		      uint32_t *id, int *skip);
/* Apply stackcollapse-perf.pl's tidy rules to @name into @out (tests use this too). */
int pk_exp_tidy(const char *name, size_t len, int java, struct pk_buf *out);

/* The nodes from depth 1 down to @n into ids[0..depth-1] (root first); returns depth (<= max). */
uint32_t pk_exp_path(const struct pk_exp_trie *t, uint32_t n, uint32_t *ids, uint32_t max);

/* Per-node totals (self + descendants) in count and period; arrays of t->n. */
int pk_exp_totals(const struct pk_exp_trie *t, uint64_t **count, uint64_t **period);

const char *pk_exp_event_name(const struct pk_exp_event *ev);
/* "nanoseconds" for cpu-clock/task-clock, "count" otherwise. */
const char *pk_exp_event_unit(const struct pk_exp_event *ev);

int pk_exp_write_folded(struct pk_export *e, FILE *out, struct pk_diag *d);
int pk_exp_write_svg(struct pk_export *e, FILE *out, struct pk_diag *d);
int pk_exp_write_pprof(struct pk_export *e, FILE *out, struct pk_diag *d);
int pk_exp_write_json(struct pk_export *e, FILE *out, struct pk_diag *d);

/* The folded lines ("comm;a;b COUNT"), sorted as stackcollapse-perf.pl sorts them. */
int pk_exp_folded_lines(struct pk_export *e, char ***lines, size_t *nr);

#endif
