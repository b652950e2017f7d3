/*
 * perfkit gpu: per-client GPU usage from DRM fdinfo (the DRM usage-stats
 * specification, ../shared/specs/drm-usage-stats.txt), for every driver.
 *
 * The pieces, each usable on its own:
 *
 *   pk_fdinfo_*        parse the text of one /proc/<pid>/fdinfo/<fd>
 *   pk_gpu_devices_*   the DRM and accel devices of a sysfs tree, with PCI names
 *   pk_gpu_tracker_*   turn successive scans (one fdinfo sample per DRM fd)
 *                      into clients, utilization, per-process and per-device sums
 *   pk_gpu_scanner_*   walk a /proc tree, find DRM fds cheaply, feed a tracker
 *   pk_gpu_rec_* / pk_gpu_replay_*   the JSON Lines recording (gpu record/report)
 *   pk_gpu_*_json/_csv/_text/_prom   the printers of `perfkit gpu`
 *   pk_gpu_serve       the Prometheus endpoint of `perfkit gpu serve`
 *
 * Clients. A DRM client is one open struct drm_file. It is identified by
 * (device, drm-client-id), where the device is drm-pdev when the file has
 * it, else the sysfs device of the DRM node the fd refers to, else the
 * node's "major:minor". One client reached through several fds or several
 * processes (dup, fork, fd passing) is counted once; it is attributed to the
 * lowest pid holding it, and its holders are listed. Per-process views count
 * a shared client in every process holding it and say so (n_shared).
 * A file without drm-client-id cannot be deduplicated: each (pid, fd) is a
 * client of its own.
 *
 * Utilization of a client's engine over the interval between the client's
 * previous sample and this one (both timed with CLOCK_MONOTONIC when the
 * file was read, never the requested period):
 *   - drm-cycles + drm-total-cycles: d_cycles / d_total_cycles / capacity
 *     (entirely in the GPU clock domain, so preferred when present);
 *   - else drm-engine (ns): d_ns / d_wall_ns / capacity;
 *   - else drm-cycles + drm-maxfreq: d_cycles / (maxfreq * d_wall_s) / capacity;
 * as a percentage clamped to [0, 100]. A counter lower than the largest
 * value seen so far keeps that larger value until it catches up (the spec's
 * rule), so a dip gives 0 % and never a huge or negative delta. A client's
 * first sample has no utilization (has_busy false). An engine that appears
 * in a later sample of a known client (amdgpu lists only engines it has
 * used) starts from 0.
 */
#ifndef PERFKIT_GPU_H
#define PERFKIT_GPU_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <perfkit/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest engine, region, driver or pdev name kept (longer: the line is malformed). */
#define PK_GPU_NAME_MAX 64
/* Longest drm-client-name kept (longer names are cut). */
#define PK_GPU_CLIENT_NAME_MAX 128

/* ---- fdinfo text ------------------------------------------------------------ */

/* Which keys of an engine were present (pk_fdinfo_engine.fields). */
enum {
	PK_ENGINE_NS = 1u << 0,           /* drm-engine-<e>: <uint> [ns] */
	PK_ENGINE_CAPACITY = 1u << 1,     /* drm-engine-capacity-<e>: <uint> (>0) */
	PK_ENGINE_CYCLES = 1u << 2,       /* drm-cycles-<e>: <uint> */
	PK_ENGINE_TOTAL_CYCLES = 1u << 3, /* drm-total-cycles-<e>: <uint> */
	PK_ENGINE_MAXFREQ = 1u << 4,      /* drm-maxfreq-<e>: <uint> [Hz|KHz|MHz|GHz] */
};

struct pk_fdinfo_engine {
	char name[PK_GPU_NAME_MAX];
	unsigned fields;       /* PK_ENGINE_* */
	uint64_t ns;           /* busy time */
	uint64_t cycles;       /* busy cycles */
	uint64_t total_cycles; /* GPU timestamp advancing at the cycles' rate */
	uint64_t maxfreq_hz;
	uint32_t capacity;     /* identical engines behind the name; 1 when absent */
};

/* Memory kinds, the <kind> of drm-<kind>-<region>. */
enum pk_gpu_mem_kind {
	PK_MEM_TOTAL,
	PK_MEM_SHARED,
	PK_MEM_RESIDENT,       /* also the deprecated drm-memory-<region> */
	PK_MEM_PURGEABLE,
	PK_MEM_ACTIVE,
	PK_MEM_KINDS
};

