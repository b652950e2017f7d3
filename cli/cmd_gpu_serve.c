/*
 * perfkit gpu serve: a Prometheus endpoint. Every scrape of /metrics scans
 * the DRM clients once (pk_gpu_scanner_refresh) and answers with the text
 * exposition of pk_gpu_prom_write; the server is pk_gpu_serve. Runs until
 * SIGINT or SIGTERM (exit 0). Once bound it says where on stderr:
 *
 *   perfkit gpu serve: listening on http://127.0.0.1:9400/metrics
 *
 * with the real port when the port asked for was 0.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/gpu.h>
#include "cli.h"
#include "cmd_gpu_serve.h"

static const char usage_text[] =
	"usage: perfkit gpu serve --listen ADDR:PORT [-p PID] [--proc-root DIR] [--sys-root DIR]\n"
	"\n"
	"Serve per-client GPU usage (DRM fdinfo) for Prometheus at http://ADDR:PORT/metrics;\n"
	"every scrape scans the processes once. Stop with Ctrl-C or SIGTERM.\n"
	"\n"
	"  -l, --listen ADDR:PORT  where to listen: 127.0.0.1:9400, [::1]:9400, :9400 (all\n"
	"                          IPv4 addresses); port 0 picks a free port\n"
	"  -p, --pid PID           only this process and its descendants\n"
	"      --proc-root DIR     read processes from DIR instead of /proc\n"
	"      --sys-root DIR      read devices from DIR instead of /sys\n"
	"\n"
	"Metrics (labels device, driver, pid, comm, client_id, and engine or region):\n"
	"perfkit_gpu_engine_busy_seconds_total, perfkit_gpu_engine_busy_cycles_total,\n"
	"perfkit_gpu_engine_total_cycles_total, perfkit_gpu_engine_capacity,\n"
	"perfkit_gpu_engine_max_frequency_hertz, perfkit_gpu_memory_{total,shared,resident,\n"
	"purgeable,active}_bytes; per device perfkit_gpu_clients; perfkit_gpu_drm_fds and\n"
	"perfkit_gpu_processes_unreadable (run as root to see every process).\n";

struct serve_cli {
	const char *listen, *proc_root, *sys_root;
	pid_t pid;
};

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int parse_args(struct serve_cli *o, int argc, char **argv)
{
	enum { OPT_PROC_ROOT = 256, OPT_SYS_ROOT };
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "pid", required_argument, NULL, 'p' },
		{ "proc-root", required_argument, NULL, OPT_PROC_ROOT },
		{ "sys-root", required_argument, NULL, OPT_SYS_ROOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+l:p:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l': o->listen = optarg; break;
		case 'p':
			if (cli_parse_pid("-p", optarg, &o->pid))
				return -EINVAL;
			break;
		case OPT_PROC_ROOT: o->proc_root = optarg; break;
		case OPT_SYS_ROOT: o->sys_root = optarg; break;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case '?':
			cli_bad_option(argv, "lp");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	if (!o->listen) {
		cli_error("--listen ADDR:PORT is required");
		return -EINVAL;
	}
	return 0;
}

struct ready_ctx {
	const char *listen;
};

/* "perfkit gpu serve: listening on http://HOST:PORT/metrics", HOST as given. */
static void on_ready(void *ctx, int port)
{
	const struct ready_ctx *r = ctx;
	const char *colon = strrchr(r->listen, ':');
	int hl = colon ? (int)(colon - r->listen) : 0;

	if (hl == 0)
		fprintf(stderr, "perfkit gpu serve: listening on http://0.0.0.0:%d/metrics\n", port);
	else
		fprintf(stderr, "perfkit gpu serve: listening on http://%.*s:%d/metrics\n", hl,
			r->listen, port);
	fflush(stderr);
}

int cmd_gpu_serve(int argc, char **argv)
{
	struct serve_cli o = { 0 };
	struct pk_gpu_scan_opts so = { .sz = sizeof(so) };
	struct ready_ctx rc;
	struct pk_gpu_scanner *sc;
	struct sigaction sa;
	struct pk_diag d;
	int err;

	if ((err = parse_args(&o, argc, argv)))
		return err > 0 ? 0 : 2;
	so.proc_root = o.proc_root;
	so.sys_root = o.sys_root;
	so.pid = o.pid;
	pk_diag_init(&d);
	sc = pk_gpu_scanner_new(&so, &d);
	if (!sc) {
		cli_diag(&d, -errno);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;   /* no SA_RESTART: a poll ends at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);   /* the library sends with MSG_NOSIGNAL; this covers stdio */

	rc.listen = o.listen;
	pk_diag_init(&d);
	err = pk_gpu_serve(sc, o.listen, &stop, on_ready, &rc, &d);
	pk_gpu_scanner_free(sc);
	if (err) {
		cli_diag(&d, err);
		return 2;
	}
	return 0;
}
