/*
 * Private structures of the report module: the flat hash tables everything
 * is built on, the sort keys, the histogram entries, the call-path trie and
 * the per-(entry, path) period table the call graphs are built from at print
 * time. Nothing here allocates per sample: tables grow with distinct keys.
 */
#ifndef PK_REPORT_INTERNAL_H
#define PK_REPORT_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include <regex.h>
#include <perfkit/report.h>

#define RP_MAX_KEYS 8
#define RP_KEY_WORDS (1 + 2 * RP_MAX_KEYS)   /* evsel index, then two words per key */

/* ---- tables (table.c) ------------------------------------------------------ */

/* (a, b, c) -> u32 value, open addressing with linear probing. */
struct rp_map {
	struct rp_slot { uint64_t a, b, c; uint32_t val, used; } *slots;
	size_t mask, n;
};
int rp_map_init(struct rp_map *m, size_t cap);
void rp_map_release(struct rp_map *m);
void rp_map_clear(struct rp_map *m);
/* Find (a,b,c); if absent insert @val_if_new. Returns a pointer to the value, *found set; NULL on ENOMEM. */
uint32_t *rp_map_get(struct rp_map *m, uint64_t a, uint64_t b, uint64_t c, int *found,
		     uint32_t val_if_new);
uint32_t *rp_map_find(const struct rp_map *m, uint64_t a, uint64_t b, uint64_t c);

static inline uint64_t rp_mix(uint64_t x)
{
	return pk_hash_mix64(x);
}

static inline uint64_t rp_hash3(uint64_t a, uint64_t b, uint64_t c)
{
	return rp_mix(a ^ rp_mix(b + 0x9e3779b97f4a7c15ULL) ^ rp_mix(c + 0x632be59bd9b4e019ULL));
}

/*
 * An index over an array the caller owns: 8-byte slots of (32-bit hash,
 * element index + 1), the key compared by the caller against its element.
 * A quarter of rp_map's memory for the big call-graph tables.
 */
struct rp_ixmap {
	struct rp_ix { uint32_t hash, idx1; } *slots;
	size_t mask, n;
};
/* Make room for one insertion (call before rp_ixmap_probe when inserting). 0 or -ENOMEM. */
int rp_ixmap_reserve(struct rp_ixmap *m);
void rp_ixmap_release(struct rp_ixmap *m);

/*
 * The slot holding an element for which @eq(@ctx, index) is true among those
 * of hash @h, or the empty slot where it belongs (idx1 == 0: fill it with
 * rp_ixmap_fill). The map must have slots (rp_ixmap_reserve once).
 */
static inline struct rp_ix *rp_ixmap_probe(const struct rp_ixmap *m, uint32_t h,
					   int (*eq)(const void *ctx, uint32_t idx), const void *ctx)
{
	size_t i = h & m->mask;

	for (;;) {
		struct rp_ix *s = &m->slots[i];

		if (!s->idx1 || (s->hash == h && eq(ctx, s->idx1 - 1)))
			return s;
		i = (i + 1) & m->mask;
	}
}

static inline void rp_ixmap_fill(struct rp_ixmap *m, struct rp_ix *s, uint32_t h, uint32_t idx)
{
	s->hash = h;
	s->idx1 = idx + 1;
	m->n++;
}

/* Interned strings: id -> stable char *, text -> id; id 0 is "". */
struct rp_strtab {
	char **str;
	size_t n, cap;
	uint32_t *slots;            /* id + 1, 0 empty; probed by the text's hash */
	size_t mask;
	struct rp_map ptr;          /* (pointer, 0, 0) -> id: cache for stable pointers */
};
int rp_strtab_init(struct rp_strtab *t);
void rp_strtab_release(struct rp_strtab *t);
/* Id of @s (copied on first sight); UINT32_MAX on ENOMEM. */
uint32_t rp_strtab_id(struct rp_strtab *t, const char *s);
/* Same, through a cache keyed by the pointer (the caller guarantees @s never changes). */
uint32_t rp_strtab_id_ptr(struct rp_strtab *t, const char *s);

/* ---- sort keys (sort_keys.c) ----------------------------------------------- */

