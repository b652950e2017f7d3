/*
 * The report pipeline (lib/report/pipeline.c) against the same report built
 * on one thread: both get the same samples, in lockstep, and must print the
 * same text. The samples repeat 400 stacks (memo hits travel as stack
 * numbers, first sightings as copies), and the threads change their comm
 * between samples: the one-thread report reads the comm when a sample is
 * added, so the pipelined one must use the comm the sample was taken with,
 * not the one its worker finds later (the samples just before each change
 * wait in the block being filled until after it).
 * A session on a shared file with call chains supplies the symbols module
 * the pipeline needs (pk_report_setup); the samples themselves are made here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/report.h>
#include <perfkit/session.h>
#include "../shared_data.h"
#include "../tap.h"
#include "report_text.h"

#define FILE_WITH_CALLCHAINS "data/perf.data/simpleperf/generated_by_linux_perf.data"
#define NR_FUNCS 40
#define NR_STACKS 400
#define NR_SAMPLES 60000

static struct pk_dso dso_prog = { .name = "/usr/bin/prog", .short_name = "prog" };
static struct pk_dso dso_lib = { .name = "/usr/lib/libx.so", .short_name = "libx.so" };
static struct pk_map map_prog = { 0x400000, 0x500000, 0, &dso_prog, 5, 0, 0 };
static struct pk_map map_lib = { 0x7f0000000000, 0x7f0000100000, 0, &dso_lib, 5, 0, 0 };
static struct pk_sym funcs[NR_FUNCS];
static char names[NR_FUNCS][16];
static struct pk_evsel ev;

/* Frame @f of the program: a function, or (every seventh) an address of libx.so without symbol. */
static struct pk_location frame(unsigned f)
{
	struct pk_location l = { .cpumode = PERF_RECORD_MISC_USER };

	if (f % 7 == 6) {
		l.map = &map_lib;
		l.addr = 0x1000 + f * 16;
	} else {
		l.map = &map_prog;
		l.sym = &funcs[f];
		l.symoff = 4;
		l.addr = funcs[f].start + 4;
	}
	l.dso = l.map->dso;
	l.ip = l.map->start + l.addr;
	return l;
}

/* Stack @k: 2 to 17 frames, leaf first, drawn from the functions by a fixed rule. */
static uint32_t stack_frames(unsigned k, struct pk_location *fl)
{
	uint32_t n = 2 + k % 16;

	for (uint32_t i = 0; i < n; i++)
		fl[i] = frame((k * 7 + i * 13 + (i == n - 1 ? 0 : k)) % NR_FUNCS);
	fl[n - 1] = frame(0);   /* every stack starts in "f0", as main */
	return n;
}

static int add_both(struct pk_report *r1, struct pk_report *r2, struct pk_thread *t, unsigned k,
		    uint64_t period)
{
	struct pk_location fl[32];
	struct pk_sample s = { 0 };
	struct pk_rsample rs = { 0 };

	s.present = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU;
	s.pid = (uint32_t)t->pid;
	s.tid = (uint32_t)t->tid;
	s.cpu = k % 4;
	rs.evsel = &ev;
	rs.s = &s;
	rs.thread = t;
	rs.period = period;
	rs.nr_frames = stack_frames(k, fl);
	rs.frames = fl;
	rs.self = fl[0];
	rs.cpumode = fl[0].cpumode;
	return pk_report_add(r1, &rs) | pk_report_add(r2, &rs);
}

/* Threads of this process now (one more while a pipeline's worker runs). */
static int threads_now(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int n = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/* Two reports with the same options, one on one thread and one pipelined, fed the same samples. */
static void compare(struct pk_session *ss, const char *what, const char *sort, int children,
		    enum pk_callgraph_mode mode)
{
	struct pk_report_opts o = { .sz = sizeof(o), .sort = sort, .children = children,
				    .cg_mode = mode, .cg_threshold = 0.5 };
	struct pk_symbols *syms = pk_session_symbols(ss);
	struct pk_report *one = NULL, *two = NULL;
	struct pk_thread *t[3];
	struct pk_diag d;
	char comm[32];
	int err = 0, workers = 0, before = threads_now();
	char *a, *b;

	pk_diag_init(&d);
	o.threads = 1;
	pk_report_new(&o, &one, &d);
	o.threads = 0;
	pk_report_new(&o, &two, &d);
	if (!ok(one && two, "%s: reports made", what)) {
		pk_report_free(one);
		pk_report_free(two);
		return;
	}
	pk_report_setup(one, ss);
	pk_report_setup(two, ss);
	for (int i = 0; i < 3; i++) {
		t[i] = pk_symbols_thread(syms, 9000 + i, 9000 + i);
		snprintf(comm, sizeof(comm), "worker-%d", i);
		pk_symbols_comm(syms, 9000 + i, 9000 + i, comm, 0);
	}
	for (unsigned n = 0; n < NR_SAMPLES; n++) {
		unsigned k = (n * 2654435761u >> 7) % NR_STACKS;

		err |= add_both(one, two, t[n % 3], k, 100 + n % 5);
		if (n == 1000)
			workers = threads_now();
		/* the comm changes now and then; thread 2 gets back an old name */
		if (n % 9001 == 9000) {
			snprintf(comm, sizeof(comm), "phase-%u", n / 9001 % 3);
			pk_symbols_comm(syms, 9000 + n % 3, 9000 + n % 3, comm, 1);
		}
	}
	err |= pk_report_finish(two);
	is_int(err, 0, "%s: every sample added", what);
	if (pk_cpus_usable() >= 2)
		ok(workers > before, "%s: a worker thread builds the second report (%d threads, %d before)",
		   what, workers, before);
	a = report_text(one);
	b = report_text(two);
	ok(a && b && strlen(a) > 400 && !strcmp(a, b), "%s: the same text on one thread and two (%zu bytes)",
	   what, a ? strlen(a) : 0);
	/* (a sanitizer's own thread may have come with the first worker) */
	if (pk_cpus_usable() >= 2)
		is_int(threads_now(), workers - 1, "%s: the worker is gone after pk_report_finish", what);
	free(a);
	free(b);
	pk_report_free(one);
	pk_report_free(two);
}

int main(void)
{
	struct pk_session_opts so = { .sz = sizeof(so), .ordered = 1 };
	struct pk_session *ss = NULL;
	struct pk_diag d;
	char path[4096];

	if (!shared_has(FILE_WITH_CALLCHAINS)) {
		snprintf(path, sizeof(path), "no %s/%s (the shared data)", shared_dir(), FILE_WITH_CALLCHAINS);
		skip_all(path);
		return 0;
	}
	for (int i = 0; i < NR_FUNCS; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		funcs[i] = (struct pk_sym){ 0x1000 + i * 0x100, 0x1100 + i * 0x100, names[i] };
	}
	ev.attr.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	snprintf(path, sizeof(path), "%s/%s", shared_dir(), FILE_WITH_CALLCHAINS);
	pk_diag_init(&d);
	if (!ok(pk_session_open(path, &so, &ss, &d) == 0, "session on %s: %s", path, d.msg))
		return done_testing();

	compare(ss, "children, graph", NULL, -1, PK_CG_DEFAULT);
	compare(ss, "--no-children, graph", NULL, 0, PK_CG_DEFAULT);
	compare(ss, "--no-children, folded", "comm,dso,sym", 0, PK_CG_FOLDED);
	compare(ss, "children, sort dso,sym", "dso,sym", 1, PK_CG_NONE);
	compare(ss, "children, sort comm", "comm", 1, PK_CG_FLAT);

	pk_session_close(ss);
	return done_testing();
}
