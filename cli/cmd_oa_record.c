/*
 * perfkit oa record: the i915 OA counters of the GPU, recorded into IGT's
 * i915-perf recording format (readable by perfkit oa report,
 * i915-perf-reader and gpuvis) until --duration, Ctrl-C, or the end of the
 * command given after "--". The metric set is named by its symbol name or
 * GUID and looked up in Intel's metric file of the platform for its GUID;
 * the kernel's id of the set comes from sysfs. Without metric files give
 * --guid (or --metric-id) directly. With -s or -f only the most recent
 * records are kept, in memory, and written at the end or when
 * i915-perf-control asks through the command fifo (cli/oa_fifo.c). The
 * library does the work (pk_oa_device_open, pk_oa_capture_run); this file
 * parses, prints and runs the command.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfkit/oa.h>
#include "cli.h"
#include "cmd_oa_record.h"
#include "oa_fifo.h"

static const char usage[] =
	"usage: perfkit oa record [-m SET] [-p PERIOD] [-o FILE] [--duration S] [--card N]\n"
	"                         [-k CLOCK] [--correlation-period S] [-P PERIOD]\n"
	"                         [-s KB] [-f FIFO]\n"
	"                         [--metrics FILE|--metrics-dir DIR] [--guid GUID] [--metric-id N]\n"
	"                         [--sys-root DIR] [--dev-root DIR] [-- CMD ...]\n"
	"\n"
	"Record the i915 OA counters of the GPU in IGT's i915-perf recording format.\n"
	"\n"
	"  -m, --metric-set SET   metric set by symbol name or GUID (default RenderBasic)\n"
	"  -p, --period PERIOD    sampling period: a number with ns, us, ms or s (default 1ms);\n"
	"                         the GPU samples every 2^(e+1) timestamp ticks, the nearest is used\n"
	"  -e, --exponent E       the OA exponent itself (0-31), instead of -p\n"
	"  -o, --output FILE      the recording (default i915_perf.record)\n"
	"      --duration S       stop after S seconds (default: Ctrl-C or the end of CMD)\n"
	"      --card N           use /dev/dri/cardN (default: the first i915 card)\n"
	"  -k, --clock CLOCK      CPU clock of the correlation points: mono (default), mono_raw\n"
	"                         or boot (as i915-perf-recorder -k; to match perf record -k)\n"
	"      --correlation-period S  seconds between correlation points (default 1)\n"
	"  -P, --poll-period PERIOD  how often the driver looks for new reports: a number of\n"
	"                         microseconds, or with ns, us, ms or s (at least 100us;\n"
	"                         default the driver's, 5ms; i915 perf revision 5 and later)\n"
	"  -s, --size KB          circular buffer: keep only the last KB kilobytes of records,\n"
	"                         in memory, and write them to FILE at the end\n"
	"  -f, --command-fifo FIFO  make FIFO and take i915-perf-control's commands from it:\n"
	"                         -d PATH writes the circular buffer to PATH, -q stops;\n"
	"                         implies -s 8192 unless -s is given\n"
	"      --metrics FILE     Intel's metric file (oa-<platform>.xml) to find the set's GUID in\n"
	"      --metrics-dir DIR  look for oa-<platform>.xml in DIR (default: $" PK_OA_METRICS_ENV ",\n"
	"                         else PREFIX/share/perfkit/oa for PREFIX/bin/perfkit, where\n"
	"                         make install puts them, else " PK_OA_METRICS_DIR ")\n"
	"      --guid GUID        the set's GUID, without metric files\n"
	"      --metric-id N      the kernel's id of the set, instead of its sysfs entry\n"
	"      --sys-root DIR     read devices from DIR instead of /sys\n"
	"      --dev-root DIR     open device nodes under DIR instead of /dev\n"
	"  CMD                    run it and record until it exits; perfkit exits with its status\n";

enum { OPT_DURATION = 256, OPT_CARD, OPT_METRICS, OPT_METRICS_DIR, OPT_GUID, OPT_METRIC_ID,
       OPT_SYS_ROOT, OPT_DEV_ROOT, OPT_CORRELATION_PERIOD };

#define FIFO_RING_KB 8192         /* -f without -s, as i915-perf-recorder */
#define RING_KB_MIN 8
#define RING_KB_MAX (64ull << 20) /* 64 GiB */

