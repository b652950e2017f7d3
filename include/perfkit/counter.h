/*
 * perfkit counter: opening counting events with perf_event_open(2) for a set
 * of threads or CPUs, groups read with PERF_FORMAT_GROUP, scaling by
 * time_enabled/time_running, self-monitoring reads through the mmap page,
 * and the statistics perf stat prints (repeat means and noise, derived
 * metrics such as CPUs utilized, GHz, IPC, miss ratios and rates).
 */
#ifndef PERFKIT_COUNTER_H
#define PERFKIT_COUNTER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <perfkit/core.h>
#include <perfkit/event.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- raw counts and scaling -------------------------------------------- */

/* One counter value as read(2) returns it. */
struct pk_counts {
	uint64_t val;
	uint64_t ena;  /* time_enabled, ns */
	uint64_t run;  /* time_running, ns */
	uint64_t lost; /* samples the kernel dropped (PERF_FORMAT_LOST), else 0 */
};

/* A count after scaling. */
struct pk_scaled {
	double value;        /* val * ena / run, or val when never multiplexed */
	bool counted;        /* false when run == 0 (perf's "<not counted>") */
	bool multiplexed;    /* run < ena: show the percentage */
	double pct_running;  /* 100 * run / ena (100 when ena == 0) */
};

/* Scale @c the way perf stat does. */
PK_API void pk_counts_scale(const struct pk_counts *c, struct pk_scaled *out);

/* @a - @b field by field (for interval deltas). */
PK_API void pk_counts_delta(const struct pk_counts *a, const struct pk_counts *b,
			    struct pk_counts *out);

/*
 * Decode a read(2) buffer of @len bytes for @read_format into @out, which has
 * room for @nr counts (1 without PERF_FORMAT_GROUP, the group size with it).
 * Layout (include/uapi/linux/perf_event.h):
 *   !GROUP: { u64 value; [u64 time_enabled]; [u64 time_running]; [u64 id]; [u64 lost] }
 *    GROUP: { u64 nr; [u64 time_enabled]; [u64 time_running];
 *             { u64 value; [u64 id]; [u64 lost] } cntr[nr] }
 * If @ids is not NULL it receives the ids (when PERF_FORMAT_ID is set). Each
 * count's lost is the entry's lost with PERF_FORMAT_LOST, else 0.
 * Returns the number of counts decoded, or -EBADMSG if @len is too short or
 * nr exceeds @nr.
 */
PK_API int pk_read_format_decode(uint64_t read_format, const void *buf, size_t len,
				 struct pk_counts *out, uint64_t *ids, size_t nr);

/* ---- opening and reading ------------------------------------------------ */

/* What to count: a list of threads (pid=tid, cpu=-1) or of CPUs (pid=-1). */
struct pk_target {
	const pid_t *tids;
	size_t nr_tids;
	const int *cpus;
	size_t nr_cpus;
};

struct pk_counter_opts {
	size_t sz;            /* sizeof(struct pk_counter_opts) */
	bool inherit;         /* also count children the threads create later */
	bool enable_on_exec;  /* start at the target's next execve (implies disabled) */
	bool start_disabled;  /* open disabled; pk_counters_enable() starts them */
};

struct pk_counters;

/*
 * Open every event of @evs on every slot of @t (a slot is one thread or one
 * CPU). Groups in @evs become kernel groups per slot and are read with one
 * PERF_FORMAT_GROUP read when inherit allows it.
 *
 * An event the kernel does not support here (EOPNOTSUPP, ENOENT, ENODEV,
 * ENXIO, EINVAL on a hardware/cache/raw event) is kept and marked
 * unsupported, as perf stat does ("<not supported>"). Permission failures
 * (EACCES, EPERM) fail the whole open with a diag that names
 * /proc/sys/kernel/perf_event_paranoid, its value, what it forbids, and a hint.
 * Returns 0 or -errno.
 */
PK_API int pk_counters_open(struct pk_counters **out, const struct pk_event_list *evs,
			    const struct pk_target *t, const struct pk_counter_opts *opts,
			    struct pk_diag *diag);
