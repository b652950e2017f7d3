/*
 * Unit tests for pk_tracing_data_build() (lib/record/tracing_data.c), the
 * TRACING_DATA blob perf stores for tracepoints.
 *
 * 1. The blob for sched:sched_switch, and for sched:sched_switch plus
 *    irq:irq_handler_entry, parsed back field by field: magic, version,
 *    endianness, sizeof(long), page size, header_page / header_event equal
 *    to the tracefs files, the systems and events written and their format
 *    text, printk_formats; appending to a non-empty buffer; bad names.
 * 2. The oracle: Linux perf 6.1 records the same tracepoints system-wide;
 *    its blob (read back with pk_perfdata_open) must have the same sequence
 *    of sections, with header files, ftrace and event formats byte-identical
 *    to ours (saved_cmdlines compared by structure only).
 *
 * Skipped when tracefs or the tracepoints are missing; part 2 without perf.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/core.h>
#include <perfkit/event.h>
#include <perfkit/perfdata.h>
#include <perfkit/record.h>
#include "../tap.h"

#define MAX_SEC 64

struct sec {
	const char *p;
	uint64_t size;
};

struct tsys {
	const char *name;
	uint32_t nr;
	struct sec ev[MAX_SEC];
};

/* A TRACING_DATA blob split into its fields (pointers into the blob). */
struct td {
	char magic[10];
	const char *version;
	uint8_t big_endian, long_size;
	uint32_t page_size;
	const char *hp_name, *he_name;
	struct sec header_page, header_event;
	uint32_t nr_ftrace;
	struct sec ftrace[MAX_SEC];
	uint32_t nr_sys;
	struct tsys sys[MAX_SEC];
	struct sec kallsyms, printk, cmdlines;
	size_t end;
};

static const char *rd_str(struct pk_reader *r)
{
	const char *s = (const char *)r->data + r->off;
	const char *nul = memchr(s, 0, pk_reader_left(r));

	if (!nul)
		return NULL;
	r->off += (size_t)(nul - s) + 1;
	return s;
}

static int rd_sec(struct pk_reader *r, struct sec *s, int u64)
{
	uint32_t v32;

	if (u64) {
		if (pk_reader_u64(r, &s->size))
			return -1;
	} else {
		if (pk_reader_u32(r, &v32))
			return -1;
		s->size = v32;
	}
	s->p = (const char *)r->data + r->off;
	return pk_reader_skip(r, s->size) ? -1 : 0;
}

/* Parse @blob the way perf's trace-event-read.c does. 0, or -1 where it does not parse. */
static int td_parse(const void *blob, size_t len, struct td *t)
{
	struct pk_reader r;

	memset(t, 0, sizeof(*t));
	pk_reader_init(&r, blob, len, NULL);
	if (pk_reader_bytes(&r, t->magic, 10) || !(t->version = rd_str(&r)) ||
	    pk_reader_u8(&r, &t->big_endian) || pk_reader_u8(&r, &t->long_size) ||
	    pk_reader_u32(&r, &t->page_size))
		return -1;
	if (!(t->hp_name = rd_str(&r)) || rd_sec(&r, &t->header_page, 1) ||
	    !(t->he_name = rd_str(&r)) || rd_sec(&r, &t->header_event, 1))
		return -1;
	if (pk_reader_u32(&r, &t->nr_ftrace) || t->nr_ftrace > MAX_SEC)
		return -1;
	for (uint32_t i = 0; i < t->nr_ftrace; i++)
		if (rd_sec(&r, &t->ftrace[i], 1))
			return -1;
	if (pk_reader_u32(&r, &t->nr_sys) || t->nr_sys > MAX_SEC)
		return -1;
	for (uint32_t i = 0; i < t->nr_sys; i++) {
		struct tsys *s = &t->sys[i];

		if (!(s->name = rd_str(&r)) || pk_reader_u32(&r, &s->nr) || s->nr > MAX_SEC)
			return -1;
		for (uint32_t j = 0; j < s->nr; j++)
			if (rd_sec(&r, &s->ev[j], 1))
				return -1;
	}
	if (rd_sec(&r, &t->kallsyms, 0) || rd_sec(&r, &t->printk, 0) ||
	    rd_sec(&r, &t->cmdlines, 1))
		return -1;
	t->end = r.off;
	return 0;
}

