/*
 * perfkit gpu record and perfkit gpu report: the JSON Lines recording of
 * DRM fdinfo (format in lib/gpu/recording.c) and its replay.
 *
 * record: a scanner whose every fdinfo text goes to a pk_gpu_recorder, one
 * scan line per -d seconds, until -n scans, Ctrl-C, or the end of the
 * command given after "--" (scanned with its descendants; perfkit exits
 * with its status, like perf record). The file is complete whichever way
 * it stops. report: every recorded interval through a tracker, printed as
 * text or JSON Lines, then the per-client summary.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/gpu.h>
#include "cli.h"

static const char record_usage[] =
	"usage: perfkit gpu record [-d SECS] [-n N] [-o FILE|-] [-p PID] [--proc-root DIR]\n"
	"                          [--sys-root DIR] [-- CMD ...]\n"
	"\n"
	"Record every DRM client's fdinfo, as read, to a JSON Lines file.\n"
	"\n"
	"  -d, --delay SECS       seconds between scans (default 1, fractions allowed)\n"
	"  -n, --iterations N     stop after N scans (default: until Ctrl-C or CMD exits)\n"
	"  -o, --output FILE      the recording (default perfkit-gpu.jsonl, - for stdout)\n"
	"  -p, --pid PID          only this process and its descendants\n"
	"      --proc-root DIR    read processes from DIR instead of /proc\n"
	"      --sys-root DIR     read devices from DIR instead of /sys\n"
	"  CMD                    run it and record it and its descendants until it exits\n";

static const char report_usage[] =
	"usage: perfkit gpu report FILE [--json]\n"
	"\n"
	"Replay a recording of perfkit gpu record: every interval, then a summary per client.\n"
	"\n"
	"  -i, --input FILE       the recording (or give it as the argument)\n"
	"      --json             one JSON object per interval, then the summary object\n";

enum { OPT_PROC_ROOT = 256, OPT_SYS_ROOT, OPT_JSON };

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* ---- record ------------------------------------------------------------------------ */

struct rec_cli {
	double delay;
	long iterations;
	pid_t pid;
	const char *output, *proc_root, *sys_root;
	char **argv;          /* the command after "--", or NULL */
};

struct rec_run {
	struct rec_cli *o;
	struct pk_gpu_scanner *sc;
	struct pk_gpu_recorder *rec;
	struct pk_workload wl;
	uint64_t scans, samples;
	int child_status;     /* -1 while it runs or when there is none */
};

static int rec_parse(struct rec_cli *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "proc-root", required_argument, NULL, OPT_PROC_ROOT },
		{ "sys-root", required_argument, NULL, OPT_SYS_ROOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+d:n:o:p:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (cli_parse_seconds("-d", optarg, &o->delay))
				return -EINVAL;
			break;
		case 'n':
			if (cli_parse_count("-n", optarg, &o->iterations))
				return -EINVAL;
			break;
		case 'o':
			if (!*optarg) {
				cli_error("invalid value '' for -o: give a file name or -");
				return -EINVAL;
			}
			o->output = optarg;
			break;
		case 'p':
			if (cli_parse_pid("-p", optarg, &o->pid))
				return -EINVAL;
			break;
		case OPT_PROC_ROOT: o->proc_root = optarg; break;
		case OPT_SYS_ROOT: o->sys_root = optarg; break;
		case 'h':
			fputs(record_usage, stdout);
			return 1;
		case '?':
			cli_bad_option(argv, "dnop");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		/* "--" ends the options; a command without it is accepted too, as perf does */
		o->argv = argv + optind;
	}
	if (o->argv && o->pid) {
		cli_error("-p cannot be combined with a command");
		return -EINVAL;
	}
	return 0;
}

/* The scanner's fdinfo callback: every text read goes to the recorder. */
static int rec_on_fdinfo(void *ctx, const struct pk_gpu_fd_sample *s, const char *text, size_t len)
{
	struct rec_run *r = ctx;

	if (!r->rec)
		return 0;
	r->samples++;
	return pk_gpu_rec_fdinfo(r->rec, s, text, len);
}

/* Reap the command if it has ended. 1 when it has (status kept), 0 while it runs. */
static int child_done(struct rec_run *r)
{
	return cli_reap_child(&r->wl.pid, &r->child_status);
}

/*
 * Sleep until @deadline in steps of at most 20 ms, so that a command ending
 * early, or Ctrl-C, ends the recording at once. 1 when it must stop.
 */
