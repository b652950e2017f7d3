/*
 * Unit tests for lib/record/synth.c, the side band perf synthesizes at the
 * start of a recording:
 *  1. a fake /proc under tests/fixtures/proc (two threads, a maps file with
 *     exec, data, anon, [vdso], " (deleted)" and space-containing paths,
 *     kallsyms, modules, a kernel thread without maps, a vanished pid): every
 *     record checked field by field against hand-computed values, with and
 *     without mmap_data, and the sample_id trailer length for several
 *     sample_types;
 *  2. a tree written here with a line longer than PATH_MAX and a last line
 *     without a newline;
 *  3. live /proc/self against the executable lines of /proc/self/maps;
 *  4. the oracle: Linux perf's own synthesized MMAP2 records for a `sleep`
 *     (perf record -p) and its kernel MMAP, against ours for the same pid.
 * Fixtures are found under tests/fixtures relative to the current directory
 * (make runs the tests from the repository root) or under $PK_SRCDIR.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfkit/record.h>
#include "../tap.h"

static char fixture[512];

/* ---- collecting records --------------------------------------------------------- */

struct recs {
	struct pk_buf b;
	size_t n;
	size_t off[4096];
};

static int collect(void *ctx, const struct perf_event_header *h)
{
	struct recs *r = ctx;

	if (r->n < sizeof(r->off) / sizeof(r->off[0]))
		r->off[r->n++] = r->b.len;
	return pk_buf_append(&r->b, h, h->size);
}

static const struct perf_event_header *rec_at(const struct recs *r, size_t i)
{
	return i < r->n ? (const void *)(r->b.data + r->off[i]) : NULL;
}