/* "total", "shared", "resident", "purgeable", "active". */
PK_API const char *pk_gpu_mem_kind_name(enum pk_gpu_mem_kind k);

struct pk_fdinfo_region {
	char name[PK_GPU_NAME_MAX];
	unsigned fields;                 /* bit (1u << kind) set when present */
	uint64_t bytes[PK_MEM_KINDS];    /* in bytes whatever the unit printed */
};

/* A key the specification does not define (amd-*, v3d-jobs-*, drm-curfreq-*, ...). */
struct pk_fdinfo_pair {
	const char *key;       /* point into the pk_fdinfo's own storage */
	const char *value;     /* trimmed of surrounding whitespace */
};

/* Which identification keys were present (pk_fdinfo.has). */
enum {
	PK_FDINFO_DRIVER = 1u << 0,
	PK_FDINFO_PDEV = 1u << 1,
	PK_FDINFO_CLIENT_ID = 1u << 2,
	PK_FDINFO_CLIENT_NAME = 1u << 3,
};

/*
 * One parsed fdinfo file. Initialize with pk_fdinfo_init(); each
 * pk_fdinfo_parse() replaces the contents and reuses the storage, so a
 * scanner parses thousands of files without allocating.
 */
struct pk_fdinfo {
	unsigned has;                              /* PK_FDINFO_* */
	char driver[PK_GPU_NAME_MAX];              /* drm-driver */
	char pdev[PK_GPU_NAME_MAX];                /* drm-pdev, "" when absent */
	char client_name[PK_GPU_CLIENT_NAME_MAX];  /* drm-client-name, "" when absent */
	uint64_t client_id;                        /* drm-client-id */

	struct pk_fdinfo_engine *engines;          /* in order of first appearance */
	uint32_t n_engines;
	struct pk_fdinfo_region *regions;          /* in order of first appearance */
	uint32_t n_regions;
	struct pk_fdinfo_pair *extras;             /* in file order; not pos/flags/mnt_id/ino */
	uint32_t n_extras;

	uint32_t n_lines;                          /* lines seen */
	uint32_t n_malformed;                      /* lines skipped as malformed */
	uint64_t first_malformed;                  /* byte offset of the first, or PK_NO_OFFSET */

	/* private storage */
	size_t engines_cap, regions_cap, extras_cap;
	char *store;
	size_t store_len, store_cap;
};

PK_API void pk_fdinfo_init(struct pk_fdinfo *fi);
PK_API void pk_fdinfo_release(struct pk_fdinfo *fi);

/*
 * Parse @len bytes of fdinfo text (need not be NUL-terminated, any length).
 * Lines are "key: value"; any whitespace after the colon is skipped (TABs,
 * spaces, amdgpu's space before the TAB); keys are matched whole, longest
 * prefix first. Sizes take no unit (bytes), KiB, MiB or GiB; frequencies
 * Hz, KHz, MHz or GHz; engine times an optional "ns". A malformed line (no
 * colon, whitespace in the key, a NUL, a bad number or unit, capacity 0, a
 * name too long, a 257th distinct engine, region or extra key) is skipped
 * and counted, never fatal. A key given twice keeps
 * the last value; drm-memory-<r> only fills "resident" when drm-resident-<r>
 * is absent.
 * Returns 0, -ENOENT when the text has no drm-driver (not a DRM client), or
 * -ENOMEM.
 */
PK_API int pk_fdinfo_parse(struct pk_fdinfo *fi, const char *text, size_t len);

/* The engine, region or extra key named @name, or NULL. */
PK_API const struct pk_fdinfo_engine *pk_fdinfo_engine(const struct pk_fdinfo *fi, const char *name);
PK_API const struct pk_fdinfo_region *pk_fdinfo_region(const struct pk_fdinfo *fi, const char *name);
PK_API const char *pk_fdinfo_extra(const struct pk_fdinfo *fi, const char *key);

/* ---- devices (sysfs) ---------------------------------------------------------- */

/* A device node: card0, renderD128, accel0. */
struct pk_gpu_node {
	char name[32];
	int major, minor;
};

#define PK_GPU_MAX_NODES 8

