/*
 * perfkit report: read a perf.data file and print perf report --stdio's
 * histogram (or its header, a raw dump, record statistics, or an export in
 * folded/pprof/json/svg form). Options follow perf report's names. Corrupt or
 * truncated input: everything read up to the bad record is still printed,
 * then "perfkit: 'FILE': <msg> at offset N" and exit status 2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/export.h>
#include <perfkit/report.h>
#include <perfkit/session.h>
#include "cli.h"
#include "report_dump.h"
#include "report_threads.h"

static const char usage_text[] =
	"usage: perfkit report [-i FILE|-] [--stdio] [-s KEYS] [--children|--no-children]\n"
	"                      [-g MODE,THRESHOLD,LIMIT,ORDER,KEY,VALUE] [--percent-limit P] [-n]\n"
	"                      [--comm L] [--pid L] [--tid L] [--dsos L] [--symbols L] [--cpu L] [--time S,E]\n"
	"                      [--percentage relative|absolute] [--show-total-period] [-G] [--max-stack N]\n"
	"                      [--switch-on EV] [--switch-off EV] [--show-on-off-events]\n"
	"                      [--show-cpu-utilization] [--hierarchy]\n"
	"                      [--header|--header-only] [-I] [-D] [--stats] [--tasks|--mmaps]\n"
	"                      [--format F -o OUT] [-v]\n"
	"                      [--inline|--no-inline] [--threads N] [-t SEP] [-q] [-U]\n"
	"                      [--symfs DIR] [--kallsyms FILE] [--no-demangle]\n"
	"\n"
	"  -i, --input FILE       perf.data to read (default perf.data; - for standard input)\n"
	"      --stdio            text output (the default and only interface)\n"
	"  -s, --sort KEYS        comm,pid,tid,dso,sym,srcline,srcfile,cpu,symoff,parent,time,\n"
	"                         dso_size,symbol_size,socket,code_page_size,cgroup,cgroup_id,weight,\n"
	"                         local_weight,ins_lat,local_ins_lat,trace,mem,snoop,tlb,lock; with\n"
	"                         branch stacks: dso_from,dso_to,symbol_from,symbol_to,cycles (comm,\n"
	"                         dso_from,symbol_from,symbol_to,cycles by default)\n"
	"  -F, --fields LIST      the columns, in order: overhead, overhead_children, sample,\n"
	"                         period and sort keys; they order the output after --sort's\n"
	"                         keys; +sample,period: added to the default columns\n"
	"      --time-quantum Q   the time key's step (N[ns|us|ms|s], default 100ms); --ns: its\n"
	"                         times to the nanosecond\n"
	"      --children         add a Children column (default when call chains exist)\n"
	"      --no-children      only Self\n"
	"  -g, --call-graph SPEC  MODE,THRESHOLD,LIMIT,ORDER,VALUE in any order, each optional:\n"
	"                         graph|fractal|flat|folded|none, percent (default 0.5), at most\n"
	"                         LIMIT chains or children, caller|callee, function|address (a node\n"
	"                         per address, with its source line), percent|period|count\n"
	"      --percent-limit P  hide entries below P percent\n"
	"  -n, --show-nr-samples  add a Samples column\n"
	"      --show-total-period  add a Period column (Self's period)\n"
	"      --show-cpu-utilization  add sys and usr columns: Self's kernel- and user-mode shares\n"
	"  -G, --inverted         caller-first call graphs (-g caller's order)\n"
	"      --max-stack N      call-chain entries kept per sample (default 127)\n"
	"      --group            one block per event group, a column per member (the default for\n"
	"                         files with groups); --no-group: one block per event\n"
	"      --group-sort-idx N the rows of a group by member N's values first\n"
	"  -p, --parent REGEX     regex of the parent sort key\n"
	"  -x, --exclude-other    only the rows whose parent matches (not [other])\n"
	"      --comm, --pid, --tid, -d/--dsos, -S/--symbols, -C/--cpu LIST; --time START,END\n"
	"                         only the samples of these; a comm, DSO or symbol list of one\n"
	"                         name hides that column and names it above the report\n"
	"      --switch-on EV, --switch-off EV  only the samples after an EV sample, until one\n"
	"                         of the other (--show-on-off-events: and those two)\n"
	"      --symfs DIR        look binaries up under DIR (and no local kernel symbols)\n"
	"      --kallsyms FILE    the kernel's symbols from FILE (default /proc/kallsyms)\n"
	"      --no-demangle      C++ and Rust names as in the binary\n"
	"      --full-source-path srcline and srcfile with the source file's whole path\n"
	"      --ignore-callees RE  the call-chain frame of a function matching RE takes the\n"
	"                         sample, and its callees go\n"
	"      --raw-trace        the trace key's payloads as name=value per field\n"
	"      --symbol-filter T  only rows whose symbol's name contains T\n"
	"      --hierarchy        the rows as a tree, a level per sort key (comm, its DSOs,\n"
	"                         their symbols), each node with the sum of the rows under it;\n"
	"                         no Children column, call graphs under the leaves\n"
	"  -U, --hide-unresolved  leave out samples without a symbol (and Children past such a frame)\n"
	"      --percentage M     absolute (default): percentages of every sample, filtered or\n"
	"                         not (outside --time and --cpu aside); relative: of those kept\n"
	"      --inline           add the functions inlined at each call-chain address (DWARF)\n"
	"      --header           print the file header first; --header-only: only it\n"
	"  -I, --show-info        with them, the CPU, NUMA, cache and memory topology too\n"
	"  -D, --dump-raw-trace   every record with its file offset\n"
	"      --stats            record counts per type\n"
	"      --tasks            the recorded threads as a tree under the ones that forked them\n"
	"      --mmaps            the same with each thread's maps\n"
	"      --format F         folded, pprof, json or svg (with -o FILE)\n"
	"  -o, --output FILE      where --format writes (default standard output)\n"
	"  -t, --field-separator S  columns joined by S, not aligned (S in a value becomes '.')\n"
	"  -q, --quiet            no '#' lines (header, titles, column names) and no warnings\n"
	"  -f, --force            accepted for perf's sake: perfkit reads others' files anyway\n"
	"  -v, --verbose          more messages\n"
	"  -T                     after the report, the counts of each thread that perf record -s\n"
	"                         saved (perf's --threads; perfkit's --threads is below)\n"
	"      --threads N        1: build the report on one thread; 2 (default with two CPUs\n"
	"                         or more): a second thread adds the samples while the first\n"
	"                         reads and resolves them (sort keys comm, dso and sym only)\n";

struct report_cli {
	const char *input, *sort, *format, *output;
	const char *fields;             /* -F */
	const char *ignore_callees;     /* --ignore-callees REGEX */
	const char *field_sep;          /* -t */
	uint64_t time_quantum;          /* --time-quantum in ns, 0: 100 ms */
	int time_ns;                    /* --ns */
	int full_source_path;           /* --full-source-path */
	int quiet;                      /* -q */
	int children;                   /* -1 default */
	int group;                      /* 0 perf's default, 1 --group, -1 --no-group */
	int header, header_only, dump, stats, nr, verbose, inline_frames;
	int tasks;                  /* PK_SESSION_TASKS (--tasks), PK_SESSION_TASKS_MMAPS (--mmaps) */
	int threads;                    /* 0 default, else --threads */
	int relative;                   /* --percentage relative: of the samples the filters kept */
	int total_period;               /* --show-total-period */
	int cpu_utilization;            /* --show-cpu-utilization */
	uint32_t max_stack;             /* --max-stack, 0: perf's 127 */
	double percent_limit;
	enum pk_callgraph_mode cg_mode;
	enum pk_callgraph_order cg_order;
	int cg_order_set;
	double cg_threshold;
	enum pk_callgraph_value cg_value;
	uint32_t cg_print_limit;
	int cg_by_address;              /* -g address */
	const char *cg_unsupported;     /* a -g sort key perfkit does not have */
	const char *symbol_filter;      /* --symbol-filter TEXT */
	int hierarchy;                  /* --hierarchy */
	int show_info;                  /* -I: the header's topology features too */
	int group_sort_idx;             /* --group-sort-idx N */
	int exclude_other;              /* -x */
	int raw_trace;                  /* --raw-trace */
	int show_threads;               /* -T */
	const char *parent;
	struct pk_session_filter filter;
	struct pk_symbols_opts symbols; /* --symfs, --kallsyms, --no-demangle */
};

