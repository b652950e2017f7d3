/*
 * perf report -T (report_threads.h). As perf adds them up: a READ record's
 * first value after its pid and tid (the counter, or a group's count of
 * members, perf's event->read.value) adds to its (pid, tid)'s count of its
 * event; threads and events are listed on first sight, which orders the
 * rows and columns. Columns are as wide as their widest number or title,
 * PID and TID at least 3.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "report_threads.h"

struct report_threads {
	struct rt_thread {
		uint32_t pid, tid;
		uint64_t *count;        /* by the event's index in the file, @nr_counts of them */
		size_t nr_counts;
	} *thread;
	size_t nr_threads;
	const struct pk_evsel **event;  /* the columns */
	size_t nr_events;
};

struct report_threads *report_threads_new(void)
{
	return calloc(1, sizeof(struct report_threads));
}

void report_threads_free(struct report_threads *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_threads; i++)
		free(t->thread[i].count);
	free(t->thread);
	free(t->event);
	free(t);
}

int report_threads_add(struct report_threads *t, const struct pk_record *r)
{
	const uint8_t *p = (const uint8_t *)r->hdr;
	uint32_t pid, tid;
	uint64_t value;
	struct rt_thread *th;
	size_t ti, ei, e;

	if (r->hdr->type != PERF_RECORD_READ || r->hdr->size < 24 || !r->evsel || r->evsel->idx < 0)
		return 0;
	e = (size_t)r->evsel->idx;
	memcpy(&pid, p + 8, 4);
	memcpy(&tid, p + 12, 4);
	memcpy(&value, p + 16, 8);
	for (ti = 0; ti < t->nr_threads && (t->thread[ti].pid != pid || t->thread[ti].tid != tid); ti++)
		;
	if (ti == t->nr_threads) {
		struct rt_thread *v = realloc(t->thread, (ti + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->thread = v;
		t->thread[t->nr_threads++] = (struct rt_thread){ .pid = pid, .tid = tid };
	}
	for (ei = 0; ei < t->nr_events && t->event[ei] != r->evsel; ei++)
		;
	if (ei == t->nr_events) {
		const struct pk_evsel **v = realloc(t->event, (ei + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->event = v;
		t->event[t->nr_events++] = r->evsel;
	}
	th = &t->thread[ti];
	if (e >= th->nr_counts) {
		uint64_t *c = realloc(th->count, (e + 1) * sizeof(*c));

		if (!c)
			return -ENOMEM;
		memset(c + th->nr_counts, 0, (e + 1 - th->nr_counts) * sizeof(*c));
		th->count = c;
		th->nr_counts = e + 1;
	}
	th->count[e] += value;
	return 0;
}

static uint64_t count_of(const struct rt_thread *th, const struct pk_evsel *ev)
{
	return ev->idx >= 0 && (size_t)ev->idx < th->nr_counts ? th->count[ev->idx] : 0;
}

static const char *name_of(const struct pk_evsel *ev)
{
	return ev->name ? ev->name : "";
}

void report_threads_print(const struct report_threads *t, FILE *out)
{
	int *w = calloc(t->nr_events ? t->nr_events : 1, sizeof(*w)), pidw = 3, tidw = 3;

	if (!w)
		return;
	for (size_t j = 0; j < t->nr_events; j++)
		w[j] = (int)strlen(name_of(t->event[j]));
	for (size_t i = 0; i < t->nr_threads; i++) {
		int pw = snprintf(NULL, 0, "%d", (int)t->thread[i].pid);
		int tw = snprintf(NULL, 0, "%d", (int)t->thread[i].tid);

		pidw = pw > pidw ? pw : pidw;
		tidw = tw > tidw ? tw : tidw;
		for (size_t j = 0; j < t->nr_events; j++) {
			int cw = snprintf(NULL, 0, "%" PRIu64, count_of(&t->thread[i], t->event[j]));

			w[j] = cw > w[j] ? cw : w[j];
		}
	}
	fprintf(out, "# %*s  %*s", pidw, "PID", tidw, "TID");
	for (size_t j = 0; j < t->nr_events; j++)
		fprintf(out, "  %*s", w[j], name_of(t->event[j]));
	fputc('\n', out);
	for (size_t i = 0; i < t->nr_threads; i++) {
		fprintf(out, "  %*d  %*d", pidw, (int)t->thread[i].pid, tidw, (int)t->thread[i].tid);
		for (size_t j = 0; j < t->nr_events; j++)
			fprintf(out, "  %*" PRIu64, w[j], count_of(&t->thread[i], t->event[j]));
		fputc('\n', out);
	}
	free(w);
}
