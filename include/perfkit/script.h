/*
 * perfkit script: `perf script` output as a library. Each resolved sample
 * of a session is printed in perf 6.1's line layout, with perf's default
 * fields per event type or an -F field list (comm, tid, pid, time, cpu,
 * event, trace, ip, sym, symoff, dso, addr, period, data_src, weight,
 * ins_lat, phys_addr), call chains indented below the sample line, tracepoint
 * payloads formatted through libtraceevent from the file's tracing data,
 * and, on request, the side-band records (MMAP/MMAP2, COMM/FORK/EXIT).
 *
 * Output is formatted by hand into a 1 MiB buffer and written to the
 * caller's FILE with fwrite; nothing is allocated per sample.
 */
#ifndef PERFKIT_SCRIPT_H
#define PERFKIT_SCRIPT_H

#include <stdint.h>
#include <stdio.h>
#include <perfkit/core.h>
#include <perfkit/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Output fields (perf's PERF_OUTPUT_* subset), as a bit mask. */
enum pk_script_field {
	PK_SF_COMM = 1u << 0,
	PK_SF_TID = 1u << 1,
	PK_SF_PID = 1u << 2,
	PK_SF_TIME = 1u << 3,
	PK_SF_CPU = 1u << 4,
	PK_SF_EVENT = 1u << 5,
	PK_SF_TRACE = 1u << 6,
	PK_SF_IP = 1u << 7,
	PK_SF_SYM = 1u << 8,
	PK_SF_SYMOFF = 1u << 9,
	PK_SF_DSO = 1u << 10,
	PK_SF_ADDR = 1u << 11,
	PK_SF_PERIOD = 1u << 12,
	PK_SF_DATA_SRC = 1u << 13,
	PK_SF_WEIGHT = 1u << 14,
	PK_SF_PHYS_ADDR = 1u << 15,
	PK_SF_INS_LAT = 1u << 16,
	PK_SF_SRCLINE = 1u << 17,
	PK_SF_BRSTACK = 1u << 18,
	PK_SF_BRSTACKSYM = 1u << 19,
	PK_SF_MISC = 1u << 20,               /* the record's misc flags: K, U, H, G, g, M, E, S, p */
	PK_SF_DATA_PAGE_SIZE = 1u << 21,
	PK_SF_CODE_PAGE_SIZE = 1u << 22,
	PK_SF_IREGS = 1u << 23,              /* the registers at the interrupt (PERF_SAMPLE_REGS_INTR) */
	PK_SF_UREGS = 1u << 24,              /* the user registers (PERF_SAMPLE_REGS_USER) */
	PK_SF_SRCCODE = 1u << 25,            /* the source line at the sample's address */
	PK_SF_TOD = 1u << 26,                /* the wall-clock time (the file's CLOCK_DATA) */
	/*
	 * The branch flags of samples a trace decoder synthesizes (Intel PT,
	 * CoreSight), and their call depth: recorded samples have none, so
	 * flags is blank ("  %-21s " of "") and callindent prints nothing
	 */
	PK_SF_FLAGS = 1u << 27,
	PK_SF_CALLINDENT = 1u << 28,
	PK_SF_BRSTACKOFF = 1u << 29,         /* brstack with addresses in their DSOs */
};

struct pk_script_opts {
	size_t sz;
	const char *fields;          /* -F list: "comm,tid,ip", "+period", "-time", "trace:comm,trace"; NULL = defaults */
	int show_mmap_events;        /* print MMAP/MMAP2 records */
	int show_task_events;        /* print COMM/FORK/EXIT records */
	int no_callchain;            /* -G: never print call chains */
	int time_ns;                 /* --ns: times to the nanosecond */
	int time_mode;               /* 0: as recorded; PK_SCRIPT_RELTIME: since the first time
	                                printed (--reltime); PK_SCRIPT_DELTATIME: since the
	                                previous one (--deltatime) */
	int show_switch_events;      /* print SWITCH/SWITCH_CPU_WIDE records */
	int show_lost_events;        /* print LOST records */
	int show_namespace_events;   /* print NAMESPACES records */
	int show_cgroup_events;      /* print CGROUP records */
	int show_bpf_events;         /* print KSYMBOL/BPF_EVENT records */
	int full_source_path;        /* --full-source-path: srcline with the whole path */
};
enum { PK_SCRIPT_RELTIME = 1, PK_SCRIPT_DELTATIME = 2 };

struct pk_script;

/* 1 if the -F list @fields prints srcline, which needs the DWARF line tables (want_srcline). */
PK_API int pk_script_fields_need_srcline(const char *fields);

/*
 * Prepare printing @ss to @out: resolve the field list against every event
 * of the file the way perf does (a requested field the event's sample_type
 * lacks is an error naming the event; a default field it lacks is dropped).
 * 0 or -errno with @d set.
 */
PK_API int pk_script_new(struct pk_session *ss, const struct pk_script_opts *opts, FILE *out,
			 struct pk_script **sc, struct pk_diag *d);
PK_API void pk_script_free(struct pk_script *sc);

/* Walk the session and print everything; flushes @out's buffer at the end (also on error). */
PK_API int pk_script_run(struct pk_script *sc, struct pk_diag *d);

/* The callbacks pk_script_run() passes to pk_session_run(), for callers that run the session themselves. */
PK_API int pk_script_sample(void *sc, const struct pk_rsample *rs);
PK_API int pk_script_record(void *sc, const struct pk_record *r);
/*
 * perf script --per-event-dump: each event's samples go to the file
 * "@input.EVENT.dump" (made now, empty ones too), the side band to the main
 * output, which pk_script_run() ends with perf's "[ perf script: Wrote N MB
 * FILE (N samples) ]" line per file. 0 or -errno with @d naming the file.
 */
PK_API int pk_script_per_event_dump(struct pk_script *sc, const char *input, struct pk_diag *d);
/* Write buffered output to the FILE(s). 0 or -errno (write error). */
PK_API int pk_script_flush(struct pk_script *sc);

/*
 * Parse one -F argument the way perf does: an optional event-type prefix
 * ("hw:", "sw:", "trace:", "raw:", "break:"; *type = the PERF_TYPE_* it
 * names, -1 without a prefix), then fields separated by commas, either all
 * plain (replace the defaults) or each prefixed by '+' (add) or '-'
 * (remove): *mode is 0, '+' or '-'. Fields are PK_SF_* bits.
 * 0 or -EINVAL with @d naming the bad field.
 */
PK_API int pk_script_parse_fields(const char *spec, int *type, uint32_t *fields, int *mode,
				  struct pk_diag *d);

#ifdef __cplusplus
}
#endif
#endif
