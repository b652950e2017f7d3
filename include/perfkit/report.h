/*
 * perfkit report: aggregation of resolved samples into perf report's
 * histograms: one histogram per event, entries keyed by the --sort keys,
 * Self and Children periods, call-graph trees under each entry, the
 * percent limit, and printing in `perf report --stdio`'s layout.
 *
 * Memory grows with distinct (sort key, call path) combinations, never
 * with the number of samples.
 */
#ifndef PERFKIT_REPORT_H
#define PERFKIT_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <perfkit/core.h>
#include <perfkit/session.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pk_callgraph_mode {
	PK_CG_DEFAULT,   /* perf's default: graph when call chains exist, none otherwise */
	PK_CG_NONE,
	PK_CG_GRAPH,     /* absolute percentages */
	PK_CG_FRACTAL,   /* relative percentages */
	PK_CG_FLAT,
	PK_CG_FOLDED,
};

enum pk_callgraph_order {
	PK_CG_CALLEE,    /* perf's default order for -g graph in children mode is caller... see report.c */
	PK_CG_CALLER,
};

/* What a call-graph node prints (perf's -g ...,percent|period|count). */
enum pk_callgraph_value {
	PK_CG_PERCENT,   /* its period as a share (of the event's total; fractal: of its parent's) */
	PK_CG_PERIOD,    /* its period */
	PK_CG_COUNT,     /* its number of samples */
};

struct pk_report_opts {
	size_t sz;
	const char *sort;            /* "comm,dso,sym" (perf's default); also pid, tid, srcline, cpu,
	                                symoff, parent, time, srcfile, dso_size, mem, snoop, tlb, lock */
	int children;                /* -1: perf's default (children when call chains exist), 0, 1 */
	enum pk_callgraph_mode cg_mode;
	enum pk_callgraph_order cg_order;
	int cg_order_set;            /* the user chose caller/callee */
	double cg_threshold;         /* percent, default 0.5 */
	double percent_limit;        /* hide entries below this percent, default 0 */
	int show_nr_samples;         /* -n */
	int header;                  /* print the --header block (done by the caller) */
	const char *parent_regex;    /* for the parent sort key, perf's default "^sys_|^do_page_fault" */
	/* perfkit additions (keep at the end) */
	int add_filtered;            /* absolute percentages (perf's default): "# Samples" and the
	                                totals count every sample added, those the session marked
	                                filtered (pk_session_opts.deliver_filtered) too; 0: of the
	                                entries shown (--percentage relative). A filtered sample
	                                goes into its entry as any other; an entry a filtered
	                                sample made is not printed. The session's filters also
	                                decide, at print time, which columns perf hides (elide.c) */
	int group;                   /* event groups: 0 perf's default (one block per group when the
	                                file has GROUP_DESC), 1 --group (also puts all events of a
	                                file without groups in one), -1 --no-group */
	int threads;                 /* 0: a second thread builds the histogram when it can (see
	                                pk_report_add), 1: everything on the caller's thread */
	int show_total_period;       /* --show-total-period: a Period column (Self's) after Samples */
	const char *field_sep;       /* -t: columns joined by this instead of aligned with blanks
	                                (no rulers; its first character in a key's text becomes
	                                '.'; folded chains joined by it); NULL or "": aligned */
	int quiet;                   /* -q: no '#' lines but the hidden columns' names */
	uint64_t time_quantum;       /* the time key's step in ns (--time-quantum), 0: perf's 100 ms */
	int time_ns;                 /* --ns: the time key to the nanosecond (else the microsecond) */
	int full_source_path;        /* --full-source-path: srcline and srcfile with the whole path */
	const char *fields;          /* -F: the columns in this order ("overhead,sym"; values overhead,
	                                overhead_children, sample, period, and sort keys), which also
	                                order the output unless --sort comes first; "+sample,period":
	                                added to the default columns. NULL: perf's default */
	int show_cpu_utilization;    /* --show-cpu-utilization: sys and usr columns after Self, the
	                                shares of kernel- and user-mode samples (also -F overhead_sys,
	                                overhead_us) */
	enum pk_callgraph_value cg_value; /* -g's value: percent (default), period or count */
	uint32_t cg_print_limit;     /* -g's print limit: at most this many chains of a block, or
	                                children of a node (graph); 0: no limit */
	int cg_by_address;           /* -g address: a call-graph node per address (else per function),
	                                printed with its source line, or +offset without one */
	const char *symbol_filter;   /* --symbol-filter: only rows whose symbol's name holds this text
	                                (the totals stay those of every row, as the other filters') */
	int hierarchy;               /* --hierarchy: the rows as a tree, a level per sort key, each
	                                node with the sum of the rows under it (no Children column:
	                                perf turns it off, after it chose the caller order) */
	int group_sort_idx;          /* --group-sort-idx N: a group's rows by member N's values first
	                                (1..members-1: then the other members', not the leader's);
	                                0: perf's default (leader, then each member); another number:
	                                the leader's only */
	int exclude_other;           /* -x: rows without a parent match (the parent key's [other])
	                                are hidden, counted in the totals (perf's parent filter) */
	int raw_trace;               /* --raw-trace: the trace key's text as " name=value" per field */
};