/* @tok names @word: a non-empty prefix of it, as perf matches -g's words. */
static int cg_word(const char *tok, const char *word)
{
	return !strncmp(tok, word, strlen(tok));
}

/*
 * perf's -g: "graph,0.5,caller", words and numbers in any order. Words
 * match by prefix, tried as perf tries them: none (which ends the spec),
 * the modes, the orders, the sort key, the values. The first number is the
 * threshold, the second the print limit.
 */
static int parse_cg(struct report_cli *o, const char *spec)
{
	static const struct { const char *word; enum pk_callgraph_mode mode; } modes[] = {
		{ "graph", PK_CG_GRAPH }, { "flat", PK_CG_FLAT }, { "fractal", PK_CG_FRACTAL },
		{ "folded", PK_CG_FOLDED },
	};
	static const struct { const char *word; enum pk_callgraph_value value; } values[] = {
		{ "percent", PK_CG_PERCENT }, { "period", PK_CG_PERIOD }, { "count", PK_CG_COUNT },
	};
	char buf[256], *save = NULL, *tok;
	int numbers = 0;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t k;

		if (cg_word(tok, "none")) {
			o->cg_mode = PK_CG_NONE;
			return 0;
		}
		for (k = 0; k < sizeof(modes) / sizeof(modes[0]) && !cg_word(tok, modes[k].word); k++)
			;
		if (k < sizeof(modes) / sizeof(modes[0])) {
			o->cg_mode = modes[k].mode;
			continue;
		}
		if (cg_word(tok, "caller") || cg_word(tok, "callee")) {
			o->cg_order = cg_word(tok, "caller") ? PK_CG_CALLER : PK_CG_CALLEE;
			o->cg_order_set = 1;
			if (o->cg_mode == PK_CG_DEFAULT)
				o->cg_mode = PK_CG_GRAPH;
			continue;
		}
		if (cg_word(tok, "function")) {
			o->cg_by_address = 0;   /* perf's default sort key */
			continue;
		}
		if (cg_word(tok, "address")) {
			o->cg_by_address = 1;
			continue;
		}
		if (cg_word(tok, "branch") || cg_word(tok, "srcline")) {
			o->cg_unsupported = tok[0] == 'b' ? "branch" : "srcline";
			continue;
		}
		for (k = 0; k < sizeof(values) / sizeof(values[0]) && !cg_word(tok, values[k].word); k++)
			;
		if (k < sizeof(values) / sizeof(values[0])) {
			o->cg_value = values[k].value;
			continue;
		}
		if (numbers++ == 0) {
			char *end;
			double v = strtod(tok, &end);

			if (*end || end == tok || v < 0)
				return -EINVAL;
			o->cg_threshold = v;
		} else {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(tok, &end, 0);
			if (*end || end == tok || errno || tok[0] == '-' || v > UINT32_MAX)
				return -EINVAL;
			o->cg_print_limit = (uint32_t)v;
		}
	}
	return 0;
}

