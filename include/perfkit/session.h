/*
 * perfkit session: one pass over a perf.data file that joins the reader
 * (perfdata), the side band (symbols) and the sample filters, and hands each
 * sample to the caller already resolved: thread, comm, the sampled address
 * and every call-chain frame as (map, DSO, symbol).
 *
 * This is what `perfkit report`, `perfkit script` and the exports are built
 * on; none of them walks records or resolves addresses themselves.
 */
#ifndef PERFKIT_SESSION_H
#define PERFKIT_SESSION_H

#include <stdint.h>
#include <perfkit/core.h>
#include <perfkit/perfdata.h>
#include <perfkit/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A sample with everything resolved. Valid only during the callback. */
struct pk_rsample {
	const struct pk_record *rec;
	const struct pk_evsel *evsel;
	const struct pk_sample *s;
	struct pk_thread *thread;
	uint8_t cpumode;             /* s->misc & PERF_RECORD_MISC_CPUMODE_MASK */
	uint64_t period;             /* s->period; without PERIOD the attr's fixed sample_period (-c N), else 1 */
	struct pk_location self;     /* the sampled ip */
	/*
	 * The call chain as perf builds it: leaf first (frame 0 is normally the
	 * sampled ip itself), PERF_CONTEXT_* markers removed and used to pick
	 * each frame's cpumode, frames past PERF_CONTEXT_MAX dropped.
	 * nr_frames is 0 when the sample has no call chain.
	 */
	uint32_t nr_frames;
	const struct pk_location *frames;
	/*
	 * With pk_session_opts.inline_frames: inlined[i] is 1 when frames[i]
	 * is an inline frame the session added (its sym is a synthesized
	 * symbol named after the inlined function, with the containing
	 * function's start and end, so symoff is the offset in the containing
	 * function; perf prints it with " (inlined)"). NULL when the sample
	 * has no inline frame.
	 */
	const uint8_t *inlined;
	/*
	 * With pk_session_opts.deliver_filtered: 1 when --comm, --pid, --tid,
	 * --dso or --symbols filtered the sample out (it still comes, resolved
	 * in full, as perf report adds such samples to hidden entries).
	 */
	uint8_t filtered;
};

/* Filters applied before anything is counted (perf report --comm/--pid/...). */
struct pk_session_filter {
	const char *comms;           /* comma-separated list, NULL = all */
	const char *pids;            /* comma-separated pids */
	const char *tids;
	const char *dsos;            /* DSO short or long names */
	const char *symbols;         /* symbol names */
	const char *cpus;            /* cpu list "0-3,5" */
	const char *time;            /* "START,END" in seconds.fraction like perf --time (either may be empty) */
	int hide_unresolved;         /* -U: leave out samples whose ip has no symbol (perf report
	                                leaves them out of its totals, as those outside --time),
	                                and the call-chain frames that have none */
	/*
	 * --switch-on / --switch-off EVENT: drop the samples before the first
	 * switch-on sample, and from a switch-off sample to the next switch-on
	 * (with no switch-on event, only the switch-off samples); the switching
	 * samples too unless @show_on_off_events. Uncounted, as outside --time.
	 * @switch_after_filters: decided after --comm, --pid, --dsos ... (perf
	 * script), else before them (perf report).
	 */
	const char *switch_on, *switch_off;
	int show_on_off_events;
	int switch_after_filters;
};

