/*
 * Sampling events opened on a target and routed into mmap ring buffers.
 *
 * Slots are (thread, CPU) pairs: CPU targets (-a, -C) open every event once
 * per CPU for all tasks (thread -1); task targets that inherit open every
 * event per (thread, online CPU), because the kernel refuses to mmap an
 * inherited per-task event with cpu -1; --no-inherit and -t open per thread
 * with cpu -1. One ring serves each CPU (or each thread without inherit):
 * the first fd opened for it is mapped, every other fd of that CPU (thread)
 * is redirected into it with PERF_EVENT_IOC_SET_OUTPUT. Each fd's event and
 * sample id are kept, so that its count of dropped samples (PERF_FORMAT_LOST)
 * can be read and attributed when recording ends.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <perfkit/counter.h>
#include "internal.h"

#define PK_DEFAULT_MMAP_PAGES 128   /* 512 KiB per ring, perf's default for root */

struct pk_sampler_event {
	struct perf_event_attr attr;
	char *name;
	size_t leader, nr_members;
	uint64_t *ids;
	uint32_t nr_ids;
	int tracepoint;
	bool precise_max;            /* modifier P: step attr.precise_ip down from 3 */
};

struct pk_sampler {
	struct pk_sampler_event *ev;
	size_t nr_ev;
	int *fds;                    /* every opened fd */
	struct fd_owner { size_t ev; uint64_t id; } *owners;   /* per fd: its event and id */
	size_t nr_fds;
	struct pollfd *pfd;
	struct pk_ring *rings;
	size_t nr_rings;
};

void pk_sampler_close(struct pk_sampler *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr_rings; i++)
		pk_ring_unmap(&s->rings[i]);
	for (size_t i = 0; i < s->nr_fds; i++)
		close(s->fds[i]);
	for (size_t i = 0; i < s->nr_ev; i++) {
		free(s->ev[i].name);
		free(s->ev[i].ids);
	}
	free(s->ev);
	free(s->fds);
	free(s->owners);
	free(s->pfd);
	free(s->rings);
	free(s);
}

/*
 * The events of -e, or perf's default: cycles at the highest precision the
 * PMU takes, or cpu-clock where the CPU has no PMU.
 */
static int parse_events(struct pk_event_list *l, const struct pk_record_opts *o, int *is_default,
			struct pk_diag *d)
{
	int err;

	*is_default = !o->events;
	err = pk_event_parse(l, o->events ? o->events : "cycles", NULL, d);
	if (!err && *is_default)
		l->ev[0].precise_max = true;
	return err;
}

/* perf's default cycles on AMD counts guests: its precise sampling (IBS) cannot leave them out. */
static int default_counts_guests(void)
{
	char vendor[13];

	pk_cpu_vendor(vendor);
	return !strcmp(vendor, "AuthenticAMD");
}

static int add_event(struct pk_sampler *s, const struct pk_event_list *l, size_t i,
		     const struct pk_record_opts *o, const struct pk_rec_attr_ctx *c0, struct pk_diag *d)
{
	struct pk_sampler_event *e = &s->ev[i];
	struct pk_rec_attr_ctx c = *c0;
	int err;

	c.tracking = i == 0;
	c.group_size = (size_t)l->ev[l->ev[i].leader].nr_members;
	if ((err = pk_rec_attr_setup(&e->attr, &l->ev[i], o, &c)))
		return pk_diag_fail(d, err, "--call-graph dwarf stack size must be at most 65528");
	e->name = strdup(l->ev[i].name);
	if (!e->name)
		return -ENOMEM;
	e->leader = (size_t)l->ev[i].leader;
	e->nr_members = l->ev[i].nr_members ? (size_t)l->ev[i].nr_members : 1;
	e->tracepoint = l->ev[i].kind == PK_EVENT_TRACEPOINT;
	e->precise_max = l->ev[i].precise_max;
	if (e->leader != i) {       /* members follow the leader; only a leader is pinned */
		e->attr.disabled = 0;
		e->attr.enable_on_exec = 0;
		e->attr.pinned = 0;
	}
	return 0;
}

static int one_id(pid_t **ids, pid_t id)
{
	*ids = malloc(sizeof(pid_t));
	if (!*ids)
		return -ENOMEM;
	(*ids)[0] = id;
	return 1;
}