enum rp_key_id {
	RP_K_COMM, RP_K_PID, RP_K_TID, RP_K_DSO, RP_K_SYM, RP_K_SRCLINE, RP_K_CPU, RP_K_SYMOFF,
	RP_K_PARENT, RP_K_TIME, RP_K_SRCFILE, RP_K_DSO_SIZE, RP_K_CGROUP, RP_K_CGROUP_ID,
	RP_K_WEIGHT, RP_K_LOCAL_WEIGHT, RP_K_INS_LAT, RP_K_LOCAL_INS_LAT,
	RP_K_DSO_FROM, RP_K_DSO_TO, RP_K_SYM_FROM, RP_K_SYM_TO, RP_K_CYCLES,    /* branch mode */
	RP_K_SYM_SIZE, RP_K_IPC, RP_K_SOCKET, RP_K_CODE_PAGE_SIZE, RP_K_TRACE,
	RP_K_MEM, RP_K_SNOOP, RP_K_TLB, RP_K_LOCK,  /* mem_id[] in this order: keep them last */
};

/*
 * The trace key (trace_key.c): the string-table id of the sample's
 * tracepoint payload as text ("N/A" for other events); UINT32_MAX when out
 * of memory. rp_trace_release() frees the formatter.
 */
struct pk_rsample;
uint32_t rp_trace_text_id(struct pk_report *r, const struct pk_rsample *rs);
void rp_trace_release(struct pk_report *r);

struct rp_keydef {
	const char *name;           /* as given to --sort */
	const char *header;         /* perf's column title */
	enum rp_key_id id;
};

/* What a key is computed from: one location (the sample's or a frame's). */
struct rp_keyctx {
	const struct pk_rsample *rs;
	/*
	 * The sample's thread as it was when the sample was taken (pid, tid,
	 * comm; NULL: none, the sample's own pid/tid count). rs->thread is the
	 * live one entries keep for printing: the same unless the pipeline's
	 * worker (pipeline.c) adds the sample later.
	 */
	const struct pk_thread *who;
	const struct pk_location *loc;
	int self;                   /* the sampled location (vs a call-chain frame) */
	uint32_t comm_id;
	uint32_t parent_id;         /* first frame matching the parent regex, 0 = [other] */
	char level;                 /* frames: perf's level char carried from the last mapped frame */
	uint8_t inlined;            /* the frame is an inline frame (rs->inlined) */
	/*
	 * The thread had no comm yet (comm_id is ":TID"): the comm key also
	 * holds the thread, whose first comm renames the rows later
	 * (rp_first_comms())
	 */
	uint8_t placeholder_comm;
	/* branch mode: the branch's source (loc is its target) and its cycles */
	const struct pk_location *from;
	uint16_t cycles;
};

/* ---- entries (hist.c) ------------------------------------------------------ */

struct rp_entry {
	uint64_t key[RP_KEY_WORDS];
	uint64_t hash;
	uint64_t self, acc;         /* periods */
	uint64_t self_sys, self_us; /* Self's kernel- and user-mode parts (sys and usr columns) */
	uint64_t nr_self, nr_acc;   /* samples */
	/* display */
	uint32_t evsel;
	uint32_t comm_id, dso_id, parent_id, srcline_id, srcfile_id, mem_id[4];
	uint64_t time;              /* the time key's value: the sample's time, rounded down to the quantum */
	uint64_t dso_size;          /* the dso_size key's value: the map's size, 0 without a map */
	int32_t pid, tid;
	int32_t cpu;
	char level;
	uint8_t inlined;            /* sym is a synthesized inline symbol: prints " (inlined)" */
	const struct pk_thread *thread; /* perf sizes the Command column by the thread's last comm */
	const struct pk_sym *sym;
	uint64_t ip;                /* for unresolved symbols */
	uint64_t symoff;
	uint32_t chain_first, chain_n; /* pairs of this entry, filled at print time */
	uint32_t max_depth;         /* longest chain appended (perf's tie order in children mode) */
	uint8_t filtered;           /* hidden, its periods counted in the totals (perf's filtered
	                               hist entries): RP_FILTERED_SAMPLE, made by a sample the
	                               session's filters dropped; RP_FILTERED_PARENT, no parent
	                               match under -x; RP_FILTERED_SYMBOL, its symbol
	                               does not match --symbol-filter */
	/* branch mode: the source's DSO and symbol, the addresses printed for unresolved ones */
	const struct pk_sym *sym_from;
	uint64_t ip_from, ip_to;
	uint32_t dso_from_id;
	uint16_t cycles;
	char level_from, level_to;
};