struct pk_gpu_device {
	char key[PK_GPU_NAME_MAX];      /* pdev for PCI devices, else the sysfs device name */
	char driver[PK_GPU_NAME_MAX];   /* kernel driver bound (sysfs), else drm-driver */
	char pdev[PK_GPU_NAME_MAX];     /* PCI address "0000:03:00.0", "" if not PCI */
	uint32_t vendor_id, device_id;  /* PCI ids, 0 if not PCI */
	uint32_t subsys_vendor_id, subsys_device_id, revision;
	char vendor_name[128];          /* from the PCI id database (hwdata), "" if unknown */
	char device_name[256];
	bool accel;                     /* a compute accelerator (/sys/class/accel) */
	uint32_t n_nodes;
	struct pk_gpu_node nodes[PK_GPU_MAX_NODES];
};

/*
 * The devices under @sys_root/class/drm and @sys_root/class/accel (@sys_root
 * NULL: "/sys"), one per device however many nodes it has, sorted by key.
 * Connector entries (card0-HDMI-A-1) are skipped. No device is not an
 * error (*n = 0). Vendor and device names come from the PCI id database
 * (libpci, /usr/share/misc/pci.ids); they stay "" if it is missing.
 * Free *devs with free(). 0 or -errno (-ENOMEM).
 */
PK_API int pk_gpu_devices_load(const char *sys_root, struct pk_gpu_device **devs, uint32_t *n,
			       struct pk_diag *diag);

/* The device among @devs with a node (@major, @minor), or NULL. */
PK_API const struct pk_gpu_device *pk_gpu_device_by_node(const struct pk_gpu_device *devs, uint32_t n,
							  int major, int minor);

/* ---- tracker: samples to clients and utilization ---------------------------- */

/* One DRM fd's fdinfo as read during one scan. */
struct pk_gpu_fd_sample {
	pid_t pid;
	const char *comm;              /* process name, may be NULL */
	int fd;
	int major, minor;              /* the DRM node the fd refers to, -1 if unknown */
	uint64_t time_ns;              /* CLOCK_MONOTONIC when the file was read */
	const struct pk_fdinfo *fdinfo;
};

/* What a scan saw besides the samples. */
struct pk_gpu_scan_stats {
	uint32_t processes;      /* processes looked at */
	uint32_t unreadable;     /* processes whose fds could not be read (EACCES, EPERM) */
	pid_t first_unreadable;  /* one of them, for messages; 0 if none */
	uint32_t vanished;       /* processes or fds that went away mid-scan */
	uint32_t drm_fds;        /* DRM fds found */
	uint32_t fds_identified; /* fds whose type was looked up (fstatat) this scan */
	uint32_t fdinfo_read;    /* fdinfo files read this scan */
	uint32_t malformed;      /* malformed fdinfo lines skipped */
};

/* How a busy percentage was computed. */
enum pk_gpu_basis {
	PK_BASIS_NONE,           /* no utilization (first sample, or no usable keys) */
	PK_BASIS_TOTAL_CYCLES,   /* d_cycles / d_total_cycles */
	PK_BASIS_NS,             /* d_ns / d_wall */
	PK_BASIS_MAXFREQ,        /* d_cycles / (maxfreq * d_wall) */
};

/* "none", "total-cycles", "ns", "maxfreq". */
PK_API const char *pk_gpu_basis_name(enum pk_gpu_basis b);

struct pk_gpu_engine_use {
	struct pk_fdinfo_engine raw;    /* as read this time (name, fields, capacity) */
	uint64_t ns, cycles, total_cycles;        /* effective (never decreasing) values */
	uint64_t d_ns, d_cycles, d_total_cycles;  /* since the client's previous sample */
	bool has_busy;
	double busy_pct;                /* 0..100, per unit of capacity */
	enum pk_gpu_basis basis;
};

struct pk_gpu_holder {
	pid_t pid;
	int fd;
};

struct pk_gpu_client {
	uint32_t device;                /* index into pk_gpu_snapshot.devices */
	const char *driver;             /* drm-driver */
	const char *pdev;               /* drm-pdev, "" when absent */
	const char *name;               /* drm-client-name, "" when absent */
	bool has_client_id;
	uint64_t client_id;
	pid_t pid;                      /* lowest pid holding it */
	const char *comm;               /* that process's name ("" if unknown) */
	struct pk_gpu_holder *holders;  /* every (pid, fd) holding it, sorted */
	uint32_t n_holders;
	uint32_t n_pids;                /* distinct processes among the holders */
	uint64_t time_ns;               /* when its fdinfo was read */
	uint64_t interval_ns;           /* since its previous sample, 0 when new */
	bool is_new;                    /* first sample: no utilization yet */
	double busy_pct;                /* sum of its engines' busy_pct (for sorting) */
	struct pk_gpu_engine_use *engines;
	uint32_t n_engines;
	struct pk_fdinfo_region *memory;
	uint32_t n_memory;
	struct pk_fdinfo_pair *extras;
	uint32_t n_extras;
};