struct rec_cli {
	const char *set, *output, *metrics, *metrics_dir, *guid, *sys_root, *dev_root, *fifo;
	uint64_t period_ns, metric_id, poll_period_ns, ring_kb;
	int exponent, card, clock;
	double duration, correlation_period;
	char **argv;
};

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * "1ms", "500us", "2000000ns", "0.5s" into ns; a bare number is in units of
 * @bare_ns (-p: ns; -P: us, as i915-perf-recorder -P).
 */
static int parse_period(const char *opt, const char *arg, double bare_ns, uint64_t *ns)
{
	const struct { const char *unit; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", bare_ns },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || !(v > 0))
		goto bad;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v *= units[i].mul;
		if (v < 1 || v > 1e12)
			goto bad;
		*ns = (uint64_t)(v + 0.5);
		return 0;
	}
bad:
	cli_error("invalid value '%s' for %s: give a period such as 1ms, 500us or 100000ns", arg, opt);
	return -EINVAL;
}

/* optarg into *@out unless it is empty. */
static int path_arg(const char *opt, const char *what, const char **out)
{
	if (!*optarg) {
		cli_error("invalid value '' for %s: give %s", opt, what);
		return -EINVAL;
	}
	*out = optarg;
	return 0;
}

static int parse(struct rec_cli *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "metric-set", required_argument, NULL, 'm' },
		{ "period", required_argument, NULL, 'p' },
		{ "exponent", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "card", required_argument, NULL, OPT_CARD },
		{ "clock", required_argument, NULL, 'k' },
		{ "correlation-period", required_argument, NULL, OPT_CORRELATION_PERIOD },
		{ "poll-period", required_argument, NULL, 'P' },
		{ "size", required_argument, NULL, 's' },
		{ "command-fifo", required_argument, NULL, 'f' },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "metrics-dir", required_argument, NULL, OPT_METRICS_DIR },
		{ "guid", required_argument, NULL, OPT_GUID },
		{ "metric-id", required_argument, NULL, OPT_METRIC_ID },
		{ "sys-root", required_argument, NULL, OPT_SYS_ROOT },
		{ "dev-root", required_argument, NULL, OPT_DEV_ROOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+m:p:e:o:k:P:s:f:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm': o->set = optarg; break;
		case 'p':
			if (parse_period("-p", optarg, 1, &o->period_ns))
				return -EINVAL;
			break;
		case 'P':
			if (parse_period("-P", optarg, 1e3, &o->poll_period_ns))
				return -EINVAL;
			if (o->poll_period_ns < PK_OA_POLL_PERIOD_MIN_NS) {
				cli_error("invalid value '%s' for -P: the driver's minimum is %lluus", optarg,
					  PK_OA_POLL_PERIOD_MIN_NS / 1000);
				return -EINVAL;
			}
			break;
		case 's':
			if (cli_parse_u64("-s", optarg, 0, UINT64_MAX, &o->ring_kb))
				return -EINVAL;
			if (o->ring_kb < RING_KB_MIN || o->ring_kb > RING_KB_MAX) {
				cli_error("invalid value '%s' for -s: give kilobytes, %d to %llu", optarg,
					  RING_KB_MIN, RING_KB_MAX);
				return -EINVAL;
			}
			break;
		case 'f':
			if (path_arg("-f", "the fifo's path", &o->fifo))
				return -EINVAL;
			break;
		case 'e':
			if (cli_parse_u64("-e", optarg, 0, PK_OA_EXPONENT_MAX, &v))
				return -EINVAL;
			o->exponent = (int)v;
			break;
		case 'o':
			if (path_arg("-o", "a file name", &o->output))
				return -EINVAL;
			break;
		case OPT_DURATION:
			if (cli_parse_seconds("--duration", optarg, &o->duration))
				return -EINVAL;
			break;
		case OPT_CARD:
			if (cli_parse_u64("--card", optarg, 0, 255, &v))
				return -EINVAL;
			o->card = (int)v;
			break;
		case 'k':
			if ((o->clock = pk_oa_cpu_clock_parse(optarg)) < 0) {
				cli_error("invalid value '%s' for -k: give mono, mono_raw or boot", optarg);
				return -EINVAL;
			}
			break;
		case OPT_CORRELATION_PERIOD:
			if (cli_parse_seconds("--correlation-period", optarg, &o->correlation_period))
				return -EINVAL;
			if (o->correlation_period < 0.001) {
				cli_error("invalid value '%s' for --correlation-period: at least 0.001 s", optarg);
				return -EINVAL;
			}
			break;
		case OPT_METRICS: o->metrics = optarg; break;
		case OPT_METRICS_DIR: o->metrics_dir = optarg; break;
		case OPT_GUID: o->guid = optarg; break;
		case OPT_METRIC_ID:
			if (cli_parse_u64("--metric-id", optarg, 1, UINT64_MAX, &o->metric_id))
				return -EINVAL;
			break;
		case OPT_SYS_ROOT: o->sys_root = optarg; break;
		case OPT_DEV_ROOT: o->dev_root = optarg; break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case '?':
			cli_bad_option(argv, "mpeokPsf");
			return -EINVAL;
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	if (o->fifo && !o->ring_kb)
		o->ring_kb = FIFO_RING_KB;
	if (o->metrics && o->metrics_dir) {
		cli_error("--metrics and --metrics-dir cannot be given together");
		return -EINVAL;
	}
	return 0;
}