enum { RP_FILTERED_SAMPLE = 1, RP_FILTERED_SYMBOL = 2, RP_FILTERED_PARENT = 4 };

struct rp_pair {                /* period that reached (entry, call-path node), and samples */
	uint32_t entry, node;
	uint64_t period;
	uint64_t count;
};

/* A node of the call-path trie: (parent, function) -> node. */
struct rp_node {
	uint32_t parent;
	uint32_t depth;
	const struct pk_sym *sym;
	const struct pk_dso *dso;
	uint64_t ip;                /* raw address, printed when sym is NULL */
	uint64_t addr;              /* its address in the DSO (for the source line of -g address) */
	uint8_t inlined;            /* an inline frame: keyed by name, printed with " (inlined)" */
	/* one-entry caches that spare most hash lookups (UINT32_MAX: empty) */
	uint32_t last_child;        /* the child this node was last asked for */
	uint32_t last_pair;         /* the pair this node last reached */
	uint32_t first_pair;        /* the node's first pair, kept out of pair_idx */
};

struct rp_hists {               /* per evsel */
	const struct pk_evsel *evsel;   /* as seen in samples (for the name without a session) */
	uint64_t nr_samples, total_period;  /* every sample added, filtered ones too */
	int has_callchain;
	int used;
};

/* memo.c: the stack memo (see there) */
enum { RP_MEMO_SELF = 1, RP_MEMO_ACC = 2 };
#define RP_NO_STACK UINT32_MAX
struct rp_memo_op {
	uint32_t entry, pair;       /* pair UINT32_MAX: none */
	uint32_t kind;              /* RP_MEMO_SELF | RP_MEMO_ACC */
};
struct rp_memo_slot {
	uint64_t hash;
	size_t key_first;
	uint32_t key_n;             /* 0: an empty slot */
	uint32_t stack;             /* the stack's number, in order of first sight */
};
struct rp_memo_ops {            /* what the full path did for one stack */
	size_t first;
	uint32_t n;
};
struct rp_memo {
	/* looking stacks up: the thread that calls pk_report_add() */
	struct rp_memo_slot *slots; /* open addressing, in place: one miss per probe */
	size_t mask;
	size_t nr;                  /* stacks seen */
	uint64_t *keys;             /* the stacks' key words, back to back */
	size_t nr_keys, cap_keys;
	uint64_t *kbuf;             /* the current sample's key */
	size_t kcap;
	struct rp_strtab comms;     /* comm texts -> the ids in keys (made with the report) */
	/* replaying them: the thread that adds samples (the pipeline's worker when there is one) */
	struct rp_memo_ops *stacks; /* by stack number */
	size_t nr_stacks, cap_stacks;
	struct rp_memo_op *ops;
	size_t nr_ops, cap_ops;
	int recording;
};

struct rp_pipeline;

/* A column of the report, or an item of its output sort (columns.c): a value or sort key @key. */
enum rp_item_kind { RP_I_CHILDREN, RP_I_SELF, RP_I_SYS, RP_I_US, RP_I_SAMPLES, RP_I_PERIOD, RP_I_KEY };
struct rp_item {
	uint8_t kind;
	uint8_t key;                /* RP_I_KEY: index into keys[] */
};
#define RP_MAX_ITEMS (RP_MAX_KEYS + 4)

