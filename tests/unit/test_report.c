/*
 * Unit tests of the report module on synthetic resolved samples: Self and
 * Children periods (recursion counted once), sort keys and their order,
 * perf's column layout, and the call-graph text in graph, fractal, flat and
 * folded modes, checked against what perf report prints for the same
 * chains (hand-derived from perf's rules: percentages of the event total,
 * "---" for a single chain, "|--P%--" branches, threshold cuts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/report.h>
#include "report/internal.h"
#include "../tap.h"
#include "report_text.h"

static struct pk_dso dso_prog = { .name = "/usr/bin/prog", .short_name = "prog" };
static struct pk_dso dso_kernel = { .name = "[kernel.kallsyms]", .short_name = "[kernel.kallsyms]",
				    .kernel = 1 };
static struct pk_sym s_main = { 0x100, 0x200, "main" };
static struct pk_sym s_foo = { 0x200, 0x300, "foo" };
static struct pk_sym s_bar = { 0x300, 0x400, "bar" };
static struct pk_sym s_kfn = { 0x1000, 0x2000, "do_syscall_64" };
static struct pk_map m_prog = { 0x400000, 0x500000, 0, &dso_prog, 5, 0, 0 };
static struct pk_map m_kern = { 0xffffffff81000000ULL, 0xffffffff82000000ULL, 0, &dso_kernel, 5, 0, 0 };
static struct pk_thread t_prog = { 100, 100, "prog", -1, 0, 0, NULL };
static struct pk_thread t_other = { 200, 201, "other", -1, 0, 0, NULL };
static struct pk_evsel ev;
static int add_failed;

static struct pk_location loc(const struct pk_sym *s, uint64_t off)
{
	struct pk_location l = { 0 };
	int k = s == &s_kfn;

	l.map = k ? &m_kern : &m_prog;
	l.dso = l.map->dso;
	l.sym = s;
	l.addr = s ? s->start + off : off;
	l.ip = l.addr + l.map->start;
	l.symoff = off;
	l.cpumode = k ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	return l;
}

/* Add @n samples of @period whose chain is @frames (leaf first). */
static void add(struct pk_report *r, struct pk_thread *t, int n, uint64_t period,
		const struct pk_sym **frames, int nf)
{
	struct pk_location fl[16];
	struct pk_sample s = { 0 };
	struct pk_rsample rs = { 0 };

	for (int i = 0; i < nf; i++)
		fl[i] = loc(frames[i], 4 + i);
	s.present = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU;
	s.pid = (uint32_t)t->pid;
	s.tid = (uint32_t)t->tid;
	s.cpu = 3;
	rs.evsel = &ev;
	rs.s = &s;
	rs.thread = t;
	rs.period = period;
	rs.self = fl[0];
	rs.cpumode = fl[0].cpumode;
	rs.nr_frames = (uint32_t)nf;
	rs.frames = fl;
	for (int i = 0; i < n; i++)
		if (pk_report_add(r, &rs))
			add_failed++;
}

static struct pk_report *mk(const char *sort, int children, enum pk_callgraph_mode mode, double thr)
{
	struct pk_report_opts o = { .sz = sizeof(o), .sort = sort, .children = children,
				    .cg_mode = mode, .cg_threshold = thr };
	struct pk_report *r = NULL;
	struct pk_diag d;

	pk_diag_init(&d);
	if (pk_report_new(&o, &r, &d))
		diag("pk_report_new: %s", d.msg);
	return r;
}

/* The workload every test uses: 10 samples of period 100 in all. */
static void workload(struct pk_report *r)
{
	const struct pk_sym *a[] = { &s_foo, &s_main };
	const struct pk_sym *b[] = { &s_bar, &s_foo, &s_main };
	const struct pk_sym *c[] = { &s_kfn, &s_bar, &s_main };
	const struct pk_sym *rec[] = { &s_foo, &s_foo, &s_main };

	add(r, &t_prog, 5, 100, a, 2);
	add(r, &t_prog, 2, 100, b, 3);
	add(r, &t_prog, 1, 100, c, 3);
	add(r, &t_prog, 1, 100, rec, 3);
	add(r, &t_other, 1, 100, a, 2);
}

static void test_self_rows(void)
{
	struct pk_report *r = mk("comm,dso", 0, PK_CG_NONE, 0.5);
	struct pk_report_row rows[8];
	size_t n;

	workload(r);
	n = pk_report_rows(r, 0, rows, 8);
	is_int(n, 3, "comm,dso: three rows");
	is_str(rows[0].key, "prog  prog", "first row is prog/prog");
	is_int(rows[0].self_period, 800, "prog/prog self period");
	is_str(rows[1].key, "other  prog", "then other/prog (ties sort by comm)");
	is_str(rows[2].key, "prog  [kernel.kallsyms]", "then the kernel row");
	is_int(rows[2].nr_samples, 1, "kernel row has one sample");
	pk_report_free(r);
}