/* Views of the records as laid out in include/uapi/linux/perf_event.h. */
struct v_mmap {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	char filename[];
};
struct v_mmap2 {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_gen;
	uint32_t prot, flags;
	char filename[];
};
struct v_comm {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};
struct v_fork {
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* True if bytes [from, size) of the record are zero (padding and trailer). */
static int tail_zero(const struct perf_event_header *h, size_t from)
{
	const unsigned char *p = (const void *)h;
	size_t i;

	for (i = from; i < h->size; i++)
		if (p[i])
			return 0;
	return 1;
}

static void check_fork(const struct recs *r, size_t i, int pid, int tid, int ppid, size_t trailer)
{
	const struct v_fork *f = (const void *)rec_at(r, i);

	if (!ok(f && f->h.type == PERF_RECORD_FORK, "record %zu is FORK %d/%d", i, pid, tid))
		return;
	ok(f->pid == (uint32_t)pid && f->tid == (uint32_t)tid && f->ppid == (uint32_t)ppid &&
	   f->ptid == (uint32_t)ppid && f->time == 0,
	   "FORK(%d:%d):(%d:%d) time 0 (got (%u:%u):(%u:%u))", pid, tid, ppid, ppid,
	   f->pid, f->tid, f->ppid, f->ptid);
	is_int(f->h.misc, 1 << 13, "FORK misc is FORK_EXEC, like perf");
	is_int(f->h.size, sizeof(*f) + trailer, "FORK size");
	ok(tail_zero(&f->h, sizeof(*f)), "FORK trailer is zero");
}

static void check_comm(const struct recs *r, size_t i, int pid, int tid, const char *comm,
		       size_t trailer)
{
	const struct v_comm *c = (const void *)rec_at(r, i);

	if (!ok(c && c->h.type == PERF_RECORD_COMM, "record %zu is COMM %s", i, comm))
		return;
	ok(c->pid == (uint32_t)pid && c->tid == (uint32_t)tid, "COMM %d/%d", pid, tid);
	is_str(c->comm, comm, "COMM name");
	is_int(c->h.misc, 0, "COMM misc 0");
	is_int(c->h.size, sizeof(*c) + pad8(strlen(comm) + 1) + trailer, "COMM size");
	ok(tail_zero(&c->h, sizeof(*c) + strlen(comm)), "COMM padding and trailer are zero");
}

struct want_map {
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot, flags;
	int data;
	const char *name;
};

static void check_mmap2(const struct recs *r, size_t i, int pid, const struct want_map *w,
			size_t trailer)
{
	const struct v_mmap2 *m = (const void *)rec_at(r, i);

	if (!ok(m && m->h.type == PERF_RECORD_MMAP2, "record %zu is MMAP2 %s", i, w->name))
		return;
	ok(m->pid == (uint32_t)pid && m->tid == (uint32_t)pid, "MMAP2 %s pid/tid %d", w->name, pid);
	is_int(m->addr, w->addr, "MMAP2 %s start", w->name);
	is_int(m->len, w->len, "MMAP2 %s len", w->name);
	is_int(m->pgoff, w->pgoff, "MMAP2 %s pgoff", w->name);
	ok(m->maj == w->maj && m->min == w->min && m->ino == w->ino && m->ino_gen == 0,
	   "MMAP2 %s dev %x:%x ino %llu (got %x:%x %llu)", w->name, w->maj, w->min,
	   (unsigned long long)w->ino, m->maj, m->min, (unsigned long long)m->ino);
	ok(m->prot == w->prot && m->flags == w->flags, "MMAP2 %s prot %u flags %u (got %u %u)",
	   w->name, w->prot, w->flags, m->prot, m->flags);
	is_int(m->h.misc, PERF_RECORD_MISC_USER | (w->data ? PERF_RECORD_MISC_MMAP_DATA : 0),
	       "MMAP2 %s misc", w->name);
	is_str(m->filename, w->name, "MMAP2 file name");
	is_int(m->h.size, sizeof(*m) + pad8(strlen(w->name) + 1) + trailer, "MMAP2 %s size",
	       w->name);
	ok(tail_zero(&m->h, sizeof(*m) + strlen(w->name)), "MMAP2 padding and trailer are zero");
}

/* ---- 1. the fixture tree ----------------------------------------------------------- */

#define RX (PROT_READ | PROT_EXEC)
#define RW (PROT_READ | PROT_WRITE)

static const struct want_map fixture_maps[] = {
	{ 0x55d0c0a00000, 0x2000, 0, 0xfe, 1, 1234, PROT_READ, MAP_PRIVATE, 1, "/usr/bin/demo" },
	{ 0x55d0c0a02000, 0x5000, 0x2000, 0xfe, 1, 1234, RX, MAP_PRIVATE, 0, "/usr/bin/demo" },
	{ 0x55d0c0a07000, 0x2000, 0x7000, 0xfe, 1, 1234, RW, MAP_PRIVATE, 1, "/usr/bin/demo" },
	{ 0x55d0c1000000, 0x21000, 0, 0, 0, 0, RW, MAP_PRIVATE, 1, "[heap]" },
	{ 0x7f0000000000, 0x10000, 0, 0, 0, 0, RX, MAP_PRIVATE, 0, "//anon" },
	{ 0x7f0000100000, 0x80000, 0x10000, 0x103, 2, 99887766, RX, MAP_PRIVATE, 0,
	  "/opt/my app/lib space.so" },
	{ 0x7f0000200000, 0x10000, 0, 0, 1, 1024, RX, MAP_SHARED, 0, "/memfd:jit (deleted)" },
	/* 7f0000300000 ---p: neither executable nor readable, never */
	{ 0x7ffd00000000, 0x21000, 0, 0, 0, 0, RW, MAP_PRIVATE, 1, "[stack]" },
	{ 0x7ffd000ff000, 0x2000, 0, 0, 0, 0, PROT_READ, MAP_PRIVATE, 1, "[vvar]" },
	{ 0x7ffd00101000, 0x2000, 0, 0, 0, 0, RX, MAP_PRIVATE, 0, "[vdso]" },
	{ 0xffffffffff600000, 0x1000, 0, 0, 0, 0, PROT_EXEC, MAP_PRIVATE, 0, "[vsyscall]" },
};

static void test_fixture_process(int mmap_data, const struct perf_event_attr *attr, size_t trailer)
{
	struct pk_synth s = { .attr = attr, .proc_root = fixture, .emit = collect,
			      .mmap_data = mmap_data };
	struct recs *r = calloc(1, sizeof(*r));
	size_t i, k = 0, nmaps = 0;

	s.ctx = r;
	diag("fixture pid 4242, mmap_data %d, trailer %zu", mmap_data, trailer);
	is_int(pk_synth_process(&s, 4242), 0, "pk_synth_process(4242) on the fixture");
	for (i = 0; i < sizeof(fixture_maps) / sizeof(fixture_maps[0]); i++)
		nmaps += mmap_data || !fixture_maps[i].data;
	is_int(r->n, 2 + nmaps + 2, "FORK, COMM, %zu MMAP2, FORK, COMM", nmaps);
	check_fork(r, k++, 4242, 4242, 1, trailer);
	check_comm(r, k++, 4242, 4242, "demo", trailer);
	for (i = 0; i < sizeof(fixture_maps) / sizeof(fixture_maps[0]); i++)
		if (mmap_data || !fixture_maps[i].data)
			check_mmap2(r, k++, 4242, &fixture_maps[i], trailer);
	check_fork(r, k++, 4242, 4243, 4242, trailer);
	check_comm(r, k++, 4242, 4243, "demo-worker", trailer);
	pk_buf_release(&r->b);
	free(r);
}

static void test_fixture_kernel(const struct perf_event_attr *attr, size_t trailer)
{
	struct pk_synth s = { .attr = attr, .proc_root = fixture, .emit = collect };
	struct recs *r = calloc(1, sizeof(*r));
	static const struct {
		uint64_t addr, len, pgoff;
		const char *name;
	} want[] = {
		{ 0xffffffff81000000, 0x1200000, 0xffffffff81000000, "[kernel.kallsyms]_text" },
		{ 0xffffffffc0100000, 8192, 0, "[afoo]" },
		{ 0xffffffffc0200000, 16384, 0, "[zmod]" },
	};
	size_t i;

	s.ctx = r;
	is_int(pk_synth_kernel(&s), 0, "pk_synth_kernel on the fixture");
	is_int(r->n, 3, "kernel map and two modules");
	for (i = 0; i < 3 && i < r->n; i++) {
		const struct v_mmap *m = (const void *)rec_at(r, i);

		is_int(m->h.type, PERF_RECORD_MMAP, "%s is an MMAP", want[i].name);
		is_int(m->h.misc, PERF_RECORD_MISC_KERNEL, "%s misc KERNEL", want[i].name);
		ok(m->pid == (uint32_t)-1 && m->tid == 0, "%s pid -1 tid 0", want[i].name);
		is_int(m->addr, want[i].addr, "%s start", want[i].name);
		is_int(m->len, want[i].len, "%s len", want[i].name);
		is_int(m->pgoff, want[i].pgoff, "%s pgoff", want[i].name);
		is_str(m->filename, want[i].name, "file name");
		is_int(m->h.size, sizeof(*m) + pad8(strlen(want[i].name) + 1) + trailer,
		       "%s size", want[i].name);
		ok(tail_zero(&m->h, sizeof(*m) + strlen(want[i].name)), "padding, trailer zero");
	}
	pk_buf_release(&r->b);
	free(r);
}

static void test_fixture_all(void)
{
	struct pk_synth s = { .proc_root = fixture, .emit = collect };
	struct recs *r = calloc(1, sizeof(*r));
	const struct v_comm *c;

	s.ctx = r;
	is_int(pk_synth_all(&s), 0, "pk_synth_all on the fixture");
	/* 4242: 2 + 6 MMAP2 + 2; 4300: FORK + COMM (no maps: skipped); 4400, self: nothing */
	is_int(r->n, 12, "records of 4242 and of the kernel thread 4300 only");
	check_fork(r, 10, 4300, 4300, 2, 0);
	c = (const void *)rec_at(r, 11);
	ok(c && c->h.type == PERF_RECORD_COMM && !strcmp(c->comm, "kworker/0:1-eve"),
	   "comm cut to 15 bytes like perf ('kworker/0:1-events' from the comm file)");
	r->n = 0;
	r->b.len = 0;
	is_int(pk_synth_process(&s, 4400), 0, "vanished pid (no task dir) is skipped with 0");
	is_int(pk_synth_process(&s, 999999), 0, "absent pid is skipped with 0");
	is_int(r->n, 0, "and writes nothing");
	is_int(pk_synth_process(&s, 0), -EINVAL, "pid 0 is -EINVAL");
	s.emit = NULL;
	is_int(pk_synth_kernel(&s), -EINVAL, "no emit callback is -EINVAL");
	pk_buf_release(&r->b);
	free(r);
}

static int stop_after_two(void *ctx, const struct perf_event_header *h)
{
	int *n = ctx;

	(void)h;
	return ++*n >= 2 ? -EPIPE : 0;
}

static void test_emit_error(void)
{
	int n = 0;
	struct pk_synth s = { .proc_root = fixture, .emit = stop_after_two, .ctx = &n };

	is_int(pk_synth_process(&s, 4242), -EPIPE, "an emit error stops the walk and is returned");
	is_int(n, 2, "after the failing record");
	n = 0;
	is_int(pk_synth_all(&s), -EPIPE, "pk_synth_all returns it too");
	n = 0;
	is_int(pk_synth_kernel(&s), -EPIPE, "pk_synth_kernel returns it too");
}

/* ---- 2. long lines and no trailing newline -------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_long_lines(void)
{
	char root[] = "/tmp/pk-synth-XXXXXX", path[600], *maps, name[5001];
	struct pk_synth s = { .emit = collect };
	struct recs *r = calloc(1, sizeof(*r));
	const struct v_mmap2 *m;
	const struct v_mmap *k;

	if (!mkdtemp(root)) {
		ok(0, "mkdtemp");
		free(r);
		return;
	}
	s.proc_root = root;
	s.ctx = r;
	snprintf(path, sizeof(path), "%s/77", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/77/task", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/77/task/77", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/77/task/77/status", root);
	write_file(path, "Name:\tlong\nTgid:\t77\nPPid:\t5\n");
	/* no comm file: the name comes from status */
	memset(name, 'a', sizeof(name) - 1);
	name[0] = '/';
	name[sizeof(name) - 1] = '\0';
	maps = malloc(12000);
	snprintf(maps, 12000,
		 "400000-401000 r-xp 00000000 08:01 11 %s\n"
		 "garbage line\n"
		 "500000-502000 r-xp 00001000 08:01 12 /bin/last",
		 name);
	snprintf(path, sizeof(path), "%s/77/maps", root);
	write_file(path, maps);
	free(maps);
	/* kallsyms without _text (only _stext), no _etext, a module above: ends there */
	snprintf(path, sizeof(path), "%s/kallsyms", root);
	write_file(path, "ffffffff80000000 T _stext\nffffffff80001000 t x\n");
	snprintf(path, sizeof(path), "%s/modules", root);
	write_file(path, "m 4096 0 - Live 0xffffffffa0000000\nhidden 4096 0 - Live 0x0000000000000000\n");