struct pk_report {
	struct pk_report_opts o;
	const struct rp_keydef *keys[RP_MAX_KEYS];
	int nr_keys;
	int has_sym_key, has_parent_key, has_srcline_key, sort_starts_sym;
	int placeholder_comms;      /* rows keyed by a ":TID" comm exist (rp_first_comms() to do) */
	int cpu_columns;            /* sys or usr columns: Self split by cpumode (no stack memo) */
	int decided;                /* children / call-graph defaults fixed */
	int add_err;                /* the first failed pk_report_add: every later one gets it too */
	int pipe;                   /* pipe-mode input: perf decides before seeing any attr */
	int branch_mode;            /* HEADER_BRANCH_STACK: one entry per branch target, period 1 */
	int tracepoint_mode;        /* a file of tracepoints only: perf's default key is trace */
	int children;
	int use_callchain;
	enum pk_callgraph_mode cg_mode;
	enum pk_callgraph_order cg_order;
	regex_t parent_re;
	int parent_re_ok;
	struct pk_symbols *syms;    /* for srcline (from pk_report_setup) */
	/*
	 * The file's features (pk_report_setup), read when a key needs them:
	 * in pipe mode CPU_TOPOLOGY and TRACING_DATA come as records, after setup
	 */
	const struct pk_features *feat;
	struct rp_trace *trace;     /* the trace key's formatter (trace_key.c), made on first use */

	struct rp_strtab strs;

	struct rp_entry *ent;
	size_t nr_ent, cap_ent;
	uint32_t *ent_slots;        /* index + 1, 0 empty */
	size_t ent_mask;

	struct rp_node *nodes;
	size_t nr_nodes, cap_nodes;
	struct rp_ixmap trie;       /* (parent, function) -> node */

	struct rp_pair *pairs;
	size_t nr_pairs, cap_pairs;
	struct rp_ixmap pair_idx;   /* (entry, node) -> pair, for all but each node's first pair */

	struct rp_hists *hists;
	size_t nr_hists;

	/* per-sample scratch, grown to the longest chain seen */
	uint32_t *scratch_ent, *scratch_node;
	size_t scratch_cap;

	struct rp_map srcline_cache;   /* (dso ptr, addr, 0) -> string id */
	/*
	 * When every sort key is comm, dso or sym, a frame's entry depends only
	 * on (event, comm, function): a direct-mapped cache of those saves the
	 * full key hash for most call-chain frames.
	 */
	int frame_cache_ok, fcache_decided;
	struct rp_fcache { uint64_t a, b, c; uint32_t entry, valid; } *fcache;
	int memo_ok;                /* the stack memo applies to this report's keys */
	struct rp_memo memo;
	struct rp_pipeline *pl;     /* samples added on a second thread (pipeline.c), NULL: none */
	int pl_tried;
	char *rows_text;            /* storage behind pk_report_rows() keys */
	int oom;
	/* event groups (group.c), set up at print time; indexed by evsel idx */
	uint32_t *grp_leader;       /* the group's leader (itself when alone) */
	uint32_t *grp_nr;           /* a leader's nr_members (1 when alone) */
	size_t grp_n;
	int grp_view;               /* print a group as one block */
	int grp_forced;             /* --group without GROUP_DESC: all under the first event */
	uint8_t elided[RP_MAX_KEYS];   /* the key's column is hidden (elide.c) */
	/* --sort and -F items as given, and the columns and output sort built from them (columns.c) */
	struct rp_item sort_items[RP_MAX_ITEMS], field_items[RP_MAX_ITEMS];
	int nr_sort_items, nr_field_items;
	int fields_strict;          /* -F LIST (not "+..."): LIST is the columns */
	struct rp_item cols[RP_MAX_ITEMS], sorts[RP_MAX_ITEMS];
	int nr_cols, nr_sorts;
	const char *time_range;     /* the session's --time, named in the titles (set when printing) */
};

/* sort_keys.c */
const struct rp_keydef *rp_keydef_find(const char *name);
/* perf's ipc_null/ipc_lbr column, which it adds when --sort names "symbol" (not a --sort key). */
extern const struct rp_keydef rp_ipc_keydef;
/* Fill the two key words and the display fields of @e for key @k. 0 or -ENOMEM. */
int rp_key_compute(struct pk_report *r, const struct rp_keydef *k, const struct rp_keyctx *c,
		   uint64_t out[2]);
