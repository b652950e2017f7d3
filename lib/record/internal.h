/*
 * Private to lib/record: the pieces the sampler and the recorder share.
 */
#ifndef PERFKIT_LIB_RECORD_INTERNAL_H
#define PERFKIT_LIB_RECORD_INTERNAL_H

#include <stdint.h>
#include <perfkit/record.h>

/*
 * CPU-wide events (task -1): -a or -C without -p/-t, which take precedence
 * as in perf ("PID/TID switch overriding SYSTEM"). A command given with -a
 * or -C is recorded system-wide.
 */
static inline int pk_rec_system_wide(const struct pk_record_opts *o)
{
	return (o->all_cpus || o->cpu_list) && !o->pid && !o->tid;
}

/*
 * The command itself is the target (events start at its exec); otherwise a
 * command only sets how long -p/-t/-a/-C targets are recorded, as in perf.
 */
static inline int pk_rec_targets_command(const struct pk_record_opts *o)
{
	return o->argv && o->argv[0] && !o->all_cpus && !o->cpu_list && !o->pid && !o->tid;
}

/* What an event's attr depends on besides the event and the options. */
struct pk_rec_attr_ctx {
	size_t nr_events;
	int cpu_target;              /* pk_rec_system_wide(): events per CPU, no task */
	int workload;                /* start at the command's exec */
	int tracking;                /* this event carries the side band */
	int count_guests;            /* leave exclude_guest clear (perf's default cycles on AMD) */
	int read_lost;               /* the kernel takes PERF_FORMAT_LOST */
	size_t group_size;           /* events in this event's group, itself included */
};

/* attrs.c: @a for sampling event @ev. 0 or -EINVAL (DWARF stack size too large). */
int pk_rec_attr_setup(struct perf_event_attr *a, const struct pk_event *ev,
		      const struct pk_record_opts *o, const struct pk_rec_attr_ctx *c);

/* synth.c: the sample_id trailer of @a at @out with id slots @id, others 0; its size. */
size_t pk_rec_id_trailer(const struct perf_event_attr *a, uint64_t id, void *out);

/* hits.c: what the written records say (samples, times, lost, DSOs hit). */
struct pk_sample_layout;
struct pk_symbols;
struct pk_dso;
struct pk_features;
struct pk_rec_hits {
	struct pk_sampler *s;
	struct pk_sample_layout *layouts;   /* per event */
	uint64_t *samples;                  /* per event */
	uint64_t nr_samples;
	uint64_t lost;                      /* sum of LOST.lost (drops a ring had room to tell) */
	uint64_t lost_samples;              /* sum of LOST_SAMPLES.lost (the kernel's count) */
	uint64_t first_time, last_time;     /* UINT64_MAX, 0 until a timed sample */
	struct pk_symbols *syms;            /* NULL: DSOs are not tracked */
	struct pk_dso **dsos;               /* hit set (open addressing) */
	size_t nr_dsos, cap_dsos;
};
int pk_rec_hits_init(struct pk_rec_hits *h, struct pk_sampler *s, int track_dsos);
void pk_rec_hits_release(struct pk_rec_hits *h);
/* Account one record (native order, whole). 0 or -ENOMEM. */
int pk_rec_hits_add(struct pk_rec_hits *h, const struct perf_event_header *rec);
/* The BUILD_ID feature for the DSOs hit. 0 or -ENOMEM. */
int pk_rec_hits_build_ids(const struct pk_rec_hits *h, struct pk_features *f);

#endif
