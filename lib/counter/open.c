/*
 * Opening an event list on a target (threads or CPUs) the way perf stat
 * does: every event on every slot, groups as kernel groups per slot read
 * with PERF_FORMAT_GROUP, leaders disabled until exec or until enabled,
 * unsupported events kept and marked, vanished threads skipped, and
 * permission failures explained. Also the accessors and the ioctls.
 *
 * PERF_FORMAT_GROUP with inherit: Linux 6.18 accepts the pair, and a group
 * read then includes the inherited children. Kernels that refuse it return
 * EINVAL on the leader's open; there the leader is reopened without
 * GROUP|ID and each member of the (still kernel-side) group is read alone,
 * as perf does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "internal.h"

static void close_fd(struct pk_counter_fd *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	memset(&f->counts, 0, sizeof(f->counts));
}

static char *dup_or_null(const char *s, bool *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = true;
	return d;
}

static void event_copy_release(struct pk_event *e)
{
	free(e->name);
	free(e->pmu);
	free(e->scale_unit);
}

static int event_copy(struct pk_event *dst, const struct pk_event *src)
{
	bool fail = false;

	*dst = *src;
	dst->name = dup_or_null(src->name ? src->name : "?", &fail);
	dst->pmu = dup_or_null(src->pmu, &fail);
	dst->scale_unit = dup_or_null(src->scale_unit, &fail);
	if (!dst->attr.size || dst->attr.size > sizeof(dst->attr))
		dst->attr.size = sizeof(dst->attr);
	if (fail) {
		event_copy_release(dst);
		return -ENOMEM;
	}
	return 0;
}

void pk_counters_free(struct pk_counters *c)
{
	size_t i, n;

	if (!c)
		return;
	if (c->fds)
		for (n = 0; n < c->nr_ev * c->nr_slots; n++)
			close_fd(&c->fds[n]);
	if (c->evs)
		for (i = 0; i < c->nr_ev; i++)
			event_copy_release(&c->evs[i].ev);
	free(c->evs);
	free(c->pids);
	free(c->cpus);
	free(c->slot_gone);
	free(c->fds);
	free(c->rbuf);
	free(c->rcounts);
	free(c->rids);
	free(c);
}

/* Copy the events and check that every leader index points at a leader before it. */
static int copy_events(struct pk_counters *c, const struct pk_event_list *evs,
		       struct pk_diag *diag)
{
	size_t i;

	for (i = 0; i < evs->n; i++) {
		const struct pk_event *e = &evs->ev[i];
		int lead = e->leader;

		if (lead < 0 || (size_t)lead > i || evs->ev[lead].leader != lead) {
			pk_diag_subject(diag, e->name);
			return pk_diag_fail(diag, -EINVAL, "invalid group leader index %d", lead);
		}
		if (event_copy(&c->evs[i].ev, e))
			return -ENOMEM;
		c->nr_ev = i + 1;
		c->evs[lead].group_size++;
	}
	for (i = 0; i < c->nr_ev; i++) {
		c->evs[i].group_read = c->evs[i].group_size > 1;
		if (c->evs[i].group_size > c->max_group)
			c->max_group = c->evs[i].group_size;
	}
	return 0;
}

static int counters_alloc(struct pk_counters *c, const struct pk_target *t, size_t nr_ev)
{
	size_t s, n;

	c->nr_slots = t->nr_tids ? t->nr_tids : t->nr_cpus;
	if (nr_ev > SIZE_MAX / sizeof(*c->fds) / c->nr_slots)
		return -ENOMEM;
	n = nr_ev * c->nr_slots;
	c->evs = calloc(nr_ev, sizeof(*c->evs));
	c->pids = calloc(c->nr_slots, sizeof(*c->pids));
	c->cpus = calloc(c->nr_slots, sizeof(*c->cpus));
	c->slot_gone = calloc(c->nr_slots, sizeof(*c->slot_gone));
	c->fds = calloc(n, sizeof(*c->fds));
	if (!c->evs || !c->pids || !c->cpus || !c->slot_gone || !c->fds)
		return -ENOMEM;
	c->nr_ev = 0;
	while (n--)
		c->fds[n].fd = -1;
	for (s = 0; s < c->nr_slots; s++) {
		c->pids[s] = t->nr_tids ? t->tids[s] : -1;
		c->cpus[s] = t->nr_tids ? -1 : t->cpus[s];
	}
	return 0;
}

