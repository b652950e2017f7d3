/*
 * perfkit top: the live profile of `perfkit top` (what `perf top` shows).
 *
 * A pk_top is fed the records drained from the sampler's rings (and the
 * records synthesized for what already runs) in native byte order. Side
 * band (COMM, MMAP, MMAP2, FORK, EXIT, KSYMBOL) rebuilds the address spaces
 * in a pk_symbols session; samples are counted per (event, shared object,
 * symbol), or per raw address where no symbol covers the ip, for the
 * current interval. LOST and LOST_SAMPLES records count the samples the
 * kernel dropped.
 *
 * Rings of different CPUs are drained one after the other, so a sample can
 * be drained before the MMAP that maps it. Samples are therefore only
 * decoded when fed and resolved at pk_top_flush() (called after a round of
 * draining every ring) or at the end of the interval, once every side-band
 * record of the round is known.
 *
 * pk_top_interval_end() closes the interval: it returns the rows sorted by
 * samples with their percentages, the totals, and starts the next interval.
 * The interval ends when it is called, before it resolves the samples still
 * queued, which can take long (a DSO's symbols loaded for the first time):
 * call it right after reading the rings, without pk_top_flush(), so that
 * the samples taken while they are resolved, which the rings keep for the
 * next read, and the time they span both go to the next interval.
 * pk_top_format() writes an interval as `perf top --stdio` prints it.
 */
#ifndef PERFKIT_TOP_H
#define PERFKIT_TOP_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <perfkit/core.h>
#include <perfkit/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pk_top_opts {
	size_t sz;                            /* sizeof(struct pk_top_opts) */
	const struct pk_symbols_opts *symbols;  /* NULL: defaults (this machine) */
};

struct pk_top;

/* A new profile with no events. NULL with errno set on failure. */
PK_API struct pk_top *pk_top_new(const struct pk_top_opts *opts);
PK_API void pk_top_free(struct pk_top *t);

/*
 * Register the next event (index 0, 1, ... in call order) with the attr
 * its records were produced under, its name (copied) and the sample ids of
 * its fds (pk_sampler_ids(); may be NULL/0 with one event). Event 0's attr
 * also decides the sample_id trailer of side-band records and where the id
 * of every record lies (all events of a sampler share the layout of the id).
 * Returns the index or -errno.
 */
PK_API int pk_top_add_event(struct pk_top *t, const struct perf_event_attr *attr, const char *name,
			    const uint64_t *ids, uint32_t nr_ids);

/* The symbols session the side band goes to (for lookups of one's own). */
PK_API struct pk_symbols *pk_top_symbols(struct pk_top *t);

/*
 * Feed one record (@rec->size bytes, 8-byte aligned, native order).
 * Records of other types are ignored (0). A sample whose id matches no
 * event is counted in the interval's nr_unknown and dropped. Returns 0,
 * -EBADMSG with @d set for a record whose payload cannot be right (it is
 * skipped; feeding may go on), -ENOMEM, or -EINVAL before any event.
 */
PK_API int pk_top_feed(struct pk_top *t, const struct perf_event_header *rec, struct pk_diag *d);

/* pk_synth_fn-shaped wrapper of pk_top_feed() for pk_synth (@ctx is the pk_top). */
PK_API int pk_top_feed_synth(void *ctx, const struct perf_event_header *rec);

/* Resolve and count the samples fed since the last flush. 0 or -ENOMEM. */
PK_API int pk_top_flush(struct pk_top *t);

/* Drop the current interval's counts and restart its clock (e.g. after enabling). */
PK_API void pk_top_reset(struct pk_top *t);

/* One line of the profile. */
struct pk_top_row {
	uint32_t event;              /* index of pk_top_add_event() */
	char level;                  /* 'k' kernel, '.' user, 'g' guest kernel, 'u' guest user, 'H' hypervisor */
	const char *dso;             /* short name of the shared object, "[unknown]" without a map */
	const char *sym;             /* symbol name, NULL when no symbol covers the address */
	uint64_t addr;               /* without a symbol: the DSO-relative address (the ip without a map) */
	uint64_t samples;            /* samples in the interval */
	uint64_t period;             /* sum of their periods */
	double percent;              /* samples * 100 / the event's samples in the interval */
};

