/*
 * perfkit script: print the samples of a perf.data file one per line in
 * `perf script`'s layout (options follow perf's): -i FILE|-, -F fields,
 * --header, --show-mmap-events, --show-task-events, --ns, --reltime,
 * --deltatime, and the --comm, --pid, --tid, --cpu, --time, --dsos,
 * --symbols filters. A corrupt or truncated
 * file ends with what was printed so far flushed, a message naming the file
 * and byte offset, and exit status 2.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <perfkit/script.h>
#include "cli.h"

static void script_usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit script [-i FILE|-] [-F FIELDS] [--header|--header-only [-I]] [--show-mmap-events]\n"
		"                      [--show-task-events] [--show-{switch,lost,namespace,cgroup,bpf}-events]\n"
		"                      [--comm LIST] [--pid LIST] [--tid LIST]\n"
		"                      [-C CPUS] [--time START,END] [--dsos LIST] [-S SYMS]\n"
		"                      [--switch-on EV] [--switch-off EV] [--show-on-off-events]\n"
		"                      [--max-stack N] [-G] [--inline] [--ns] [--reltime|--deltatime]\n"
		"                      [--symfs DIR] [--kallsyms FILE] [--no-demangle] [-v]\n"
		"\n"
		"  -i, --input FILE        perf.data to read ('-' = standard input; default perf.data)\n"
		"  -F, --fields LIST       comm,tid,pid,time,cpu,event,trace,ip,sym,symoff,dso,addr,\n"
		"                          period,data_src,weight,ins_lat,phys_addr,srcline,brstack,\n"
		"                          brstacksym,brstackoff,misc,data_page_size,code_page_size,iregs,uregs,\n"
		"                          srccode,tod,flags,callindent;\n"
		"                          TYPE:LIST, +field, -field\n"
		"      --header            print the file's header information first\n"
		"  -I, --show-info         with it, the CPU, NUMA, cache and memory topology too\n"
		"      --header-only       only the header\n"
		"  -f, --force             accepted for perf's sake: perfkit reads others' files anyway\n"
		"      --show-mmap-events  print MMAP/MMAP2 records\n"
		"      --show-task-events  print COMM/FORK/EXIT records\n"
		"      --show-switch-events, --show-lost-events, --show-namespace-events,\n"
		"      --show-cgroup-events, --show-bpf-events   print those records too\n"
		"      --per-event-dump    each event's samples to FILE.EVENT.dump\n"
		"      --comm, --pid, --tid LIST   only these threads\n"
		"  -C, --cpu CPUS          only these CPUs (\"0-3,5\")\n"
		"      --time START,END    only samples in this time range (seconds)\n"
		"      --dsos LIST, -S, --symbols LIST   only samples in these DSOs / symbols\n"
		"      --switch-on EV, --switch-off EV   only samples after an EV sample, until one\n"
		"                          of the other (--show-on-off-events: and those two)\n"
		"      --max-stack N       call-chain depth (default 127)\n"
		"  -G, --hide-call-graph   do not print call chains\n"
		"      --inline            add the functions inlined at each call-chain address\n"
		"      --ns                times to the nanosecond\n"
		"      --reltime           times since the first one printed; --time from the first sample\n"
		"      --deltatime         times since the previous one printed\n"
		"      --symfs DIR         look binaries up under DIR (and no local kernel symbols)\n"
		"      --kallsyms FILE     the kernel's symbols from FILE (default /proc/kallsyms)\n"
		"      --no-demangle       C++ and Rust names as in the binary\n"
		"      --full-source-path  srcline with the source file's whole path\n"
		"  -v, --verbose           more warnings\n");
}

enum {
	OPT_HEADER = 256, OPT_MMAP, OPT_TASK, OPT_COMM, OPT_PID, OPT_TID, OPT_TIME, OPT_DSOS,
	OPT_MAX_STACK, OPT_INLINE, OPT_NO_INLINE, OPT_NS, OPT_RELTIME, OPT_DELTATIME,
	OPT_SYMFS, OPT_KALLSYMS, OPT_DEMANGLE, OPT_NO_DEMANGLE,
	OPT_SWITCH, OPT_LOST, OPT_NAMESPACE, OPT_CGROUP, OPT_BPF, OPT_FULL_SOURCE_PATH, OPT_PER_EVENT_DUMP,
	OPT_SWITCH_ON, OPT_SWITCH_OFF, OPT_SHOW_ON_OFF, OPT_HEADER_ONLY,
};

static int append_fields(char **acc, const char *arg)
{
	size_t n = *acc ? strlen(*acc) : 0;
	char *p = realloc(*acc, n + strlen(arg) + 2);

	if (!p)
		return -1;
	if (n)
		p[n++] = ' ';
	strcpy(p + n, arg);
	*acc = p;
	return 0;
}

int cmd_script(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "fields", required_argument, NULL, 'F' },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "show-info", no_argument, NULL, 'I' },
		{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
		{ "force", no_argument, NULL, 'f' },
		{ "show-mmap-events", no_argument, NULL, OPT_MMAP },
		{ "show-task-events", no_argument, NULL, OPT_TASK },
		{ "show-switch-events", no_argument, NULL, OPT_SWITCH },
		{ "show-lost-events", no_argument, NULL, OPT_LOST },
		{ "show-namespace-events", no_argument, NULL, OPT_NAMESPACE },
		{ "show-cgroup-events", no_argument, NULL, OPT_CGROUP },
		{ "show-bpf-events", no_argument, NULL, OPT_BPF },
		{ "per-event-dump", no_argument, NULL, OPT_PER_EVENT_DUMP },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "comms", required_argument, NULL, OPT_COMM },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "cpu", required_argument, NULL, 'C' },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "dsos", required_argument, NULL, OPT_DSOS },
		{ "switch-on", required_argument, NULL, OPT_SWITCH_ON },
		{ "switch-off", required_argument, NULL, OPT_SWITCH_OFF },
		{ "show-on-off-events", no_argument, NULL, OPT_SHOW_ON_OFF },
		{ "symbols", required_argument, NULL, 'S' },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "hide-call-graph", no_argument, NULL, 'G' },
		{ "inline", no_argument, NULL, OPT_INLINE },
		{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
		{ "ns", no_argument, NULL, OPT_NS },
		{ "reltime", no_argument, NULL, OPT_RELTIME },
		{ "deltatime", no_argument, NULL, OPT_DELTATIME },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "full-source-path", no_argument, NULL, OPT_FULL_SOURCE_PATH },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "demangle", no_argument, NULL, OPT_DEMANGLE },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* perf script decides --switch-on/off after its --comm, --pid, --dsos ... filters */
	struct pk_session_opts sopts = { .sz = sizeof(sopts), .ordered = 1,
					 .filter = { .switch_after_filters = 1 } };
	struct pk_script_opts opts = { .sz = sizeof(opts) };
	const char *input = NULL;
	char *fields = NULL;
	int header = 0, full_info = 0, verbose = 0, per_event_dump = 0, opt, ret, status = 0;
	struct pk_session *ss = NULL;
	struct pk_script *sc = NULL;
	static char outbuf[1 << 20];
	struct pk_diag d;

	while ((opt = getopt_long(argc, argv, "i:F:C:S:GIfvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i': input = optarg; break;
		case 'F':
			if (append_fields(&fields, optarg) < 0) {
				cli_error("out of memory");
				return 1;
			}
			break;
		case OPT_HEADER: header = 1; break;
		case 'I': full_info = 1; break;
		case OPT_HEADER_ONLY: header = 2; break;
		case 'f': break;        /* perf: read another user's file; perfkit never refuses one */
		case OPT_MMAP: opts.show_mmap_events = 1; break;
		case OPT_TASK: opts.show_task_events = 1; break;
		case OPT_SWITCH: opts.show_switch_events = 1; break;
		case OPT_LOST: opts.show_lost_events = 1; break;
		case OPT_NAMESPACE: opts.show_namespace_events = 1; break;
		case OPT_CGROUP: opts.show_cgroup_events = 1; break;
		case OPT_BPF: opts.show_bpf_events = 1; break;
		case OPT_PER_EVENT_DUMP: per_event_dump = 1; break;
		case OPT_COMM: sopts.filter.comms = optarg; break;
		case OPT_PID: sopts.filter.pids = optarg; break;
		case OPT_TID: sopts.filter.tids = optarg; break;
		case 'C': sopts.filter.cpus = optarg; break;
		case OPT_TIME: sopts.filter.time = optarg; break;
		case OPT_DSOS: sopts.filter.dsos = optarg; break;
		case 'S': sopts.filter.symbols = optarg; break;
		case OPT_SWITCH_ON: sopts.filter.switch_on = optarg; break;
		case OPT_SWITCH_OFF: sopts.filter.switch_off = optarg; break;
		case OPT_SHOW_ON_OFF: sopts.filter.show_on_off_events = 1; break;
		case OPT_MAX_STACK: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || v < 0 || v > 1000000) {
				cli_error("invalid --max-stack '%s'", optarg);
				free(fields);
				return 2;
			}
			sopts.max_stack = v ? (uint32_t)v : PK_SESSION_NO_STACK;
			break;
		}
		case 'G': opts.no_callchain = 1; break;
		case OPT_INLINE: sopts.inline_frames = 1; break;
		case OPT_NO_INLINE: sopts.inline_frames = 0; break;
		case OPT_NS: opts.time_ns = 1; break;
		case OPT_RELTIME:
		case OPT_DELTATIME:
			if (opts.time_mode && opts.time_mode != (opt == OPT_RELTIME ? PK_SCRIPT_RELTIME
										     : PK_SCRIPT_DELTATIME)) {
				cli_error("--reltime and --deltatime exclude each other");
				free(fields);
				return 2;
			}
			opts.time_mode = opt == OPT_RELTIME ? PK_SCRIPT_RELTIME : PK_SCRIPT_DELTATIME;
			sopts.time_relative = opt == OPT_RELTIME;   /* perf: --time counts from the start too */
			break;
		case OPT_SYMFS: sopts.symbols.symfs = optarg; break;
		case OPT_FULL_SOURCE_PATH: opts.full_source_path = 1; break;
		case OPT_KALLSYMS: sopts.symbols.kallsyms = optarg; break;
		case OPT_DEMANGLE:
		case OPT_NO_DEMANGLE: sopts.symbols.no_demangle = opt == OPT_NO_DEMANGLE; break;
		case 'v': verbose++; break;
		case 'h': script_usage(stdout); free(fields); return 0;
		default: script_usage(stderr); free(fields); return 2;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		free(fields);
		return 2;
	}
	if (!input) {
		struct stat st;

		input = (!fstat(0, &st) && S_ISFIFO(st.st_mode)) ? "-" : "perf.data";
	}
	cli_log_init(verbose);
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	opts.fields = fields;
	if (pk_script_fields_need_srcline(fields))
		sopts.symbols.want_srcline = 1;
	pk_diag_init(&d);
	ret = pk_session_open(input, &sopts, &ss, &d);
	if (ret < 0) {
		cli_diag(&d, ret);
		free(fields);
		return cli_status_of(ret);
	}
	if (header) {
		struct pk_buf b;

		pk_buf_init(&b);
		if (pk_perfdata_header_print(pk_session_data(ss), full_info, &b) == 0 && b.len)
			fwrite(b.data, 1, b.len, stdout);
		pk_buf_release(&b);
		if (header == 2)        /* --header-only */
			goto out;
	}
	ret = pk_script_new(ss, &opts, stdout, &sc, &d);
	if (ret < 0) {
		fflush(stdout);
		cli_diag(&d, ret);
		status = cli_status_of(ret);
		goto out;
	}
	if (per_event_dump && (ret = pk_script_per_event_dump(sc, input, &d)) < 0) {
		cli_diag(&d, ret);
		status = 1;
		goto out;
	}
	ret = pk_script_run(sc, &d);
	if (ret < 0) {
		fflush(stdout);
		cli_diag(&d, ret);
		status = ret == -EBADMSG || ret == -EINVAL || ret == -ENOENT ? 2 : 1;
	} else {
		fflush(stdout);
		cli_warn_lost(input, pk_session_data(ss));
	}
out:
	pk_script_free(sc);
	pk_session_close(ss);
	free(fields);
	if (fflush(stdout) && !status)
		status = 1;
	return status;
}
