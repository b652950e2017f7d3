/*
 * Private to lib/counter: the body of struct pk_counters shared by open.c
 * (opening, ioctls, accessors) and read.c (reading and summing), and the
 * perf_event_open(2) wrapper with perf's exclude-kernel fallback and the
 * perf_event_paranoid diagnostics (paranoid.c) that open.c and self.c share.
 */
#ifndef PERFKIT_LIB_COUNTER_INTERNAL_H
#define PERFKIT_LIB_COUNTER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <perfkit/counter.h>

/* read_format every counter gets; group leaders add GROUP|ID. */
#define PK_READ_TIMES (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

/* One event opened on one slot. */
struct pk_counter_fd {
	int fd;                 /* -1 when not open (unsupported, slot gone, group broken) */
	uint64_t id;            /* PERF_EVENT_IOC_ID, for matching group reads */
	struct pk_counts counts;
};

/* Per event of the list, in list order. */
struct pk_counter_event {
	struct pk_event ev;     /* own copy: name gains ":u" after the fallback */
	int group_size;         /* leaders: events whose leader is this one, itself included */
	bool unsupported;       /* the kernel rejected it as not supported here */
	bool not_counted;       /* its group lost a member to "not supported" */
	bool group_read;        /* leader read with PERF_FORMAT_GROUP */
};

struct pk_counters {
	struct pk_counter_event *evs;
	size_t nr_ev;
	size_t nr_slots;
	pid_t *pids;            /* per slot: pid argument of perf_event_open */
	int *cpus;              /* per slot: cpu argument */
	bool *slot_gone;        /* per slot: the thread exited before it was opened */
	struct pk_counter_fd *fds; /* [ev * nr_slots + slot] */
	int max_group;          /* largest group_size, sizes the read buffers */
	uint64_t *rbuf;         /* group read(2) buffer */
	struct pk_counts *rcounts;
	uint64_t *rids;
};

static inline struct pk_counter_fd *pk_counter_fd_at(const struct pk_counters *c,
						     size_t ev, size_t slot)
{
	return &c->fds[ev * c->nr_slots + slot];
}

/* pk_paranoid_level, pk_perf_open, pk_user_only_name, pk_perm_diag: in <perfkit/counter.h>. */

#endif