	is_int(pk_synth_process(&s, 77), 0, "tree with a 5000-byte path");
	is_int(r->n, 4, "FORK, COMM, two MMAP2 (the garbage line is skipped)");
	check_comm(r, 1, 77, 77, "long", 0);
	m = (const void *)rec_at(r, 2);
	if (m) {
		is_int(strlen(m->filename), 4095, "the long path is cut to PATH_MAX - 1 bytes");
		is_int(m->h.size, sizeof(*m) + 4096, "and the record holds 4096 name bytes");
		is_int(m->addr, 0x400000, "start of the long line's mapping");
	}
	m = (const void *)rec_at(r, 3);
	ok(m && !strcmp(m->filename, "/bin/last") && m->pgoff == 0x1000 && m->ino == 12 &&
	   m->maj == 8 && m->min == 1 && m->len == 0x2000,
	   "the line after it and without a newline is read");
	r->n = 0;
	r->b.len = 0;
	is_int(pk_synth_kernel(&s), 0, "kernel from a kallsyms with only _stext");
	is_int(r->n, 2, "kernel map and one module (address 0 left out)");
	k = (const void *)rec_at(r, 0);
	if (k) {
		is_str(k->filename, "[kernel.kallsyms]_stext", "named after the symbol found");
		is_int(k->addr, 0xffffffff80000000, "start _stext");
		is_int(k->len, 0x20000000, "no _etext: ends at the next module");
	}
	r->n = 0;
	r->b.len = 0;
	snprintf(path, sizeof(path), "%s/kallsyms", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/modules", root);
	unlink(path);
	is_int(pk_synth_kernel(&s), 0, "no kallsyms, no modules");
	k = (const void *)rec_at(r, 0);
	ok(r->n == 1 && k && k->addr == 0 && k->pgoff == 0 && k->len == UINT64_MAX &&
	   !strcmp(k->filename, "[kernel.kallsyms]_text"),
	   "the kernel map is still written, start 0, to the top");
	{
		char cmd[700];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		if (system(cmd) != 0)
			diag("could not remove %s", root);
	}
	pk_buf_release(&r->b);
	free(r);
}

/* ---- 3. live /proc/self ---------------------------------------------------------------- */

static void test_self(void)
{
	struct pk_synth s = { .emit = collect };
	struct recs *r = calloc(1, sizeof(*r));
	FILE *f;
	char line[8192];
	size_t i, k = 0, exec_lines = 0, nmm = 0, match = 0;
	int self = getpid();

	s.ctx = r;
	is_int(pk_synth_process(&s, self), 0, "pk_synth_process(getpid())");
	for (i = 0; i < r->n; i++)
		nmm += rec_at(r, i)->type == PERF_RECORD_MMAP2;
	f = fopen("/proc/self/maps", "r");
	if (!f) {
		ok(0, "open /proc/self/maps");
		goto out;
	}
	/* skip to the first MMAP2 */
	while (k < r->n && rec_at(r, k)->type != PERF_RECORD_MMAP2)
		k++;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, off, ino;
		unsigned maj, min;
		char perms[8], name[4096] = "";
		const struct v_mmap2 *m;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &a, &b, perms, &off,
			   &maj, &min, &ino, name) < 7 || perms[2] != 'x')
			continue;
		exec_lines++;
		m = (const void *)rec_at(r, k++);
		if (m && m->h.type == PERF_RECORD_MMAP2 && m->addr == a && m->len == b - a &&
		    m->pgoff == off && m->maj == maj && m->min == min && m->ino == ino &&
		    !strcmp(m->filename, name[0] ? name : "//anon") && m->pid == (uint32_t)self)
			match++;
		else
			diag("no match for '%s'", line);
	}
	fclose(f);
	ok(exec_lines > 2, "/proc/self/maps has %zu executable lines", exec_lines);
	is_int(nmm, exec_lines, "one MMAP2 per executable line");
	is_int(match, exec_lines, "each with the line's start, len, pgoff, dev, inode and name");
	{
		const struct v_comm *c = (const void *)rec_at(r, 1);
		char comm[64] = "";

		pk_file_read_line("/proc/self/comm", comm, sizeof(comm));
		ok(c && c->h.type == PERF_RECORD_COMM && !strcmp(c->comm, comm),
		   "COMM is /proc/self/comm '%s'", comm);
	}
