/*
 * perfkit gpu: per-client GPU usage from DRM fdinfo. This file dispatches
 * `perfkit gpu <verb>` (top, record, report, serve) and implements the
 * default verb, `perfkit gpu [top]`: a pk_gpu_scanner refreshed every -d
 * seconds, each snapshot printed as JSON Lines (--json), CSV (--csv), plain
 * text (no terminal, or --stdio) or the ncurses view of gpu_view.c.
 *
 * Every refresh is printed, the first one included: it has no utilization
 * yet (busy "-" in text, null in JSON) but already has the clients and
 * their memory. A machine with no DRM device and no client gets a message
 * on stderr and exit status 0 after the first refresh; --json and --csv
 * still print that first, empty, snapshot (valid data for a pipeline).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/gpu.h>
#include "cli.h"
#include "cmd_gpu_serve.h"
#include "gpu_view.h"

static const char usage_text[] =
	"usage: perfkit gpu [top] [-d SECS] [-n N] [-p PID] [--json|--csv|--stdio]\n"
	"                   [--proc-root DIR] [--sys-root DIR]\n"
	"       perfkit gpu record [-d SECS] [-n N] [-o FILE|-] [-p PID] [--proc-root DIR]\n"
	"                          [--sys-root DIR] [-- CMD ...]\n"
	"       perfkit gpu report FILE [--json]\n"
	"       perfkit gpu serve --listen ADDR:PORT [...]\n"
	"\n"
	"Per-client GPU usage from DRM fdinfo (/proc/PID/fdinfo), for every driver.\n"
	"\n"
	"  -d, --delay SECS       seconds between refreshes (default 1, fractions allowed)\n"
	"  -n, --iterations N     stop after N refreshes (default: until q or Ctrl-C)\n"
	"  -p, --pid PID          only this process and its descendants\n"
	"      --json             one JSON object per refresh (JSON Lines)\n"
	"      --csv              one CSV row per client engine and memory region\n"
	"      --stdio            plain text per refresh instead of the full-screen view\n"
	"      --proc-root DIR    read processes from DIR instead of /proc\n"
	"      --sys-root DIR     read devices from DIR instead of /sys\n"
	"\n"
	"The first refresh has no utilization yet (busy '-'); reading xe fdinfo wakes\n"
	"the device, so keep -d modest on laptops. Keys of the full-screen view:\n"
	"q quit, s sort, p per-process, f filter (pid=N driver=D device=PDEV), h help.\n";

enum gpu_out { OUT_AUTO, OUT_STDIO, OUT_JSON, OUT_CSV };

struct gpu_cli {
	double delay;
	long iterations;
	pid_t pid;
	enum gpu_out out;
	const char *proc_root, *sys_root;
};

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int parse_args(struct gpu_cli *o, int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_CSV, OPT_STDIO, OPT_PROC_ROOT, OPT_SYS_ROOT };
	static const struct option longopts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "proc-root", required_argument, NULL, OPT_PROC_ROOT },
		{ "sys-root", required_argument, NULL, OPT_SYS_ROOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+d:n:p:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (cli_parse_seconds("-d", optarg, &o->delay))
				return -EINVAL;
			break;
		case 'n':
			if (cli_parse_count("-n", optarg, &o->iterations))
				return -EINVAL;
			break;
		case 'p':
			if (cli_parse_pid("-p", optarg, &o->pid))
				return -EINVAL;
			break;
		case OPT_JSON:
		case OPT_CSV:
			if (o->out == OUT_JSON || o->out == OUT_CSV) {
				cli_error("--json and --csv cannot be given together");
				return -EINVAL;
			}
			o->out = opt == OPT_JSON ? OUT_JSON : OUT_CSV;
			break;
		case OPT_STDIO:
			if (o->out == OUT_AUTO)
				o->out = OUT_STDIO;
			break;
		case OPT_PROC_ROOT: o->proc_root = optarg; break;
		case OPT_SYS_ROOT: o->sys_root = optarg; break;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case '?':
			cli_bad_option(argv, "dnp");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* ---- the run ------------------------------------------------------------------- */