/* perf's --time-quantum: a whole number of ns, us, ms or s (ns without a unit), not 0. */
static int parse_time_quantum(const char *s, uint64_t *out)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (end == s || errno || !v || *s == '-')
		return -EINVAL;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (v > UINT64_MAX / units[i].ns)
				return -EINVAL;
			*out = v * units[i].ns;
			return 0;
		}
	return -EINVAL;
}

static const char *argval(int argc, char **argv, int *i, const char *name)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (!strncmp(a, name, n) && a[n] == '=')
		return a + n + 1;
	if (strcmp(a, name))
		return NULL;
	if (*i + 1 >= argc) {
		cli_error("option '%s' requires a value", name);
		exit(2);
	}
	return argv[++*i];
}

static int parse_args(struct report_cli *o, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			exit(0);
		} else if ((v = argval(argc, argv, &i, "-i")) || (v = argval(argc, argv, &i, "--input"))) {
			o->input = v;
		} else if (!strncmp(a, "-i", 2) && a[2]) {
			o->input = a + 2;
		} else if (!strcmp(a, "--stdio")) {
		} else if (!strcmp(a, "--tui") || !strcmp(a, "--gtk")) {
			cli_error("only --stdio output is supported");
			return -EINVAL;
		} else if ((v = argval(argc, argv, &i, "-s")) || (v = argval(argc, argv, &i, "--sort"))) {
			o->sort = v;
		} else if ((v = argval(argc, argv, &i, "-F")) || (v = argval(argc, argv, &i, "--fields"))) {
			o->fields = v;
		} else if (!strcmp(a, "--children")) {
			o->children = 1;
		} else if (!strcmp(a, "--no-children")) {
			o->children = 0;
		} else if (!strcmp(a, "-g") || !strcmp(a, "--call-graph") || !strncmp(a, "--call-graph=", 13) ||
			   (!strncmp(a, "-g", 2) && a[2])) {
			const char *spec = NULL;

			if (a[1] == 'g' && a[2])
				spec = a + 2;
			else if (!strncmp(a, "--call-graph=", 13))
				spec = a + 13;
			else if (i + 1 < argc && argv[i + 1][0] != '-') {
				struct report_cli probe = *o;

				if (!parse_cg(&probe, argv[i + 1]))
					spec = argv[++i];
			}
			if (!spec) {
				if (o->cg_mode == PK_CG_DEFAULT || o->cg_mode == PK_CG_NONE)
					o->cg_mode = PK_CG_GRAPH;
			} else if (parse_cg(o, spec)) {
				cli_error("invalid call-graph spec '%s'", spec);
				return -EINVAL;
			} else if (o->cg_unsupported) {
				cli_error("call-graph sort key '%s' is not supported: call graphs are by function or address",
					  o->cg_unsupported);
				return -EINVAL;
			}
		} else if ((v = argval(argc, argv, &i, "--symbol-filter"))) {
			o->symbol_filter = v;
		} else if ((v = argval(argc, argv, &i, "--percent-limit"))) {
			o->percent_limit = strtod(v, NULL);
			o->cg_threshold = o->percent_limit;   /* perf sets both */
		} else if (!strcmp(a, "-n") || !strcmp(a, "--show-nr-samples")) {
			o->nr = 1;
		} else if (!strcmp(a, "--show-total-period")) {
			o->total_period = 1;
		} else if (!strcmp(a, "--show-cpu-utilization")) {
			o->cpu_utilization = 1;
		} else if (!strcmp(a, "-G") || !strcmp(a, "--inverted")) {
			o->cg_order = PK_CG_CALLER;     /* perf: an alias of -g caller's order */
			o->cg_order_set = 1;
		} else if ((v = argval(argc, argv, &i, "--max-stack"))) {
			char *end;
			long n = strtol(v, &end, 10);

			if (*end || end == v || n < 0 || n > 1000000) {
				cli_error("invalid --max-stack '%s'", v);
				return -EINVAL;
			}
			o->max_stack = n ? (uint32_t)n : PK_SESSION_NO_STACK;
		} else if ((v = argval(argc, argv, &i, "-p")) || (v = argval(argc, argv, &i, "--parent"))) {
			o->parent = v;
		} else if ((v = argval(argc, argv, &i, "--comm")) || (v = argval(argc, argv, &i, "-c"))) {
			o->filter.comms = v;
		} else if ((v = argval(argc, argv, &i, "--pid"))) {
			o->filter.pids = v;
		} else if ((v = argval(argc, argv, &i, "--tid"))) {
			o->filter.tids = v;
		} else if ((v = argval(argc, argv, &i, "--dsos")) || (v = argval(argc, argv, &i, "--dso")) ||
			   (v = argval(argc, argv, &i, "-d"))) {
			o->filter.dsos = v;
		} else if ((v = argval(argc, argv, &i, "--symbols")) || (v = argval(argc, argv, &i, "-S"))) {
			o->filter.symbols = v;
		} else if ((v = argval(argc, argv, &i, "--cpu")) || (v = argval(argc, argv, &i, "-C"))) {
			o->filter.cpus = v;
		} else if ((v = argval(argc, argv, &i, "--time"))) {
			o->filter.time = v;
		} else if ((v = argval(argc, argv, &i, "--switch-on"))) {
			o->filter.switch_on = v;
		} else if ((v = argval(argc, argv, &i, "--switch-off"))) {
			o->filter.switch_off = v;
		} else if (!strcmp(a, "--show-on-off-events")) {
			o->filter.show_on_off_events = 1;
		} else if ((v = argval(argc, argv, &i, "--percentage"))) {
			if (strcmp(v, "relative") && strcmp(v, "absolute")) {
				cli_error("--percentage takes relative or absolute, not '%s'", v);
				return -EINVAL;
			}
			o->relative = !strcmp(v, "relative");
		} else if (!strcmp(a, "--inline")) {
			o->inline_frames = 1;
		} else if (!strcmp(a, "--no-inline")) {
			o->inline_frames = 0;
		} else if (!strcmp(a, "--header")) {
			o->header = 1;
		} else if (!strcmp(a, "-I") || !strcmp(a, "--show-info")) {
			o->show_info = 1;
		} else if (!strcmp(a, "--header-only")) {
			o->header_only = 1;
		} else if (!strcmp(a, "-D") || !strcmp(a, "--dump-raw-trace")) {
			o->dump = 1;
		} else if (!strcmp(a, "--stats")) {
			o->stats = 1;
		} else if (!strcmp(a, "--tasks")) {
			if (!o->tasks)
				o->tasks = PK_SESSION_TASKS;
		} else if (!strcmp(a, "--mmaps")) {
			o->tasks = PK_SESSION_TASKS_MMAPS;
		} else if ((v = argval(argc, argv, &i, "--format"))) {
			o->format = v;
		} else if ((v = argval(argc, argv, &i, "-o")) || (v = argval(argc, argv, &i, "--output"))) {
			o->output = v;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o->verbose++;
		} else if ((v = argval(argc, argv, &i, "--threads"))) {
			if (strcmp(v, "1") && strcmp(v, "2")) {
				cli_error("--threads takes 1 or 2, not '%s'", v);
				return -EINVAL;
			}
			o->threads = atoi(v);
		} else if (!strcmp(a, "--group")) {
			o->group = 1;
		} else if (!strcmp(a, "--no-group")) {
			o->group = -1;
		} else if ((v = argval(argc, argv, &i, "--time-quantum"))) {
			if (parse_time_quantum(v, &o->time_quantum)) {
				cli_error("cannot parse time quantum '%s' (N[ns|us|ms|s], not 0)", v);
				return -EINVAL;
			}
		} else if (!strcmp(a, "--full-source-path")) {
			o->full_source_path = 1;
		} else if (!strcmp(a, "--ns")) {
			o->time_ns = 1;
		} else if ((v = argval(argc, argv, &i, "--ignore-callees"))) {
			o->ignore_callees = v;
		} else if ((v = argval(argc, argv, &i, "--symfs"))) {
			o->symbols.symfs = v;
		} else if ((v = argval(argc, argv, &i, "--kallsyms"))) {
			o->symbols.kallsyms = v;
		} else if (!strcmp(a, "--no-demangle") || !strcmp(a, "--demangle")) {
			o->symbols.no_demangle = a[2] == 'n';
		} else if (!strcmp(a, "-U") || !strcmp(a, "--hide-unresolved")) {
			o->filter.hide_unresolved = 1;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->quiet = 1;
		} else if ((v = argval(argc, argv, &i, "-t")) || (v = argval(argc, argv, &i, "--field-separator"))) {
			o->field_sep = v;
		} else if (!strncmp(a, "-t", 2) && a[2]) {
			o->field_sep = a + 2;
		} else if (!strcmp(a, "--hierarchy")) {
			o->hierarchy = 1;
		} else if (!strcmp(a, "-T")) {
			o->show_threads = 1;
		} else if (!strcmp(a, "--raw-trace")) {
			o->raw_trace = 1;
		} else if (!strcmp(a, "-f") || !strcmp(a, "--force")) {
			/* perf: read another user's file; perfkit never refuses one */
		} else if (!strcmp(a, "-x") || !strcmp(a, "--exclude-other")) {
			o->exclude_other = 1;
		} else if ((v = argval(argc, argv, &i, "--group-sort-idx"))) {
			char *end;

			o->group_sort_idx = (int)strtol(v, &end, 0);
			if (*end || !*v) {
				cli_error("--group-sort-idx takes a number, not '%s'", v);
				return -EINVAL;
			}
		} else {
			cli_error("unknown option '%s'", a);
			fputs(usage_text, stderr);
			return -EINVAL;
		}
	}
	if (o->hierarchy && o->fields) {
		cli_error("--hierarchy and --fields options cannot be used together");
		return -EINVAL;
	}
	return 0;
}

