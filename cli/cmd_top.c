/*
 * perfkit top: a live profile, like `perf top`. Opens sampling events on
 * the target (the whole system by default), feeds the side band of what
 * already runs and every record drained from the rings into a pk_top, and
 * every -d seconds prints the hottest symbols of that interval: as text
 * (--stdio, or without a terminal) or full screen with ncurses.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <perfkit/record.h>
#include <perfkit/top.h>
#include "cli.h"

static const char usage_text[] =
	"usage: perfkit top [-e EVENTS] [-a|-p PID|-C CPUS] [-F HZ|-c N] [-d SECS] [-n N]\n"
	"                   [-E ROWS] [-m PAGES] [--stdio] [-K] [-U] [-v]\n"
	"\n"
	"  -e, --event EVENTS     events to sample (default cycles, cpu-clock where there is no PMU)\n"
	"  -a, --all-cpus         the whole system (the default without -p/-C)\n"
	"  -p, --pid PID          one process (and the threads it starts)\n"
	"  -C, --cpu CPUS         only these CPUs (\"0-3,8\")\n"
	"  -F, --freq HZ          samples per second per CPU (default 4000)\n"
	"  -c, --count N          a sample every N events instead of -F\n"
	"  -d, --delay SECS       seconds between refreshes (default 2)\n"
	"  -n, --iterations N     stop after N refreshes (default: until q or Ctrl-C)\n"
	"  -E, --entries ROWS     rows to show (default: the terminal's height, or 20)\n"
	"  -m, --mmap-pages N     ring buffer pages per CPU (a power of two)\n"
	"      --stdio            plain text per refresh instead of the full-screen view\n"
	"  -K, --hide_kernel_symbols   leave out kernel symbols\n"
	"  -U, --hide_user_symbols     leave out user symbols\n"
	"  -v, --verbose          more messages\n";

struct top_cli {
	const char *events, *cpu_list;
	pid_t pid;
	int all_cpus, stdio, hide_kernel, hide_user, verbose;
	uint64_t freq, period;
	double delay;
	long iterations;
	size_t entries, mmap_pages;
};

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int parse_args(struct top_cli *o, int argc, char **argv)
{
	enum { OPT_STDIO = 256, OPT_TUI, OPT_CALL_GRAPH };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "entries", required_argument, NULL, 'E' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "tui", no_argument, NULL, OPT_TUI },
		{ "hide_kernel_symbols", no_argument, NULL, 'K' },
		{ "hide_user_symbols", no_argument, NULL, 'U' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "call-graph", optional_argument, NULL, OPT_CALL_GRAPH },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+e:ap:C:F:c:d:n:E:m:KUvgh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e': o->events = optarg; break;
		case 'a': o->all_cpus = 1; break;
		case 'p':
			if (cli_parse_pid("-p", optarg, &o->pid))
				return -EINVAL;
			break;
		case 'C': o->cpu_list = optarg; break;
		case 'F':
			if (cli_parse_u64("-F", optarg, 1, UINT32_MAX, &o->freq))
				return -EINVAL;
			break;
		case 'c':
			if (cli_parse_u64("-c", optarg, 1, UINT64_MAX, &o->period))
				return -EINVAL;
			break;
		case 'd':
			if (cli_parse_seconds("-d", optarg, &o->delay))
				return -EINVAL;
			break;
		case 'n':
			if (cli_parse_count("-n", optarg, &o->iterations))
				return -EINVAL;
			break;
		case 'E':
			if (cli_parse_u64("-E", optarg, 1, 1u << 20, &v))
				return -EINVAL;
			o->entries = (size_t)v;
			break;
		case 'm':
			if (cli_parse_u64("-m", optarg, 1, 1u << 20, &v))
				return -EINVAL;
			o->mmap_pages = (size_t)v;
			break;
		case OPT_STDIO: o->stdio = 1; break;
		case OPT_TUI: o->stdio = 0; break;
		case 'K': o->hide_kernel = 1; break;
		case 'U': o->hide_user = 1; break;
		case 'v': o->verbose++; break;
		case 'g':
		case OPT_CALL_GRAPH:
			cli_error("call graphs are not supported by perfkit top");
			return -EINVAL;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case '?':
			cli_bad_option(argv, "epCFcdnEm");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	if (o->freq && o->period) {
		cli_error("-F and -c cannot be given together");
		return -EINVAL;
	}
	if (o->pid && (o->all_cpus || o->cpu_list)) {
		cli_error("-p cannot be combined with -a or -C");
		return -EINVAL;
	}
	if (!o->pid && !o->cpu_list)
		o->all_cpus = 1;
	return 0;
}

/* ---- the run --------------------------------------------------------------------- */