/* The display fields of the new entry @e (its DSO name interned). 0 or -ENOMEM. */
int rp_entry_display(struct pk_report *r, struct rp_entry *e, const struct rp_keyctx *c);
/* Text of key @k for @e into @buf; returns its length. */
size_t rp_key_text(const struct pk_report *r, const struct rp_keydef *k, const struct rp_entry *e,
		   char *buf, size_t sz);
/* Compare two entries on key @k the way perf's sort does (ascending text). */
int rp_key_cmp(const struct pk_report *r, const struct rp_keydef *k, const struct rp_entry *a,
	       const struct rp_entry *b);
/*
 * Compare on key @k in the order of perf's collapsed tree, the order in which
 * perf inserts entries into its output tree: as rp_key_cmp() but symbols by
 * DSO and address (perf's sort__sym_cmp), not by name.
 */
int rp_key_collapse_cmp(const struct pk_report *r, const struct rp_keydef *k,
			const struct rp_entry *a, const struct rp_entry *b);
/* The same over every sort key in turn: perf's hist_entry__collapse(). */
int rp_entry_collapse_cmp(const struct pk_report *r, const struct rp_entry *a, const struct rp_entry *b);
/* Column width perf would use for key @k, given the entries of one event. */
size_t rp_key_width(const struct pk_report *r, const struct rp_keydef *k, const struct rp_entry *e);
/* The key's values are right-aligned in their column (perf's "%*d"). */
int rp_key_right_align(const struct rp_keydef *k);

/* hist.c */
/* Entry for the location in @c (created on first sight); UINT32_MAX on ENOMEM. */
uint32_t rp_entry_get(struct pk_report *r, const struct rp_keyctx *c);
void rp_report_decide(struct pk_report *r, const struct pk_evsel *ev);
/* Entry indices of evsel @evsel in the order of perf's collapsed tree; caller frees. */
uint32_t *rp_collapsed_entries(struct pk_report *r, uint32_t evsel, size_t *n);
/* Sorted entry indices of evsel @evsel (as printed); caller frees. */
uint32_t *rp_sorted_entries(struct pk_report *r, uint32_t evsel, size_t *n);

/* collapse_order.c */
/*
 * Order @v (entry indices, in the order the entries were made) as perf's
 * collapsed tree: by rp_key_collapse_cmp(). 0 or -ENOMEM.
 */
int rp_collapse_order(struct pk_report *r, uint32_t *v, size_t n);
/*
 * The same for an event group's leader, whose tree perf's hists__link()
 * then gives the entries only its members have: @v holds the leader's
 * @nr_leader entries in the order they were made, then @n - @nr_leader
 * member entries in the order perf links them. 0 or -ENOMEM.
 */
int rp_collapse_order_linked(struct pk_report *r, uint32_t *v, size_t nr_leader, size_t n);

/* rbtree_order.c */
/* < 0: @a prints before @b (perf's hist_entry__sort() > 0) */
typedef int (*rp_before_fn)(uint32_t a, uint32_t b, void *ctx);
/*
 * Reorder @v as perf prints them: inserted in @v's order into a red-black
 * tree as perf's output tree (left when before(new, node) < 0), read in order.
 * 0 or -ENOMEM (@v unchanged).
 */
int rp_rbtree_order(uint32_t *v, size_t n, rp_before_fn before, void *ctx);
/* The tree itself, for callers that insert in stages: nodes are numbered in insertion order. */
struct rp_rbtree {
	uint32_t *kid[2];           /* left (0) and right (1) children */
	uint32_t *parent;
	uint32_t *item;             /* what each node holds */
	uint8_t *red;
	uint32_t *mem;
	uint32_t root;
	size_t n, cap;
};
/* An empty tree for up to @cap items: 0 or -ENOMEM. */
int rp_rbtree_init(struct rp_rbtree *t, size_t cap);
void rp_rbtree_free(struct rp_rbtree *t);
/* Insert @item: left of a node when before(item, node's item) < 0, else right (ties too). */
void rp_rbtree_insert(struct rp_rbtree *t, uint32_t item, rp_before_fn before, void *ctx);
/* The items in order into @out (t->n of them); their count. */
size_t rp_rbtree_inorder(const struct rp_rbtree *t, uint32_t *out);

/* children.c */
int rp_children_add(struct pk_report *r, const struct pk_rsample *rs, const struct rp_keyctx *c,
		    uint32_t self_entry);