PK_API void pk_counters_free(struct pk_counters *c);

PK_API size_t pk_counters_nr_events(const struct pk_counters *c);
PK_API size_t pk_counters_nr_slots(const struct pk_counters *c);
/* The event list the counters were opened from. */
PK_API const struct pk_event *pk_counters_event(const struct pk_counters *c, size_t ev);
/* False if the kernel rejected event @ev as not supported here. */
PK_API bool pk_counters_supported(const struct pk_counters *c, size_t ev);

/* ioctl ENABLE / DISABLE / RESET on every open fd (groups through their leader). */
PK_API int pk_counters_enable(struct pk_counters *c);
PK_API int pk_counters_disable(struct pk_counters *c);
PK_API int pk_counters_reset(struct pk_counters *c);

/* Read every open counter; afterwards pk_counters_get() returns fresh values. */
PK_API int pk_counters_read(struct pk_counters *c, struct pk_diag *diag);
/* The last value read for event @ev on slot @slot (zeros if unsupported). */
PK_API const struct pk_counts *pk_counters_get(const struct pk_counters *c, size_t ev,
					       size_t slot);
/* Sum of event @ev over all slots (val, ena and run summed, as perf aggregates). */
PK_API void pk_counters_sum(const struct pk_counters *c, size_t ev, struct pk_counts *out);

/* ---- perf_event_open(2) itself ------------------------------------------------ */

/* /proc/sys/kernel/perf_event_paranoid, or 2 (the kernel default) if unreadable. */
PK_API int pk_paranoid_level(void);

/*
 * perf_event_open(2) with PERF_FLAG_FD_CLOEXEC. On EACCES or EPERM, when
 * @attr counts both user and kernel and perf_event_paranoid >= 2, retries
 * once with exclude_kernel and exclude_hv set (left set in @attr, and
 * *@fell_back set, on success). Returns the fd or -errno.
 */
PK_API int pk_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			bool *fell_back);

/*
 * pk_perf_open for an event with perf's P modifier (@precise_max): while the
 * kernel refuses it (EOPNOTSUPP or EINVAL) and attr->precise_ip is above 0,
 * lowers attr->precise_ip by one and tries again, as perf does; the level
 * that opened stays in @attr. If none opens, attr->precise_ip is put back
 * and the last error returned. Without @precise_max: pk_perf_open.
 */
PK_API int pk_perf_open_stepping(struct perf_event_attr *attr, bool precise_max, pid_t pid,
				 int cpu, int group_fd, bool *fell_back);

/*
 * Whether the kernel takes read_format PERF_FORMAT_LOST (Linux 6.0 and later:
 * it then counts each event's dropped samples): false only when a probe
 * event with it is refused with EINVAL, as older kernels refuse unknown bits.
 */
PK_API bool pk_perf_reads_lost(void);

/* @name with perf's user-only suffix: "task-clock:u", "cpu/x/u". Caller frees. */
PK_API char *pk_user_only_name(const char *name);

/*
 * Fill @diag for a permission failure @err opening event @name: names
 * /proc/sys/kernel/perf_event_paranoid, its value, what it forbids and a
 * hint. Returns @err.
 */
PK_API int pk_perm_diag(struct pk_diag *diag, const char *name, int err);

/* ---- self-monitoring through the mmap page ----------------------------- */

/* Reads the hardware counter with rdpmc; replaceable for tests. */
typedef uint64_t (*pk_rdpmc_fn)(uint32_t index);
/* Reads the time stamp counter; replaceable for tests. */
typedef uint64_t (*pk_rdtsc_fn)(void);

/*
 * Read a counter from its perf_event_mmap_page with the seqlock protocol of
 * the ABI (lock, index, offset, time_enabled/running, pmc_width, time_*):
 * when cap_user_rdpmc and index != 0, count = offset + sign-extended rdpmc;
 * times advanced with the cap_user_time fields. @rdpmc/@rdtsc may be NULL for
 * the real instructions. Returns 0, or -EAGAIN when the page cannot give the
 * value (no rdpmc, event not on a counter): the caller then uses read(2).
 */