static int sec_is(const struct sec *s, const struct pk_buf *b)
{
	return s->size == b->len && (!b->len || !memcmp(s->p, b->data, b->len));
}

static int sec_eq(const struct sec *a, const struct sec *b)
{
	return a->size == b->size && (!a->size || !memcmp(a->p, b->p, a->size));
}

/* The "name: X" line of a format file, as a string in @buf. */
static const char *fmt_name(const struct sec *s, char *buf, size_t sz)
{
	size_t n = 0;

	if (s->size < 6 || memcmp(s->p, "name: ", 6))
		return "";
	while (6 + n < s->size && s->p[6 + n] != '\n' && n + 1 < sz) {
		buf[n] = s->p[6 + n];
		n++;
	}
	buf[n] = '\0';
	return buf;
}

static const struct tsys *find_sys(const struct td *t, const char *name)
{
	for (uint32_t i = 0; i < t->nr_sys; i++)
		if (!strcmp(t->sys[i].name, name))
			return &t->sys[i];
	return NULL;
}

static int file_is(const char *tracefs, const char *rel, const struct sec *s)
{
	char path[PATH_MAX];
	struct pk_buf b;
	int same;

	pk_buf_init(&b);
	snprintf(path, sizeof(path), "%s/%s", tracefs, rel);
	same = !pk_file_read_all(path, &b, 64u << 20) && sec_is(s, &b);
	pk_buf_release(&b);
	return same;
}

/* ---- 1. our blob parsed back ----------------------------------------------- */

static void test_one(const char *tracefs)
{
	const char *names[] = { "sched:sched_switch" };
	struct pk_diag d = { 0 };
	struct pk_buf out;
	struct td t;
	char nb[64];
	const struct tsys *s;
	int err;

	pk_buf_init(&out);
	err = pk_tracing_data_build(names, 1, tracefs, &out, &d);
	is_int(err, 0, "sched_switch: build succeeds (%s)", d.msg);
	ok(td_parse(out.data, out.len, &t) == 0, "sched_switch: blob parses");
	is_int(t.end, out.len, "sched_switch: nothing after saved_cmdlines");
	ok(!memcmp(t.magic, "\x17\x08\x44tracing", 10), "magic is \\x17\\x08Dtracing");
	is_str(t.version, "0.6", "version 0.6");
	is_int(t.big_endian, 0, "little-endian host");
	is_int(t.long_size, sizeof(long), "sizeof(long)");
	is_int(t.page_size, sysconf(_SC_PAGESIZE), "page size");
	is_str(t.hp_name, "header_page", "header_page name");
	is_str(t.he_name, "header_event", "header_event name");
	ok(t.header_page.size > 0 && file_is(tracefs, "events/header_page", &t.header_page),
	   "header_page equals events/header_page (%llu bytes)",
	   (unsigned long long)t.header_page.size);
	ok(t.header_event.size > 0 && file_is(tracefs, "events/header_event", &t.header_event),
	   "header_event equals events/header_event (%llu bytes)",
	   (unsigned long long)t.header_event.size);
	is_int(t.nr_ftrace, 0, "no ftrace format is named sched_switch");
	is_int(t.nr_sys, 1, "one system");
	is_str(t.nr_sys ? t.sys[0].name : NULL, "sched", "system is sched");
	s = find_sys(&t, "sched");
	is_int(s ? s->nr : 0, 1, "one event in sched");
	is_str(s && s->nr ? fmt_name(&s->ev[0], nb, sizeof(nb)) : "", "sched_switch",
	       "its format is sched_switch's");
	ok(s && s->nr && file_is(tracefs, "events/sched/sched_switch/format", &s->ev[0]),
	   "format equals events/sched/sched_switch/format");
	is_int(t.kallsyms.size, 0, "kallsyms empty, as perf 6.1 writes it");
	ok(file_is(tracefs, "printk_formats", &t.printk),
	   "printk formats equal printk_formats (%llu bytes)", (unsigned long long)t.printk.size);
	pk_buf_release(&out);
}