struct pk_session_opts {
	size_t sz;
	int ordered;                 /* timestamp order (default on: set by PK_OPTS users) */
	int deliver_header_records;  /* pass HEADER_* records to the record callback too (for -D) */
	struct pk_symbols_opts symbols;   /* osrelease filled from the file when left NULL */
	struct pk_session_filter filter;
	/* progress: called about every 64 MiB of input with (position, size) */
	void (*progress)(void *ctx, uint64_t pos, uint64_t size);
	void *progress_ctx;
	uint32_t max_stack;          /* call-chain entries kept per sample (--max-stack), 0 = perf's 127,
	                                PK_SESSION_NO_STACK: none (--max-stack 0) */
	/*
	 * --inline: expand each call-chain frame that has a symbol into the
	 * chain of functions inlined at its address (DWARF through libdw,
	 * innermost first, all at the frame's address), followed by the frame
	 * itself; turns symbols.want_srcline on. The sampled ip (rs->self) is
	 * not expanded, as in perf.
	 */
	int inline_frames;
	/*
	 * DWARF unwinding of samples that carry a user stack copy (REGS_USER +
	 * STACK_USER, `perf record --call-graph dwarf`): 0 = on (the default),
	 * < 0 = off. The unwound user frames follow the kernel part of the chain.
	 */
	int unwind_dwarf;
	/*
	 * --max-stack keeps the outermost entries instead of the innermost, as
	 * perf does when it orders call chains caller first (report --children,
	 * -g caller, -G). The frames still come innermost first.
	 */
	int max_stack_callers;
	/*
	 * The --time range counts from the file's first sample (its
	 * HEADER_SAMPLE_TIME; from 0 without it), as perf script reads it
	 * with --reltime. An open end stays open.
	 */
	int time_relative;
	/*
	 * Hand the samples --comm, --pid, --tid, --dso and --symbols filter
	 * out to the sample callback too, marked rs->filtered (those outside
	 * --time and --cpu never come), as perf report needs them.
	 */
	int deliver_filtered;
	/*
	 * --ignore-callees REGEX (extended regex, perf's): the last call-chain
	 * frame, in the chain's order (caller first with max_stack_callers), whose
	 * symbol matches becomes the sample's own location, and the frames before
	 * it in that order are dropped: its callees (callee order) or callers.
	 */
	const char *ignore_callees;
	/*
	 * perf report --tasks (PK_SESSION_TASKS) and --mmaps (PK_SESSION_TASKS_MMAPS):
	 * only COMM, FORK and EXIT records (and MMAP, MMAP2) make the machine's
	 * threads; no sample is delivered or makes a thread. 0: every record.
	 */
	int tasks_only;
};
#define PK_SESSION_NO_STACK UINT32_MAX
#define PK_SESSION_TASKS 1
#define PK_SESSION_TASKS_MMAPS 2

struct pk_session;

/* Open @path ("-" = stdin) and read its header. 0 or -errno with @d set. */
PK_API int pk_session_open(const char *path, const struct pk_session_opts *opts,
			   struct pk_session **out, struct pk_diag *d);
PK_API void pk_session_close(struct pk_session *ss);

typedef int (*pk_rsample_fn)(void *ctx, const struct pk_rsample *rs);

/*
 * Walk the file once. For every sample that passes the filters, @on_sample
 * gets it resolved. @on_record (may be NULL) sees every record first, after
 * the side band of that record was applied (for -D, --stats, script's
 * non-sample events). Either callback returning non-zero stops the walk.
 * Returns 0, the callback's value, or -errno with @d set.
 */
PK_API int pk_session_run(struct pk_session *ss, pk_rsample_fn on_sample, pk_record_fn on_record,
			  void *ctx, struct pk_diag *d);

PK_API struct pk_perfdata *pk_session_data(struct pk_session *ss);
PK_API struct pk_symbols *pk_session_symbols(struct pk_session *ss);
/* The filters as the options gave them (the strings stay the caller's). */
PK_API const struct pk_session_filter *pk_session_filter(const struct pk_session *ss);

/* Samples seen and samples dropped by the filters, per evsel index. */
struct pk_session_counts {
	uint64_t nr_samples, total_period;          /* before filters */
	uint64_t nr_filtered, filtered_period;      /* dropped by filters */
	uint64_t nr_lost_samples;                   /* sum of its LOST_SAMPLES.lost */
	/* of those filtered: outside --time or --cpu, or unresolved under -U (perf report leaves
	   them out of its totals) */
	uint64_t nr_out_of_range, out_of_range_period;
};
PK_API const struct pk_session_counts *pk_session_counts(const struct pk_session *ss, size_t evsel_idx);

#ifdef __cplusplus
}
#endif
#endif