/* memo.c */
int rp_memo_usable(const struct pk_report *r);
/*
 * Look the sample's stack up (the caller's thread): *@stack is its number
 * (RP_NO_STACK: too deep to memoize) and *@hit 1 when it was seen before,
 * 0 when this sample registers it. 0 or -ENOMEM.
 */
int rp_memo_lookup(struct pk_report *r, const struct pk_rsample *rs, uint32_t *stack, int *hit);
/* Replay what the full path did for @stack, with @period. */
void rp_memo_replay(struct pk_report *r, uint32_t stack, uint64_t period);
/*
 * Record the operations of the full path for the new @stack (the next
 * number): report them with rp_memo_op() until rp_memo_end(). 0 or -ENOMEM.
 */
int rp_memo_record(struct pk_report *r, uint32_t stack);
int rp_memo_op(struct pk_report *r, uint32_t entry, uint32_t pair, unsigned kind);
void rp_memo_end(struct pk_report *r);
void rp_memo_release(struct rp_memo *m);

/*
 * hist.c: the id in @t of the comm of @who, the sample's thread as it was
 * then (":tid" while it has none; NULL: the sample's tid); UINT32_MAX: ENOMEM.
 */
uint32_t rp_comm_text_id(struct rp_strtab *t, const struct pk_rsample *rs, const struct pk_thread *who);
/* The comm key's first word for a placeholder comm (its second word holds the thread). */
#define RP_COMM_PLACEHOLDER (1ull << 63)
/* @who had no comm when the sample was taken (perf's ":TID" placeholder). */
int rp_comm_placeholder(const struct pk_thread *who);
/*
 * perf's comm__override(): rows whose comm was a thread's ":TID"
 * placeholder take the thread's first comm, and rows that then have the
 * same keys become one (pairs and counts summed). Once, before printing.
 */
int rp_first_comms(struct pk_report *r);
/* hist.c: the part of pk_report_add() after the stack lookup (on the pipeline's worker, if any) */
int rp_add_sample(struct pk_report *r, const struct pk_rsample *rs, const struct pk_thread *who,
		  uint32_t stack, int hit);

/* pipeline.c */
/* Start the worker when this report can use one; 1 started, 0 not. */
int rp_pipeline_start(struct pk_report *r);
/* Hand the sample to the worker. 0, or the worker's error (-ENOMEM). */
int rp_pipeline_push(struct pk_report *r, const struct pk_rsample *rs, uint32_t stack, int hit);
/* Wait for every sample handed over, stop the worker. 0 or its error. */
int rp_pipeline_stop(struct pk_report *r);

/* print.c: pieces shared with the group view */
/* "# Samples: 8K of event 'NAME'" (with the --time range as perf names it) and "# Event count" */
void rp_print_title(struct pk_report *r, FILE *out, uint64_t nr_samples, uint64_t count, int plural,
		    const char *name);
/* Column widths of the sort keys over entries @ents. */
void rp_key_widths(struct pk_report *r, const uint32_t *ents, size_t n, size_t *width);

/* columns.c */
/* Add key @k as an item to @items (it joins r->keys). 0 or -E2BIG. */
int rp_items_add_key(struct pk_report *r, const struct rp_keydef *k, struct rp_item *items, int *n);
/* Add the items of the comma-separated @list (@what: "--sort", "-F") to @items; keys join r->keys. */
int rp_items_parse(struct pk_report *r, const char *list, const char *what, struct rp_item *items,
		   int *n, struct pk_diag *d);
/* Build r->cols and r->sorts (call once children is decided). */
void rp_layout(struct pk_report *r);
/*
 * perf's hist_entry__sort() of two rows of @nr members (@a[k] NULL: none),
 * negated: < 0 when row @a prints first. One event: @nr 1.
 */
int rp_rows_before(const struct pk_report *r, const struct rp_entry *const *a,
		   const struct rp_entry *const *b, uint32_t nr);