PK_API int pk_mmap_page_read(const volatile struct perf_event_mmap_page *pc,
			     struct pk_counts *out, pk_rdpmc_fn rdpmc, pk_rdtsc_fn rdtsc);

/*
 * Open @ev for the calling thread with its mmap page mapped, for
 * self-monitoring. pk_self_counter_read() uses the page and falls back to
 * read(2). Returns 0 or -errno.
 */
struct pk_self_counter {
	int fd;
	void *page;
};
PK_API int pk_self_counter_open(struct pk_self_counter *sc, const struct pk_event *ev,
				struct pk_diag *diag);
PK_API int pk_self_counter_read(struct pk_self_counter *sc, struct pk_counts *out);
PK_API void pk_self_counter_close(struct pk_self_counter *sc);

/* ---- targets from /proc and /sys --------------------------------------- */

/* Online CPUs from /sys/devices/system/cpu/online. Count or -errno; caller frees. */
PK_API int pk_cpus_online(int **cpus);
/* Threads of @pid from /proc/PID/task. Count or -errno; caller frees. */
PK_API int pk_proc_threads(pid_t pid, pid_t **tids);

/* Socket, die and core ids of @cpu from /sys/devices/system/cpu/cpuN/topology. */
struct pk_cpu_topo {
	int socket;
	int die;
	int core;
};
PK_API int pk_cpu_topology(int cpu, struct pk_cpu_topo *topo);

/* ---- statistics over repeated runs ------------------------------------- */

/* Running mean and variance (Welford). Zero-initialize. */
struct pk_stats {
	double n;
	double mean;
	double m2;
};
PK_API void pk_stats_update(struct pk_stats *s, double v);
/* Standard deviation of the mean: sqrt(var / n), var with n-1; 0 when n < 2. */
PK_API double pk_stats_stddev_mean(const struct pk_stats *s);
/* 100 * stddev_mean / mean (0 when mean is 0): perf's "( +- x.xx% )". */
PK_API double pk_stats_rel_pct(const struct pk_stats *s);

/* ---- derived metrics --------------------------------------------------- */

/*
 * Values of the events that metrics refer to, for one aggregation unit (the
 * whole run, one CPU, one core, one socket). Fill with pk_metric_ctx_add()
 * for every counted event of the unit; absent events stay 0.
 */
struct pk_metric_ctx {
	double wall_ns;          /* elapsed wall-clock time, set by the caller */
	double task_clock_ns;    /* task-clock or cpu-clock */
	double cycles;
	double instructions;
	double branches;
	double cache_refs;
	double stalled_front;
	double stalled_back;
	double l1d_loads;
	double l1i_loads;
	double llc_loads;
	double dtlb_loads;
	double itlb_loads;
};

PK_API void pk_metric_ctx_add(struct pk_metric_ctx *m, const struct pk_event *ev,
			      double value);

/* A metric as perf stat prints it after '#'. */
struct pk_metric {
	double value;
	const char *unit;  /* "CPUs utilized", "GHz", "insn per cycle",
			      "of all branches", "K/sec", ... */
	const char *fmt;   /* perf's printf format for the value: "%8.3f", "%7.2f%%",
			      "%7.2f " (insn per cycle), "%8.3f %%" (cache misses:
			      a percentage where it prints '%') */
};

/*
 * The derived metric perf stat shows next to @ev whose scaled value is
 * @value, given the unit's @ctx. Returns false when perf shows none; then
 * out->unit is what perf's JSON still names as the metric's unit: the
 * ratio's ("of all branches"; "Ghz", so spelled, for cycles without a
 * clock), or NULL for a rate without a clock (perf prints "(null)").
 */
PK_API bool pk_metric_compute(const struct pk_metric_ctx *ctx, const struct pk_event *ev,
			      double value, struct pk_metric *out);
/*
 * perf's second metric line for @ev (value @value): "stalled cycles per
 * insn" under instructions when stalled cycles were counted. False if none.
 */
PK_API bool pk_metric_extra(const struct pk_metric_ctx *ctx, const struct pk_event *ev,
			    double value, struct pk_metric *out);

#ifdef __cplusplus
}
#endif
#endif