static bool is_leader(const struct pk_counters *c, size_t i)
{
	return (size_t)c->evs[i].ev.leader == i;
}

static void event_attr(const struct pk_counters *c, size_t i,
		       const struct pk_counter_opts *o, struct perf_event_attr *a)
{
	const struct pk_counter_event *ce = &c->evs[i];
	bool leader = is_leader(c, i);

	*a = ce->ev.attr;
	a->sample_type &= ~(__u64)PERF_SAMPLE_READ;  /* S means nothing when counting */
	a->pinned = a->pinned && leader;                /* only a leader is pinned */
	a->read_format = PK_READ_TIMES;
	if (leader && ce->group_read)
		a->read_format |= PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	a->inherit = o->inherit;
	a->disabled = leader && (o->enable_on_exec || o->start_disabled);
	a->enable_on_exec = leader && o->enable_on_exec;
}

static bool not_supported(int err, __u32 type)
{
	switch (err) {
	case -EOPNOTSUPP:
	case -ENOENT:
	case -ENODEV:
	case -ENXIO:
		return true;
	case -EINVAL:
		return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE ||
		       type == PERF_TYPE_RAW || type >= PERF_TYPE_MAX;
	default:
		return false;
	}
}

static void close_event(struct pk_counters *c, size_t i)
{
	size_t s;

	for (s = 0; s < c->nr_slots; s++)
		close_fd(pk_counter_fd_at(c, i, s));
}

static void close_slot(struct pk_counters *c, size_t s)
{
	size_t i;

	c->slot_gone[s] = true;
	for (i = 0; i < c->nr_ev; i++)
		close_fd(pk_counter_fd_at(c, i, s));
}

/*
 * perf stat's rules: a lone event or a group member that is not supported is
 * shown as such and the rest of its group as not counted; a group whose
 * leader is not supported cannot be measured at all.
 */
static int mark_unsupported(struct pk_counters *c, size_t i, int err, struct pk_diag *diag)
{
	struct pk_counter_event *ce = &c->evs[i];

	if (is_leader(c, i) && ce->group_size > 1) {
		pk_diag_subject(diag, ce->ev.name);
		pk_diag_hint(diag, "'perfkit list' shows the events this machine supports");
		return pk_diag_fail(diag, -EOPNOTSUPP,
				   "the event leads a group but is not supported here (%s)",
				   strerror(-err));
	}
	pk_log(PK_LOG_DEBUG, "'%s' is not supported here: %s", ce->ev.name, strerror(-err));
	ce->unsupported = true;
	close_event(c, i);
	if (!is_leader(c, i))
		c->evs[ce->ev.leader].not_counted = true;
	return 0;
}

static int open_error(struct pk_counters *c, size_t i, size_t s, int err,
		      struct pk_diag *diag)
{
	const char *name = c->evs[i].ev.name;
	size_t need = c->nr_ev * c->nr_slots;

	switch (err) {
	case -EACCES:
	case -EPERM:
		return pk_perm_diag(diag, name, err);
	case -EMFILE:
		pk_diag_subject(diag, name);
		pk_diag_hint(diag, "raise the open file limit with 'ulimit -n' "
			     "(%zu events x %zu %s%s = %zu descriptors)", c->nr_ev, c->nr_slots,
			     c->pids[s] != -1 ? "thread" : "CPU", c->nr_slots > 1 ? "s" : "",
			     need);
		return pk_diag_fail(diag, err, "too many open files");
	default:
		pk_diag_subject(diag, name);
		if (c->pids[s] != -1)
			return pk_diag_fail(diag, err, "cannot open the event on thread %d: %s",
					    (int)c->pids[s], strerror(-err));
		return pk_diag_fail(diag, err, "cannot open the event on CPU %d: %s",
				    c->cpus[s], strerror(-err));
	}
}