out:
	pk_buf_release(&r->b);
	free(r);
}

/* ---- 4. the oracle: perf 6.1 ------------------------------------------------------------- */

static int have_perf(void)
{
	return system("perf version >/dev/null 2>&1") == 0;
}

/* Parse "PERF_RECORD_MMAP2 PID/TID: [0xSTART(0xLEN) @ PGOFF ...]: perms NAME" */
static int parse_perf_mmap2(const char *line, int *pid, uint64_t *a, uint64_t *l, uint64_t *pg,
			    const char **name)
{
	const char *p = strstr(line, "PERF_RECORD_MMAP2 "), *q;
	char *end;

	if (!p)
		return -1;
	p += strlen("PERF_RECORD_MMAP2 ");
	*pid = (int)strtol(p, &end, 10);
	p = strchr(end, '[');
	if (!p)
		return -1;
	*a = strtoull(p + 1, &end, 0);
	*l = strtoull(end + 1, &end, 0);
	q = strstr(end, "@ ");
	if (!q)
		return -1;
	*pg = strtoull(q + 2, &end, 0);
	q = strstr(end, "]: ");
	if (!q || !(q = strchr(q + 3, ' ')))
		return -1;
	*name = q + 1;
	return 0;
}

/* Record @child with perf (-d when @data) and compare its MMAP2 set with ours. */
static void oracle_run(pid_t child, int data)
{
	char out[] = "/tmp/pk-synth-perf-XXXXXX", cmd[512], line[8192];
	struct pk_synth s = { .emit = collect, .mmap_data = data };
	struct recs *r;
	FILE *p;
	size_t i, nperf = 0, found = 0, nours = 0;
	int fd, kernel_checked = 0;

	fd = mkstemp(out);
	if (fd < 0) {
		ok(1, "# SKIP mkstemp failed");
		return;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "perf record -q %s-o %s -p %d -- sleep 0.2 >/dev/null 2>&1",
		 data ? "-d " : "", out, (int)child);
	if (system(cmd) != 0) {
		ok(1, "# SKIP perf record -p failed (perf_event_paranoid or no events)");
		unlink(out);
		return;
	}
	r = calloc(1, sizeof(*r));
	s.ctx = r;
	is_int(pk_synth_process(&s, child), 0, "pk_synth_process(sleep), mmap_data %d", data);
	snprintf(cmd, sizeof(cmd), "perf script --show-mmap-events -i %s 2>/dev/null", out);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		int pid;
		uint64_t a, l, pg;
		const char *name;

		line[strcspn(line, "\n")] = 0;
		if (!data && strstr(line, "PERF_RECORD_MMAP -1/0: ") &&
		    strstr(line, "[kernel.kallsyms]")) {
			struct recs *kr = calloc(1, sizeof(*kr));
			const struct v_mmap *k;
			char want[512];

			pk_synth_kernel(&(struct pk_synth){ .emit = collect, .ctx = kr });
			k = (const void *)rec_at(kr, 0);
			if (k) {
				snprintf(want, sizeof(want),
					 "PERF_RECORD_MMAP -1/0: [%#llx(%#llx) @ %#llx]: x %s",
					 (unsigned long long)k->addr, (unsigned long long)k->len,
					 (unsigned long long)k->pgoff, k->filename);
				ok(strstr(line, want) != NULL, "kernel MMAP as perf writes it: %s",
				   want);
				kernel_checked = 1;
			}
			pk_buf_release(&kr->b);
			free(kr);
			continue;
		}
		if (parse_perf_mmap2(line, &pid, &a, &l, &pg, &name) || pid != child)
			continue;
		nperf++;
		for (i = 0; i < r->n; i++) {
			const struct v_mmap2 *m = (const void *)rec_at(r, i);

			if (m->h.type == PERF_RECORD_MMAP2 && m->addr == a && m->len == l &&
			    m->pgoff == pg && !strcmp(m->filename, name)) {
				found++;
				break;
			}
		}
		if (i == r->n)
			diag("perf has, we lack: %s", line);
	}
	if (p)
		pclose(p);
	for (i = 0; i < r->n; i++)
		nours += rec_at(r, i)->type == PERF_RECORD_MMAP2;
	ok(nperf >= (data ? 8u : 3u), "perf%s synthesized %zu MMAP2 for sleep %d",
	   data ? " -d" : "", nperf, (int)child);
	is_int(found, nperf, "each of perf's (file, start, len, pgoff) is one of ours");
	is_int(nours, nperf, "and we have no more than perf");
	if (!data && !kernel_checked)
		ok(1, "# SKIP perf wrote no kernel MMAP (kptr_restrict?)");
	pk_buf_release(&r->b);
	free(r);
	unlink(out);
}