struct top_run {
	struct top_cli *o;
	struct pk_sampler *s;
	struct pk_top *t;
	struct pk_top_view *view;
	struct pk_top_format_opts fmt;
	char target[128];
	int warned_bad;
};

/*
 * Read every ring into the profile's queue, leaving its samples unresolved
 * (pk_top_flush() resolves them). 0, or -EBADMSG when a ring is corrupt.
 */
static int read_rings(struct top_run *r)
{
	size_t n = pk_sampler_nr_rings(r->s);

	for (size_t i = 0; i < n; i++) {
		struct pk_ring *ring = pk_sampler_ring(r->s, i);
		const struct perf_event_header *h;
		struct pk_diag d;
		int err = 0;

		pk_ring_begin(ring);
		while ((h = pk_ring_next(ring, &err))) {
			int ret;

			pk_diag_init(&d);
			ret = pk_top_feed(r->t, h, &d);
			if (ret == -ENOMEM)
				return ret;
			if (ret < 0 && !r->warned_bad) {
				pk_log(PK_LOG_WARN, "skipping a corrupt record: %s", d.msg);
				r->warned_bad = 1;
			}
		}
		pk_ring_consume(ring);
		if (err) {
			cli_error("ring buffer %zu is corrupt: cannot go on", i);
			return err;
		}
	}
	return 0;
}

/* Read every ring and resolve what was read. 0, -EBADMSG or -ENOMEM. */
static int drain(struct top_run *r)
{
	int err = read_rings(r);

	return err ? err : pk_top_flush(r->t);
}

static void describe_target(struct top_run *r)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (r->o->pid)
		snprintf(r->target, sizeof(r->target), "target_pid: %d", (int)r->o->pid);
	else if (r->o->cpu_list)
		snprintf(r->target, sizeof(r->target), "all, CPU: %s", r->o->cpu_list);
	else
		snprintf(r->target, sizeof(r->target), "all, %ld CPU%s", ncpu, ncpu == 1 ? "" : "s");
	r->fmt.target = r->target;
}

static size_t stdio_rows(const struct top_cli *o)
{
	struct winsize ws;

	if (o->entries)
		return o->entries;
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 8)
		return (size_t)ws.ws_row - 7;
	return 20;
}

static int print_stdio(struct top_run *r, const struct pk_top_interval *iv)
{
	struct pk_buf out;
	int tty = isatty(STDOUT_FILENO);

	pk_buf_init(&out);
	r->fmt.max_rows = stdio_rows(r->o);
	if (pk_top_format(iv, &r->fmt, &out)) {
		pk_buf_release(&out);
		return -ENOMEM;
	}
	/* perf clears the screen between refreshes on a terminal; a pipe gets them one after another */
	if (tty)
		fputs("\033[H\033[2J", stdout);
	else if (iv->index)
		fputc('\n', stdout);
	if (out.len)
		fwrite(out.data, 1, out.len, stdout);
	if (iv->nr_bad)
		fprintf(stdout, "\n   (%llu corrupt records skipped)\n", (unsigned long long)iv->nr_bad);
	fflush(stdout);
	pk_buf_release(&out);
	return 0;
}

/* Handle the keys pressed so far; returns 1 when the user asked to quit. */
static int keys(struct top_run *r, const struct pk_top_interval *last, int wait_ms)
{
	int k, redraw = 0;

	while ((k = pk_top_view_key(r->view, wait_ms)) != 0) {
		wait_ms = 0;
		if (k == 'q' || k == 'Q' || k == 27)
			return 1;
		if (k == 'K') {
			r->fmt.hide_kernel = !r->fmt.hide_kernel;
			redraw = 1;
		} else if (k == 'U') {
			r->fmt.hide_user = !r->fmt.hide_user;
			redraw = 1;
		} else if (k == PK_TOP_VIEW_RESIZE) {
			redraw = 1;
		}
	}
	if (redraw)
		pk_top_view_draw(r->view, last, &r->fmt);
	return 0;
}