static int target_lists(const struct pk_record_opts *o, pid_t workload, int **cpus, size_t *ncpu,
			pid_t **tids, size_t *ntid, int *per_cpu_rings, struct pk_diag *d)
{
	int system_wide = pk_rec_system_wide(o);
	int n;

	if (o->cpu_list) {
		n = pk_cpulist_parse(o->cpu_list, cpus, d);
		if (n < 0)
			return n;
	} else if (system_wide || !(o->no_inherit || o->tid)) {
		n = pk_cpus_online(cpus);
		if (n < 0)
			return pk_diag_fail(d, n, "cannot read the online CPUs");
	} else {
		if (!(*cpus = malloc(sizeof(int))))
			return -ENOMEM;
		(*cpus)[0] = -1;
		n = 1;
	}
	*ncpu = (size_t)n;
	*per_cpu_rings = (*cpus)[0] >= 0;
	if (system_wide)
		n = one_id(tids, -1);
	else if (o->pid && (n = pk_proc_threads(o->pid, tids)) < 0)
		return pk_diag_fail(d, n, "no such process: %d", (int)o->pid);
	else if (!o->pid)
		n = one_id(tids, o->tid ? o->tid : workload);
	if (n < 0)
		return n;
	*ntid = (size_t)n;
	return 0;
}

static int open_error(const struct pk_sampler_event *e, int err, pid_t tid, int cpu,
		      struct pk_diag *d)
{
	if (err == -EACCES || err == -EPERM)
		return pk_perm_diag(d, e->name, err);
	pk_diag_subject(d, e->name);
	if (err == -EOPNOTSUPP && (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK))
		return pk_diag_fail(d, err, "branch stacks are not supported by this CPU or event");
	return pk_diag_fail(d, err, "cannot open the event for sampling (thread %d, cpu %d): %s",
			    (int)tid, cpu, strerror(-err));
}

static int sampler_grow(struct pk_sampler *s, size_t nfd, size_t nring)
{
	s->fds = calloc(nfd, sizeof(*s->fds));
	s->owners = calloc(nfd, sizeof(*s->owners));
	s->pfd = calloc(nfd, sizeof(*s->pfd));
	s->rings = calloc(nring, sizeof(*s->rings));
	for (size_t i = 0; i < s->nr_ev; i++) {
		s->ev[i].ids = calloc(nfd, sizeof(uint64_t));
		if (!s->ev[i].ids)
			return -ENOMEM;
	}
	return s->fds && s->owners && s->pfd && s->rings ? 0 : -ENOMEM;
}

/* Open every event on slot (tid, cpu); @ring_fd: the fd output goes to (-1: map a new ring). */
static int open_slot(struct pk_sampler *s, pid_t tid, int cpu, int *ring_fd, size_t pages,
		     const char *filter, struct pk_diag *d)
{
	int *group_fd = malloc(s->nr_ev * sizeof(int));
	int err = 0;

	if (!group_fd)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_ev; i++) {
		struct pk_sampler_event *e = &s->ev[i];
		int gfd = e->leader == i ? -1 : group_fd[e->leader];
		int fd = pk_perf_open_stepping(&e->attr, e->precise_max, tid, cpu, gfd, NULL);
		uint64_t id = 0;

		if (fd == -ESRCH) {        /* the thread exited meanwhile */
			err = 0;
			break;
		}
		if (fd < 0) {
			err = open_error(e, fd, tid, cpu, d);
			break;
		}
		group_fd[i] = fd;
		s->fds[s->nr_fds] = fd;
		s->pfd[s->nr_fds] = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0)
			e->ids[e->nr_ids++] = id;
		s->owners[s->nr_fds] = (struct fd_owner){ .ev = i, .id = id };
		s->nr_fds++;
		if (filter && e->tracepoint && i == s->nr_ev - 1 &&
		    ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
			pk_diag_subject(d, e->name);
			err = pk_diag_fail(d, -errno, "the kernel rejected the filter '%s'", filter);
			break;
		}
		if (*ring_fd < 0) {
			if ((err = pk_ring_mmap(&s->rings[s->nr_rings], fd, pages, d)))
				break;
			s->nr_rings++;
			*ring_fd = fd;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *ring_fd) < 0) {
			err = pk_diag_fail(d, -errno, "cannot redirect event output to the ring: %s",
					   strerror(errno));
			break;
		}
	}
	free(group_fd);
	return err;
}