/* An engine name summed over several clients (a process's or a device's). */
struct pk_gpu_engine_sum {
	const char *name;
	bool has_busy;                  /* at least one client had utilization */
	double busy_pct;                /* sum of the clients' busy_pct, clamped to 100 for devices */
	uint64_t d_ns, d_cycles;        /* summed deltas */
	uint32_t capacity;              /* the largest capacity seen */
};

struct pk_gpu_process {
	pid_t pid;
	const char *comm;
	uint32_t *clients;              /* indices into pk_gpu_snapshot.clients */
	uint32_t n_clients;
	uint32_t n_shared;              /* of those, also held by other processes */
	double busy_pct;                /* sum over engines */
	struct pk_gpu_engine_sum *engines;
	uint32_t n_engines;
	struct pk_fdinfo_region *memory; /* summed over its clients */
	uint32_t n_memory;
};

struct pk_gpu_device_view {
	const struct pk_gpu_device *dev;
	uint32_t n_clients;
	struct pk_gpu_engine_sum *engines;  /* summed over its clients */
	uint32_t n_engines;
	struct pk_fdinfo_region *memory;    /* summed over its clients (shared buffers count in each) */
	uint32_t n_memory;
};

/*
 * The state after a scan. Owned by the tracker (or scanner); valid until
 * the next pk_gpu_tracker_begin()/refresh or free. Devices: those known
 * from sysfs, then any seen only in fdinfo, sorted by key. Clients sorted
 * by (device, client id, first holder); processes by pid.
 */
struct pk_gpu_snapshot {
	uint64_t seq;                   /* 1 for the first scan */
	uint64_t time_ns;               /* scan start, CLOCK_MONOTONIC */
	uint64_t interval_ns;           /* since the previous scan's start, 0 for the first */
	struct pk_gpu_scan_stats stats;
	struct pk_gpu_device_view *devices;
	uint32_t n_devices;
	struct pk_gpu_client *clients;
	uint32_t n_clients;
	struct pk_gpu_process *processes;
	uint32_t n_processes;
};

struct pk_gpu_tracker;

/* NULL with errno set on failure. */
PK_API struct pk_gpu_tracker *pk_gpu_tracker_new(void);
PK_API void pk_gpu_tracker_free(struct pk_gpu_tracker *t);

/* The known devices (copied); clients are matched to them by pdev, then by node. */
PK_API int pk_gpu_tracker_set_devices(struct pk_gpu_tracker *t, const struct pk_gpu_device *devs,
				      uint32_t n);

/* Start a scan at @time_ns. 0 or -errno. */
PK_API int pk_gpu_tracker_begin(struct pk_gpu_tracker *t, uint64_t time_ns);
/*
 * Add one fd's sample (everything is copied). The first sample of a client
 * in a scan gives its values; later ones only add holders. 0 or -ENOMEM.
 */
PK_API int pk_gpu_tracker_add(struct pk_gpu_tracker *t, const struct pk_gpu_fd_sample *s);
/* End the scan: clients not seen are dropped, the snapshot is built. 0 or -ENOMEM. */
PK_API int pk_gpu_tracker_end(struct pk_gpu_tracker *t, const struct pk_gpu_scan_stats *stats);
PK_API const struct pk_gpu_snapshot *pk_gpu_tracker_snapshot(const struct pk_gpu_tracker *t);

/* ---- scanner: /proc to tracker ----------------------------------------------- */

typedef uint64_t (*pk_gpu_clock_fn)(void *ctx);
/* Called with every fdinfo text read (for recordings). Nonzero stops the scan with that error. */
typedef int (*pk_gpu_fdinfo_fn)(void *ctx, const struct pk_gpu_fd_sample *s, const char *text,
				size_t len);