static int rec_wait(struct rec_run *r, uint64_t deadline)
{
	for (;;) {
		uint64_t now = pk_now_ns(), left;
		struct timespec ts;

		if (stop || child_done(r))
			return 1;
		if (now >= deadline)
			return 0;
		left = deadline - now;
		if (left > 20000000)
			left = 20000000;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)left;
		nanosleep(&ts, NULL);
	}
}

/* The scans. 0, or 1 after a message (a scan or write failed). */
static int rec_loop(struct rec_run *r)
{
	uint64_t delay_ns = (uint64_t)(r->o->delay * 1e9);
	uint64_t next = pk_now_ns();

	for (;;) {
		struct pk_diag d;
		int err;

		pk_diag_init(&d);
		if ((err = pk_gpu_scanner_refresh(r->sc, &d))) {
			cli_diag(&d, err);
			return 1;
		}
		pk_diag_init(&d);
		if ((err = pk_gpu_rec_scan(r->rec, pk_gpu_scanner_snapshot(r->sc), &d))) {
			cli_diag(&d, err);
			return 1;
		}
		r->scans++;
		if (r->o->iterations && (long)r->scans >= r->o->iterations)
			return 0;
		next += delay_ns;
		if (rec_wait(r, next))
			return 0;
		if (next < pk_now_ns())
			next = pk_now_ns();
	}
}

/*
 * Stop a command still running (Ctrl-C, -n, an error) with SIGTERM, as
 * perf stat --timeout does, and collect its status. 1 when it was stopped.
 */
static int rec_end_child(struct rec_run *r)
{
	int st;

	if (r->wl.pid <= 0)
		return 0;
	kill(r->wl.pid, SIGTERM);
	while (waitpid(r->wl.pid, &st, 0) < 0) {
		if (errno != EINTR) {
			st = 0;
			break;
		}
	}
	r->child_status = st;
	r->wl.pid = -1;
	return 1;
}

int cmd_gpu_record(int argc, char **argv)
{
	struct rec_cli o = { .delay = 1.0, .output = "perfkit-gpu.jsonl" };
	struct rec_run r = { .o = &o, .child_status = -1, .wl = { .pid = -1, .go_fd = -1, .err_fd = -1 } };
	struct pk_gpu_scan_opts so = { .sz = sizeof(so) };
	const struct pk_gpu_device *devs;
	struct sigaction sa;
	struct pk_diag d;
	uint32_t n_devs = 0;
	int err, status = 0, ended_by_us;

	if ((err = rec_parse(&o, argc, argv)))
		return err > 0 ? 0 : 2;
	cli_log_init(0);
	pk_diag_init(&d);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;   /* no SA_RESTART: sleeps end at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (o.argv && (err = pk_workload_prepare(&r.wl, o.argv, &d))) {
		cli_diag(&d, err);
		return cli_status_of(err);
	}
	so.proc_root = o.proc_root;
	so.sys_root = o.sys_root;
	so.pid = o.argv ? r.wl.pid : o.pid;
	/*
	 * The recorder needs the scanner's devices and the scanner needs the
	 * callback: the callback reaches the recorder through the run.
	 */
	so.on_fdinfo = rec_on_fdinfo;
	so.on_fdinfo_ctx = &r;
	r.sc = pk_gpu_scanner_new(&so, &d);
	if (!r.sc) {
		err = -errno;
		cli_diag(&d, err);
		pk_workload_abort(&r.wl);
		return cli_status_of(err);
	}
	devs = pk_gpu_scanner_devices(r.sc, &n_devs);
	r.rec = pk_gpu_rec_open(o.output, devs, n_devs, (uint64_t)(o.delay * 1e9), &d);
	if (!r.rec) {
		err = -errno;
		cli_diag(&d, err);
		pk_gpu_scanner_free(r.sc);
		pk_workload_abort(&r.wl);
		return cli_status_of(err);
	}
	if (o.argv && (err = pk_workload_start(&r.wl, &d))) {
		cli_error("'%s': %s", o.argv[0], d.msg);
		status = pk_workload_start_exit_code(&r.wl, err);
		pk_gpu_rec_close(r.rec, &d);
		pk_gpu_scanner_free(r.sc);
		return status;
	}

	status = rec_loop(&r);
	ended_by_us = rec_end_child(&r);
	pk_diag_init(&d);
	if ((err = pk_gpu_rec_close(r.rec, &d))) {
		cli_diag(&d, err);
		status = 1;
	}
	r.rec = NULL;
	pk_gpu_scanner_free(r.sc);
	if (stop)
		fprintf(stderr, "[ perfkit gpu record: interrupted by a signal; the file is complete ]\n");
	fprintf(stderr, "[ perfkit gpu record: %llu scan%s, %llu client sample%s written to %s ]\n",
		(unsigned long long)r.scans, r.scans == 1 ? "" : "s",
		(unsigned long long)r.samples, r.samples == 1 ? "" : "s",
		strcmp(o.output, "-") ? o.output : "standard output");
	if (status)
		return status;
	/* -n ended the recording before the command: it was stopped on purpose */
	if (ended_by_us && !stop)
		return 0;
	if (r.child_status >= 0 && o.argv) {
		if (WIFEXITED(r.child_status))
			return WEXITSTATUS(r.child_status);
		if (WIFSIGNALED(r.child_status)) {
			fprintf(stderr, "[ perfkit gpu record: the command was killed by signal %d ]\n",
				WTERMSIG(r.child_status));
			return 128 + WTERMSIG(r.child_status);
		}
	}
	return 0;
}

