/*
 * perfkit record: sampling with perf_event_open(2) through mmap ring
 * buffers into perf.data (what `perf record` does), the side band perf
 * synthesizes for what already exists when recording starts (threads from
 * /proc, the kernel and its modules), and the live profile of `perfkit top`.
 */
#ifndef PERFKIT_RECORD_H
#define PERFKIT_RECORD_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <perfkit/core.h>
#include <perfkit/event.h>
#include <perfkit/ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- synthesized side band (synth.c) --------------------------------------- */

/* Receives one synthesized record (native order, header.size bytes). 0 or -errno to stop. */
typedef int (*pk_synth_fn)(void *ctx, const struct perf_event_header *rec);

struct pk_synth {
	const struct perf_event_attr *attr;  /* the first event: decides the sample_id trailer */
	const char *proc_root;       /* default "/proc" */
	pk_synth_fn emit;
	void *ctx;
	int mmap_data;               /* also non-executable mappings (perf's -d) */
};

/*
 * The records perf synthesizes for the kernel: MMAP of
 * "[kernel.kallsyms]_text" (pid -1, start = _text from /proc/kallsyms, pgoff
 * = start, len to the end of the address space, misc KERNEL) and one MMAP per
 * loaded module from /proc/modules. Without a readable kallsyms the kernel
 * map is still written with start 0 (as perf does under kptr_restrict).
 * The sample_id trailer (when attr->sample_id_all) is zero, as perf's.
 */
PK_API int pk_synth_kernel(const struct pk_synth *s);

/*
 * The records for process @pid as it is now: per thread a COMM, a FORK
 * (ppid/ptid from /proc/PID/status, time 0) and, for the process, one MMAP2
 * per executable mapping of /proc/PID/maps ([vdso] included; with mmap_data
 * also data mappings), with major/minor/inode of the file. A process that
 * vanishes while it is read is skipped (0).
 */
PK_API int pk_synth_process(const struct pk_synth *s, pid_t pid);

/* pk_synth_process() for every process in /proc. */
PK_API int pk_synth_all(const struct pk_synth *s);

/* ---- recording (record.c) --------------------------------------------------- */

enum pk_callgraph { PK_CALLGRAPH_NONE, PK_CALLGRAPH_FP, PK_CALLGRAPH_DWARF };

struct pk_record_opts {
	size_t sz;
	/* what */
	const char *events;          /* -e list (NULL: cycles, falling back to cpu-clock like perf) */
	uint64_t freq;               /* -F (0 with period 0: 4000) */
	uint64_t period;             /* -c */
	enum pk_callgraph callgraph;
	uint32_t dwarf_stack_size;   /* --call-graph dwarf,SIZE (default 8192) */
	uint64_t branch_sample_type; /* -b / -j (0: none) */
	int switch_events;           /* --switch-events */
	int data_addr;               /* -d */
	int sample_cpu;              /* --sample-cpu (always on with -a/-C, like perf) */
	int timestamps;              /* -T is perf's default anyway; kept for the flag */
	int no_inherit;
	int clockid;                 /* -k (-1: none) */
	const char *filter;          /* --filter, applied to the last tracepoint of -e */
	/* whom */
	char *const *argv;           /* -- CMD (NULL: none) */
	pid_t pid;                   /* -p (0: none) */
	pid_t tid;                   /* -t */
	int all_cpus;                /* -a */
	const char *cpu_list;        /* -C */
	/* how */
	size_t mmap_pages;           /* -m (0: 128 pages for -a per CPU... perf's default 512 KiB) */
	double duration;             /* --duration SECS (0: until the target ends or a signal) */
	const char *output;          /* -o (default perf.data; "-" pipe mode on stdout) */
	int compress_level;          /* -z / --compression-level (0: none) */
	int quiet;
	int argc;                    /* the perfkit command line, for CMDLINE */
	char *const *cmdline;
	int no_buildid_cache;        /* -N: leave perf's build-id cache ($HOME/.debug) alone */
};

/* ---- sampling events and their rings (sampler.c) ---------------------------- */

/*
 * The events of @opts opened for sampling on its target, each fd's output
 * routed to one ring per CPU (system-wide, and per-task events that inherit,
 * since the kernel refuses mmap of inherited per-task events with cpu -1) or
 * one ring per thread (--no-inherit, -t). Every event gets sample_id_all and
 * the sample fields perf gives it; the first event also tracks side band
 * (mmap2, comm, task, ksymbol, bpf_event, and context_switch with
 * --switch-events). With a command (@workload_pid > 0) events open disabled
 * with enable_on_exec.
 */
struct pk_sampler;

PK_API int pk_sampler_open(struct pk_sampler **out, const struct pk_record_opts *opts,
			   pid_t workload_pid, struct pk_diag *d);
