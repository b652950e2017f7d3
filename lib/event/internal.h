/*
 * Private to lib/event: the parse context every part of the grammar shares
 * (the spec, the diagnostics, the sysfs and tracefs roots), the tables of
 * generic event names (names.c), modifiers (mods.c), the event list helpers
 * (list.c), sorted directory listings (dir.c), glob matching and
 * "did you mean" suggestions (suggest.c), sysfs PMUs (pmu.c) and tracefs
 * tracepoints (tracepoint.c).
 */
#ifndef PERFKIT_LIB_EVENT_INTERNAL_H
#define PERFKIT_LIB_EVENT_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <perfkit/event.h>
#include "core/suggest.h"

/* Longest word (PMU, alias, format term, tracepoint system or name) accepted. */
#define EV_NAME_MAX 255

/* ---- the parse context -------------------------------------------------- */

/* Modifiers of one event or group: a set of letters plus the 'p' count. */
struct ev_mods {
	unsigned set;       /* EV_MOD_* bits */
	unsigned precise;   /* number of 'p' (0..3) */
};

/* Bookkeeping for one event appended by the current parse. */
struct ev_pending {
	struct ev_mods mods;  /* the event's own modifiers */
	int name_form;        /* EV_NAME_*: how group modifiers join its name */
};

enum {
	EV_NAME_PLAIN,   /* "cycles": group modifiers add ":u" */
	EV_NAME_MODS,    /* "cycles:k", "msr/tsc/u": add letters not already there */
	EV_NAME_SLASH,   /* "cpu/event=1/": add letters right after the '/' */
	EV_NAME_USER,    /* name= term: left alone */
};

struct ev_ctx {
	const char *spec;          /* the whole spec, offsets are relative to it */
	struct pk_diag *diag;
	char sysfs[PATH_MAX];      /* root holding bus/event_source/devices */
	char tracefs[PATH_MAX];    /* tracefs mount (holds events/), once found */
	const char *tracefs_opt;   /* opts->tracefs_root, or NULL */
	int tracefs_err;           /* 1 until looked up, then 0 or -errno */
	struct pk_event_list *l;   /* the list being appended to */
	size_t n0;                 /* its length before this parse */
	struct ev_pending *pend;   /* [i - n0] for events appended by this parse */
	size_t pend_cap;
};

/* Offset of @p (a pointer into c->spec) for diagnostics. */
static inline uint64_t ev_off(const struct ev_ctx *c, const char *p)
{
	return (uint64_t)(p - c->spec);
}

/* Set up @c for @spec; reads opts fields only as far as opts->sz covers. */
void ev_ctx_init(struct ev_ctx *c, struct pk_event_list *l, const char *spec,
		 const struct pk_event_opts *opts, struct pk_diag *diag);
void ev_ctx_release(struct ev_ctx *c);

/* The tracefs directory for @c (events/ lives under it), or NULL with *err set. */
const char *ev_ctx_tracefs(struct ev_ctx *c, int *err);

/* ---- event list (list.c) ------------------------------------------------ */

/*
 * Append a zeroed event of @kind named by the @len bytes at @name (attr.size
 * set, scale 1.0, leader = own index, nr_members = 1) plus its pending entry
 * when @c is given. Returns the event or NULL (out of memory).
 */
struct pk_event *ev_list_push(struct pk_event_list *l, struct ev_ctx *c,
			      enum pk_event_kind kind, const char *name, size_t len);
/* Free the events from index @n on and shrink the list back to @n. */
void ev_list_truncate(struct pk_event_list *l, size_t n);
/* Replace @ev's name by @name (copied). 0 or -ENOMEM. */
int ev_set_name(struct pk_event *ev, const char *name, size_t len);

/* ---- generic events (names.c) -------------------------------------------- */

struct ev_sym {
	const char *name;    /* perf's symbol, "cpu-cycles" */
	const char *alias;   /* "cycles", or NULL */
	__u32 type;          /* PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE */
	__u64 config;
};

extern const struct ev_sym ev_hw_syms[];
extern const size_t ev_nr_hw_syms;
extern const struct ev_sym ev_sw_syms[];
extern const size_t ev_nr_sw_syms;

/* The hardware or software event named (or aliased) by the @len bytes at @s. */
const struct ev_sym *ev_sym_find(const char *s, size_t len);

/*
 * Parse a cache event name ("L1-dcache-load-misses", "LLC-loads",
 * "dTLB-misses-stores"). Returns 0 with *config set, -ENOENT if @s is not
 * a cache name at all, or -EINVAL for a cache name that is not valid (two
 * operations, an operation the cache lacks) with *bad the offset of the
 * offending word in @s and *why the reason.
 */
int ev_cache_parse(const char *s, size_t len, __u64 *config, size_t *bad, const char **why);