/* ---- report ------------------------------------------------------------------------ */

struct report_run {
	int json;
	struct pk_gpu_summary *sm;
	struct pk_buf buf;
	uint64_t intervals;
	int err;              /* a failure of ours (-ENOMEM, -EIO), not the file's */
};

static int report_scan(void *ctx, const struct pk_gpu_snapshot *s)
{
	struct report_run *r = ctx;
	struct pk_gpu_view_opts vo = { .sort = PK_GPU_SORT_BUSY };
	int err;

	r->buf.len = 0;
	if ((err = pk_gpu_summary_add(r->sm, s)))
		goto fail;
	if (r->json) {
		err = pk_gpu_snapshot_json(s, &r->buf);
	} else {
		if (r->intervals && (err = pk_buf_append(&r->buf, "\n", 1)))
			goto fail;
		err = pk_gpu_snapshot_text(s, &vo, 0, &r->buf);
	}
	if (err)
		goto fail;
	r->intervals++;
	if ((r->buf.len && fwrite(r->buf.data, 1, r->buf.len, stdout) != r->buf.len) || fflush(stdout)) {
		err = -EIO;
		goto fail;
	}
	return 0;
fail:
	r->err = err;
	return err;
}

int cmd_gpu_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_run r = { 0 };
	const char *file = NULL;
	struct pk_diag d;
	int opt, err, status = 0;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "i:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i': file = optarg; break;
		case OPT_JSON: r.json = 1; break;
		case 'h':
			fputs(report_usage, stdout);
			return 0;
		case '?':
			cli_bad_option(argv, "i");
			return 2;
		}
	}
	if (optind < argc) {
		if (file || optind + 1 < argc) {
			cli_error("unexpected argument '%s'", argv[file ? optind : optind + 1]);
			return 2;
		}
		file = argv[optind];
	}
	if (!file) {
		cli_error("no recording given");
		fputs(report_usage, stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	r.sm = pk_gpu_summary_new();
	if (!r.sm) {
		cli_error("out of memory");
		return 1;
	}
	pk_buf_init(&r.buf);
	pk_diag_init(&d);
	err = pk_gpu_replay_file(file, report_scan, &r, &d);
	if (err && r.err) {
		/* our own failure, returned through the replay */
		if (r.err == -EIO) {
			if (errno != EPIPE)
				cli_error("cannot write to standard output: %s", strerror(errno));
		} else {
			cli_error("%s", strerror(-r.err));
		}
		status = 1;
	} else if (err) {
		if (!d.subject[0])
			pk_diag_subject(&d, file);
		cli_diag(&d, err);
		status = cli_status_of(err);
	} else {
		r.buf.len = 0;
		if (!r.json)
			err = pk_buf_append(&r.buf, "\n", 1);
		if (!err)
			err = r.json ? pk_gpu_summary_json(r.sm, &r.buf) : pk_gpu_summary_text(r.sm, &r.buf);
		if (err) {
			cli_error("%s", strerror(-err));
			status = 1;
		} else if ((r.buf.len && fwrite(r.buf.data, 1, r.buf.len, stdout) != r.buf.len) ||
			   fflush(stdout)) {
			if (errno != EPIPE)
				cli_error("cannot write to standard output: %s", strerror(errno));
			status = 1;
		}
	}
	pk_buf_release(&r.buf);
	pk_gpu_summary_free(r.sm);
	return status;
}