/* The last tracepoint of -e gets --filter, as perf applies it to the preceding event. */
static int check_filter(const struct pk_sampler *s, const char *filter, struct pk_diag *d)
{
	if (filter && (!s->nr_ev || !s->ev[s->nr_ev - 1].tracepoint))
		return pk_diag_fail(d, -EINVAL, "--filter applies to a tracepoint, and the last "
				    "event is not one");
	return 0;
}

static int open_all(struct pk_sampler *s, const struct pk_record_opts *o, pid_t workload,
		    struct pk_diag *d)
{
	int *cpus = NULL, per_cpu = 0;
	pid_t *tids = NULL;
	size_t ncpu = 0, ntid = 0, pages = o->mmap_pages ? o->mmap_pages : PK_DEFAULT_MMAP_PAGES;
	int *ring_fd = NULL;
	int err;

	err = target_lists(o, workload, &cpus, &ncpu, &tids, &ntid, &per_cpu, d);
	if (err)
		goto out;
	if ((err = sampler_grow(s, ncpu * ntid * s->nr_ev, per_cpu ? ncpu : ntid)))
		goto out;
	ring_fd = malloc((per_cpu ? ncpu : ntid) * sizeof(int));
	if (!ring_fd) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < (per_cpu ? ncpu : ntid); i++)
		ring_fd[i] = -1;
	for (size_t t = 0; t < ntid && !err; t++)
		for (size_t c = 0; c < ncpu && !err; c++)
			err = open_slot(s, tids[t], cpus[c], &ring_fd[per_cpu ? c : t], pages,
					o->filter, d);
	if (!err && !s->nr_fds)
		err = pk_diag_fail(d, -ESRCH, "the target has no threads left to sample");
out:
	free(ring_fd);
	free(cpus);
	free(tids);
	return err;
}

int pk_sampler_open(struct pk_sampler **out, const struct pk_record_opts *o, pid_t workload_pid,
		    struct pk_diag *d)
{
	struct pk_event_list l;
	struct pk_sampler *s = calloc(1, sizeof(*s));
	struct pk_rec_attr_ctx c = { 0 };
	int is_default = 0, err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	pk_event_list_init(&l);
	if ((err = parse_events(&l, o, &is_default, d)))
		goto fail;
	c.nr_events = l.n;
	c.cpu_target = pk_rec_system_wide(o);
	c.workload = workload_pid > 0 && pk_rec_targets_command(o);
	c.count_guests = is_default && default_counts_guests();
	c.read_lost = pk_perf_reads_lost();
	for (int attempt = 0; attempt < 2; attempt++) {
		s->ev = calloc(l.n, sizeof(*s->ev));
		if (!s->ev) {
			err = -ENOMEM;
			goto fail;
		}
		s->nr_ev = l.n;
		for (size_t i = 0; i < l.n && !err; i++)
			err = add_event(s, &l, i, o, &c, d);
		if (!err)
			err = check_filter(s, o->filter, d);
		if (!err)
			err = open_all(s, o, workload_pid, d);
		/* perf falls back from cycles to cpu-clock on a CPU without a PMU */
		if (!is_default || attempt || (err != -ENOENT && err != -EOPNOTSUPP &&
					       err != -ENODEV && err != -EINVAL))
			break;
		pk_sampler_close(s);
		s = calloc(1, sizeof(*s));
		pk_event_list_release(&l);
		pk_event_list_init(&l);
		pk_diag_init(d);
		if (!s || (err = pk_event_parse(&l, "cpu-clock", NULL, d)))
			goto fail;
		pk_log(PK_LOG_INFO, "cycles is not supported here, falling back to cpu-clock");
	}
	if (err)
		goto fail;
	pk_event_list_release(&l);
	*out = s;
	return 0;
fail:
	pk_event_list_release(&l);
	pk_sampler_close(s);
	return err ? err : -ENOMEM;
}

static int sampler_ioctl(struct pk_sampler *s, unsigned long req)
{
	for (size_t i = 0; i < s->nr_fds; i++)
		if (ioctl(s->fds[i], req, 0) < 0)
			return -errno;
	return 0;
}

int pk_sampler_enable(struct pk_sampler *s)
{
	return sampler_ioctl(s, PERF_EVENT_IOC_ENABLE);
}

int pk_sampler_disable(struct pk_sampler *s)
{
	return sampler_ioctl(s, PERF_EVENT_IOC_DISABLE);
}