static int run_loop(struct top_run *r)
{
	uint64_t delay_ns = (uint64_t)(r->o->delay * 1e9);
	uint64_t next = pk_now_ns() + delay_ns;
	struct pk_top_interval iv;
	const struct pk_top_interval *last = NULL;
	long done = 0;
	int err = 0;

	if (r->view)
		pk_top_view_draw(r->view, NULL, &r->fmt);
	while (!stop) {
		uint64_t now = pk_now_ns();
		int all_gone = 0, wait_ms;

		if (now >= next) {
			/*
			 * What the rings hold was sampled in this interval: count it
			 * here. The interval ends when they are read, before its
			 * samples are resolved: resolving can take long (symbols
			 * loaded for the first time, a loaded machine), and the
			 * samples taken meanwhile wait in the rings for the next one.
			 */
			if ((err = read_rings(r)) || (err = pk_top_interval_end(r->t, &iv)))
				break;
			last = &iv;
			if (r->view)
				pk_top_view_draw(r->view, &iv, &r->fmt);
			else if ((err = print_stdio(r, &iv)))
				break;
			if (r->o->iterations && ++done >= r->o->iterations)
				break;
			/*
			 * Refreshes keep their cadence, but one that began more
			 * than half a delay late starts it anew: the next would
			 * otherwise show the little sampled in what is left.
			 */
			next += delay_ns;
			if (next < now + delay_ns / 2)
				next = now + delay_ns;
			continue;
		}
		wait_ms = (int)((next - now + 999999) / 1000000);
		/* keys are looked at every 100 ms so that q answers at once */
		if (r->view && wait_ms > 100)
			wait_ms = 100;
		err = pk_sampler_poll(r->s, wait_ms, &all_gone);
		if (err < 0 && err != -EINTR)
			break;
		err = drain(r);
		if (err)
			break;
		if (r->view && keys(r, last, 0))
			break;
		if (all_gone) {
			/* the target is gone: show what it did last, then stop */
			if (!(err = pk_top_interval_end(r->t, &iv)) && iv.nr_samples) {
				if (r->view)
					pk_top_view_draw(r->view, &iv, &r->fmt);
				else
					err = print_stdio(r, &iv);
			}
			break;
		}
	}
	if (err == -ENOMEM)
		cli_error("out of memory");
	return err && err != -EINTR ? 1 : 0;
}

static int synthesize(struct top_run *r)
{
	struct pk_synth sy = { .attr = pk_sampler_attr(r->s, 0), .emit = pk_top_feed_synth, .ctx = r->t };
	int err = pk_synth_kernel(&sy);

	if (!err)
		err = r->o->pid ? pk_synth_process(&sy, r->o->pid) : pk_synth_all(&sy);
	return err;
}

int cmd_top(int argc, char **argv)
{
	struct top_cli o = { .delay = 2.0 };
	struct top_run r = { .o = &o, .fmt = { .sz = sizeof(r.fmt) } };
	struct pk_record_opts ro = { .sz = sizeof(ro) };
	struct sigaction sa;
	struct pk_diag d;
	int err, status = 1;

	if ((err = parse_args(&o, argc, argv)))
		return err > 0 ? 0 : 2;
	cli_log_init(o.verbose);
	pk_diag_init(&d);
	ro.events = o.events;
	ro.freq = o.freq;
	ro.period = o.period;
	ro.all_cpus = o.all_cpus;
	ro.cpu_list = o.cpu_list;
	ro.pid = o.pid;
	ro.mmap_pages = o.mmap_pages;
	ro.clockid = -1;
	err = pk_sampler_open(&r.s, &ro, 0, &d);
	if (err) {
		cli_diag(&d, err);
		return err == -EINVAL || err == -ENOENT ? 2 : 1;
	}
	r.t = pk_top_new(NULL);
	if (!r.t) {
		cli_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < pk_sampler_nr_events(r.s); i++) {
		uint32_t nr = 0;
		const uint64_t *ids = pk_sampler_ids(r.s, i, &nr);

		if (pk_top_add_event(r.t, pk_sampler_attr(r.s, i), pk_sampler_event_name(r.s, i), ids, nr) < 0) {
			cli_error("out of memory");
			goto out;
		}
	}
	describe_target(&r);
	r.fmt.hide_kernel = o.hide_kernel;
	r.fmt.hide_user = o.hide_user;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;   /* no SA_RESTART: poll returns at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* enabled before the synthesis, so nothing starting in between is missed */
	if ((err = pk_sampler_enable(r.s))) {
		cli_error("cannot enable the events: %s", strerror(-err));
		goto out;
	}
	pk_top_reset(r.t);         /* the first interval's rate counts from here */
	if ((err = synthesize(&r)) == -ENOMEM) {
		cli_error("out of memory");
		goto out;
	} else if (err) {
		pk_log(PK_LOG_WARN, "reading the processes that already run: %s", strerror(-err));
	}
	if (!o.stdio && pk_top_view_open(&r.view))
		r.view = NULL;   /* no terminal: plain text */
	status = run_loop(&r);
	pk_top_view_close(r.view);
out:
	pk_sampler_disable(r.s);
	pk_top_free(r.t);
	pk_sampler_close(r.s);
	return status;
}