/* After perf's user-only fallback: remember exclude_kernel and rename to "name:u". */
static int adopt_user_only(struct pk_counter_event *ce)
{
	char *name = pk_user_only_name(ce->ev.name);

	if (!name)
		return -ENOMEM;
	free(ce->ev.name);
	ce->ev.name = name;
	ce->ev.attr.exclude_kernel = 1;
	ce->ev.attr.exclude_hv = 1;
	return 0;
}

static int open_event(struct pk_counters *c, size_t i, const struct pk_counter_opts *o,
		      struct pk_diag *diag)
{
	struct pk_counter_event *ce = &c->evs[i];
	size_t lead = (size_t)ce->ev.leader, s;
	bool opened = false;

	for (s = 0; s < c->nr_slots; s++) {
		struct perf_event_attr attr;
		int group_fd = -1, fd;
		bool fell_back;

		if (c->slot_gone[s])
			continue;
		if (lead != i) {
			group_fd = pk_counter_fd_at(c, lead, s)->fd;
			if (group_fd < 0)
				continue;
		}
		event_attr(c, i, o, &attr);
		fd = pk_perf_open_stepping(&attr, ce->ev.precise_max, c->pids[s], c->cpus[s],
					   group_fd, &fell_back);
		if (fd == -EINVAL && ce->group_read && attr.inherit && !opened) {
			pk_log(PK_LOG_DEBUG, "'%s': no group read with inherit on this kernel, "
			       "reading the members one by one", ce->ev.name);
			ce->group_read = false;
			event_attr(c, i, o, &attr);
			fd = pk_perf_open_stepping(&attr, ce->ev.precise_max, c->pids[s],
						   c->cpus[s], group_fd, &fell_back);
		}
		if (fd >= 0) {
			ce->ev.attr.precise_ip = attr.precise_ip;  /* the level taken, for every slot */
			pk_counter_fd_at(c, i, s)->fd = fd;
			opened = true;
			if (fell_back && adopt_user_only(ce))
				return -ENOMEM;
			continue;
		}
		if (fd == -ESRCH && c->pids[s] != -1) {
			/* The thread exited: it has nothing left to count. */
			close_slot(c, s);
			continue;
		}
		if (not_supported(fd, attr.type))
			return mark_unsupported(c, i, fd, diag);
		return open_error(c, i, s, fd, diag);
	}
	return 0;
}

/* Members of a group that lost one to "not supported" are not counted: close them. */
static void break_groups(struct pk_counters *c)
{
	size_t i;

	for (i = 0; i < c->nr_ev; i++) {
		struct pk_counter_event *ce = &c->evs[i];

		if (!c->evs[ce->ev.leader].not_counted || ce->unsupported)
			continue;
		ce->not_counted = true;
		close_event(c, i);
	}
}

static int fetch_ids(struct pk_counters *c, struct pk_diag *diag)
{
	size_t i, s;

	for (i = 0; i < c->nr_ev; i++) {
		if (!c->evs[c->evs[i].ev.leader].group_read)
			continue;
		for (s = 0; s < c->nr_slots; s++) {
			struct pk_counter_fd *f = pk_counter_fd_at(c, i, s);

			if (f->fd >= 0 && ioctl(f->fd, PERF_EVENT_IOC_ID, &f->id) < 0) {
				pk_diag_subject(diag, c->evs[i].ev.name);
				return pk_diag_fail(diag, -errno, "cannot get the event id: %s",
						    strerror(errno));
			}
		}
	}
	return 0;
}