struct gpu_run {
	struct gpu_cli *o;
	struct pk_gpu_scanner *sc;
	struct gpu_view *view;
	struct pk_buf buf;
	int csv_header_done;
	int exit_status;          /* of a run that a failed print ends: 0 on a closed pipe */
};

static unsigned term_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 0;
}

/* Write @r->buf to stdout and flush. 0, or -EIO when stdout is gone (@r's exit status set). */
static int emit(struct gpu_run *r)
{
	if (r->buf.len && fwrite(r->buf.data, 1, r->buf.len, stdout) != r->buf.len)
		goto fail;
	if (fflush(stdout))
		goto fail;
	return 0;
fail:
	if (errno != EPIPE)
		cli_error("cannot write to standard output: %s", strerror(errno));
	r->exit_status = errno == EPIPE ? 0 : 1;
	return -EIO;
}

/*
 * Print one snapshot in the chosen form (not the ncurses view): 0, or
 * an error with @r's exit status set.
 */
static int print_snapshot(struct gpu_run *r, const struct pk_gpu_snapshot *s)
{
	struct pk_gpu_view_opts vo = { .sort = PK_GPU_SORT_BUSY };
	int err;

	r->buf.len = 0;
	switch (r->o->out) {
	case OUT_JSON:
		err = pk_gpu_snapshot_json(s, &r->buf);
		break;
	case OUT_CSV:
		err = pk_gpu_snapshot_csv(s, !r->csv_header_done, &r->buf);
		r->csv_header_done = 1;
		break;
	default:
		/* refreshes one after another, separated by a blank line */
		if (s->seq > 1 && (err = pk_buf_append(&r->buf, "\n", 1)))
			break;
		err = pk_gpu_snapshot_text(s, &vo, term_width(), &r->buf);
		break;
	}
	if (err) {
		cli_error("cannot format the snapshot: %s", strerror(-err));
		r->exit_status = 1;
		return err;
	}
	return emit(r);
}

/* Sleep until @deadline (CLOCK_MONOTONIC ns) or a stop; the view reads keys meanwhile. */
static int wait_until(struct gpu_run *r, uint64_t deadline, const struct pk_gpu_snapshot *s)
{
	for (;;) {
		uint64_t now = pk_now_ns();
		uint64_t left;

		if (stop)
			return 1;
		if (now >= deadline)
			return 0;
		left = deadline - now;
		if (r->view) {
			int ms = (int)(left / 1000000 + 1);

			/* keys are looked at every 100 ms so that q answers at once */
			if (gpu_view_keys(r->view, s, ms > 100 ? 100 : ms) == GPU_VIEW_QUIT)
				return 1;
		} else {
			struct timespec ts = { .tv_sec = (time_t)(left / 1000000000),
					       .tv_nsec = (long)(left % 1000000000) };

			nanosleep(&ts, NULL);   /* EINTR: the loop looks at stop */
		}
	}
}

static void no_gpu_message(const struct gpu_cli *o)
{
	const char *sys = o->sys_root ? o->sys_root : "/sys";
	const char *proc = o->proc_root ? o->proc_root : "/proc";
	size_t l = strlen(sys);

	cli_error("no DRM devices under %s%sclass/drm and no GPU clients in %s", sys,
		  l && sys[l - 1] == '/' ? "" : "/", proc);
}

static void unreadable_message(const struct pk_gpu_scan_stats *st)
{
	cli_error("%u process%s not readable: run as root or with CAP_SYS_PTRACE", st->unreadable,
		  st->unreadable == 1 ? "" : "es");
}