/* ---- progress on a terminal --------------------------------------------- */

struct progress {
	uint64_t start_ns;
	int shown;
};

static void progress_cb(void *ctx, uint64_t pos, uint64_t size)
{
	struct progress *p = ctx;

	if (!size || pk_now_ns() - p->start_ns < 1000000000ULL)
		return;
	fprintf(stderr, "\rprocessing: %3d%%", (int)(pos * 100 / size));
	p->shown = 1;
}

/* ---- sample sinks ----------------------------------------------------------- */

/* The histogram, and whether a sample fell in the kernel map (perf's kernel dso->hit). */
struct report_sink {
	struct pk_report *r;
	struct pk_symbols *syms;
	int kernel_hit;
	struct report_threads *threads; /* -T: the READ records' counts */
};

static int on_read_record(void *ctx, const struct pk_record *r)
{
	struct report_sink *sink = ctx;

	return report_threads_add(sink->threads, r);
}

static int on_report(void *ctx, const struct pk_rsample *rs)
{
	struct report_sink *sink = ctx;

	if (!sink->kernel_hit && rs->self.dso && rs->self.dso->kernel &&
	    rs->self.dso == pk_symbols_kernel_dso(sink->syms, NULL, NULL))
		sink->kernel_hit = 1;
	return pk_report_add(sink->r, rs);
}

