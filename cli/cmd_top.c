/*
 * perfkit top: a live profile, like `perf top`. Opens sampling events on
 * the target (the whole system by default), feeds the side band of what
 * already runs and every record drained from the rings into a pk_top, and
 * every -d seconds prints the hottest symbols of that interval: as text
 * (--stdio, or without a terminal) or full screen with ncurses.
 */
#include <errno.h>
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

static const char *argval(int argc, char **argv, int *i, const char *s, const char *l)
{
	const char *a = argv[*i];
	size_t n = strlen(l);

	if (!strncmp(a, l, n) && a[n] == '=')
		return a + n + 1;
	if (s && !strncmp(a, s, 2) && a[2])
		return a + 2;
	if (strcmp(a, l) && (!s || strcmp(a, s)))
		return NULL;
	if (*i + 1 >= argc) {
		cli_error("option '%s' requires a value", a);
		exit(2);
	}
	return argv[++*i];
}

/* A whole number >= @min from @v, else a usage error naming @opt. */
static int parse_num(const char *opt, const char *v, double min, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (errno || end == v || *end || x < min || x != x) {
		cli_error("invalid value '%s' for %s", v, opt);
		return -EINVAL;
	}
	*out = x;
	return 0;
}

static int parse_args(struct top_cli *o, int argc, char **argv)
{
	double x;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			exit(0);
		} else if ((v = argval(argc, argv, &i, "-e", "--event"))) {
			o->events = v;
		} else if (!strcmp(a, "-a") || !strcmp(a, "--all-cpus")) {
			o->all_cpus = 1;
		} else if ((v = argval(argc, argv, &i, "-p", "--pid"))) {
			if (parse_num(a, v, 1, &x) || x != (pid_t)x)
				return -EINVAL;
			o->pid = (pid_t)x;
		} else if ((v = argval(argc, argv, &i, "-C", "--cpu"))) {
			o->cpu_list = v;
		} else if ((v = argval(argc, argv, &i, "-F", "--freq"))) {
			if (parse_num(a, v, 1, &x))
				return -EINVAL;
			o->freq = (uint64_t)x;
		} else if ((v = argval(argc, argv, &i, "-c", "--count"))) {
			if (parse_num(a, v, 1, &x))
				return -EINVAL;
			o->period = (uint64_t)x;
		} else if ((v = argval(argc, argv, &i, "-d", "--delay"))) {
			if (parse_num(a, v, 0.01, &o->delay))
				return -EINVAL;
		} else if ((v = argval(argc, argv, &i, "-n", "--iterations"))) {
			if (parse_num(a, v, 1, &x))
				return -EINVAL;
			o->iterations = (long)x;
		} else if ((v = argval(argc, argv, &i, "-E", "--entries"))) {
			if (parse_num(a, v, 1, &x))
				return -EINVAL;
			o->entries = (size_t)x;
		} else if ((v = argval(argc, argv, &i, "-m", "--mmap-pages"))) {
			if (parse_num(a, v, 1, &x))
				return -EINVAL;
			o->mmap_pages = (size_t)x;
		} else if (!strcmp(a, "--stdio")) {
			o->stdio = 1;
		} else if (!strcmp(a, "--tui")) {
			o->stdio = 0;
		} else if (!strcmp(a, "-K") || !strcmp(a, "--hide_kernel_symbols")) {
			o->hide_kernel = 1;
		} else if (!strcmp(a, "-U") || !strcmp(a, "--hide_user_symbols")) {
			o->hide_user = 1;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o->verbose++;
		} else if (!strcmp(a, "-g") || !strncmp(a, "--call-graph", 12)) {
			cli_error("call graphs are not supported by perfkit top");
			return -EINVAL;
		} else {
			cli_error("unknown option '%s'", a);
			return -EINVAL;
		}
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

/* Drain every ring into the profile. 0, or -EBADMSG when a ring is corrupt. */
static int drain(struct top_run *r)
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
	return pk_top_flush(r->t);
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
			if ((err = pk_top_interval_end(r->t, &iv)))
				break;
			last = &iv;
			if (r->view)
				pk_top_view_draw(r->view, &iv, &r->fmt);
			else if ((err = print_stdio(r, &iv)))
				break;
			if (r->o->iterations && ++done >= r->o->iterations)
				break;
			next += delay_ns;
			if (next <= now)
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

	if (parse_args(&o, argc, argv))
		return 2;
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
		cli_diag(&d);
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