static void test_two(const char *tracefs)
{
	const char *names[] = { "sched:sched_switch", "irq:irq_handler_entry" };
	struct pk_diag d = { 0 };
	struct pk_buf out;
	struct td t;
	char nb[64];
	const struct tsys *s;
	int err;

	pk_buf_init(&out);
	pk_buf_append(&out, "prefix", 6);
	err = pk_tracing_data_build(names, 2, tracefs, &out, &d);
	is_int(err, 0, "two systems: build succeeds (%s)", d.msg);
	ok(out.len > 6 && !memcmp(out.data, "prefix", 6), "appended after what @out held");
	ok(td_parse(out.data + 6, out.len - 6, &t) == 0, "two systems: blob parses");
	is_int(t.end, out.len - 6, "two systems: nothing after saved_cmdlines");
	is_int(t.nr_sys, 2, "two systems");
	ok(t.nr_sys == 2 && strcmp(t.sys[0].name, t.sys[1].name), "systems differ");
	s = find_sys(&t, "sched");
	is_int(s ? s->nr : 0, 1, "sched: one event");
	is_str(s && s->nr ? fmt_name(&s->ev[0], nb, sizeof(nb)) : "", "sched_switch",
	       "sched: sched_switch");
	s = find_sys(&t, "irq");
	is_int(s ? s->nr : 0, 1, "irq: one event");
	is_str(s && s->nr ? fmt_name(&s->ev[0], nb, sizeof(nb)) : "", "irq_handler_entry",
	       "irq: irq_handler_entry");
	ok(s && s->nr && file_is(tracefs, "events/irq/irq_handler_entry/format", &s->ev[0]),
	   "format equals events/irq/irq_handler_entry/format");
	pk_buf_release(&out);
}

static void test_errors(const char *tracefs)
{
	const char *missing[] = { "sched:sched_switch", "nosuchsys:nosuchevent" };
	const char *bad[] = { "sched_switch" };
	const char *dots[] = { "..:sched" };
	struct pk_diag d = { 0 };
	struct pk_buf out;
	int err;

	pk_buf_init(&out);
	pk_buf_append(&out, "keep", 4);
	err = pk_tracing_data_build(missing, 2, tracefs, &out, &d);
	is_int(err, -ENOENT, "a tracepoint without format: -ENOENT");
	ok(strstr(d.msg, "nosuchsys:nosuchevent") != NULL, "message names it: %s", d.msg);
	is_int(out.len, 4, "@out left as it was");
	pk_diag_init(&d);
	is_int(pk_tracing_data_build(bad, 1, tracefs, &out, &d), -EINVAL, "no system: -EINVAL");
	is_str(d.subject, "sched_switch", "subject is the name");
	is_int(pk_tracing_data_build(dots, 1, tracefs, &out, &d), -EINVAL, "dot names: -EINVAL");
	is_int(out.len, 4, "@out still as it was");
	pk_buf_release(&out);
}

/* ---- 2. the perf oracle ------------------------------------------------------- */

static const char *find_perf(void)
{
	const char *env = getenv("PK_PERF");

	if (env && *env)
		return env;
	return access("/usr/bin/perf", X_OK) ? NULL : "/usr/bin/perf";
}