static int on_export(void *ctx, const struct pk_rsample *rs)
{
	return pk_export_add(ctx, rs);
}

static int on_nothing(void *ctx, const struct pk_rsample *rs)
{
	(void)ctx;
	(void)rs;
	return 0;
}

/* The report's options from the command line. */
static struct pk_report_opts report_opts(const struct report_cli *o)
{
	return (struct pk_report_opts){
		.sz = sizeof(struct pk_report_opts), .sort = o->sort, .children = o->children,
		.cg_mode = o->cg_mode, .cg_order = o->cg_order, .cg_order_set = o->cg_order_set,
		.cg_threshold = o->cg_threshold, .percent_limit = o->percent_limit,
		.cg_value = o->cg_value, .cg_print_limit = o->cg_print_limit,
		.cg_by_address = o->cg_by_address, .symbol_filter = o->symbol_filter,
		.hierarchy = o->hierarchy, .group_sort_idx = o->group_sort_idx,
		.exclude_other = o->exclude_other, .raw_trace = o->raw_trace,
		.show_nr_samples = o->nr, .show_total_period = o->total_period,
		.show_cpu_utilization = o->cpu_utilization,
		.header = o->header, .parent_regex = o->parent,
		/* perf's default percentages are absolute: of every sample in range */
		.add_filtered = !o->relative,
		.group = o->group, .threads = o->threads,
		.field_sep = o->field_sep, .quiet = o->quiet,
		.time_quantum = o->time_quantum, .time_ns = o->time_ns, .fields = o->fields,
		.full_source_path = o->full_source_path,
	};
}