/*
 * The set's symbol name and GUID: from --guid, else from the platform's
 * metric file. *@m holds the strings (free with pk_oa_metrics_free).
 */
static int resolve_set(const struct rec_cli *o, const struct pk_oa_device *dev,
		       struct pk_oa_metrics **m, const char **name, const char **guid)
{
	const struct pk_oa_platform *p = pk_oa_device_platform(dev);
	const struct pk_oa_set_info *set;
	char path[4096];
	struct pk_diag d;
	int err;

	*name = o->set;
	*guid = o->guid;
	if (o->guid || (o->metric_id && !o->metrics && !o->metrics_dir))
		return 0;
	pk_diag_init(&d);
	if ((err = pk_oa_metrics_path(o->metrics, o->metrics_dir, p->metrics, path, sizeof(path), &d))) {
		cli_diag(&d, err);
		fprintf(stderr, "hint: give the metric file with --metrics FILE, or the set's GUID with --guid\n");
		return -ENOENT;
	}
	if ((err = pk_oa_metrics_load(path, m, &d))) {
		cli_diag(&d, err);
		return err;
	}
	set = pk_oa_metrics_find_set(*m, o->set);
	if (!set || !set->hw_config_guid) {
		cli_error("'%s': no metric set '%s'%s", path, o->set, set ? " with a GUID" : "");
		pk_diag_init(&d);
		if (!set)
			pk_oa_metrics_suggest_set(*m, o->set, &d);
		if (d.hint[0])
			fprintf(stderr, "hint: %s\n", d.hint);
		else
			fprintf(stderr, "hint: perfkit oa list --metrics %s lists the sets\n", path);
		return -ENOENT;
	}
	*name = set->symbol_name;
	*guid = set->hw_config_guid;
	return 0;
}

struct run {
	struct pk_workload wl;
	int child_status;
	bool pending;         /* a command waits to be released */
	int start_err;        /* its exec's -errno */
	struct pk_diag start_diag;
};

/* Reap the command if it has ended. 1 when it has (status kept), 0 while it runs. */
static int child_done(struct run *r)
{
	return cli_reap_child(&r->wl.pid, &r->child_status);
}

/*
 * Asked by the capture after every poll. The first call comes once the
 * stream is open and the recording's header written: the command is
 * released then, so that all of it is recorded.
 */
static int should_stop(void *ctx)
{
	struct run *r = ctx;

	if (r->pending) {
		r->pending = false;
		pk_diag_init(&r->start_diag);
		if ((r->start_err = pk_workload_start(&r->wl, &r->start_diag)))
			return 1;
	}
	return stop || child_done(r);
}

/* Stop a command still running (Ctrl-C, --duration, an error) with SIGTERM. */
static void end_child(struct run *r)
{
	int st;

	if (r->wl.pid <= 0)
		return;
	kill(r->wl.pid, SIGTERM);
	while (waitpid(r->wl.pid, &st, 0) < 0) {
		if (errno != EINTR) {
			st = 0;
			break;
		}
	}
	r->wl.pid = -1;
}