static void test_children(void)
{
	struct pk_report *r = mk("sym", 1, PK_CG_NONE, 0.5);
	struct pk_report_row rows[8];
	size_t n;

	workload(r);
	n = pk_report_rows(r, 0, rows, 8);
	is_int(n, 4, "sym with children: four symbols");
	is_str(rows[0].key, "[.] main", "main first (children 100%%)");
	is_int(rows[0].children_period, 1000, "main: children = every sample");
	is_int(rows[0].self_period, 0, "main: no self");
	is_str(rows[1].key, "[.] foo", "foo second");
	is_int(rows[1].children_period, 900, "foo: recursion counted once (5+2+1+1 samples)");
	is_int(rows[1].self_period, 700, "foo: self 7 samples");
	is_str(rows[2].key, "[.] bar", "bar third");
	is_int(rows[2].children_period, 300, "bar: children 3 samples");
	is_str(rows[3].key, "[k] do_syscall_64", "kernel symbol has [k]");
	pk_report_free(r);
}

static void test_layout(void)
{
	struct pk_report *r = mk("comm,dso,sym", 0, PK_CG_NONE, 0.5);
	char *out;

	workload(r);
	out = report_text(r);
	ok(strstr(out, "# Samples: 10  of event 'cpu-clock'\n# Event count (approx.): 1000\n#\n") != NULL,
	   "title lines as perf prints them for < 1000 samples");
	ok(strstr(out, "# Overhead  Command  Shared Object      Symbol           \n"
		       "# ........  .......  .................  .................\n#\n") != NULL,
	   "column titles and rulers sized to the widest value");
	ok(strstr(out, "\n    60.00%  prog     prog               [.] foo\n") != NULL, "foo row");
	ok(strstr(out, "\n    10.00%  prog     [kernel.kallsyms]  [k] do_syscall_64\n") != NULL, "kernel row");
	free(out);
	pk_report_free(r);
}

static void test_graph(void)
{
	struct pk_report *r = mk("comm,sym", 0, PK_CG_GRAPH, 0.5);
	char *out;

	workload(r);
	out = report_text(r);
	/* prog foo (self 6 samples): chains foo<-main x5, foo<-foo<-main x1 */
	ok(strstr(out, "    60.00%  prog     [.] foo\n"
		       "            |\n"
		       "            ---foo\n"
		       "               |          \n"
		       "               |--50.00%--main\n"
		       "               |          \n"
		       "                --10.00%--foo\n"
		       "                          main\n\n") != NULL, "graph: callee order tree of foo");
	ok(strstr(out, "    20.00%  prog     [.] bar\n"
		       "            |\n"
		       "            ---bar\n"
		       "               foo\n"
		       "               main\n\n") != NULL, "graph: a single chain prints flat after ---");
	free(out);
	pk_report_free(r);

	r = mk("comm,sym", 0, PK_CG_FRACTAL, 0.5);
	workload(r);
	out = report_text(r);
	ok(strstr(out, "               |--83.33%--main\n") != NULL, "fractal: percent of the entry (5/6)");
	free(out);
	pk_report_free(r);

	r = mk("comm,sym", 0, PK_CG_GRAPH, 15);
	workload(r);
	out = report_text(r);
	ok(strstr(out, "            ---foo\n"
		       "               |          \n"
		       "                --50.00%--main\n\n") != NULL, "graph threshold 15%% cuts the 10%% branch");
	free(out);
	pk_report_free(r);

	r = mk("comm,sym", 0, PK_CG_FOLDED, 0.5);
	workload(r);
	out = report_text(r);
	ok(strstr(out, "    60.00%  prog     [.] foo\n50.00% foo;main\n10.00% foo;foo;main\n") != NULL,
	   "folded lines");
	free(out);
	pk_report_free(r);

	r = mk("comm,sym", 0, PK_CG_FLAT, 0.5);
	workload(r);
	out = report_text(r);
	ok(strstr(out, "    20.00%  prog     [.] bar\n           20.00%\n                bar\n"
		       "                foo\n                main\n\n") != NULL, "flat block");
	free(out);
	pk_report_free(r);
}

static void test_children_graph(void)
{
	struct pk_report *r = mk("sym", 1, PK_CG_GRAPH, 0.5);
	char *out;

	workload(r);
	out = report_text(r);
	/* children + caller order: main's tree goes to its callees */
	ok(strstr(out, "   100.00%     0.00%  [.] main\n"
		       "            |          \n"
		       "            |--90.00%--foo\n"
		       "            |          |          \n"
		       "            |          |--20.00%--bar\n"
		       "            |          |          \n"
		       "            |           --10.00%--foo\n"
		       "            |          \n"
		       "             --10.00%--bar\n"
		       "                       do_syscall_64\n\n") != NULL,
	   "children graph of main: caller order, first line skipped as perf does for --sort sym...");
	ok(strstr(out, "    10.00%    10.00%  [k] do_syscall_64\n"
		       "            |\n"
		       "            ---bar\n"
		       "               do_syscall_64\n\n") != NULL,
	   "a leaf's own chain is the whole chain from the root");
	free(out);
	pk_report_free(r);
}