/* Whether @op exists for @cache (perf lists only these). */
bool ev_cache_op_valid(unsigned cache, unsigned op);
/* perf's canonical name of a cache event into @buf: "L1-dcache-load-misses". */
void ev_cache_name(unsigned cache, unsigned op, unsigned result, char *buf, size_t sz);

/* ---- modifiers (mods.c) ------------------------------------------------- */

enum {
	EV_MOD_U = 1 << 0, EV_MOD_K = 1 << 1, EV_MOD_HV = 1 << 2,
	EV_MOD_GUEST = 1 << 3, EV_MOD_HOST = 1 << 4, EV_MOD_IDLE = 1 << 5,
	EV_MOD_PMAX = 1 << 6, EV_MOD_READ = 1 << 7, EV_MOD_PIN = 1 << 8,
};

/* Parse the @len modifier letters at @s ("ukp"); errors name the bad letter. */
int ev_mods_parse(struct ev_ctx *c, const char *s, size_t len, struct ev_mods *m);
/* Set @ev's attr from its own modifiers @m (@has_mods: a ':' was given), as perf does. */
void ev_mods_apply_own(const struct ev_mods *m, bool has_mods, struct pk_event *ev);
/*
 * Add the group modifiers @gm to member @ev, whose own were @own, as perf
 * does. 0, or -EINVAL when the 'p's of both exceed 3.
 */
int ev_mods_apply_group(const struct ev_mods *own, const struct ev_mods *gm, struct pk_event *ev);
/*
 * Add the group modifiers @gtext (@glen letters, already parsed) to the name
 * of the event with pending entry @p, the way the group spec would read for
 * it alone. 0 or -ENOMEM.
 */
int ev_mods_name(struct pk_event *ev, const struct ev_pending *p,
		 const char *gtext, size_t glen);

/* ---- sorted directory listings (dir.c) ---------------------------------- */

struct ev_names {
	char **v;
	size_t n;
	size_t cap;
};

enum { EV_DIR_ANY, EV_DIR_DIRS, EV_DIR_FILES };

/* Entries of @path (no dot-files), sorted with strcmp; @want filters by kind. */
int ev_dir_list(const char *path, int want, struct ev_names *out);
void ev_names_release(struct ev_names *n);
/* Append a copy of @s (@len bytes) to @n. 0 or -ENOMEM. */
int ev_names_add(struct ev_names *n, const char *s, size_t len);
void ev_names_sort(struct ev_names *n);
/* Whether the @len bytes at @s form a safe sysfs/tracefs path component. */
bool ev_word_ok(const char *s, size_t len);

/* ---- suggestion candidates and globs (suggest.c) ----------------------- */

/* Offer every generic, cache and sysfs alias name. */
void ev_suggest_events(struct pk_suggest *s, struct ev_ctx *c);

/* Whether @s contains glob characters (* ? [). */
bool ev_is_glob(const char *s, size_t len);
/* Shell-style match of @name against @pat (* ? [set] [!set]), in O(len^2) time. */
bool ev_glob_match(const char *pat, const char *name);

/* ---- PMUs (pmu.c) -------------------------------------------------------- */

/*
 * Add the event `pmu/terms/` : @pmu (@plen bytes) and @terms (@tlen bytes,
 * between the slashes), named @name (@nlen bytes). Errors point into c->spec.
 */
int ev_pmu_add(struct ev_ctx *c, const char *pmu, size_t plen, const char *terms,
	       size_t tlen, const char *name, size_t nlen);

/*
 * Add one event per PMU whose events/ holds the alias @s (@len bytes), named
 * @name. Returns 0, -ENOENT when no PMU has it (nothing recorded in the
 * diag), or another error.
 */
int ev_alias_add(struct ev_ctx *c, const char *s, size_t len, const char *name, size_t nlen);

/* Names of all PMUs (sorted) and of the aliases in one PMU's events/. */
int ev_pmu_list(const char *sysfs, struct ev_names *out);
int ev_pmu_aliases(const char *sysfs, const char *pmu, struct ev_names *out);

/* ---- tracepoints (tracepoint.c) ----------------------------------------- */

/*
 * Add the tracepoints matching `sys:name` (either may be a glob; @slen and
 * @tlen bytes), sorted by name. A non-glob match is named @written (@wlen
 * bytes, the term as written); glob matches get "sys:name" plus ":" and
 * the @mlen modifier letters at @mods when @has_mods. -ENOENT with the diag
 * set when nothing matches.
 */
int ev_tracepoint_add(struct ev_ctx *c, const char *sys, size_t slen, const char *name,
		      size_t tlen, const char *mods, size_t mlen, bool has_mods,
		      const char *written, size_t wlen);

/* Whether tracefs has a system called @sys (@len bytes). */
bool ev_tracepoint_system_exists(struct ev_ctx *c, const char *sys, size_t len);

/* Every "sys:name" tracepoint under @tracefs, sorted. */
int ev_tracepoint_list(const char *tracefs, struct ev_names *out);

#endif