struct pk_gpu_scan_opts {
	size_t sz;                  /* sizeof(struct pk_gpu_scan_opts) */
	const char *proc_root;      /* default "/proc" */
	const char *sys_root;       /* default "/sys" */
	pid_t pid;                  /* > 0: only this process and its descendants */
	uint64_t revalidate_ns;     /* re-identify every fd at least this often: 0 = 5 s */
	pk_gpu_clock_fn clock;      /* default pk_now_ns (CLOCK_MONOTONIC) */
	void *clock_ctx;
	pk_gpu_fdinfo_fn on_fdinfo; /* may be NULL */
	void *on_fdinfo_ctx;
};

struct pk_gpu_scanner;

/*
 * A scanner over @opts->proc_root, with the devices of @opts->sys_root.
 * DRM fds are character devices of the "drm" major (226) or the "accel"
 * major (from <proc_root>/devices); a link that cannot be followed is
 * recognized by its target (/dev/dri/..., /dev/accel/...).
 * NULL with @diag set on failure (the proc root cannot be opened).
 */
PK_API struct pk_gpu_scanner *pk_gpu_scanner_new(const struct pk_gpu_scan_opts *opts,
						 struct pk_diag *diag);
PK_API void pk_gpu_scanner_free(struct pk_gpu_scanner *s);

/*
 * One scan: list the processes, read the fdinfo of every DRM fd once, and
 * update the tracker. A process whose set of fd numbers is unchanged since
 * the previous scan keeps its fds' identification (no fstatat), except
 * every revalidate_ns. Processes that vanish mid-scan are skipped and
 * counted; processes whose fds cannot be read are counted (stats.unreadable).
 * 0, or -errno when the proc root itself cannot be read.
 */
PK_API int pk_gpu_scanner_refresh(struct pk_gpu_scanner *s, struct pk_diag *diag);
PK_API const struct pk_gpu_snapshot *pk_gpu_scanner_snapshot(const struct pk_gpu_scanner *s);
PK_API const struct pk_gpu_device *pk_gpu_scanner_devices(const struct pk_gpu_scanner *s, uint32_t *n);

/* ---- printers --------------------------------------------------------------- */

/*
 * One JSON object on one line (with '\n') appended to @out:
 *   {"time_ns", "interval_ns", "seq", "devices": [...], "clients": [...],
 *    "processes": [...], "unreadable_processes", "vanished", "malformed_lines", "drm_fds"}
 * client: {"pid", "comm", "driver", "pdev", "client_id", "name", "device",
 *   "holders": [{"pid","fd"}], "interval_ns", "new",
 *   "engines": {"<e>": {"busy_pct" (null when unknown), "ns", "cycles",
 *               "total_cycles", "capacity", "maxfreq_hz", "basis"}},
 *   "memory": {"<region>": {"total","shared","resident","purgeable","active"}} (bytes,
 *              only the kinds present),
 *   "driver_keys": {"<key>": "<value>"}}
 * Counters absent from the file are null.
 */
PK_API int pk_gpu_snapshot_json(const struct pk_gpu_snapshot *s, struct pk_buf *out);

/*
 * CSV, one row per (client, engine) and per (client, region):
 *   time_ns,interval_ns,pid,comm,driver,pdev,client_id,name,kind,key,busy_pct,ns,cycles,
 *   total_cycles,capacity,total,shared,resident,purgeable,active
 * kind is "engine" or "memory"; fields that do not apply are empty.
 * @header: also the header line first.
 */
PK_API int pk_gpu_snapshot_csv(const struct pk_gpu_snapshot *s, bool header, struct pk_buf *out);

/* What a text or screen view shows. */
enum pk_gpu_sort { PK_GPU_SORT_BUSY, PK_GPU_SORT_MEMORY, PK_GPU_SORT_PID, PK_GPU_SORT_NAME };

struct pk_gpu_view_opts {
	enum pk_gpu_sort sort;
	bool per_process;           /* rows are processes instead of clients */
	pid_t pid;                  /* > 0: only this pid */
	const char *driver;         /* non-NULL: only this driver */
	const char *device;         /* non-NULL: only this device key (or pdev, or node name) */
	uint32_t max_rows;          /* 0: all */
};

/*
 * The rows of a view: indices into s->clients (or s->processes when
 * per_process) that pass the filters, sorted. *rows is malloc'ed. Count or -ENOMEM.
 */
PK_API int pk_gpu_view_rows(const struct pk_gpu_snapshot *s, const struct pk_gpu_view_opts *o,
			    uint32_t **rows);

/*
 * Plain text of a snapshot: a device table (busy per engine, memory), then
 * the client (or process) table, then the unreadable/vanished counts, to @out.
 * @width: columns available (0: unlimited).
 */