/*
 * Entries whose order under perf's comparison is a circle. Children ties at
 * 200 for main, foo, bar and qux: main is above bar only by the same-thread
 * rule (max depth 2 against 1, prog's thread), foo above main by Self (1 > 0)
 * and bar above foo by Self (2 > 1), each across threads. No sorted order
 * satisfies all three; perf prints what its output tree gives. Hand-derived
 * from perf's insertion (rbtree_order.c's comment): the collapsed order is
 * do_syscall_64 (the kernel DSO's name sorts first), then prog's symbols by
 * address: main, foo, bar, qux. do_syscall_64 (Children 100) is the root;
 * main goes left; foo goes left of both, and a rotation makes main the root
 * over foo and do_syscall_64; bar goes right of main (the thread rule), left
 * of do_syscall_64, and the recoloring makes foo and do_syscall_64 black; qux
 * (above everything else: Self 200) goes left of main and of foo. In order:
 * qux, foo, main, bar, do_syscall_64. The same kind of circle made
 * perfkit print clock_gettime above entry_SYSCALL_64_after_hwframe and
 * do_syscall_64 where perf 6.1 printed it below them, on a recording.
 */
static void test_children_tie_circle(void)
{
	static struct pk_sym s_qux = { 0x500, 0x600, "qux" };
	struct pk_report *r = mk("sym", 1, PK_CG_GRAPH, 0.5);
	const struct pk_sym *qux_main[] = { &s_qux, &s_main };
	const struct pk_sym *bar[] = { &s_bar };
	const struct pk_sym *foo[] = { &s_foo };
	const struct pk_sym *kfn_foo[] = { &s_kfn, &s_foo };
	static const char *const want[] = { "[.] qux", "[.] foo", "[.] main", "[.] bar",
					    "[k] do_syscall_64" };
	struct pk_report_row rows[8];
	size_t n;
	int in_order = 1;

	add(r, &t_prog, 2, 100, qux_main, 2);
	add(r, &t_prog, 2, 100, bar, 1);
	add(r, &t_other, 1, 100, foo, 1);
	add(r, &t_other, 1, 100, kfn_foo, 2);
	n = pk_report_rows(r, 0, rows, 8);
	is_int(n, 5, "tie circle: five entries");
	for (size_t i = 0; i < n && i < 5; i++)
		if (strcmp(rows[i].key, want[i])) {
			diag("row %zu: '%s', want '%s'", i, rows[i].key, want[i]);
			in_order = 0;
		}
	ok(in_order, "tie circle: perf's output-tree order (qux, foo, main, bar, do_syscall_64)");
	for (size_t i = 0; i < n && i < 4; i++)
		is_int(rows[i].children_period, 200, "tie circle: Children 200 for the first four");
	pk_report_free(r);
}

/* values to order in test_rbtree_sorts */
static const unsigned *order_vals;

static int by_value(uint32_t a, uint32_t b, void *ctx)
{
	(void)ctx;
	return (order_vals[a] > order_vals[b]) - (order_vals[a] < order_vals[b]);
}

/*
 * With a transitive comparison the output tree is a stable sort: ascending,
 * equal values in insertion order (a tie goes right). Random sizes up to 500,
 * values with many ties, against insertion sort.
 */
static void test_rbtree_sorts(void)
{
	static unsigned vals[500];
	static uint32_t v[500], want[500];
	unsigned seed = 12345;
	int bad = 0;

	order_vals = vals;
	for (int round = 0; round < 200; round++) {
		uint32_t n = round < 10 ? (uint32_t)round : 1 + (seed = seed * 1103515245 + 12345) % 500;

		for (uint32_t i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			vals[i] = (seed >> 16) % (round % 2 ? 7 : 1000);
			v[i] = i;
		}
		for (uint32_t i = 0; i < n; i++) {   /* stable insertion sort */
			uint32_t j = i;

			while (j > 0 && vals[want[j - 1]] > vals[i]) {
				want[j] = want[j - 1];
				j--;
			}
			want[j] = i;
		}
		if (rp_rbtree_order(v, n, by_value, NULL) || memcmp(v, want, n * sizeof(*v)))
			bad++;
	}
	is_int(bad, 0, "output tree with a transitive comparison: a stable sort (200 random arrays)");
}

int main(void)
{
	ev.idx = 0;
	ev.name = "cpu-clock";
	ev.attr.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	test_self_rows();
	test_children();
	test_layout();
	test_graph();
	test_children_graph();
	test_children_tie_circle();
	test_rbtree_sorts();
	is_int(add_failed, 0, "every pk_report_add succeeded");
	if (getenv("PK_REPORT_DUMP")) {
		struct pk_report *r = mk(getenv("PK_REPORT_DUMP"), atoi(getenv("PK_REPORT_CHILDREN") ?: "0"),
					 PK_CG_GRAPH, 0.5);
		char *out;

		workload(r);
		out = report_text(r);
		fputs(out, stdout);
		free(out);
		pk_report_free(r);
	}
	return done_testing();
}