static int run_loop(struct gpu_run *r)
{
	uint64_t delay_ns = (uint64_t)(r->o->delay * 1e9);
	uint64_t next = pk_now_ns();
	long done = 0;
	int warned_unreadable = 0;

	for (;;) {
		const struct pk_gpu_snapshot *s;
		struct pk_diag d;
		int err;

		pk_diag_init(&d);
		if ((err = pk_gpu_scanner_refresh(r->sc, &d))) {
			if (r->view) {
				gpu_view_close(r->view);
				r->view = NULL;
			}
			cli_diag(&d, err);
			return 1;
		}
		s = pk_gpu_scanner_snapshot(r->sc);
		next += delay_ns;
		if (s->seq == 1 && !s->n_devices && !s->n_clients) {
			if (r->o->out == OUT_JSON || r->o->out == OUT_CSV)
				if (print_snapshot(r, s))
					return r->exit_status;
			no_gpu_message(r->o);
			return 0;
		}
		if (s->stats.unreadable && !warned_unreadable && !r->view) {
			unreadable_message(&s->stats);
			warned_unreadable = 1;
		}
		if (s->seq == 1 && r->o->out == OUT_AUTO && !r->view) {
			/* the view starts once there is something to show */
			if (gpu_view_open(&r->view, r->o->delay) == -ENOMEM) {
				cli_error("out of memory");
				return 1;
			}
		}
		if (r->view) {
			if (gpu_view_draw(r->view, s)) {
				gpu_view_close(r->view);
				r->view = NULL;
				cli_error("out of memory");
				return 1;
			}
		} else if (print_snapshot(r, s)) {
			return r->exit_status;
		}
		if (r->o->iterations && ++done >= r->o->iterations)
			return 0;
		if (wait_until(r, next, s))
			return 0;
		if (next < pk_now_ns())
			next = pk_now_ns();   /* a slow scan: do not try to catch up */
	}
}

static int cmd_gpu_top(int argc, char **argv)
{
	struct gpu_cli o = { .delay = 1.0 };
	struct gpu_run r = { .o = &o };
	struct pk_gpu_scan_opts so = { .sz = sizeof(so) };
	struct sigaction sa;
	struct pk_diag d;
	int err, status;

	if ((err = parse_args(&o, argc, argv)))
		return err > 0 ? 0 : 2;
	cli_log_init(0);
	pk_diag_init(&d);
	so.proc_root = o.proc_root;
	so.sys_root = o.sys_root;
	so.pid = o.pid;
	r.sc = pk_gpu_scanner_new(&so, &d);
	if (!r.sc) {
		err = -errno;
		cli_diag(&d, err);
		return cli_status_of(err);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;   /* no SA_RESTART: sleeps end at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	pk_buf_init(&r.buf);
	status = run_loop(&r);
	if (r.view) {
		const struct pk_gpu_snapshot *s = pk_gpu_scanner_snapshot(r.sc);

		gpu_view_close(r.view);
		/* said after the screen is given back, so that it stays visible */
		if (s && s->stats.unreadable)
			unreadable_message(&s->stats);
	}
	pk_buf_release(&r.buf);
	pk_gpu_scanner_free(r.sc);
	return status;
}

/* ---- dispatch ------------------------------------------------------------------- */

static const struct cli_verb verbs[] = {
	{ "top", cmd_gpu_top },
	{ "record", cmd_gpu_record },
	{ "report", cmd_gpu_report },
	{ "serve", cmd_gpu_serve },
};

int cmd_gpu(int argc, char **argv)
{
	const struct cli_verb *match;

	/* no verb, or an option first: top */
	if (argc < 2 || argv[1][0] == '-')
		return cmd_gpu_top(argc, argv);
	if (!strcmp(argv[1], "help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	match = cli_find_verb(verbs, sizeof(verbs) / sizeof(verbs[0]), "gpu", argv[1]);
	if (!match) {
		fputs(usage_text, stderr);
		return 2;
	}
	return match->run(argc - 1, argv + 1);
}