/* Per event totals of an interval. */
struct pk_top_event_stats {
	const char *name;
	const struct perf_event_attr *attr;
	uint64_t samples, period;
	uint64_t kernel;             /* samples taken in kernel mode (cpumode KERNEL or GUEST_KERNEL) */
	uint64_t exact;              /* samples with PERF_RECORD_MISC_EXACT_IP */
};

/* A closed interval. Rows and names stay valid until the next pk_top_interval_end() or pk_top_free(). */
struct pk_top_interval {
	uint64_t index;              /* 0 for the first interval */
	uint64_t duration_ns;        /* from its start (pk_top_new, _reset, or the previous end) to its end */
	uint64_t nr_samples;         /* every event */
	uint64_t nr_kernel;          /* of which kernel mode */
	uint64_t nr_lost;            /* samples the kernel dropped (LOST.lost + LOST_SAMPLES.lost) */
	uint64_t nr_lost_total;      /* since pk_top_new() */
	uint64_t nr_unknown;         /* samples of no registered event */
	uint64_t nr_bad;             /* records skipped as corrupt */
	size_t nr_events;
	const struct pk_top_event_stats *events;
	size_t nr_rows;
	const struct pk_top_row *rows;   /* by samples, then period, descending; ties by dso, symbol */
};

/*
 * Flush, close the current interval into @out and start the next one.
 * 0 or -ENOMEM (the interval's counts are then kept).
 */
PK_API int pk_top_interval_end(struct pk_top *t, struct pk_top_interval *out);

/* "[k] name", or "[.] 0x0000000000001234" (perf's column) into @buf; returns @buf. */
PK_API const char *pk_top_row_symbol(const struct pk_top_row *r, char *buf, size_t sz);

/* How pk_top_format() prints. Zero is perf top --stdio's default look. */
struct pk_top_format_opts {
	size_t sz;
	const char *target;          /* "all, 2 CPUs", "pid: 123", ... (NULL: left out) */
	size_t max_rows;             /* rows per event (0: all) */
	int hide_kernel;             /* leave out [k]/[g] rows (-K); totals still count them */
	int hide_user;               /* leave out [.]/[u] rows (-U) */
	unsigned width;              /* line width to cut rows at (0: none) */
};

/*
 * Append to @out, per event:
 *
 *    PerfTop:    4012 irqs/sec  kernel:12.5%  exact:  0.0% lost: 0/0 [4000Hz cpu-clock],  (all, 2 CPUs)
 * -------------------------------------------------------------------------------
 *
 *   Overhead  Shared Object      Symbol
 *     52.10%  pk-workload        [.] work
 *
 * 0 or -ENOMEM.
 */
PK_API int pk_top_format(const struct pk_top_interval *iv, const struct pk_top_format_opts *opts,
			 struct pk_buf *out);

/* "4000Hz cpu-clock" or "100003 cycles" (-c) for the header line; returns @buf. */
PK_API const char *pk_top_event_desc(const struct pk_top_event_stats *ev, char *buf, size_t sz);

/* ---- full-screen view (view.c, ncurses) ---------------------------------------- */

/*
 * The interactive face of `perfkit top`: the terminal taken over with
 * ncurses, the interval drawn as pk_top_format() writes it, cut to the
 * screen, with a key line at the bottom. The command owns the loop: it
 * draws after each interval and asks for keys in between.
 */
struct pk_top_view;

/* Take over the terminal. 0, -ENOTTY without one, or -ENOMEM. */
PK_API int pk_top_view_open(struct pk_top_view **out);
/* Draw @iv (NULL: a "waiting" screen) under @opts; width and rows follow the screen. */
PK_API int pk_top_view_draw(struct pk_top_view *v, const struct pk_top_interval *iv,
			    const struct pk_top_format_opts *opts);
/*
 * Wait up to @timeout_ms (0: just look) for a key. Returns the key, 0 when
 * none came, or PK_TOP_VIEW_RESIZE after the terminal changed size.
 */
PK_API int pk_top_view_key(struct pk_top_view *v, int timeout_ms);
#define PK_TOP_VIEW_RESIZE (-2)
/* Give the terminal back as it was. */
PK_API void pk_top_view_close(struct pk_top_view *v);

#ifdef __cplusplus
}
#endif
#endif