size_t pk_sampler_nr_events(const struct pk_sampler *s)
{
	return s->nr_ev;
}

const struct perf_event_attr *pk_sampler_attr(const struct pk_sampler *s, size_t i)
{
	return &s->ev[i].attr;
}

const char *pk_sampler_event_name(const struct pk_sampler *s, size_t i)
{
	return s->ev[i].name;
}

const uint64_t *pk_sampler_ids(const struct pk_sampler *s, size_t i, uint32_t *nr)
{
	*nr = s->ev[i].nr_ids;
	return s->ev[i].ids;
}

int pk_sampler_event_of_id(const struct pk_sampler *s, uint64_t id)
{
	if (s->nr_ev == 1)
		return 0;
	for (size_t i = 0; i < s->nr_ev; i++)
		for (uint32_t k = 0; k < s->ev[i].nr_ids; k++)
			if (s->ev[i].ids[k] == id)
				return (int)i;
	return -1;
}

void pk_sampler_group(const struct pk_sampler *s, size_t i, size_t *leader, size_t *nr)
{
	*leader = s->ev[i].leader;
	*nr = s->ev[s->ev[i].leader].nr_members;
}

int pk_sampler_has_tracepoints(const struct pk_sampler *s)
{
	for (size_t i = 0; i < s->nr_ev; i++)
		if (s->ev[i].tracepoint)
			return 1;
	return 0;
}

size_t pk_sampler_nr_rings(const struct pk_sampler *s)
{
	return s->nr_rings;
}

struct pk_ring *pk_sampler_ring(struct pk_sampler *s, size_t i)
{
	return &s->rings[i];
}

/* The read(2) of fd @k: its own entry (a group read returns every member's). */
static int read_fd_counts(const struct pk_sampler *s, size_t k, uint64_t *buf, size_t words,
			  struct pk_counts *counts, uint64_t *ids, size_t room, struct pk_counts *out)
{
	const struct fd_owner *o = &s->owners[k];
	uint64_t rf = s->ev[o->ev].attr.read_format;
	ssize_t n;
	int got;

	do
		n = read(s->fds[k], buf, words * sizeof(uint64_t));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	got = pk_read_format_decode(rf, buf, (size_t)n, counts, ids, room);
	if (got < 0)
		return got;
	for (int j = 0; j < got; j++)
		if (!(rf & PERF_FORMAT_GROUP) || ids[j] == o->id) {
			*out = counts[j];
			return 0;
		}
	return -ENOENT;
}

int pk_sampler_lost(const struct pk_sampler *s, pk_sampler_lost_fn fn, void *ctx)
{
	size_t room = 1, words;
	uint64_t *buf, *ids;
	struct pk_counts *counts, c = { 0 };
	int err = 0;

	for (size_t i = 0; i < s->nr_ev; i++)
		if (s->ev[i].nr_members > room)
			room = s->ev[i].nr_members;
	words = 3 + 3 * room;     /* nr, the two times, then value, id, lost per member */
	buf = malloc(words * sizeof(*buf));
	ids = calloc(room, sizeof(*ids));
	counts = calloc(room, sizeof(*counts));
	if (!buf || !ids || !counts)
		err = -ENOMEM;
	for (size_t k = 0; k < s->nr_fds && !err; k++) {
		if (!(s->ev[s->owners[k].ev].attr.read_format & PERF_FORMAT_LOST))
			continue;
		if (read_fd_counts(s, k, buf, words, counts, ids, room, &c))
			continue;   /* a count that cannot be read is not a loss to report */
		if (c.lost)
			err = fn(ctx, s->owners[k].ev, s->owners[k].id, c.lost);
	}
	free(buf);
	free(ids);
	free(counts);
	return err;
}

int pk_sampler_poll(struct pk_sampler *s, int timeout_ms, int *all_gone)
{
	size_t live = 0;
	int n = poll(s->pfd, s->nr_fds, timeout_ms);

	*all_gone = 0;
	if (n < 0)
		return -errno;
	for (size_t i = 0; i < s->nr_fds; i++) {
		if (s->pfd[i].revents & (POLLHUP | POLLERR))
			s->pfd[i].fd = -1;  /* its task is gone: poll() skips negative fds */
		if (s->pfd[i].fd >= 0)
			live++;
	}
	if (!live) {
		*all_gone = 1;
		return 0;
	}
	return n > 0;
}
