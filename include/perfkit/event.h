/*
 * perfkit event: the event-spec grammar of Linux perf, turned into
 * perf_event_attr values ready for perf_event_open(2), and the catalogue of
 * events this machine offers (for `perfkit list`).
 *
 * Grammar (comma-separated list of terms; a group is `{term,term,...}` with
 * optional group modifiers `{a,b}:u` applied to every member):
 *   hardware   cycles, cpu-cycles, instructions, cache-references, ...
 *   software   cpu-clock, task-clock, page-faults/faults, cs, ...
 *   cache      L1-dcache-load-misses, LLC-loads, dTLB-load-misses, ...
 *   tracepoint sys:name, sys:glob*  (found through tracefs)
 *   raw        rNNN (hex config)
 *   pmu        pmu/term=val,term,name/  (sysfs format/ bit fields and events/ aliases)
 *   alias      a name from /sys/bus/event_source/devices/<pmu>/events
 * and modifiers after ':' from the set  u k h G H I p pp ppp P S D.
 */
#ifndef PERFKIT_EVENT_H
#define PERFKIT_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <perfkit/core.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pk_event_kind {
	PK_EVENT_HARDWARE,   /* PERF_TYPE_HARDWARE */
	PK_EVENT_SOFTWARE,   /* PERF_TYPE_SOFTWARE */
	PK_EVENT_CACHE,      /* PERF_TYPE_HW_CACHE */
	PK_EVENT_TRACEPOINT, /* PERF_TYPE_TRACEPOINT */
	PK_EVENT_RAW,        /* PERF_TYPE_RAW, rNNN */
	PK_EVENT_PMU,        /* a dynamic PMU from sysfs (pmu/.../ or an alias) */
};

/* One parsed event. */
struct pk_event {
	struct perf_event_attr attr; /* type, config*, exclude_*, precise_ip, size set */
	enum pk_event_kind kind;
	char *name;        /* display name, as perf prints it: "cycles", "cycles:u",
			      "sched:sched_switch", "cpu/event=0x3c/" */
	char *pmu;         /* PMU name for PK_EVENT_PMU ("cpu", "msr"), else NULL */
	int leader;        /* index (in the list) of this event's group leader;
			      equal to its own index for leaders and lone events */
	int nr_members;    /* for a group leader: members including itself; else 0
			      (a lone event is a leader with nr_members 1) */
	char *scale_unit;  /* unit from sysfs <alias>.unit (e.g. "Joules"), or NULL */
	double scale;      /* multiplier from sysfs <alias>.scale, 1.0 if none */
	bool precise_max;  /* modifier P, as perf reads it: stat counts at the
			      precision of the p's (0 for P alone); record and
			      top start at precise_ip 3; either steps it down
			      until the kernel takes the event
			      (pk_perf_open_stepping) */
};

struct pk_event_list {
	struct pk_event *ev;
	size_t n;
	size_t cap;
};

/* Where the event module looks for the kernel's descriptions. */
struct pk_event_opts {
	size_t sz;                 /* sizeof(struct pk_event_opts) */
	const char *sysfs_root;    /* default "/sys" (PMUs under bus/event_source/devices) */
	const char *tracefs_root;  /* default: found in /proc/mounts, mounted if absent */
};

#define PK_OPTS(type, name, ...) \
	struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }

PK_API void pk_event_list_init(struct pk_event_list *l);
PK_API void pk_event_list_release(struct pk_event_list *l);

/*
 * Parse @spec and append its events to @l. On failure nothing is appended,
 * and @diag holds the message, the character offset of the offending
 * character in @spec (diag->offset), and a "did you mean 'x'?" hint when a
 * close known name exists. @opts may be NULL.
 * Returns 0, -EINVAL (syntax or unknown name), -ENOENT (no such
 * tracepoint/PMU), or another -errno.
 */
PK_API int pk_event_parse(struct pk_event_list *l, const char *spec,
			  const struct pk_event_opts *opts, struct pk_diag *diag);

/* Append perf stat's default events (task-clock, context-switches,
 * cpu-migrations, page-faults, cycles, instructions, branches, branch-misses). */
PK_API int pk_event_add_defaults(struct pk_event_list *l);

/* True if @ev is the given generic event regardless of modifiers. */
PK_API bool pk_event_is(const struct pk_event *ev, __u32 type, __u64 config);

/* ---- catalogue, for `perfkit list` ------------------------------------ */

enum pk_event_category {
	PK_LIST_HW = 1 << 0,
	PK_LIST_SW = 1 << 1,
	PK_LIST_CACHE = 1 << 2,
	PK_LIST_TRACEPOINT = 1 << 3,
	PK_LIST_PMU = 1 << 4,
	PK_LIST_ALL = 0x1f,
};

struct pk_event_info {
	const char *name;      /* canonical name */
	const char *aliases;   /* "cpu-cycles" for cycles, or NULL */
	enum pk_event_category category;
	const char *desc;      /* "Hardware event", "Software event", ... */
	bool supported;        /* the kernel accepted it (probe open on this process) */
};

typedef int (*pk_event_info_fn)(const struct pk_event_info *info, void *ctx);

/*
 * Call @fn for each event of the categories in @mask that this machine
 * offers, in perf list's order. Hardware, software and cache events are
 * probed with perf_event_open on the calling thread; `supported` says whether
 * the kernel accepted them. A non-zero return from @fn stops the walk and is
 * returned.
 */
PK_API int pk_event_foreach(unsigned mask, const struct pk_event_opts *opts,
			    pk_event_info_fn fn, void *ctx, struct pk_diag *diag);

/* The tracefs mount point (mounting it at /sys/kernel/tracing if needed and
 * permitted). Returns 0 and copies the path into @buf, or -errno. */
PK_API int pk_tracefs_path(char *buf, size_t sz);

#ifdef __cplusplus
}
#endif
#endif