PK_API void pk_sampler_close(struct pk_sampler *s);
PK_API int pk_sampler_enable(struct pk_sampler *s);
PK_API int pk_sampler_disable(struct pk_sampler *s);

PK_API size_t pk_sampler_nr_events(const struct pk_sampler *s);
/* The attr event @i was opened with (after perf's user-only fallback, if taken). */
PK_API const struct perf_event_attr *pk_sampler_attr(const struct pk_sampler *s, size_t i);
PK_API const char *pk_sampler_event_name(const struct pk_sampler *s, size_t i);
PK_API const uint64_t *pk_sampler_ids(const struct pk_sampler *s, size_t i, uint32_t *nr);
/* The event a sample id belongs to, or -1 (with one event: always 0). */
PK_API int pk_sampler_event_of_id(const struct pk_sampler *s, uint64_t id);
/* Index of the leader of event @i's group, and the group's size (1 alone). */
PK_API void pk_sampler_group(const struct pk_sampler *s, size_t i, size_t *leader, size_t *nr);
PK_API int pk_sampler_has_tracepoints(const struct pk_sampler *s);

PK_API size_t pk_sampler_nr_rings(const struct pk_sampler *s);
PK_API struct pk_ring *pk_sampler_ring(struct pk_sampler *s, size_t i);

/*
 * The samples the kernel dropped (ring full) per fd, read through
 * PERF_FORMAT_LOST (Linux 6.0 and later; events open with it where the
 * kernel takes it): @fn gets the event index, the fd's sample id and its
 * count, for each fd that lost any. Returns 0, -ENOMEM, or @fn's error.
 */
typedef int (*pk_sampler_lost_fn)(void *ctx, size_t ev, uint64_t id, uint64_t lost);
PK_API int pk_sampler_lost(const struct pk_sampler *s, pk_sampler_lost_fn fn, void *ctx);

/*
 * Wait up to @timeout_ms for a ring to have data. Returns 1 (data may be
 * there), 0 (timeout), -EINTR (a signal), or 0 with *@all_gone set when
 * every fd reported POLLHUP (all target threads exited).
 */
PK_API int pk_sampler_poll(struct pk_sampler *s, int timeout_ms, int *all_gone);

/* ---- perf's build-id cache (buildid_cache.c) --------------------------------- */

/*
 * Add the DSOs of @f's BUILD_ID entries to the build-id cache in @dir, in
 * perf's layout (DIR/<path>/<build-id>/elf|debug|kallsyms|vdso and the link
 * DIR/.build-id/xx/rest to it), as perf record does when it finishes a file.
 * Returns how many were added, or the -errno of the first that could not be
 * (said in @d; the others are still tried).
 */
struct pk_features;
PK_API int pk_buildid_cache_add(const char *dir, const struct pk_features *f, struct pk_diag *d);

/* ---- tracing data (tracing_data.c) -------------------------------------------- */

/*
 * The TRACING_DATA blob perf writes for tracepoints @names ("sys:name"),
 * in perf's layout (reference/perf-data.md): magic "\027\bDtracing", version
 * "0.6", endianness, sizeof(long), page size, header_page, header_event,
 * the ftrace event formats, the formats of the recorded events per system,
 * kallsyms, printk formats and saved cmdlines, read from tracefs
 * (@tracefs: NULL finds it). Appended to @out. 0 or -errno with @d set.
 */
PK_API int pk_tracing_data_build(const char *const *names, size_t nr, const char *tracefs,
				 struct pk_buf *out, struct pk_diag *d);

/* perf's -j list ("any_call,u") as branch_sample_type bits (-b is "any"). 0 or -EINVAL. */
PK_API int pk_record_branch_parse(const char *spec, uint64_t *out);

struct pk_record_stats {
	uint64_t bytes;              /* bytes written (data section, as stored) */
	uint64_t raw_bytes;          /* before compression */
	uint64_t samples;            /* PERF_RECORD_SAMPLE records written */
	uint64_t lost;               /* samples the kernel dropped: its per-event count (LOST_SAMPLES)
	                                where it gives one, else the sum of LOST.lost */
	uint64_t *samples_per_event; /* per event of the list (caller frees) */
	size_t nr_events;
	int stopped_by_signal;       /* SIGINT/SIGTERM ended the recording */
	int target_status;           /* wait status of the command (-1: none) */
	int write_error;             /* -errno of the write that stopped recording, 0 */
};

/*
 * Record as opts says until the command exits, the duration ends, or SIGINT
 * / SIGTERM arrives (the handlers are installed for the call). Returns 0
 * (also when a write error ended recording early: stats->write_error says
 * so and the file holds every complete round), or -errno with @d set when
 * nothing could be recorded.
 */
PK_API int pk_record_run(const struct pk_record_opts *opts, struct pk_record_stats *stats,
			 struct pk_diag *d);

#ifdef __cplusplus
}
#endif
#endif
