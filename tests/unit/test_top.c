/*
 * Tests of the top module (lib/top): hand-built records in, rows out.
 * A COMM and an MMAP2 of this very test binary, samples at the addresses of
 * two of its own functions (so the ELF symbol table gives their names), a
 * sample outside any symbol, a kernel sample at a kallsyms function, LOST
 * records, two events told apart by sample id; then the percentages, the
 * order, the interval reset, the stdio text and -K/-U hiding.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/top.h>
#include "../tap.h"

/* The functions the samples land in: not inlined, not static, so .symtab names them. */
__attribute__((noinline, used)) int top_test_hot(int x);
__attribute__((noinline, used)) int top_test_warm(int x);
int top_test_hot(int x) { return x * 3 + 1; }
int top_test_warm(int x) { return x * 5 + 2; }

#define ID_EV0 1001
#define ID_EV1 2002
#define PID 4242

static struct perf_event_attr attr0, attr1;

/* ---- record builder ------------------------------------------------------- */

struct rec {
	uint64_t words[512];        /* 8-byte aligned storage */
	size_t len;
};

static void rec_start(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };

	memset(r, 0, sizeof(*r));
	memcpy(r->words, &h, sizeof(h));
	r->len = sizeof(h);
}

static void put(struct rec *r, const void *p, size_t n)
{
	memcpy((char *)r->words + r->len, p, n);
	r->len += n;
}

static void put64(struct rec *r, uint64_t v) { put(r, &v, 8); }
static void put32(struct rec *r, uint32_t v) { put(r, &v, 4); }

/* A NUL-terminated string padded to 8 bytes. */
static void put_str(struct rec *r, const char *s)
{
	size_t n = strlen(s) + 1, pad = (n + 7) / 8 * 8;

	memset((char *)r->words + r->len, 0, pad);
	memcpy((char *)r->words + r->len, s, n);
	r->len += pad;
}

/* sample_id trailer for sample_type TID|TIME|CPU|IDENTIFIER (the attrs below). */
static void put_trailer(struct rec *r, uint32_t pid, uint32_t tid, uint64_t id)
{
	put32(r, pid);
	put32(r, tid);
	put64(r, 0);            /* time */
	put32(r, 0);            /* cpu */
	put32(r, 0);            /* res */
	put64(r, id);           /* identifier */
}

static const struct perf_event_header *rec_end(struct rec *r)
{
	struct perf_event_header *h = (struct perf_event_header *)r->words;

	h->size = (uint16_t)r->len;
	return h;
}

/* IDENTIFIER, IP, TID, TIME, CPU, PERIOD: the field order of perf_output_sample(). */
static const struct perf_event_header *sample(struct rec *r, uint64_t id, uint16_t cpumode, uint32_t pid,
					      uint64_t ip, uint64_t period)
{
	rec_start(r, PERF_RECORD_SAMPLE, cpumode);
	put64(r, id);
	put64(r, ip);
	put32(r, pid);
	put32(r, pid);
	put64(r, 0);
	put32(r, 0);
	put32(r, 0);
	put64(r, period);
	return rec_end(r);
}

static int feed(struct pk_top *t, const struct perf_event_header *h)
{
	struct pk_diag d;

	pk_diag_init(&d);
	return pk_top_feed(t, h, &d);
}

/* ---- where this binary and the kernel are -------------------------------- */

struct mapping {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min;
	char path[4096];
};

/* The /proc/self/maps line that holds @addr. 0 or -ENOENT. */
static int find_mapping(uint64_t addr, struct mapping *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[8192];
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char perms[8];
		int n = 0;

		memset(m, 0, sizeof(*m));
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &m->start, &m->end,
			   perms, &m->pgoff, &m->maj, &m->min, &m->ino, &n) < 7)
			continue;
		if (addr < m->start || addr >= m->end)
			continue;
		snprintf(m->path, sizeof(m->path), "%s", line + n);
		m->path[strcspn(m->path, "\n")] = 0;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* Address of kallsyms symbol @name (type t/T), 0 if absent or hidden. */
static uint64_t kallsyms_addr(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[1024], sym[512], type;
	uint64_t a, found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %511s", &a, &type, sym) == 3 && !strcmp(sym, name)) {
			found = a;
			break;
		}
	}
	fclose(f);
	return found;
}

static const struct pk_top_row *find_row(const struct pk_top_interval *iv, uint32_t ev, const char *sym)
{
	for (size_t i = 0; i < iv->nr_rows; i++)
		if (iv->rows[i].event == ev && iv->rows[i].sym && !strcmp(iv->rows[i].sym, sym))
			return &iv->rows[i];
	return NULL;
}

