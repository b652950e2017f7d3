/*
 * perfkit record: the options of `perf record` into a pk_record_opts, one
 * call to pk_record_run(), and perf's closing summary. Exit status: the
 * command's when one was run (like perf), 1 when a write error cut the
 * recording short, 2 for usage errors and failures to start.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <perfkit/record.h>
#include "cli.h"

enum {
	OPT_CALL_GRAPH = 256, OPT_SWITCH_EVENTS, OPT_SAMPLE_CPU, OPT_NO_INHERIT, OPT_DURATION,
	OPT_COMPRESSION_LEVEL, OPT_FILTER,
};

static void usage(FILE *f)
{
	fputs("usage: perfkit record [-e EVENTS] [-F HZ|-c PERIOD] [-g|--call-graph fp|dwarf[,SIZE]]\n"
	      "                      [-a|-C CPUS|-p PID|-t TID] [-m PAGES] [--duration SECS]\n"
	      "                      [-b|-j FILTER] [-d] [-T] [--sample-cpu] [--switch-events]\n"
	      "                      [--no-inherit] [-k CLOCKID] [--filter EXPR]\n"
	      "                      [-o FILE|-] [-z|--compression-level N] [-N] [-q] [-- CMD ...]\n"
	      "  -N, --no-buildid-cache  leave perf's build-id cache (~/.debug) alone\n", f);
}

static int parse_call_graph(struct pk_record_opts *o, const char *arg)
{
	if (!strcmp(arg, "fp")) {
		o->callgraph = PK_CALLGRAPH_FP;
		return 0;
	}
	if (!strncmp(arg, "dwarf", 5) && (arg[5] == '\0' || arg[5] == ',')) {
		o->callgraph = PK_CALLGRAPH_DWARF;
		if (arg[5] == ',') {
			uint64_t sz;

			if (cli_parse_u64("--call-graph dwarf", arg + 6, 8, 65528, &sz))
				return -EINVAL;
			o->dwarf_stack_size = (uint32_t)sz;
		}
		return 0;
	}
	return -EINVAL;
}

/* The clock names perf's -k takes, or a number; -1 (with the message) for anything else. */
static int parse_clockid(const char *s)
{
	static const struct { const char *name; int id; } clocks[] = {
		{ "monotonic", CLOCK_MONOTONIC }, { "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME }, { "boottime", CLOCK_BOOTTIME }, { "tai", CLOCK_TAI },
		{ "mono", CLOCK_MONOTONIC }, { "raw", CLOCK_MONOTONIC_RAW }, { "real", CLOCK_REALTIME },
		{ "boot", CLOCK_BOOTTIME },
	};
	uint64_t v;
	const char *n = strncasecmp(s, "CLOCK_", 6) ? s : s + 6;

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcasecmp(n, clocks[i].name))
			return clocks[i].id;
	return cli_parse_u64("-k", s, 0, 64, &v) ? -1 : (int)v;
}

