/*
 * perf's --switch-on / --switch-off (its evswitch), for report and script:
 * with --switch-on EVENT the samples are dropped until EVENT's first
 * sample; with --switch-off EVENT, an EVENT sample drops the ones after it
 * until the switch-on event comes again (without --switch-on, only that
 * sample goes). The switching samples themselves are dropped too, unless
 * --show-on-off-events. Dropped samples count nowhere, as those outside
 * --time. Events are named as perf names them; a file's names are checked
 * when it is opened, a pipe's when its samples come.
 */
#include <errno.h>
#include <string.h>
#include "session/internal.h"

static const struct pk_evsel *find_evsel(struct pk_perfdata *p, const char *name)
{
	size_t n = pk_perfdata_nr_evsels(p);

	for (size_t i = 0; i < n; i++) {
		const struct pk_evsel *ev = pk_perfdata_evsel(p, i);

		if (ev && ev->name && !strcmp(ev->name, name))
			return ev;
	}
	return NULL;
}

int pk_evswitch_init(struct pk_evswitch *w, const struct pk_session_filter *in, struct pk_perfdata *p,
		     struct pk_diag *d)
{
	memset(w, 0, sizeof(*w));
	w->on_name = in->switch_on;
	w->off_name = in->switch_off;
	w->show_on_off = in->show_on_off_events;
	w->late = in->switch_after_filters;
	w->discarding = w->on_name != NULL;
	if (pk_perfdata_is_pipe(p))     /* the attrs come with the records */
		return 0;
	if (w->on_name && !(w->on = find_evsel(p, w->on_name)))
		goto missing;
	if (w->off_name && !(w->off = find_evsel(p, w->off_name)))
		goto missing;
	return 0;
missing:
	pk_diag_fail(d, -EINVAL, "%s event not found (%s)", w->on_name && !w->on ? "switch-on" : "switch-off",
		     w->on_name && !w->on ? w->on_name : w->off_name);
	pk_diag_hint(d, "perfkit report --header-only names the file's events");
	return -EINVAL;
}

/* @ev is the event @name names (found in the file, or the first of that name seen in a pipe). */
static int is_event(const struct pk_evsel *ev, const char *name, const struct pk_evsel **found)
{
	if (*found)
		return ev == *found;
	if (!ev->name || strcmp(ev->name, name))
		return 0;
	*found = ev;
	return 1;
}

int pk_evswitch_discard(struct pk_evswitch *w, const struct pk_evsel *ev)
{
	if (w->on_name && w->discarding) {
		if (!is_event(ev, w->on_name, &w->on))
			return 1;
		w->discarding = 0;
		return !w->show_on_off;
	}
	if (w->off_name && !w->discarding) {
		if (!is_event(ev, w->off_name, &w->off))
			return 0;
		w->discarding = 1;
		return !w->show_on_off;
	}
	return 0;
}