/* The "# comm: X" lines of one-name filters, for the -D dump and --stats (perf prints them there). */
static void print_hidden_columns(const struct report_cli *o, struct pk_session *ss)
{
	struct pk_report_opts ro = report_opts(o);
	struct pk_report *r = NULL;
	struct pk_diag d;

	pk_diag_init(&d);
	if (pk_report_new(&ro, &r, &d))
		return;         /* a bad --sort: the dump and the counts go on without the lines */
	pk_report_print_hidden(r, ss, stdout);
	pk_report_free(r);
}

static int run_export(struct report_cli *o, struct pk_session *ss, struct pk_diag *d, int *walk_err)
{
	struct pk_export_opts eo = { .sz = sizeof(eo) };
	struct pk_export *ex = NULL;
	FILE *out = stdout;
	int err;

	if (pk_export_format_parse(o->format, &eo.format)) {
		cli_error("unknown --format '%s' (folded, pprof, json, svg)", o->format);
		return 2;
	}
	if ((err = pk_export_new(&eo, &ex, d))) {
		cli_diag(d, err);
		return 1;
	}
	*walk_err = pk_session_run(ss, on_export, NULL, ex, d);
	if (o->output && strcmp(o->output, "-")) {
		out = fopen(o->output, "wb");
		if (!out) {
			cli_error("cannot write '%s': %s", o->output, strerror(errno));
			pk_export_free(ex);
			return 1;
		}
	}
	struct pk_diag wd;

	pk_diag_init(&wd);
	err = pk_export_write(ex, ss, out, &wd);
	if (out != stdout)
		fclose(out);
	else
		fflush(stdout);
	pk_export_free(ex);
	if (err) {
		cli_diag(&wd, err);
		return 1;
	}
	return 0;
}