static int parse_args(int argc, char **argv, struct pk_record_opts *o)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "branch-any", no_argument, NULL, 'b' },
		{ "branch-filter", required_argument, NULL, 'j' },
		{ "data", no_argument, NULL, 'd' },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "sample-cpu", no_argument, NULL, OPT_SAMPLE_CPU },
		{ "switch-events", no_argument, NULL, OPT_SWITCH_EVENTS },
		{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
		{ "clockid", required_argument, NULL, 'k' },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "output", required_argument, NULL, 'o' },
		{ "compression-level", required_argument, NULL, OPT_COMPRESSION_LEVEL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-buildid-cache", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:F:c:gbj:dTk:aC:p:t:m:o:zNqh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			o->events = optarg;
			break;
		case 'F':
			if (cli_parse_u64("-F", optarg, 1, UINT32_MAX, &o->freq))
				return -EINVAL;
			break;
		case 'c':
			if (cli_parse_u64("-c", optarg, 1, UINT64_MAX, &o->period))
				return -EINVAL;
			break;
		case 'g':
			o->callgraph = PK_CALLGRAPH_FP;
			break;
		case OPT_CALL_GRAPH:
			if (parse_call_graph(o, optarg)) {
				cli_error("invalid --call-graph '%s': give fp or dwarf[,SIZE]", optarg);
				return -EINVAL;
			}
			break;
		case 'b':
			o->branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
			break;
		case 'j':
			if (pk_record_branch_parse(optarg, &o->branch_sample_type)) {
				cli_error("invalid branch filter '%s'", optarg);
				return -EINVAL;
			}
			break;
		case 'd': o->data_addr = 1; break;
		case 'T': o->timestamps = 1; break;
		case OPT_SAMPLE_CPU: o->sample_cpu = 1; break;
		case OPT_SWITCH_EVENTS: o->switch_events = 1; break;
		case OPT_NO_INHERIT: o->no_inherit = 1; break;
		case 'k':
			if ((o->clockid = parse_clockid(optarg)) < 0)
				return -EINVAL;   /* named by cli_parse_u64 */
			break;
		case OPT_FILTER: o->filter = optarg; break;
		case 'a': o->all_cpus = 1; break;
		case 'C': o->cpu_list = optarg; break;
		case 'p':
			if (cli_parse_u64("-p", optarg, 1, INT32_MAX, &v))
				return -EINVAL;
			o->pid = (pid_t)v;
			break;
		case 't':
			if (cli_parse_u64("-t", optarg, 1, INT32_MAX, &v))
				return -EINVAL;
			o->tid = (pid_t)v;
			o->no_inherit = 1;
			break;
		case 'm':
			if (cli_parse_u64("-m", optarg, 1, 1u << 20, &v))
				return -EINVAL;
			if (v & (v - 1)) {
				cli_error("invalid -m '%s': give a power of two number of pages", optarg);
				return -EINVAL;
			}
			o->mmap_pages = (size_t)v;
			break;
		case OPT_DURATION:
			if (cli_parse_seconds("--duration", optarg, &o->duration))
				return -EINVAL;
			break;
		case 'o': o->output = optarg; break;
		case 'z':
			o->compress_level = 1;
			break;
		case OPT_COMPRESSION_LEVEL:
			if (cli_parse_u64("--compression-level", optarg, 1, 22, &v))
				return -EINVAL;
			o->compress_level = (int)v;
			break;
		case 'q': o->quiet = 1; break;
		case 'N': o->no_buildid_cache = 1; break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc)
		o->argv = &argv[optind];
	if (!o->argv && !o->all_cpus && !o->cpu_list && !o->pid && !o->tid) {
		cli_error("nothing to record: give a command, -p PID, -t TID, -a or -C CPUS");
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

static void summary(const struct pk_record_opts *o, const struct pk_record_stats *st)
{
	const char *path = o->output ? o->output : "perf.data";

	if (o->quiet)
		return;
	if (!strcmp(path, "-"))
		path = "(pipe)";
	if (st->raw_bytes != st->bytes)
		fprintf(stderr, "[ perfkit record: compressed %.3f MB to %.3f MB, ratio %.1f ]\n",
			st->raw_bytes / 1048576.0, st->bytes / 1048576.0,
			st->bytes ? (double)st->raw_bytes / (double)st->bytes : 0.0);
	fprintf(stderr, "[ perfkit record: captured and wrote %.3f MB %s, %" PRIu64 " samples, %"
		PRIu64 " lost ]\n", st->bytes / 1048576.0, path, st->samples, st->lost);
}

int cmd_record(int argc, char **argv)
{
	struct pk_record_opts o = { .sz = sizeof(o), .clockid = -1, .argc = argc, .cmdline = argv };
	struct pk_record_stats st;
	struct pk_diag d;
	int err = parse_args(argc, argv, &o);

	if (err)
		return err > 0 ? 0 : 2;
	cli_log_init(0);
	pk_diag_init(&d);
	err = pk_record_run(&o, &st, &d);
	if (err) {
		if (o.events && err == -EINVAL && d.offset != PK_NO_OFFSET)
			cli_spec_error(o.events, &d);
		else
			cli_diag(&d, err);
		return cli_status_of(err);
	}
	if (st.write_error) {
		cli_diag(&d, st.write_error);
		cli_error("recording stopped early: the file holds every complete round up to the "
			  "error");
	}
	if (st.stopped_by_signal && !o.quiet)
		fprintf(stderr, "[ perfkit record: interrupted by a signal; the file is complete ]\n");
	summary(&o, &st);
	free(st.samples_per_event);
	if (st.write_error)
		return 1;
	if (st.target_status >= 0 && o.argv) {
		if (WIFEXITED(st.target_status))
			return WEXITSTATUS(st.target_status);
		if (WIFSIGNALED(st.target_status)) {
			if (!o.quiet)
				fprintf(stderr, "[ perfkit record: the command was killed by signal %d ]\n",
					WTERMSIG(st.target_status));
			return 128 + WTERMSIG(st.target_status);
		}
	}
	return 0;
}