int cmd_oa_record(int argc, char **argv)
{
	struct rec_cli o = { .set = "RenderBasic", .output = "i915_perf.record", .exponent = -1,
			     .card = -1, .period_ns = 1000000 };
	struct pk_oa_device_opts dopts = { .sz = sizeof(dopts) };
	struct pk_oa_capture_opts copts = { .sz = sizeof(copts) };
	struct pk_oa_capture_stats st;
	struct run r = { .child_status = -1, .wl = { .pid = -1, .go_fd = -1, .err_fd = -1 } };
	struct pk_oa_metrics *m = NULL;
	struct pk_oa_device *dev = NULL;
	static struct oa_fifo fifo = { .fd = -1 };
	const char *name, *guid;
	struct sigaction sa;
	struct pk_diag d;
	char in_file[64] = "";
	int err, status = 0;

	if ((err = parse(&o, argc, argv)))
		return err > 0 ? 0 : 2;
	cli_log_init(0);
	pk_diag_init(&d);
	dopts.sys_root = o.sys_root;
	dopts.dev_root = o.dev_root;
	dopts.card = o.card;
	if ((err = pk_oa_device_open(&dopts, &dev, &d))) {
		cli_diag(&d, err);
		return 1;
	}
	if (resolve_set(&o, dev, &m, &name, &guid)) {
		status = 2;
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;   /* no SA_RESTART: poll ends at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.fifo && oa_fifo_open(&fifo, o.fifo)) {
		status = 2;
		goto out;
	}
	if (o.argv && (err = pk_workload_prepare(&r.wl, o.argv, &d))) {
		cli_diag(&d, err);
		status = 2;
		goto out;
	}
	copts.metric_set_name = name;
	copts.metric_set_uuid = guid;
	copts.metric_id = o.metric_id;
	copts.exponent = o.exponent;
	copts.period_ns = o.period_ns;
	copts.duration_ns = (uint64_t)(o.duration * 1e9);
	copts.correlation_period_ns = (uint64_t)(o.correlation_period * 1e9);
	copts.cpu_clock = (enum pk_oa_cpu_clock)o.clock;
	copts.should_stop = should_stop;
	copts.stop_ctx = &r;
	copts.poll_period_ns = o.poll_period_ns;
	copts.ring_size = (size_t)(o.ring_kb * 1024);
	if (o.fifo) {
		copts.control = oa_fifo_control;
		copts.control_ctx = &fifo;
		fprintf(stderr, "[ perfkit oa record: recording into a circular buffer of %llu KB; i915-perf-control -f %s -d FILE writes it to FILE ]\n",
			(unsigned long long)o.ring_kb, o.fifo);
	}
	r.pending = o.argv != NULL;
	pk_diag_init(&d);
	err = pk_oa_capture_run(dev, &copts, o.output, &st, &d);
	end_child(&r);
	if (r.start_err) {
		cli_error("'%s': %s", o.argv[0], r.start_diag.msg);
		status = pk_workload_start_exit_code(&r.wl, r.start_err);
	}
	if (err) {
		cli_diag(&d, err);
		status = 1;
		if (!st.correlations)
			goto out;
	}
	if (stop)
		fprintf(stderr, "[ perfkit oa record: interrupted by a signal; the file is complete ]\n");
	if (st.reports_written != st.reports)        /* the ring's last ones, or a write failed */
		snprintf(in_file, sizeof(in_file), " (%s%llu in the file)",
			 o.ring_kb && st.reports_written + st.reports_dropped == st.reports ? "the last " : "",
			 (unsigned long long)st.reports_written);
	fprintf(stderr, "[ perfkit oa record: %s (%s, metric set %s, id %llu), exponent %d (%.3f ms) ]\n",
		pk_oa_device_node(dev), pk_oa_device_platform(dev)->name, name,
		(unsigned long long)st.metric_id, st.exponent, st.period_ns / 1e6);
	fprintf(stderr, "[ perfkit oa record: %llu report%s%s, %llu lost, %llu buffer overflow%s, %llu correlation point%s, %.3f MB written to %s ]\n",
		(unsigned long long)st.reports, st.reports == 1 ? "" : "s",
		in_file,
		(unsigned long long)st.reports_lost,
		(unsigned long long)st.buffers_lost, st.buffers_lost == 1 ? "" : "s",
		(unsigned long long)st.correlations, st.correlations == 1 ? "" : "s",
		st.file_bytes / 1e6, o.output);
	if (!status && !r.start_err && r.child_status >= 0 && o.argv) {
		if (WIFEXITED(r.child_status))
			status = WEXITSTATUS(r.child_status);
		else if (WIFSIGNALED(r.child_status))
			status = 128 + WTERMSIG(r.child_status);
	}
out:
	oa_fifo_close(&fifo);
	if (r.wl.pid > 0)
		pk_workload_abort(&r.wl);
	pk_oa_metrics_free(m);
	pk_oa_device_close(dev);
	return status;
}