PK_API int pk_gpu_snapshot_text(const struct pk_gpu_snapshot *s, const struct pk_gpu_view_opts *o,
				unsigned width, struct pk_buf *out);

/*
 * Prometheus text exposition (version 0.0.4) of a snapshot: engine busy
 * time, cycles as counters, capacity and memory as gauges, labelled by
 * device, driver, pid, comm, client_id, engine or region; plus scan gauges.
 */
PK_API int pk_gpu_prom_write(const struct pk_gpu_snapshot *s, struct pk_buf *out);

/* ---- recordings (JSON Lines) ------------------------------------------------- */

struct pk_gpu_recorder;

/*
 * Create @path ("-" is stdout) and write the header and device lines.
 * The format is documented in lib/gpu/recording.c. NULL with @diag set.
 */
PK_API struct pk_gpu_recorder *pk_gpu_rec_open(const char *path, const struct pk_gpu_device *devs,
					       uint32_t n_devs, uint64_t interval_ns,
					       struct pk_diag *diag);
/* A pk_gpu_fdinfo_fn: buffers one fd's raw text for the current scan (ctx = recorder). */
PK_API int pk_gpu_rec_fdinfo(void *rec, const struct pk_gpu_fd_sample *s, const char *text, size_t len);
/*
 * Write the buffered scan as one line, with @snap's time and stats, and
 * flush it to the file. 0 or -errno (@diag set).
 */
PK_API int pk_gpu_rec_scan(struct pk_gpu_recorder *rec, const struct pk_gpu_snapshot *snap,
			   struct pk_diag *diag);
/* Flush and close; 0 or -errno (a write error seen at any point). Frees @rec. */
PK_API int pk_gpu_rec_close(struct pk_gpu_recorder *rec, struct pk_diag *diag);

/* Called after each replayed scan; nonzero stops the replay and is returned. */
typedef int (*pk_gpu_replay_fn)(void *ctx, const struct pk_gpu_snapshot *snap);

/*
 * Replay a recording: every scan line goes through a tracker as it did
 * live (with the recorded devices), @fn sees each snapshot. A malformed
 * line is an error (-EBADMSG) naming @name and the byte offset of the line;
 * the scans before it have been replayed.
 */
PK_API int pk_gpu_replay_mem(const char *buf, size_t len, const char *name, pk_gpu_replay_fn fn,
			     void *ctx, struct pk_diag *diag);
PK_API int pk_gpu_replay_file(const char *path, pk_gpu_replay_fn fn, void *ctx, struct pk_diag *diag);

/* ---- per-client summary over many snapshots (gpu report) --------------------- */

struct pk_gpu_summary;

PK_API struct pk_gpu_summary *pk_gpu_summary_new(void);
PK_API void pk_gpu_summary_free(struct pk_gpu_summary *sm);
/* Fold one snapshot in. 0 or -ENOMEM. */
PK_API int pk_gpu_summary_add(struct pk_gpu_summary *sm, const struct pk_gpu_snapshot *s);
/*
 * Per client (device, client id): pid, comm, driver, first and last time,
 * per engine the total busy time (ns, or cycles), the average busy (total
 * delta over total interval) and the peak busy of any interval; per region
 * the peak of each memory kind. Text table or one JSON line
 * {"summary": {"scans", "duration_ns", "clients": [...]}} with '\n'.
 */
PK_API int pk_gpu_summary_text(const struct pk_gpu_summary *sm, struct pk_buf *out);
PK_API int pk_gpu_summary_json(const struct pk_gpu_summary *sm, struct pk_buf *out);

/* ---- Prometheus endpoint --------------------------------------------------------- */

/*
 * Serve GET /metrics on @listen ("ADDR:PORT", IPv4 or [IPv6]): one refresh
 * of @sc per scrape, pk_gpu_prom_write() as the body. Any other path is 404,
 * any other method 405; a client that sends nothing for 5 s is dropped.
 * Returns when *@stop becomes nonzero (checked at least every 200 ms): 0,
 * or -errno with @diag set when the address cannot be bound. @ready, if
 * non-NULL, is called once listening with the bound port.
 */
PK_API int pk_gpu_serve(struct pk_gpu_scanner *sc, const char *listen,
			volatile sig_atomic_t *stop, void (*ready)(void *ctx, int port),
			void *ready_ctx, struct pk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif
