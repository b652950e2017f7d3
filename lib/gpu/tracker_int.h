/*
 * Private structures of the GPU client tracker, shared by tracker.c (clients,
 * samples, utilization) and tracker_snapshot.c (the snapshot's views).
 */
#ifndef PERFKIT_GPU_TRACKER_INT_H
#define PERFKIT_GPU_TRACKER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <perfkit/gpu.h>

#define COMM_MAX 64
/* Room for a client's engines, regions and holders before its arrays go to the heap. */
#define INLINE_ENGINES 8
#define INLINE_REGIONS 8
#define INLINE_HOLDERS 2

/* Effective counters of one engine of one client. */
struct estate {
	char name[PK_GPU_NAME_MAX];
	const char *iname;       /* the interned name */
	unsigned fields;         /* PK_ENGINE_NS | _CYCLES | _TOTAL_CYCLES seen before */
	uint64_t ns, cycles, total;
};

struct tclient {
	uint64_t hash;
	char dev_key[PK_GPU_NAME_MAX];
	bool has_id;
	uint64_t id;
	pid_t key_pid;           /* without a client id: the (pid, fd) it was read from */
	int key_fd;
	uint64_t mark;           /* seq of the last scan that saw it */
	bool has_prev;
	uint64_t prev_time;
	int32_t device;          /* index into the tracker's device list */

	struct estate *es;
	size_t n_es, es_cap;

	/* the current sample */
	char driver[PK_GPU_NAME_MAX];
	char pdev[PK_GPU_NAME_MAX];
	char name[PK_GPU_CLIENT_NAME_MAX];
	uint64_t time, interval;
	bool is_new;
	double busy;
	struct pk_gpu_engine_use *uses;
	const char **use_iname;  /* interned engine names, parallel to uses */
	size_t n_uses, uses_cap, use_iname_cap;
	struct pk_fdinfo_region *mem;
	const char **mem_iname;  /* interned region names, parallel to mem */
	size_t n_mem, mem_cap, mem_iname_cap;
	struct pk_fdinfo_pair *extras;
	size_t n_extras, extras_cap;
	struct pk_buf xstore;
	struct pk_gpu_holder *holders;
	char (*holder_comm)[COMM_MAX];
	size_t n_holders, holders_cap, holder_comm_cap;
	uint32_t n_pids;
	size_t ce_off, cm_off;   /* its contributions in the tracker's arrays */

	/* the arrays start here, in the client's one allocation */
	struct estate es_in[INLINE_ENGINES];
	struct pk_gpu_engine_use uses_in[INLINE_ENGINES];
	const char *use_iname_in[INLINE_ENGINES];
	struct pk_fdinfo_region mem_in[INLINE_REGIONS];
	const char *mem_iname_in[INLINE_REGIONS];
	struct pk_gpu_holder holders_in[INLINE_HOLDERS];
	char holder_comm_in[INLINE_HOLDERS][COMM_MAX];
};

/* What one client adds to the sums of its device and processes (packed, in scan order). */
struct contrib_engine {
	const char *iname;
	double busy;
	uint64_t d_ns, d_cycles;
	uint32_t capacity;
	bool has_busy;
};

struct contrib_mem {
	const char *iname;
	unsigned fields;
	uint64_t bytes[PK_MEM_KINDS];
};

/* A device: a known one (sysfs) or one seen only in fdinfo. */
struct tdevice {
	struct pk_gpu_device dev;   /* known (sysfs) when its index is below n_known */
};

/* (pid, client) pairs, to build the process views. */
struct pid_client {
	pid_t pid;
	uint32_t client;
	const char *comm;
};

struct pk_gpu_tracker {
	uint64_t seq;
	uint64_t scan_time, prev_scan_time;
	bool in_scan;

	struct tclient **clients;
	size_t n_clients, clients_cap;
	uint32_t *table;         /* open addressing: client index + 1, 0 = empty */
	size_t table_cap;        /* power of two */

	struct tdevice *devices;
	size_t n_devices, devices_cap;
	size_t n_known;
	size_t last_device;      /* the device of the previous sample: the likely one */

	/* engine and region names, interned so sums compare pointers */
	char **names;            /* open addressing, NULL = empty */
	size_t names_cap, n_names;

	/* snapshot storage, reused */
	struct pk_gpu_snapshot snap;
	struct pk_gpu_client *out_clients;
	size_t out_clients_cap;
	struct pk_gpu_device_view *out_devices;
	size_t out_devices_cap;
	struct pk_gpu_process *out_procs;
	size_t out_procs_cap;
	uint32_t *proc_client_idx;
	size_t proc_client_idx_cap;
	struct pid_client *pairs;
	size_t pairs_cap;
	struct pk_gpu_engine_sum *sums;
	const char **sum_iname;  /* interned names, parallel to sums */
	size_t n_sums, sums_cap, sum_iname_cap;
	struct pk_fdinfo_region *msums;
	const char **msum_iname;
	size_t n_msums, msums_cap, msum_iname_cap;
	uint32_t *order;
	size_t order_cap;
	struct contrib_engine *ce;   /* this scan's contributions */
	size_t n_ce, ce_cap;
	struct contrib_mem *cm;
	size_t n_cm, cm_cap;
	uint32_t *dev_view;      /* device list index -> view index; then view -> device */
	size_t dev_view_cap;
	struct span_off *offs;   /* each view's sums, as offsets while the arrays grow */
	size_t offs_cap;
};

/* Where a view's sums lie in the tracker's sum arrays. */
struct span_off {
	size_t sum0, sum1, mem0, mem1;
};

/* Build t->snap from the clients of the scan that just ended (tracker_snapshot.c). */
int tracker_build_snapshot(struct pk_gpu_tracker *t);

#endif