struct pk_report;

PK_API int pk_report_new(const struct pk_report_opts *opts, struct pk_report **out, struct pk_diag *d);
PK_API void pk_report_free(struct pk_report *r);

/*
 * Fix perf's defaults (children and call graphs only when some event has
 * call chains) from every event of @ss, and use its symbols for srcline.
 * A file with the BRANCH_STACK feature turns perf's branch mode on: a row
 * per branch, by default sorted by comm, dso_from, symbol_from, symbol_to
 * and cycles. Optional: without it the first sample's event decides.
 * 0, or -ENOTSUP when a branch key (dso_from, dso_to, symbol_from,
 * symbol_to, cycles) is asked for outside branch mode (perf refuses it).
 */
PK_API int pk_report_setup(struct pk_report *r, struct pk_session *ss);

/* 1 if the report's keys (srcline, srcfile) need the DWARF line tables (pk_symbols_opts.want_srcline). */
PK_API int pk_report_needs_srcline(const struct pk_report *r);

/*
 * Add one resolved sample (use as, or from, a pk_rsample_fn). 0 or -ENOMEM.
 * After pk_report_setup(), with two CPUs or more and only comm, dso and sym
 * as sort keys, the histogram is built on a second thread while the caller
 * goes on resolving samples: an error found there comes back from a later
 * call or from pk_report_finish(). Once a call has failed, every later one
 * fails with the same error and adds nothing: the report is incomplete. @rs
 * and what it points to may be reused as soon as this returns; threads,
 * maps, DSOs and symbols must stay (the session keeps them until it is
 * closed).
 */
PK_API int pk_report_add(struct pk_report *r, const struct pk_rsample *rs);

/*
 * Wait until every sample added is in the histogram. 0 or the first error
 * adding them gave (-ENOMEM). Printing and pk_report_rows() call it too.
 */
PK_API int pk_report_finish(struct pk_report *r);

/*
 * Print every event's histogram in `perf report --stdio` layout to @out
 * (perf's "# To display the perf.data header info ..." preamble, then per
 * event "# Samples: ..." / "# Event count (approx.): ..." / column titles /
 * entries / call graphs). @ss supplies evsel names, lost counts and totals.
 * No sample added (filtered ones included): only the preamble, -ENODATA.
 */
PK_API int pk_report_print(struct pk_report *r, struct pk_session *ss, FILE *out);

/*
 * Only the lines that name the columns a one-name --comm, --dsos or
 * --symbols filter of @ss hides ("# comm: ls"), as perf prints them above
 * its -D dump and --stats too.
 */
PK_API void pk_report_print_hidden(struct pk_report *r, struct pk_session *ss, FILE *out);

/*
 * perf report --tasks (with @maps, --mmaps): the threads of @ss's machine
 * as a tree under the threads that FORKed them, in perf 6.1's order and
 * layout, with each thread's maps under it with @maps. Run the session with
 * tasks_only first. 0, -ENOENT when a thread's ppid names no thread (perf:
 * "failed to process tasks"), or -ENOMEM.
 */
PK_API int pk_report_print_tasks(struct pk_session *ss, int maps, FILE *out);

/* The entries of event @evsel_idx, sorted as printed, for tests: key text and self/children periods. */
struct pk_report_row {
	const char *key;             /* the sort-key columns joined by two spaces, as printed */
	uint64_t self_period, children_period, nr_samples;
};
/* Fills up to @max rows; returns the number of rows the event has. */
PK_API size_t pk_report_rows(struct pk_report *r, size_t evsel_idx, struct pk_report_row *rows,
			     size_t max);

#ifdef __cplusplus
}
#endif
#endif