static void init_attrs(void)
{
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

	attr0.size = sizeof(attr0);
	attr0.type = PERF_TYPE_SOFTWARE;
	attr0.config = PERF_COUNT_SW_CPU_CLOCK;
	attr0.sample_type = st;
	attr0.freq = 1;
	attr0.sample_freq = 4000;
	attr0.sample_id_all = 1;
	attr0.mmap2 = attr0.comm = attr0.task = 1;
	attr1 = attr0;
	attr1.config = PERF_COUNT_SW_TASK_CLOCK;
	attr1.freq = 0;
	attr1.sample_period = 100000;
	attr1.mmap2 = attr1.comm = attr1.task = 0;
}

/* ---- tests ------------------------------------------------------------------- */

int main(void)
{
	uint64_t hot = (uint64_t)(uintptr_t)&top_test_hot, warm = (uint64_t)(uintptr_t)&top_test_warm;
	uint64_t ids0[] = { ID_EV0, ID_EV0 + 1 }, ids1[] = { ID_EV1 };
	uint64_t ktext = kallsyms_addr("_text"), ksched = kallsyms_addr("schedule");
	struct pk_top_interval iv;
	const struct pk_top_row *r;
	struct mapping m;
	struct pk_top *t;
	struct rec rec;
	struct pk_diag d;
	char buf[256];
	int i;

	init_attrs();
	if (find_mapping(hot, &m) || m.path[0] != '/') {
		skip_all("cannot find this test's text mapping in /proc/self/maps");
		return 0;
	}
	t = pk_top_new(NULL);
	ok(t != NULL, "pk_top_new");
	pk_diag_init(&d);
	is_int(pk_top_feed(t, sample(&rec, ID_EV0, PERF_RECORD_MISC_USER, PID, hot, 1), &d), -EINVAL,
	       "feeding before any event is refused");
	is_int(pk_top_add_event(t, &attr0, "cpu-clock", ids0, 2), 0, "event 0 registered");
	is_int(pk_top_add_event(t, &attr1, "task-clock", ids1, 1), 1, "event 1 registered");

	/* side band: the process and the mapping of this binary */
	rec_start(&rec, PERF_RECORD_COMM, 0);
	put32(&rec, PID);
	put32(&rec, PID);
	put_str(&rec, "top-test");
	put_trailer(&rec, PID, PID, ID_EV0);
	is_int(feed(t, rec_end(&rec)), 0, "COMM fed");

	rec_start(&rec, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put32(&rec, PID);
	put32(&rec, PID);
	put64(&rec, m.start);
	put64(&rec, m.end - m.start);
	put64(&rec, m.pgoff);
	put32(&rec, m.maj);
	put32(&rec, m.min);
	put64(&rec, m.ino);
	put64(&rec, 0);
	put32(&rec, 5);        /* PROT_READ|PROT_EXEC */
	put32(&rec, 2);        /* MAP_PRIVATE */
	put_str(&rec, m.path);
	put_trailer(&rec, PID, PID, ID_EV0);
	is_int(feed(t, rec_end(&rec)), 0, "MMAP2 of %s fed", m.path);

	if (ktext && ksched) {
		rec_start(&rec, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
		put32(&rec, (uint32_t)-1);
		put32(&rec, 0);
		put64(&rec, ktext);
		put64(&rec, ~0ULL - ktext);
		put64(&rec, ktext);
		put_str(&rec, "[kernel.kallsyms]_text");
		put_trailer(&rec, 0, 0, 0);   /* synthesized: zero trailer */
		is_int(feed(t, rec_end(&rec)), 0, "kernel MMAP fed");
	}

	/*
	 * Interval 1, event 0: 6 at top_test_hot, 3 at top_test_warm, 1 in the
	 * kernel (or in the binary's unsymbolized bytes without kallsyms);
	 * event 1: 2 at top_test_warm. A sample of no event and a LOST of 7.
	 */
	for (i = 0; i < 6; i++)
		feed(t, sample(&rec, i & 1 ? ID_EV0 + 1 : ID_EV0, PERF_RECORD_MISC_USER, PID, hot + 1, 250000));
	for (i = 0; i < 3; i++)
		feed(t, sample(&rec, ID_EV0, PERF_RECORD_MISC_USER, PID, warm, 250000));
	if (ktext && ksched)
		feed(t, sample(&rec, ID_EV0, PERF_RECORD_MISC_KERNEL, PID, ksched, 250000));
	else
		feed(t, sample(&rec, ID_EV0, PERF_RECORD_MISC_USER, 999, 0x1234, 250000));
	for (i = 0; i < 2; i++)
		feed(t, sample(&rec, ID_EV1, PERF_RECORD_MISC_USER, PID, warm + 2, 100000));
	is_int(feed(t, sample(&rec, 777, PERF_RECORD_MISC_USER, PID, hot, 1)), 0, "a sample of no event is dropped");
	rec_start(&rec, PERF_RECORD_LOST, 0);
	put64(&rec, ID_EV0);
	put64(&rec, 7);
	put_trailer(&rec, 0, 0, ID_EV0);
	is_int(feed(t, rec_end(&rec)), 0, "LOST fed");

	is_int(pk_top_interval_end(t, &iv), 0, "interval 1 closed");
	is_int(iv.index, 0, "first interval has index 0");
	is_int(iv.nr_samples, 12, "interval 1: 12 samples of both events");
	is_int(iv.nr_events, 2, "two events in the interval");
	is_int(iv.events[0].samples, 10, "event 0: 10 samples");
	is_int(iv.events[0].period, 2500000, "event 0: period sum");
	is_int(iv.events[1].samples, 2, "event 1: 2 samples");
	is_str(iv.events[1].name, "task-clock", "event 1 name");
	is_int(iv.nr_lost, 7, "7 lost samples");
	is_int(iv.nr_unknown, 1, "1 sample of an unknown id");
	is_int(iv.nr_rows, 4, "4 rows: hot, warm, kernel/raw for event 0; warm for event 1");

	r = iv.nr_rows ? &iv.rows[0] : NULL;
	ok(r && r->sym && !strcmp(r->sym, "top_test_hot"), "first row is top_test_hot (got %s)",
	   r && r->sym ? r->sym : "none");
	if (r) {
		is_dbl(r->percent, 60.0, 1e-9, "top_test_hot is 60%% of event 0");
		is_int(r->samples, 6, "top_test_hot: 6 samples");
		is_int(r->level, '.', "user level");
		is_str(pk_top_row_symbol(r, buf, sizeof(buf)), "[.] top_test_hot", "symbol column");
		ok(strstr(m.path, r->dso) && r->dso[0] != '/', "dso is the short name of %s (got %s)", m.path,
		   r->dso);
	}
	r = find_row(&iv, 0, "top_test_warm");
	ok(r && r->samples == 3, "top_test_warm: 3 samples of event 0");
	if (r)
		is_dbl(r->percent, 30.0, 1e-9, "top_test_warm is 30%% of event 0");
	r = find_row(&iv, 1, "top_test_warm");
	ok(r && r->samples == 2, "event 1 counts its own top_test_warm row");
	if (r)
		is_dbl(r->percent, 100.0, 1e-9, "event 1's row is 100%% of event 1");
	if (ktext && ksched) {
		r = find_row(&iv, 0, "schedule");
		ok(r != NULL, "kernel sample resolves to schedule");
		if (r) {
			is_int(r->level, 'k', "kernel level");
			is_str(r->dso, "[kernel.kallsyms]", "kernel dso");
			is_dbl(r->percent, 10.0, 1e-9, "schedule is 10%%");
		}
		is_int(iv.nr_kernel, 1, "1 kernel sample");
		is_int(iv.events[0].kernel, 1, "event 0: 1 kernel sample");
	} else {
		diag("kallsyms hidden: raw-address row instead of a kernel one");
		r = NULL;
		for (size_t k = 0; k < iv.nr_rows; k++)
			if (!iv.rows[k].sym)
				r = &iv.rows[k];
		ok(r && r->addr == 0x1234, "unmapped ip kept as a raw address");
		if (r)
			is_str(pk_top_row_symbol(r, buf, sizeof(buf)), "[.] 0x0000000000001234", "raw column");
	}

	/* the stdio text */
	{
		struct pk_top_format_opts fo = { .sz = sizeof(fo), .target = "all, 2 CPUs" };
		struct pk_top_interval one = iv;
		struct pk_buf out;

		one.duration_ns = 2000000000ull;
		pk_buf_init(&out);
		is_int(pk_top_format(&one, &fo, &out), 0, "format");
		ok(out.data && strstr(out.data, "   PerfTop:       5 irqs/sec  kernel:"),
		   "header: 10 samples in 2 s are 5 irqs/sec");
		ok(out.data && strstr(out.data, "lost: 7/7 [4000Hz cpu-clock],  (all, 2 CPUs)"),
		   "header: lost, event at its frequency, target");
		ok(out.data && strstr(out.data, "[100000 task-clock]"), "second event's header with its period");
		ok(out.data && strstr(out.data, "  Overhead  Shared Object"), "column header");
		ok(out.data && strstr(out.data, "    60.00%  ") && strstr(out.data, "[.] top_test_hot\n"),
		   "the top_test_hot row");
		if (ktext && ksched) {
			fo.hide_kernel = 1;
			out.len = 0;
			pk_top_format(&one, &fo, &out);
			ok(out.data && !strstr(out.data, "[k] schedule") && strstr(out.data, "[.] top_test_hot"),
			   "-K hides the kernel row only");
			fo.hide_kernel = 0;
		}
		fo.hide_user = 1;
		out.len = 0;
		pk_top_format(&one, &fo, &out);
		ok(out.data && !strstr(out.data, "top_test_"), "-U hides the user rows");
		fo.hide_user = 0;
		fo.max_rows = 1;
		out.len = 0;
		pk_top_format(&one, &fo, &out);
		ok(out.data && strstr(out.data, "top_test_hot") && !strstr(out.data, "30.00%"), "max_rows 1 keeps only the top row");
		pk_buf_release(&out);
	}

	/* interval 2 starts empty and counts only what comes after */
	feed(t, sample(&rec, ID_EV0, PERF_RECORD_MISC_USER, PID, warm, 1));
	is_int(pk_top_interval_end(t, &iv), 0, "interval 2 closed");
	is_int(iv.index, 1, "second interval has index 1");
	is_int(iv.nr_samples, 1, "interval 2: 1 sample");
	is_int(iv.nr_lost, 0, "interval 2: no lost");
	is_int(iv.nr_lost_total, 7, "lost since start: 7");
	is_int(iv.nr_rows, 1, "interval 2: one row");
	ok(iv.nr_rows && iv.rows[0].sym && !strcmp(iv.rows[0].sym, "top_test_warm") && iv.rows[0].percent == 100.0,
	   "interval 2: top_test_warm at 100%%");

	/* samples are resolved at flush: one fed before its MMAP still finds its symbol */
	rec_start(&rec, PERF_RECORD_COMM, 0);
	put32(&rec, PID + 1);
	put32(&rec, PID + 1);
	put_str(&rec, "late-map");
	put_trailer(&rec, PID + 1, PID + 1, ID_EV0);
	feed(t, rec_end(&rec));
	feed(t, sample(&rec, ID_EV0, PERF_RECORD_MISC_USER, PID + 1, hot, 1));
	rec_start(&rec, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put32(&rec, PID + 1);
	put32(&rec, PID + 1);
	put64(&rec, m.start);
	put64(&rec, m.end - m.start);
	put64(&rec, m.pgoff);
	put32(&rec, m.maj);
	put32(&rec, m.min);
	put64(&rec, m.ino);
	put64(&rec, 0);
	put32(&rec, 5);
	put32(&rec, 2);
	put_str(&rec, m.path);
	put_trailer(&rec, PID + 1, PID + 1, ID_EV0);
	feed(t, rec_end(&rec));
	pk_top_interval_end(t, &iv);
	ok(iv.nr_rows == 1 && iv.rows[0].sym && !strcmp(iv.rows[0].sym, "top_test_hot"),
	   "a sample drained before its MMAP is resolved at flush");

	/* reset drops what was fed */
	feed(t, sample(&rec, ID_EV0, PERF_RECORD_MISC_USER, PID, warm, 1));
	pk_top_reset(t);
	pk_top_interval_end(t, &iv);
	is_int(iv.nr_samples, 0, "reset drops pending samples");

	/* corrupt input: a sample too short for its layout */
	{
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 16 };
		uint64_t words[2] = { 0, ID_EV0 };

		memcpy(words, &h, sizeof(h));
		pk_diag_init(&d);
		is_int(pk_top_feed(t, (const struct perf_event_header *)words, &d), -EBADMSG,
		       "truncated sample is -EBADMSG");
		ok(d.msg[0] != 0, "with a message (%s)", d.msg);
		pk_top_interval_end(t, &iv);
		is_int(iv.nr_bad, 1, "counted as bad");
		is_int(iv.nr_samples, 0, "and not as a sample");
	}
	pk_top_free(t);
	(void)top_test_hot(1);
	(void)top_test_warm(1);
	return done_testing();
}