static void compare_with_perf(const char *perf, const char *tracefs, const char *dir,
			      const char *const *names, size_t nr, const char *tag)
{
	char cmd[2048], file[PATH_MAX];
	struct pk_perfdata *p = NULL;
	struct pk_diag d = { 0 };
	const struct pk_features *f;
	struct pk_buf ours;
	struct td tp, to;
	size_t n = 0;
	int err;

	snprintf(file, sizeof(file), "%s/%s.data", dir, tag);
	n = (size_t)snprintf(cmd, sizeof(cmd), "%s record -q", perf);
	for (size_t i = 0; i < nr; i++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, " -e %s", names[i]);
	snprintf(cmd + n, sizeof(cmd) - n, " -a -o %s -- sleep 0.1 >/dev/null 2>&1", file);
	if (system(cmd) != 0) {
		ok(1, "# SKIP %s: perf record failed: %s", tag, cmd);
		return;
	}
	err = pk_perfdata_open(file, NULL, &p, &d);
	is_int(err, 0, "%s: perf's file opens (%s)", tag, d.msg);
	if (err)
		return;
	f = pk_perfdata_features(p);
	ok(f && f->tracing_data && f->tracing_data_size > 0, "%s: perf wrote TRACING_DATA", tag);
	pk_buf_init(&ours);
	/* Built right after perf's, so printk_formats and saved_cmdlines are as close as can be. */
	err = pk_tracing_data_build(names, nr, tracefs, &ours, &d);
	is_int(err, 0, "%s: ours builds", tag);
	if (!f || !f->tracing_data || err ||
	    !ok(td_parse(f->tracing_data, f->tracing_data_size, &tp) == 0 &&
		tp.end == f->tracing_data_size, "%s: perf's blob parses to its end", tag) ||
	    !ok(td_parse(ours.data, ours.len, &to) == 0, "%s: ours parses", tag))
		goto out;

	ok(!memcmp(tp.magic, to.magic, 10) && !strcmp(tp.version, to.version) &&
	   tp.big_endian == to.big_endian && tp.long_size == to.long_size &&
	   tp.page_size == to.page_size,
	   "%s: magic, version %s, endianness, long %u, page %u as perf's", tag,
	   tp.version, tp.long_size, tp.page_size);
	ok(sec_eq(&tp.header_page, &to.header_page), "%s: header_page byte-identical", tag);
	ok(sec_eq(&tp.header_event, &to.header_event), "%s: header_event byte-identical", tag);
	is_int(to.nr_ftrace, tp.nr_ftrace, "%s: ftrace format count as perf's", tag);
	for (uint32_t i = 0; i < tp.nr_ftrace && i < to.nr_ftrace; i++)
		ok(sec_eq(&tp.ftrace[i], &to.ftrace[i]), "%s: ftrace format %u identical", tag, i);
	is_int(to.nr_sys, tp.nr_sys, "%s: system count as perf's", tag);
	for (uint32_t i = 0; i < tp.nr_sys && i < to.nr_sys; i++) {
		const struct tsys *a = &tp.sys[i], *b = &to.sys[i];
		char nb[64];

		is_str(b->name, a->name, "%s: system %u name (same order as perf)", tag, i);
		is_int(b->nr, a->nr, "%s: %s: event count", tag, a->name);
		for (uint32_t j = 0; j < a->nr && j < b->nr; j++)
			ok(sec_eq(&a->ev[j], &b->ev[j]), "%s: %s:%s format byte-identical", tag,
			   a->name, fmt_name(&a->ev[j], nb, sizeof(nb)));
	}
	is_int(to.kallsyms.size, tp.kallsyms.size, "%s: kallsyms size as perf's", tag);
	ok(sec_eq(&tp.printk, &to.printk), "%s: printk formats identical (%llu bytes)", tag,
	   (unsigned long long)tp.printk.size);
	ok(1, "%s: saved_cmdlines present in both (perf %llu, ours %llu bytes)", tag,
	   (unsigned long long)tp.cmdlines.size, (unsigned long long)to.cmdlines.size);
	/* Everything before saved_cmdlines is the same bytes. */
	{
		size_t pre_p = (size_t)(tp.cmdlines.p - (const char *)f->tracing_data) - 8;
		size_t pre_o = (size_t)(to.cmdlines.p - ours.data) - 8;

		ok(pre_p == pre_o && !memcmp(f->tracing_data, ours.data, pre_p),
		   "%s: blob identical up to saved_cmdlines (%zu bytes)", tag, pre_p);
	}
out:
	pk_buf_release(&ours);
	pk_perfdata_close(p);
	unlink(file);
}

int main(void)
{
	const char *one[] = { "sched:sched_switch" };
	const char *two[] = { "sched:sched_switch", "irq:irq_handler_entry" };
	char tracefs[PATH_MAX], path[PATH_MAX + 64], dir[] = "/tmp/pk-td-XXXXXX";
	const char *perf;

	if (pk_tracefs_path(tracefs, sizeof(tracefs))) {
		skip_all("tracefs is not mounted (and cannot be mounted)");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", tracefs);
	if (access(path, R_OK)) {
		skip_all("no readable sched:sched_switch format in tracefs");
		return 0;
	}
	test_one(tracefs);
	snprintf(path, sizeof(path), "%s/events/irq/irq_handler_entry/format", tracefs);
	if (!access(path, R_OK))
		test_two(tracefs);
	else
		diag("no irq:irq_handler_entry here: two-system test skipped");
	test_errors(tracefs);

	perf = find_perf();
	if (!perf) {
		diag("perf not found: oracle comparison skipped");
	} else if (!mkdtemp(dir)) {
		diag("mkdtemp failed: oracle comparison skipped");
	} else {
		compare_with_perf(perf, tracefs, dir, one, 1, "sched_switch");
		if (!access(path, R_OK))
			compare_with_perf(perf, tracefs, dir, two, 2, "sched+irq");
		rmdir(dir);
	}
	return done_testing();
}