/*
 * perf refuses --group-sort-idx without groups: GROUP_DESC with one of
 * several members, or --group over several events. A pipe's come later.
 */
static int file_has_groups(struct pk_perfdata *p, int forced)
{
	const struct pk_features *f = pk_perfdata_features(p);

	if (pk_perfdata_is_pipe(p) || (forced && pk_perfdata_nr_evsels(p) > 1))
		return 1;
	for (uint32_t g = 0; f && pk_features_has(f, PK_FEAT_GROUP_DESC) && g < f->nr_groups; g++)
		if (f->groups[g].nr_members > 1)
			return 1;
	return 0;
}

/* Options the file makes meaningless, said on stderr: 1 (exit status 2), or 0. */
static int refused(const struct report_cli *o, struct pk_perfdata *p)
{
	if (o->group_sort_idx && !file_has_groups(p, o->group > 0)) {
		cli_error("'%s': --group-sort-idx: the file has no event groups (record with -e '{a,b}', or "
			  "report with --group)", o->input);
		return 1;
	}
	/* tracepoints alone and perf's default keys: perf makes a column per field */
	if (o->raw_trace && !(o->sort && *o->sort) && !(o->fields && *o->fields && *o->fields != '+') &&
	    pk_perfdata_only_tracepoints(p)) {
		cli_error("'%s': --raw-trace on tracepoints alone makes perf's column per field "
			  "(trace_fields), which perfkit does not have: use --sort trace --raw-trace", o->input);
		return 1;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_cli o = { .children = -1, .cg_threshold = 0.5 };
	struct pk_session_opts so = { .sz = sizeof(so), .ordered = 1 };
	struct pk_session *ss = NULL;
	struct progress prog = { 0 };
	struct pk_diag d;
	struct pk_report *r = NULL;         /* the histogram (not for -D, --stats, --format) */
	struct report_sink sink = { 0 };
	int err, walk_err = 0, rc = 0;

	if (parse_args(&o, argc, argv))
		return 2;
	cli_log_init(o.verbose);
	if (!o.input)
		o.input = isatty(0) ? "perf.data" : "-";
	so.filter = o.filter;
	so.symbols = o.symbols;
	so.max_stack = o.max_stack;
	/* perf resolves call chains, where the frames are replaced, only for graphs or Children */
	if (o.cg_mode != PK_CG_NONE || o.children != 0)
		so.ignore_callees = o.ignore_callees;
	/* the histogram takes filtered samples too, into hidden entries (perf's filtered entries) */
	if (o.dump || o.stats)
		o.tasks = 0;
	so.tasks_only = o.tasks;
	so.deliver_filtered = !o.dump && !o.stats && !o.format && !o.tasks;
	/* perf orders chains caller first unless --no-children or -g callee says otherwise */
	so.max_stack_callers = o.cg_order_set ? o.cg_order == PK_CG_CALLER : o.children != 0;
	so.inline_frames = o.inline_frames;
	pk_diag_init(&d);
	if (!o.dump && !o.stats && !o.format && !o.tasks) {  /* the histogram, made first: it knows its keys */
		struct pk_report_opts ro = report_opts(&o);

		if ((err = pk_report_new(&ro, &r, &d))) {
			cli_diag(&d, err);
			return cli_status_of(err);
		}
	}
	if (o.inline_frames || (r && pk_report_needs_srcline(r)))
		so.symbols.want_srcline = 1;
	if (o.dump) {
		so.ordered = 0;
		so.deliver_header_records = 1;
	}
	if (isatty(2)) {
		prog.start_ns = pk_now_ns();
		so.progress = progress_cb;
		so.progress_ctx = &prog;
	}
	err = pk_session_open(o.input, &so, &ss, &d);
	if (err) {
		pk_report_free(r);
		if (!d.subject[0])
			pk_diag_subject(&d, o.input);
		cli_diag(&d, err);
		return cli_status_of(err);
	}

	if (r && refused(&o, pk_session_data(ss))) {
		pk_report_free(r);
		pk_session_close(ss);
		return 2;
	}
	if (o.quiet)            /* perf -q prints no header, and the report even with --header-only */
		o.header = o.header_only = 0;
	if (o.header || o.header_only) {
		struct pk_buf b;

		pk_buf_init(&b);
		err = pk_perfdata_header_print(pk_session_data(ss), o.show_info, &b);
		if (!err && b.len)
			fwrite(b.data, 1, b.len, stdout);
		pk_buf_release(&b);
		if (err)
			cli_error("cannot print the header: %s", strerror(-err));
		if (err || o.header_only) {
			pk_report_free(r);
			pk_session_close(ss);
			return err ? 1 : 0;
		}
	}

	if (o.dump || o.stats) {
		struct dump_ctx dc = { .ss = ss, .path = o.input,
				       .pipe = pk_perfdata_is_pipe(pk_session_data(ss)) };

		if (o.dump && !o.header)
			fputs("# To display the perf.data header info, please use --header/--header-only options.\n#\n",
			      stdout);
		print_hidden_columns(&o, ss);   /* perf names them above these too */
		walk_err = pk_session_run(ss, on_nothing, o.dump ? dump_record : NULL, &dc, &d);
		dump_stats(ss);
	} else if (o.tasks) {
		walk_err = pk_session_run(ss, on_nothing, NULL, NULL, &d);
		if (!walk_err && (err = pk_report_print_tasks(ss, o.tasks == PK_SESSION_TASKS_MMAPS, stdout))) {
			cli_error("cannot list the tasks: %s", err == -ENOENT ?
				  "a thread's parent (ppid) is not in the recording" : strerror(-err));
			rc = 2;
		}
	} else if (o.format) {
		rc = run_export(&o, ss, &d, &walk_err);
	} else {
		if (pk_report_setup(r, ss) == -ENOTSUP) {
			cli_error("--sort or -F has a branch key (dso_from, dso_to, symbol_from, symbol_to, "
				  "cycles): '%s' has no branch stacks (perf record -b)", o.input);
			pk_report_free(r);
			pk_session_close(ss);
			return 2;
		}
		sink.r = r;
		sink.syms = pk_session_symbols(ss);
		if (o.show_threads && !(sink.threads = report_threads_new())) {
			cli_error("out of memory");
			pk_report_free(r);
			pk_session_close(ss);
			return 1;
		}
		walk_err = pk_session_run(ss, on_report, sink.threads ? on_read_record : NULL, &sink, &d);
		if (!walk_err && !o.quiet)
			cli_warn_kernel_map(o.input, pk_session_data(ss), sink.syms, sink.kernel_hit);
		err = pk_report_finish(r);
		if (err && !walk_err)
			walk_err = err;
		if (prog.shown)
			fputs("\r                \r", stderr);
		prog.shown = 0;
		/* out of memory, the histogram is incomplete: no report (the error is said below) */
		/* perf says so on stderr, and exits 0 */
		if (walk_err != -ENOMEM && (err = pk_report_print(r, ss, stdout)) == -ENODATA) {
			fflush(stdout);
			if (!walk_err)
				fprintf(stderr, "perfkit: '%s' has no samples\n", o.input);
		} else if (walk_err != -ENOMEM && err) {
			cli_error("cannot print the report: %s", strerror(-err));
			rc = 1;
		} else if (walk_err != -ENOMEM && sink.threads) {      /* perf: after the report */
			report_threads_print(sink.threads, stdout);
		}
		report_threads_free(sink.threads);
		pk_report_free(r);
	}
	if (prog.shown)
		fputs("\r                \r", stderr);
	fflush(stdout);
	if (walk_err < 0) {
		if (!d.subject[0])
			pk_diag_subject(&d, o.input);
		cli_diag(&d, walk_err);
		rc = cli_status_of(walk_err);
	} else if (!o.stats && !o.quiet && !o.tasks) {   /* perf warns but for --stats, -q, --tasks */
		cli_warn_lost(o.input, pk_session_data(ss));
	}
	pk_session_close(ss);
	return rc;
}