static void test_oracle(void)
{
	pid_t child;
	int i;

	if (!have_perf()) {
		ok(1, "# SKIP perf is not installed: no oracle");
		return;
	}
	child = fork();
	if (child == 0) {
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 200; i++) {   /* wait for the exec */
		char comm[32] = "", path[64];

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)child);
		if (!pk_file_read_line(path, comm, sizeof(comm)) && !strcmp(comm, "sleep"))
			break;
		usleep(10000);
	}
	oracle_run(child, 0);
	oracle_run(child, 1);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

int main(void)
{
	const char *src = getenv("PK_SRCDIR");
	struct perf_event_attr a;
	static const struct {
		uint64_t type;
		size_t trailer;
	} st[] = {
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD, 16 },
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN, 32 },
		{ PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_RAW, 16 },
		{ PERF_SAMPLE_IP | PERF_SAMPLE_ADDR, 0 },
	};
	size_t i;

	snprintf(fixture, sizeof(fixture), "%s%stests/fixtures/proc", src ? src : "",
		 src ? "/" : "");
	if (access(fixture, R_OK)) {
		skip_all("tests/fixtures not found: run from the repository root or set PK_SRCDIR");
		return 0;
	}
	test_fixture_process(0, NULL, 0);
	test_fixture_process(1, NULL, 0);
	test_fixture_kernel(NULL, 0);
	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		memset(&a, 0, sizeof(a));
		a.sample_type = st[i].type;
		a.sample_id_all = 1;
		test_fixture_process(i & 1, &a, st[i].trailer);
		test_fixture_kernel(&a, st[i].trailer);
	}
	memset(&a, 0, sizeof(a));
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	test_fixture_process(0, &a, 0);   /* sample_id_all 0: no trailer */
	test_fixture_all();
	test_emit_error();
	test_long_lines();
	test_self();
	test_oracle();
	return done_testing();
}
