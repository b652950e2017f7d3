/*
 * perf record: open the sampling events, write what already exists (the
 * kernel, modules, processes of -a / -p), then drain every ring buffer in
 * passes straight into perf.data, a FINISHED_ROUND after each pass, until
 * the command exits, the duration ends or SIGINT/SIGTERM arrives; then drain
 * once more, write each event's dropped samples as LOST_SAMPLES (as perf
 * 6.1 does) and finish the header with the features perf writes; add the
 * DSOs sampled to perf's build-id cache, as perf record does. A write
 * error (full disk) ends recording early; the writer keeps every complete
 * round readable.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/perfdata.h>
#include "internal.h"

#define PK_POLL_MS 100

static volatile sig_atomic_t stop_signal, child_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;
	child_signal = 1;
}

struct rec {
	const struct pk_record_opts *o;
	struct pk_sampler *s;
	struct pk_perfdata_writer *w;
	struct pk_rec_hits hits;
	struct pk_workload wl;
	int fd, pipe;
	int write_err;
	struct pk_diag wdiag;        /* the write error's message */
	struct pk_buf tracing;       /* TRACING_DATA, when tracepoints are recorded */
	struct sigaction old_int, old_term, old_chld, old_pipe;
};

static int write_record(void *ctx, const struct perf_event_header *h)
{
	struct rec *r = ctx;
	int err;

	if (r->write_err)
		return r->write_err;
	if ((err = pk_rec_hits_add(&r->hits, h)))
		return err;
	err = pk_writer_write(r->w, h, h->size, &r->wdiag);
	if (err)
		r->write_err = err;
	return err;
}

/* One pass over every ring; 1 if anything was written, 0, or -errno. */
static int drain(struct rec *r, struct pk_diag *d)
{
	int any = 0;

	for (size_t i = 0; i < pk_sampler_nr_rings(r->s); i++) {
		struct pk_ring *ring = pk_sampler_ring(r->s, i);
		const struct perf_event_header *h;
		struct iovec iov[2];
		int n, err = 0;

		if (!pk_ring_begin(ring))
			continue;
		while ((h = pk_ring_next(ring, &err)))
			if ((err = pk_rec_hits_add(&r->hits, h)))
				return err;
		if (err)
			return pk_diag_fail(d, err, "the kernel's ring buffer %zu holds a corrupt record",
					    i);
		n = pk_ring_spans(ring, iov);
		if (!r->write_err && n)
			r->write_err = pk_writer_writev(r->w, iov, n, &r->wdiag);
		pk_ring_consume(ring);
		any = 1;
	}
	return any;
}

static int open_output(struct rec *r, struct pk_diag *d)
{
	const char *path = r->o->output ? r->o->output : "perf.data";
	struct stat st;

	if (!strcmp(path, "-")) {
		r->fd = STDOUT_FILENO;
		r->pipe = 1;
		return 0;
	}
	/* perf keeps the previous file as NAME.old */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		char old[4096];

		snprintf(old, sizeof(old), "%s.old", path);
		rename(path, old);
	}
	r->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (r->fd < 0) {
		pk_diag_subject(d, path);
		return pk_diag_fail(d, -errno, "cannot create the output file: %s", strerror(errno));
	}
	if (fstat(r->fd, &st) == 0 && S_ISFIFO(st.st_mode))
		r->pipe = 1;
	return 0;
}