/* Column titles and dot rulers; @nr: events per value column (1, or a group's members). */
void rp_print_columns(struct pk_report *r, const size_t *width, int nr, FILE *out);
/* One entry line: values of @ents (percentages of @total), keys of @rep. */
void rp_print_row(struct pk_report *r, const struct rp_entry *const *ents, uint32_t nr,
		  const uint64_t *total, const struct rp_entry *rep, const size_t *width, FILE *out);

/* The width of a value column of @nr members (8 per member for percentages, 12 for counts). */
int rp_value_width(unsigned kind, int nr);
/* A column's title: "Overhead", "Samples", a key's header. */
const char *rp_item_title(const struct pk_report *r, struct rp_item it);
/* One value column's cell (@kind a value item), padded to its width unless @last. */
void rp_print_value(const struct pk_report *r, unsigned kind, const struct rp_entry *const *ents,
		    uint32_t nr, const uint64_t *total, int last, FILE *out);
/* Key @k's cell for @e into @cell, padded to width[k] as perf pads it (@last: the last column). */
void rp_key_cell(const struct pk_report *r, int k, const struct rp_entry *e, const size_t *width,
		 int last, char *cell, size_t size);

/* What perf's histogram of one event totals. */
struct rp_totals {
	uint64_t nr, period;        /* "# Samples", "# Event count" and the percentages' base:
	                               every sample added when add_filtered (perf's absolute
	                               percentages), else those of the entries shown */
	uint64_t graph_period;      /* the call graphs' base: every sample added (perf's
	                               stats.total_period, whatever --percentage says) */
	uint64_t min_period;        /* the call-graph threshold's base: period, but in relative
	                               mode with the rows --symbol-filter hides (perf sets the
	                               threshold before it filters by symbol) */
};
/* Fill @t for event @idx. Returns whether perf prints its block: it had samples, kept or filtered so. */
int rp_event_totals(const struct pk_report *r, size_t idx, struct rp_totals *t);

/*
 * hierarchy.c: perf report --hierarchy. A block of @n rows of @nr members
 * (@rows: nr entry indices per row, UINT32_MAX none; @order: the rows in
 * perf's insertion order, NULL: as they come) as a tree, a level per sort key: the title
 * ("# Samples" of @nr_samples, of @name), the column heads and the nodes,
 * each with the values summed over the rows under it. @t: the members'
 * totals. 0 or -ENOMEM.
 */
struct rp_hblock {
	const uint32_t *rows, *order;
	size_t n;
	uint32_t nr;
	uint64_t nr_samples;
	const char *name;
	int plural;
	const struct rp_totals *t;
};
int rp_hierarchy_print(struct pk_report *r, const struct rp_hblock *b, const uint32_t *pair_order, FILE *out);

/* elide.c: hide the columns a one-name filter of @f (may be NULL) makes redundant, naming them on @out */
void rp_elide_setup(struct pk_report *r, const struct pk_session_filter *f, FILE *out);

/* group.c */
struct pk_perfdata;
int rp_groups_setup(struct pk_report *r, struct pk_perfdata *p, size_t nev);
/* Print the block of the group led by evsel @leader. */
int rp_group_print(struct pk_report *r, struct pk_session *ss, uint32_t leader,
		   const uint32_t *pair_order, FILE *out);

/* callgraph.c */
/* Intern the call path of @rs in the trie in the report's order; node per frame into scratch_node. */
int rp_path_intern(struct pk_report *r, const struct pk_rsample *rs);
/* Add one sample of @period to (entry, node); the pair's index into *@idx when @idx is not NULL. */
int rp_pair_add(struct pk_report *r, uint32_t entry, uint32_t node, uint64_t period, uint32_t *idx);
/* Group pairs by entry (sets chain_first/chain_n); call once before printing chains. */
int rp_pairs_group(struct pk_report *r, uint32_t **order);
/*
 * Print @e's call graph in the report's mode, its percentages of @total; a
 * node shows when it reaches the threshold's share of @min_total (perf:
 * the total of the percentages above, relative or absolute, while the
 * graph's own are always absolute). 0 or -ENOMEM (part of it may be printed).
 */
int rp_callgraph_print(struct pk_report *r, const struct rp_entry *e, const uint32_t *pair_order,
		       uint64_t total, uint64_t min_total, FILE *out);

#endif
