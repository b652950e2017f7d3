/*
 * Reading opened counters: one read(2) through the leader for a group read
 * with PERF_FORMAT_GROUP (values matched to members by their ids, so member
 * order never matters), one read(2) per fd otherwise. Events that are not
 * supported, not counted or whose thread vanished read as zeros, which
 * scale to "<not counted>". Sums over slots aggregate as perf does.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

static const struct pk_counts zero_counts;

static ssize_t read_retry(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static int read_failed(const struct pk_counters *c, size_t i, ssize_t n,
		       struct pk_diag *diag)
{
	pk_diag_subject(diag, c->evs[i].ev.name);
	if (n < 0)
		return pk_diag_fail(diag, (int)n, "cannot read the counter: %s",
				    strerror((int)-n));
	return PK_CORRUPT(diag, 0, "unexpected counter read of %zd bytes", n);
}

static int read_group(struct pk_counters *c, size_t lead, size_t s, struct pk_diag *diag)
{
	const struct pk_counter_event *le = &c->evs[lead];
	uint64_t fmt = PK_READ_TIMES | PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	size_t len = (3 + 2 * (size_t)le->group_size) * sizeof(uint64_t), j;
	ssize_t n = read_retry(pk_counter_fd_at(c, lead, s)->fd, c->rbuf, len);
	int got = 0, k;

	if (n < 0)
		return read_failed(c, lead, n, diag);
	/* 0 bytes: the kernel put the event in an error state; it counts nothing. */
	if (n > 0) {
		got = pk_read_format_decode(fmt, c->rbuf, (size_t)n, c->rcounts, c->rids,
					    (size_t)le->group_size);
		if (got < 0)
			return read_failed(c, lead, n, diag);
	}
	for (j = lead; j < c->nr_ev; j++) {
		struct pk_counter_fd *f = pk_counter_fd_at(c, j, s);

		if ((size_t)c->evs[j].ev.leader != lead)
			continue;
		f->counts = zero_counts;
		for (k = 0; k < got; k++)
			if (c->rids[k] == f->id)
				f->counts = c->rcounts[k];
	}
	return 0;
}

static int read_one(struct pk_counters *c, size_t i, size_t s, struct pk_diag *diag)
{
	struct pk_counter_fd *f = pk_counter_fd_at(c, i, s);
	uint64_t buf[3];
	ssize_t n = read_retry(f->fd, buf, sizeof(buf));

	if (n < 0)
		return read_failed(c, i, n, diag);
	if (n == 0) {
		f->counts = zero_counts;
		return 0;
	}
	if (pk_read_format_decode(PK_READ_TIMES, buf, (size_t)n, &f->counts, NULL, 1) != 1)
		return read_failed(c, i, n, diag);
	return 0;
}

int pk_counters_read(struct pk_counters *c, struct pk_diag *diag)
{
	size_t i, s;
	int err;

	for (s = 0; s < c->nr_slots; s++) {
		for (i = 0; i < c->nr_ev; i++) {
			const struct pk_counter_event *ce = &c->evs[i];
			struct pk_counter_fd *f = pk_counter_fd_at(c, i, s);

			if (f->fd < 0) {
				f->counts = zero_counts;
				continue;
			}
			/* Members of a group read arrive with their leader's read. */
			if ((size_t)ce->ev.leader != i && c->evs[ce->ev.leader].group_read)
				continue;
			err = ce->group_read ? read_group(c, i, s, diag) : read_one(c, i, s, diag);
			if (err)
				return err;
		}
	}
	return 0;
}

const struct pk_counts *pk_counters_get(const struct pk_counters *c, size_t ev, size_t slot)
{
	if (ev >= c->nr_ev || slot >= c->nr_slots)
		return &zero_counts;
	return &pk_counter_fd_at(c, ev, slot)->counts;
}

void pk_counters_sum(const struct pk_counters *c, size_t ev, struct pk_counts *out)
{
	size_t s;

	*out = zero_counts;
	for (s = 0; ev < c->nr_ev && s < c->nr_slots; s++) {
		const struct pk_counts *v = &pk_counter_fd_at(c, ev, s)->counts;

		out->val += v->val;
		out->ena += v->ena;
		out->run += v->run;
		out->lost += v->lost;
	}
}