static int tracing_data(struct rec *r, struct pk_diag *d)
{
	size_t n = pk_sampler_nr_events(r->s), k = 0;
	const char **names;
	int err;

	if (!pk_sampler_has_tracepoints(r->s))
		return 0;
	names = calloc(n, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (pk_sampler_attr(r->s, i)->type == PERF_TYPE_TRACEPOINT)
			names[k++] = pk_sampler_event_name(r->s, i);
	err = pk_tracing_data_build(names, k, NULL, &r->tracing, d);
	free(names);
	return err;
}

/* The features perf record writes, from the machine and from what was recorded. */
static int features(struct rec *r, struct pk_features *f)
{
	const struct pk_record_opts *o = r->o;
	size_t n = pk_sampler_nr_events(r->s), ngroups = 0;
	int err;

	if ((err = pk_features_collect_host(f, "perfkit " PK_VERSION, o->argc, o->cmdline,
					    o->clockid)))
		return err;
	if (r->tracing.len) {
		f->tracing_data = r->tracing.data;
		f->tracing_data_size = r->tracing.len;
		pk_features_set(f, PK_FEAT_TRACING_DATA);
	}
	if (!r->pipe && r->hits.last_time) {
		f->first_sample_time = r->hits.first_time;
		f->last_sample_time = r->hits.last_time;
		pk_features_set(f, PK_FEAT_SAMPLE_TIME);
	}
	for (size_t i = 0; i < n; i++) {
		size_t leader, nr;

		pk_sampler_group(r->s, i, &leader, &nr);
		ngroups += leader == i && nr > 1;
	}
	if (ngroups) {
		f->groups = calloc(ngroups, sizeof(*f->groups));
		if (!f->groups)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			size_t leader, nr;

			pk_sampler_group(r->s, i, &leader, &nr);
			if (leader != i || nr < 2)
				continue;
			f->groups[f->nr_groups] = (struct pk_feat_group_desc){
				.name = strdup("{anon_group}"), .leader_idx = (uint32_t)i,
				.nr_members = (uint32_t)nr };
			if (!f->groups[f->nr_groups++].name)
				return -ENOMEM;
		}
		pk_features_set(f, PK_FEAT_GROUP_DESC);
	}
	return r->pipe ? 0 : pk_rec_hits_build_ids(&r->hits, f);
}

static int open_writer(struct rec *r, struct pk_diag *d)
{
	size_t n = pk_sampler_nr_events(r->s);
	struct pk_writer_evsel *evs = calloc(n, sizeof(*evs));
	struct pk_writer_opts wo = { .sz = sizeof(wo), .pipe = r->pipe,
				     .compress_level = r->o->compress_level };
	struct pk_features pf = { 0 };
	int err;

	if (!evs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		evs[i].attr = pk_sampler_attr(r->s, i);
		evs[i].name = pk_sampler_event_name(r->s, i);
		evs[i].ids = pk_sampler_ids(r->s, i, &evs[i].nr_ids);
	}
	err = tracing_data(r, d);
	/* pipe mode sends the features up front: what is known before recording */
	if (!err && r->pipe && !(err = features(r, &pf)))
		wo.pipe_features = &pf;
	if (!err)
		err = pk_writer_open(&r->w, r->fd, r->pipe ? "stdout" : r->o->output ? r->o->output :
				     "perf.data", evs, n, &wo, d);
	pk_features_release(&pf);
	free(evs);
	return err;
}

static int synthesize(struct rec *r)
{
	const struct pk_record_opts *o = r->o;
	struct pk_synth sy = { .attr = pk_sampler_attr(r->s, 0), .emit = write_record, .ctx = r,
			       .mmap_data = o->data_addr };
	int err = pk_synth_kernel(&sy);

	if (err)
		return err;
	if (pk_rec_system_wide(o))
		err = pk_synth_all(&sy);
	else if (o->pid)
		err = pk_synth_process(&sy, o->pid);
	else if (o->tid)
		err = pk_synth_process(&sy, o->tid);
	if (!err)
		err = pk_writer_round(r->w, &r->wdiag);
	return err == r->write_err ? 0 : err;
}

static void signals_install(struct rec *r)
{
	struct sigaction sa = { .sa_handler = on_stop };

	stop_signal = child_signal = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &r->old_int);
	sigaction(SIGTERM, &sa, &r->old_term);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, &r->old_chld);
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	sigaction(SIGPIPE, &sa, &r->old_pipe);
}

