/*
 * perf report -T (report_threads.h). As perf adds them up: a READ record's
 * first value after its pid and tid (the counter, or a group's count of
 * members, perf's event->read.value) goes to the row of its (pid, tid) and
 * the column of its event, both made on first sight; the columns are as
 * wide as their widest number or title, PID and TID at least 3.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "report_threads.h"

struct report_threads {
	struct { uint32_t pid, tid; } *thread;
	size_t nr_threads;
	const struct pk_evsel **event;  /* the columns */
	size_t nr_events;
	uint64_t *value;                /* nr_threads rows of @cols values */
	size_t cols;                    /* the rows' allocated width */
};

struct report_threads *report_threads_new(void)
{
	return calloc(1, sizeof(struct report_threads));
}

void report_threads_free(struct report_threads *t)
{
	if (!t)
		return;
	free(t->thread);
	free(t->event);
	free(t->value);
	free(t);
}

static int thread_index(struct report_threads *t, uint32_t pid, uint32_t tid, size_t *at)
{
	void *v;

	for (*at = 0; *at < t->nr_threads; (*at)++)
		if (t->thread[*at].pid == pid && t->thread[*at].tid == tid)
			return 0;
	if (!(v = realloc(t->thread, (t->nr_threads + 1) * sizeof(*t->thread))))
		return -ENOMEM;
	t->thread = v;
	if (!(v = realloc(t->value, (t->nr_threads + 1) * (t->cols ? t->cols : 1) * sizeof(*t->value))))
		return -ENOMEM;
	t->value = v;
	memset(&t->value[t->nr_threads * t->cols], 0, t->cols * sizeof(*t->value));
	t->thread[t->nr_threads].pid = pid;
	t->thread[t->nr_threads].tid = tid;
	t->nr_threads++;
	return 0;
}

/* The column of @ev, made on first sight (the rows widened when full). */
static int event_index(struct report_threads *t, const struct pk_evsel *ev, size_t *at)
{
	void *v;

	for (*at = 0; *at < t->nr_events; (*at)++)
		if (t->event[*at] == ev)
			return 0;
	if (t->nr_events == t->cols) {
		size_t cols = 2 * t->cols + 4;
		uint64_t *nv = calloc(t->nr_threads ? t->nr_threads * cols : 1, sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		for (size_t i = 0; i < t->nr_threads; i++)
			memcpy(&nv[i * cols], &t->value[i * t->cols], t->cols * sizeof(*nv));
		free(t->value);
		t->value = nv;
		t->cols = cols;
	}
	if (!(v = realloc(t->event, (t->nr_events + 1) * sizeof(*t->event))))
		return -ENOMEM;
	t->event = v;
	t->event[t->nr_events++] = ev;
	return 0;
}

int report_threads_add(struct report_threads *t, const struct pk_record *r)
{
	const uint8_t *p = (const uint8_t *)r->hdr;
	uint32_t pid, tid;
	uint64_t value;
	size_t ti, ei;
	int err;

	if (r->hdr->type != PERF_RECORD_READ || r->hdr->size < 24 || !r->evsel)
		return 0;
	memcpy(&pid, p + 8, 4);
	memcpy(&tid, p + 12, 4);
	memcpy(&value, p + 16, 8);
	if ((err = event_index(t, r->evsel, &ei)) || (err = thread_index(t, pid, tid, &ti)))
		return err;
	t->value[ti * t->cols + ei] += value;
	return 0;
}

static int width_of_u64(uint64_t v)
{
	return snprintf(NULL, 0, "%" PRIu64, v);
}

void report_threads_print(const struct report_threads *t, FILE *out)
{
	int pidw = 3, tidw = 3, w[64];
	size_t ne = t->nr_events < 64 ? t->nr_events : 64;

	for (size_t j = 0; j < ne; j++)
		w[j] = (int)strlen(t->event[j]->name ? t->event[j]->name : "");
	for (size_t i = 0; i < t->nr_threads; i++) {
		int pw = snprintf(NULL, 0, "%d", (int)t->thread[i].pid);
		int tw = snprintf(NULL, 0, "%d", (int)t->thread[i].tid);

		pidw = pw > pidw ? pw : pidw;
		tidw = tw > tidw ? tw : tidw;
		for (size_t j = 0; j < ne; j++)
			if (width_of_u64(t->value[i * t->cols + j]) > w[j])
				w[j] = width_of_u64(t->value[i * t->cols + j]);
	}
	fprintf(out, "# %*s  %*s", pidw, "PID", tidw, "TID");
	for (size_t j = 0; j < ne; j++)
		fprintf(out, "  %*s", w[j], t->event[j]->name ? t->event[j]->name : "");
	fputc('\n', out);
	for (size_t i = 0; i < t->nr_threads; i++) {
		fprintf(out, "  %*d  %*d", pidw, (int)t->thread[i].pid, tidw, (int)t->thread[i].tid);
		for (size_t j = 0; j < ne; j++)
			fprintf(out, "  %*" PRIu64, w[j], t->value[i * t->cols + j]);
		fputc('\n', out);
	}
}