static int check_target(const struct pk_event_list *evs, const struct pk_target *t,
			struct pk_diag *diag)
{
	if (!evs || !evs->n || !evs->ev)
		return pk_diag_fail(diag, -EINVAL, "no events to open");
	if (!t || (!t->nr_tids == !t->nr_cpus))
		return pk_diag_fail(diag, -EINVAL, "the target must be threads or CPUs");
	if ((t->nr_tids && !t->tids) || (t->nr_cpus && !t->cpus))
		return pk_diag_fail(diag, -EINVAL, "the target has no thread or CPU array");
	return 0;
}

static int all_slots_gone(const struct pk_counters *c, struct pk_diag *diag)
{
	char pid[32];
	size_t s;

	for (s = 0; s < c->nr_slots; s++)
		if (!c->slot_gone[s])
			return 0;

	snprintf(pid, sizeof(pid), "%d", (int)c->pids[0]);
	pk_diag_subject(diag, pid);
	return pk_diag_fail(diag, -ESRCH, "no such process: every thread of the target exited");
}

int pk_counters_open(struct pk_counters **out, const struct pk_event_list *evs,
		     const struct pk_target *t, const struct pk_counter_opts *opts,
		     struct pk_diag *diag)
{
	struct pk_counter_opts o = { .sz = sizeof(o) };
	struct pk_counters *c;
	size_t i, words;
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	err = check_target(evs, t, diag);
	if (err)
		return err;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = counters_alloc(c, t, evs->n);
	if (!err)
		err = copy_events(c, evs, diag);
	for (i = 0; !err && i < c->nr_ev; i++)
		err = open_event(c, i, &o, diag);
	if (!err)
		err = all_slots_gone(c, diag);
	if (!err) {
		break_groups(c);
		err = fetch_ids(c, diag);
	}
	if (!err) {
		words = 3 + 2 * (size_t)c->max_group;
		c->rbuf = calloc(words, sizeof(*c->rbuf));
		c->rcounts = calloc((size_t)c->max_group, sizeof(*c->rcounts));
		c->rids = calloc((size_t)c->max_group, sizeof(*c->rids));
		if (!c->rbuf || !c->rcounts || !c->rids)
			err = -ENOMEM;
	}
	if (err) {
		pk_counters_free(c);
		return err;
	}
	*out = c;
	return 0;
}

size_t pk_counters_nr_events(const struct pk_counters *c)
{
	return c->nr_ev;
}

size_t pk_counters_nr_slots(const struct pk_counters *c)
{
	return c->nr_slots;
}

const struct pk_event *pk_counters_event(const struct pk_counters *c, size_t ev)
{
	return ev < c->nr_ev ? &c->evs[ev].ev : NULL;
}

bool pk_counters_supported(const struct pk_counters *c, size_t ev)
{
	return ev < c->nr_ev && !c->evs[ev].unsupported;
}

/* Leaders carry their group: PERF_IOC_FLAG_GROUP applies the request to every member. */
static int counters_ioctl(struct pk_counters *c, unsigned long req)
{
	size_t i, s;
	int err = 0;

	for (i = 0; i < c->nr_ev; i++) {
		if (!is_leader(c, i))
			continue;
		for (s = 0; s < c->nr_slots; s++) {
			int fd = pk_counter_fd_at(c, i, s)->fd;

			if (fd >= 0 && ioctl(fd, req, PERF_IOC_FLAG_GROUP) < 0 && !err)
				err = -errno;
		}
	}
	return err;
}

int pk_counters_enable(struct pk_counters *c)
{
	return counters_ioctl(c, PERF_EVENT_IOC_ENABLE);
}

int pk_counters_disable(struct pk_counters *c)
{
	return counters_ioctl(c, PERF_EVENT_IOC_DISABLE);
}

int pk_counters_reset(struct pk_counters *c)
{
	return counters_ioctl(c, PERF_EVENT_IOC_RESET);
}