static void signals_restore(struct rec *r)
{
	sigaction(SIGINT, &r->old_int, NULL);
	sigaction(SIGTERM, &r->old_term, NULL);
	sigaction(SIGCHLD, &r->old_chld, NULL);
	sigaction(SIGPIPE, &r->old_pipe, NULL);
}

/* LOST_SAMPLES for one fd that dropped samples: u64 lost, then the trailer with its id. */
static int lost_samples_record(void *ctx, size_t ev, uint64_t id, uint64_t lost)
{
	struct rec *r = ctx;
	union {
		struct perf_event_header h;
		uint64_t u64[2 + 6];         /* header, lost, a trailer of at most 6 slots */
	} rec = { .h = { .type = PERF_RECORD_LOST_SAMPLES } };

	rec.u64[1] = lost;
	rec.h.size = (uint16_t)(16 + pk_rec_id_trailer(pk_sampler_attr(r->s, ev), id, &rec.u64[2]));
	return write_record(r, &rec.h);
}

/*
 * After the last drain: the kernel's count of each event's dropped samples,
 * which includes drops whose LOST record never found room in a ring.
 */
static void write_lost_samples(struct rec *r)
{
	uint64_t before = r->hits.lost_samples;
	int err;

	if (r->write_err)
		return;
	err = pk_sampler_lost(r->s, lost_samples_record, r);
	if (err == -ENOMEM)
		pk_log(PK_LOG_WARN, "the counts of dropped samples are not written: out of memory");
	if (r->hits.lost_samples != before && !r->write_err)
		r->write_err = pk_writer_round(r->w, &r->wdiag);
}

/* The recording loop; returns 0 or -errno (ring corruption). */
static int loop(struct rec *r, struct pk_record_stats *st, struct pk_diag *d)
{
	uint64_t end = r->o->duration > 0 ? pk_now_ns() + (uint64_t)(r->o->duration * 1e9) : 0;
	int err = 0, status, gone = 0;

	for (;;) {
		int any = drain(r, d);

		if (any < 0)
			return any;
		if (any && !r->write_err)
			r->write_err = pk_writer_round(r->w, &r->wdiag);
		if (r->write_err || stop_signal || gone)
			break;
		if (r->wl.pid > 0 && waitpid(r->wl.pid, &status, WNOHANG) == r->wl.pid) {
			st->target_status = status;
			r->wl.pid = -1;
			break;
		}
		if (end && pk_now_ns() >= end)
			break;
		err = pk_sampler_poll(r->s, PK_POLL_MS, &gone);
		if (err < 0 && err != -EINTR)
			return pk_diag_fail(d, err, "poll failed: %s", strerror(-err));
		/* a per-task target without a command ends when all its threads are gone */
		if (r->wl.pid > 0 || pk_rec_system_wide(r->o))
			gone = 0;   /* the command or the duration decides the end */
	}
	st->stopped_by_signal = stop_signal != 0;
	pk_sampler_disable(r->s);
	if ((err = drain(r, d)) < 0)
		return err;
	if (err > 0 && !r->write_err)
		r->write_err = pk_writer_round(r->w, &r->wdiag);
	write_lost_samples(r);
	return 0;
}

static void finish_workload(struct rec *r, struct pk_record_stats *st)
{
	int status;

	if (r->wl.pid <= 0)
		return;
	/* recording ended first (duration, signal, full disk): end the command as perf does */
	kill(r->wl.pid, SIGTERM);
	if (waitpid(r->wl.pid, &status, 0) == r->wl.pid)
		st->target_status = status;
	r->wl.pid = -1;
}

