/*
 * The event list: a growable array of struct pk_event that owns each
 * event's strings. Parsing appends to it and, on failure, truncates it back
 * to where it started, so a failed pk_event_parse() leaves the list as it
 * was. Also perf stat's default event list and pk_event_is().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

void pk_event_list_init(struct pk_event_list *l)
{
	l->ev = NULL;
	l->n = 0;
	l->cap = 0;
}

static void event_release(struct pk_event *ev)
{
	free(ev->name);
	free(ev->pmu);
	free(ev->scale_unit);
	memset(ev, 0, sizeof(*ev));
}

void ev_list_truncate(struct pk_event_list *l, size_t n)
{
	while (l->n > n)
		event_release(&l->ev[--l->n]);
}

void pk_event_list_release(struct pk_event_list *l)
{
	ev_list_truncate(l, 0);
	free(l->ev);
	pk_event_list_init(l);
}

int ev_set_name(struct pk_event *ev, const char *name, size_t len)
{
	char *s = strndup(name, len);

	if (!s)
		return -ENOMEM;
	free(ev->name);
	ev->name = s;
	return 0;
}

/* Make room for one more pending entry in @c for the event at index @idx. */
static int pending_reserve(struct ev_ctx *c, size_t idx)
{
	size_t need = idx - c->n0 + 1, cap;
	struct ev_pending *p;

	if (need <= c->pend_cap)
		return 0;
	cap = c->pend_cap ? c->pend_cap * 2 : 16;
	while (cap < need)
		cap *= 2;
	p = realloc(c->pend, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->pend = p;
	c->pend_cap = cap;
	return 0;
}

struct pk_event *ev_list_push(struct pk_event_list *l, struct ev_ctx *c,
			      enum pk_event_kind kind, const char *name, size_t len)
{
	struct pk_event *ev;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct pk_event *v;

		if (cap > SIZE_MAX / sizeof(*v))
			return NULL;
		v = realloc(l->ev, cap * sizeof(*v));
		if (!v)
			return NULL;
		l->ev = v;
		l->cap = cap;
	}
	if (c && pending_reserve(c, l->n))
		return NULL;
	ev = &l->ev[l->n];
	memset(ev, 0, sizeof(*ev));
	ev->name = strndup(name, len);
	if (!ev->name)
		return NULL;
	ev->kind = kind;
	ev->attr.size = sizeof(ev->attr);
	ev->scale = 1.0;
	ev->leader = (int)l->n;
	ev->nr_members = 1;
	if (c)
		memset(&c->pend[l->n - c->n0], 0, sizeof(c->pend[0]));
	l->n++;
	return ev;
}

int pk_event_add_defaults(struct pk_event_list *l)
{
	static const char spec[] = "task-clock,context-switches,cpu-migrations,page-faults,"
				   "cycles,instructions,branches,branch-misses";

	return pk_event_parse(l, spec, NULL, NULL);
}

bool pk_event_is(const struct pk_event *ev, __u32 type, __u64 config)
{
	return ev && ev->attr.type == type && ev->attr.config == config;
}