static void fill_stats(struct rec *r, struct pk_record_stats *st)
{
	st->bytes = r->w ? pk_writer_data_bytes(r->w) : 0;
	st->raw_bytes = r->w ? pk_writer_raw_bytes(r->w) : 0;
	st->samples = r->hits.nr_samples;
	/* the kernel's count when it gave one: LOST records only tell drops a ring had room for */
	st->lost = r->hits.lost_samples > r->hits.lost ? r->hits.lost_samples : r->hits.lost;
	st->nr_events = pk_sampler_nr_events(r->s);
	st->samples_per_event = calloc(st->nr_events ? st->nr_events : 1, sizeof(uint64_t));
	if (st->samples_per_event)
		memcpy(st->samples_per_event, r->hits.samples, st->nr_events * sizeof(uint64_t));
	st->write_error = r->write_err;
}

/* perf record's last step: the DSOs of BUILD_ID into the build-id cache (a failure is warned). */
static void cache_build_ids(const struct rec *r, const struct pk_features *f)
{
	const char *home = getenv("HOME");
	char dir[4096];
	struct pk_diag d;

	if (r->o->no_buildid_cache || !home || !*home)
		return;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/.debug", home) >= sizeof(dir)) {
		pk_log(PK_LOG_WARN, "the build-id cache's path is too long: nothing cached");
		return;
	}
	pk_diag_init(&d);
	if (pk_buildid_cache_add(dir, f, &d) < 0)
		pk_log(PK_LOG_WARN, "'%s': %s", d.subject, d.msg);
}

static int finish(struct rec *r, struct pk_diag *d)
{
	struct pk_features f = { 0 };
	/* pipe mode sent its features up front; only a file gets them at the end */
	int err = r->write_err || r->pipe ? 0 : features(r, &f);

	if (!err)
		err = pk_writer_close(r->w, r->write_err ? NULL : &f, d);
	else
		pk_writer_close(r->w, NULL, d);
	r->w = NULL;
	if (!err && !r->write_err && !r->pipe)
		cache_build_ids(r, &f);
	pk_features_release(&f);
	if (r->write_err) {
		/* the message of the failed write is the one the user needs */
		*d = r->wdiag;
		return 0;
	}
	return err;
}

int pk_record_run(const struct pk_record_opts *o, struct pk_record_stats *st, struct pk_diag *d)
{
	struct rec r = { .o = o, .fd = -1, .wl = { .pid = -1, .go_fd = -1, .err_fd = -1 } };
	int err;

	memset(st, 0, sizeof(*st));
	st->target_status = -1;
	pk_diag_init(&r.wdiag);
	pk_buf_init(&r.tracing);
	if (o->argv && o->argv[0] && (err = pk_workload_prepare(&r.wl, o->argv, d)))
		return err;
	if ((err = pk_sampler_open(&r.s, o, r.wl.pid, d)))
		goto out;
	if ((err = pk_rec_hits_init(&r.hits, r.s, 1)))
		goto out;
	if ((err = open_output(&r, d)) || (err = open_writer(&r, d)))
		goto out;
	signals_install(&r);
	if ((err = synthesize(&r)))
		goto out_signals;
	if (!pk_rec_targets_command(o) && (err = pk_sampler_enable(r.s))) {
		err = pk_diag_fail(d, err, "cannot enable the events: %s", strerror(-err));
		goto out_signals;
	}
	if (r.wl.pid > 0 && (err = pk_workload_start(&r.wl, d))) {
		r.wl.pid = -1;
		if (err != -ECHILD)
			goto out_signals;
		/* killed before it started: a complete file of no samples, and how it ended */
		st->target_status = r.wl.status;
		pk_diag_init(d);
		err = 0;
	} else {
		err = loop(&r, st, d);
	}
	finish_workload(&r, st);
	fill_stats(&r, st);
	if (!err)
		err = finish(&r, d);
out_signals:
	signals_restore(&r);
out:
	if (r.w)
		pk_writer_close(r.w, NULL, &r.wdiag);
	if (r.wl.pid > 0)
		pk_workload_abort(&r.wl);
	if (r.fd > STDERR_FILENO)
		close(r.fd);
	pk_rec_hits_release(&r.hits);
	pk_sampler_close(r.s);
	pk_buf_release(&r.tracing);
	return err;
}
