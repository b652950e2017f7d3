/*
 * perfkit stat: count events for a command, processes, threads or CPUs, the
 * way `perf stat` does. This file owns the options and the flow of one run:
 * open counters (lib/counter), start the workload, wait in one poll loop for
 * its end, a signal, a control-FIFO command or the next interval, read,
 * aggregate per CPU/core/socket, and print (stat_print.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/counter.h>
#include <perfkit/event.h>
#include "cli.h"
#include "stat_control.h"
#include "stat_print.h"

struct stat_opts {
	struct pk_event_list events;
	bool system_wide;
	const char *cpu_list;
	const char *pid_list;
	const char *tid_list;
	enum stat_aggr aggr;
	int repeat;
	long interval_ms;
	long delay_ms;           /* 0 none, > 0 delay, -1 start disabled */
	bool no_inherit;
	struct stat_printer pr;
	const char *output;
	const char *control;
	int verbose;
	char **argv;             /* the command, or NULL */
};

/* What counters are opened on, and how slots group into printed units. */
struct stat_target {
	int *cpus;
	size_t nr_cpus;
	pid_t *tids;
	size_t nr_tids;
	pid_t *pids;             /* -p processes, watched for exit */
	size_t nr_pids;
	struct stat_unit *units;
	size_t nr_units;
	size_t *unit_of_slot;
	char title[512];
};

/* The result of one run. */
struct run_result {
	struct pk_counters *c;          /* kept open for the names and support flags */
	struct pk_counts *unit_counts;  /* [unit * nr_events + ev] */
	double wall_ns;
	struct rusage ru;
	int status;                     /* wait status of the command, if any */
	bool have_status;
};

static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t sig_caught;

static void on_signal(int sig)
{
	int saved = errno;

	sig_caught = sig;
	if (write(sig_pipe[1], "s", 1) < 0) {
		/* the pipe is full: a wake-up is already pending */
	}
	errno = saved;
}

static void usage(FILE *f)
{
	fputs("usage: perfkit stat [<options>] [-- <command> [<args>]]\n"
	      "\n"
	      "  -e, --event SPEC        events to count (perfkit list); repeatable, comma lists, {groups}\n"
	      "  -a, --all-cpus          system-wide on every CPU\n"
	      "  -C, --cpu LIST          system-wide on these CPUs (0-3,7)\n"
	      "  -p, --pid PID[,PID]     attach to processes (all their threads)\n"
	      "  -t, --tid TID[,TID]     attach to threads\n"
	      "  -A, --no-aggr           one line per CPU (with -a or -C)\n"
	      "      --per-core          aggregate per physical core\n"
	      "      --per-socket        aggregate per socket\n"
	      "  -i, --no-inherit        do not count children of the command\n"
	      "  -r, --repeat N          run the command N times: mean and +- relative stddev\n"
	      "  -I, --interval-print MS print counts every MS milliseconds\n"
	      "  -x, --field-separator S CSV output with separator S\n"
	      "  -j, --json              JSON lines output\n"
	      "  -o, --output FILE       write the counts to FILE instead of stderr\n"
	      "  -B, --big-num           thousands separators from the locale (default)\n"
	      "      --no-big-num        no thousands separators\n"
	      "  -D, --delay MS          start counting MS milliseconds after the command starts\n"
	      "                          (-1: start disabled, wait for 'enable' on --control)\n"
	      "      --control fifo:CTL[,ACK] | fd:CTL[,ACK]\n"
	      "                          accept 'enable', 'disable', 'ping', 'stop' commands\n"
	      "  -v, --verbose           more messages\n"
	      "\n"
	      "Exit status: the command's; 127 if it cannot be found; 2 for usage errors.\n", f);
}

static int parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end ? -EINVAL : 0;
}

static int parse_events(struct stat_opts *o, const char *spec)
{
	struct pk_diag d;
	int err;

	pk_diag_init(&d);
	err = pk_event_parse(&o->events, spec, NULL, &d);
	if (err)
		cli_spec_error(spec, &d);
	return err;
}

/* Returns 0 to go on, or the exit status to leave with. */
static int parse_options(int argc, char **argv, struct stat_opts *o, int *exit_code)
{
	enum { OPT_PER_CORE = 256, OPT_PER_SOCKET, OPT_NO_BIG_NUM, OPT_CONTROL };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "no-aggr", no_argument, NULL, 'A' },
		{ "per-core", no_argument, NULL, OPT_PER_CORE },
		{ "per-socket", no_argument, NULL, OPT_PER_SOCKET },
		{ "no-inherit", no_argument, NULL, 'i' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "big-num", no_argument, NULL, 'B' },
		{ "no-big-num", no_argument, NULL, OPT_NO_BIG_NUM },
		{ "delay", required_argument, NULL, 'D' },
		{ "control", required_argument, NULL, OPT_CONTROL },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, err;
	long v;

	o->repeat = 1;
	o->pr.big_num = true;
	o->pr.fmt = FMT_PLAIN;
	o->pr.sep = ",";
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:aC:p:t:Air:I:x:jo:BD:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if ((err = parse_events(o, optarg)))
				return *exit_code = cli_status_of(err);
			break;
		case 'a': o->system_wide = true; break;
		case 'C': o->cpu_list = optarg; o->system_wide = true; break;
		case 'p': o->pid_list = optarg; break;
		case 't': o->tid_list = optarg; break;
		case 'A': o->aggr = AGGR_CPU; break;
		case OPT_PER_CORE: o->aggr = AGGR_CORE; break;
		case OPT_PER_SOCKET: o->aggr = AGGR_SOCKET; break;
		case 'i': o->no_inherit = true; break;
		case 'r':
			if (parse_long(optarg, &v) || v < 1 || v > 1000000) {
				cli_error("invalid repeat count '%s'", optarg);
				return *exit_code = 2;
			}
			o->repeat = (int)v;
			break;
		case 'I':
			if (parse_long(optarg, &v) || v < 1) {
				cli_error("invalid interval '%s': give milliseconds >= 1", optarg);
				return *exit_code = 2;
			}
			o->interval_ms = v;
			break;
		case 'x': o->pr.fmt = FMT_CSV; o->pr.sep = optarg; break;
		case 'j': o->pr.fmt = FMT_JSON; break;
		case 'o': o->output = optarg; break;
		case 'B': o->pr.big_num = true; break;
		case OPT_NO_BIG_NUM: o->pr.big_num = false; break;
		case 'D':
			if (parse_long(optarg, &v) || v < -1) {
				cli_error("invalid delay '%s': give milliseconds, or -1", optarg);
				return *exit_code = 2;
			}
			o->delay_ms = v;
			break;
		case OPT_CONTROL: o->control = optarg; break;
		case 'v': o->verbose++; break;
		case 'h': usage(stdout); return *exit_code = 0, 1;
		default: usage(stderr); return *exit_code = 2;
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	if (o->pr.fmt != FMT_PLAIN)
		o->pr.big_num = false;
	o->pr.aggr = o->aggr;
	if (!o->argv && !o->system_wide && !o->pid_list && !o->tid_list) {
		cli_error("nothing to count: give a command, -p PID, -t TID, -a or -C CPUS");
		usage(stderr);
		return *exit_code = 2;
	}
	if (o->aggr != AGGR_GLOBAL && !o->system_wide) {
		cli_error("-A, --per-core and --per-socket need system-wide mode (-a or -C)");
		return *exit_code = 2;
	}
	if ((o->pid_list || o->tid_list) && o->system_wide) {
		cli_error("-p/-t and -a/-C cannot be combined");
		return *exit_code = 2;
	}
	if (o->repeat > 1 && !o->argv) {
		cli_error("-r needs a command to repeat");
		return *exit_code = 2;
	}
	if (o->repeat > 1 && o->interval_ms) {
		cli_error("-r and -I cannot be combined");
		return *exit_code = 2;
	}
	return 0;
}

/* A comma-separated list of ids: 0, or -EINVAL/-ENOMEM with the message printed. */
static int parse_id_list(const char *s, pid_t **out, size_t *n)
{
	char *copy = strdup(s), *tok, *save = NULL;
	size_t cap = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (!copy) {
		cli_error("out of memory");
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		long v;

		if (parse_long(tok, &v) || v <= 0 || v > 0x7fffffff) {
			cli_error("invalid id '%s' in '%s'", tok, s);
			err = -EINVAL;
		} else if (pk_array_grow((void **)out, &cap, *n + 1, sizeof(**out), 8)) {
			cli_error("out of memory");
			err = -ENOMEM;
		} else {
			(*out)[(*n)++] = (pid_t)v;
		}
	}
	free(copy);
	if (!err && !*n) {
		cli_error("no ids in '%s'", s);
		err = -EINVAL;
	}
	return err;
}

static int append_tids(struct stat_target *t, const pid_t *tids, size_t n)
{
	pid_t *p = realloc(t->tids, (t->nr_tids + n) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	memcpy(p + t->nr_tids, tids, n * sizeof(*p));
	t->tids = p;
	t->nr_tids += n;
	return 0;
}

static int build_units(struct stat_target *t, enum stat_aggr aggr)
{
	size_t slots = t->nr_cpus ? t->nr_cpus : t->nr_tids;

	t->units = calloc(slots ? slots : 1, sizeof(*t->units));
	t->unit_of_slot = calloc(slots ? slots : 1, sizeof(*t->unit_of_slot));
	if (!t->units || !t->unit_of_slot)
		return -ENOMEM;
	if (aggr == AGGR_GLOBAL || !t->nr_cpus) {
		t->nr_units = 1;
		t->units[0].nr_cpus = (int)t->nr_cpus;
		return 0;
	}
	for (size_t s = 0; s < t->nr_cpus; s++) {
		struct stat_unit u = { .cpu = t->cpus[s], .nr_cpus = 1 };
		struct pk_cpu_topo topo = { 0, 0, 0 };
		size_t i;

		if (aggr != AGGR_CPU && pk_cpu_topology(t->cpus[s], &topo) == 0) {
			u.socket = topo.socket;
			u.die = topo.die;
			u.core = aggr == AGGR_CORE ? topo.core : 0;
		}
		for (i = 0; i < t->nr_units && aggr != AGGR_CPU; i++)
			if (t->units[i].socket == u.socket && t->units[i].die == u.die &&
			    t->units[i].core == u.core)
				break;
		if (aggr != AGGR_CPU && i < t->nr_units) {
			t->units[i].nr_cpus++;
		} else {
			i = t->nr_units++;
			t->units[i] = u;
		}
		t->unit_of_slot[s] = i;
	}
	return 0;
}

static int build_target(const struct stat_opts *o, struct stat_target *t)
{
	struct pk_diag d;
	int n, err;

	pk_diag_init(&d);
	if (o->system_wide) {
		n = o->cpu_list ? pk_cpulist_parse(o->cpu_list, &t->cpus, &d) : pk_cpus_online(&t->cpus);
		if (n < 0) {
			if (o->cpu_list)
				cli_spec_error(o->cpu_list, &d);
			else
				cli_error("cannot read the online CPUs: %s", strerror(-n));
			return cli_status_of(n);
		}
		t->nr_cpus = (size_t)n;
		if (o->cpu_list)
			snprintf(t->title, sizeof(t->title), "'CPU(s) %s'", o->cpu_list);
		else
			snprintf(t->title, sizeof(t->title), "'system wide'");
	} else if (o->pid_list) {
		if ((err = parse_id_list(o->pid_list, &t->pids, &t->nr_pids)))
			return cli_status_of(err);
		for (size_t i = 0; i < t->nr_pids; i++) {
			pid_t *tids;

			n = pk_proc_threads(t->pids[i], &tids);
			if (n < 0) {
				cli_error("cannot attach to process %d: %s", t->pids[i], strerror(-n));
				return 1;
			}
			err = append_tids(t, tids, (size_t)n);
			free(tids);
			if (err) {
				cli_error("out of memory");
				return 1;
			}
		}
		snprintf(t->title, sizeof(t->title), "process id '%s'", o->pid_list);
	} else if (o->tid_list) {
		if ((err = parse_id_list(o->tid_list, &t->tids, &t->nr_tids)))
			return cli_status_of(err);
		snprintf(t->title, sizeof(t->title), "thread id '%s'", o->tid_list);
	} else {
		size_t len = 0;

		t->title[len++] = '\'';
		for (char **a = o->argv; *a && len < sizeof(t->title) - 2; a++)
			len += (size_t)snprintf(t->title + len, sizeof(t->title) - len - 1, "%s%s",
						a == o->argv ? "" : " ", *a);
		if (len > sizeof(t->title) - 2)
			len = sizeof(t->title) - 2;
		t->title[len++] = '\'';
		t->title[len] = '\0';
	}
	if (build_units(t, o->aggr)) {
		cli_error("out of memory");
		return 1;
	}
	return 0;
}

static void target_release(struct stat_target *t)
{
	free(t->cpus);
	free(t->tids);
	free(t->pids);
	free(t->units);
	free(t->unit_of_slot);
}

/* Sum per-slot counts (or their deltas from @prev) into units. */
static void aggregate(const struct pk_counters *c, const struct stat_target *t,
		      const struct pk_counts *prev, struct pk_counts *units)
{
	size_t ne = pk_counters_nr_events(c), ns = pk_counters_nr_slots(c);

	memset(units, 0, t->nr_units * ne * sizeof(*units));
	for (size_t e = 0; e < ne; e++) {
		for (size_t s = 0; s < ns; s++) {
			struct pk_counts v = *pk_counters_get(c, e, s);
			struct pk_counts *u = &units[t->unit_of_slot[s] * ne + e];

			if (prev)
				pk_counts_delta(&v, &prev[e * ns + s], &v);
			u->val += v.val;
			u->ena += v.ena;
			u->run += v.run;
		}
	}
}

static void snapshot(const struct pk_counters *c, struct pk_counts *prev)
{
	size_t ne = pk_counters_nr_events(c), ns = pk_counters_nr_slots(c);

	for (size_t e = 0; e < ne; e++)
		for (size_t s = 0; s < ns; s++)
			prev[e * ns + s] = *pk_counters_get(c, e, s);
}

struct print_ctx {
	const struct stat_printer *pr;
	const struct stat_target *t;
	const struct pk_counters *c;
	const struct pk_event **events;
	bool *supported;
};

/* 0, or -ENOMEM with "out of memory" printed (@pc is then released). */
static int print_ctx_init(struct print_ctx *pc, const struct stat_printer *pr,
			  const struct stat_target *t, const struct pk_counters *c)
{
	size_t ne = pk_counters_nr_events(c);

	pc->pr = pr;
	pc->t = t;
	pc->c = c;
	pc->events = calloc(ne ? ne : 1, sizeof(*pc->events));
	pc->supported = calloc(ne ? ne : 1, sizeof(*pc->supported));
	if (!pc->events || !pc->supported) {
		free(pc->events);
		free(pc->supported);
		pc->events = NULL;
		pc->supported = NULL;
		cli_error("out of memory");
		return -ENOMEM;
	}
	for (size_t e = 0; e < ne; e++) {
		pc->events[e] = pk_counters_event(c, e);
		pc->supported[e] = pk_counters_supported(c, e);
	}
	return 0;
}

static void print_ctx_release(struct print_ctx *pc)
{
	free(pc->events);
	free(pc->supported);
}

static void print_view(const struct print_ctx *pc, const struct pk_counts *units,
		       const struct pk_stats *noise, double wall_ns, bool interval,
		       uint64_t ts_ns)
{
	struct stat_view v = {
		.nr_events = pk_counters_nr_events(pc->c),
		.events = pc->events,
		.supported = pc->supported,
		.nr_units = pc->t->nr_units,
		.units = pc->t->units,
		.counts = units,
		.noise = noise,
		.wall_ns = wall_ns,
		.interval = interval,
		.interval_ns = ts_ns,
	};

	if (pc->events && pc->supported)
		stat_print_counters(pc->pr, &v);
}

static int pidfd_open_compat(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* True while any -p/-t target still exists. */
static bool targets_alive(const struct stat_target *t)
{
	char path[64];

	for (size_t i = 0; i < t->nr_tids; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", t->tids[i]);
		if (access(path, F_OK) == 0)
			return true;
	}
	return false;
}

struct run_state {
	const struct stat_opts *o;
	struct stat_target *t;
	struct pk_counters *c;
	struct stat_control *ctl;
	struct print_ctx pc;
	struct pk_workload wl;
	int wl_pidfd;
	uint64_t start_ns;
	bool reaped;
};

static int reap_workload(struct run_state *st, struct run_result *res)
{
	if (st->wl.pid <= 0 || st->reaped)
		return 0;
	if (wait4(st->wl.pid, &res->status, 0, &res->ru) < 0)
		return -errno;
	res->have_status = true;
	st->reaped = true;
	return 0;
}

static int print_interval(struct run_state *st, struct pk_counts *prev, struct pk_counts *units,
			  uint64_t *last_ns)
{
	struct pk_diag d;
	uint64_t now = pk_now_ns();
	int err;

	pk_diag_init(&d);
	err = pk_counters_read(st->c, &d);
	if (err) {
		cli_diag(&d, err);
		return err;
	}
	aggregate(st->c, st->t, prev, units);
	snapshot(st->c, prev);
	print_view(&st->pc, units, NULL, (double)(now - *last_ns), true, now - st->start_ns);
	fflush(st->o->pr.out);
	*last_ns = now;
	return 0;
}

/*
 * Wait for the end of the run: the workload exits, the -p/-t targets are
 * gone, a signal arrives, or 'stop' comes on the control FIFO. Intervals,
 * the start delay and control commands are handled on the way.
 */
static int run_loop(struct run_state *st, struct run_result *res)
{
	const struct stat_opts *o = st->o;
	size_t ne = pk_counters_nr_events(st->c), ns = pk_counters_nr_slots(st->c);
	struct pk_counts *prev = NULL, *units = NULL;
	uint64_t next_tick = 0, last_ns = st->start_ns;
	uint64_t enable_at = o->delay_ms > 0 ? st->start_ns + (uint64_t)o->delay_ms * 1000000ull : 0;
	int err = 0;

	if (o->interval_ms) {
		prev = calloc(ne * ns, sizeof(*prev));
		units = calloc(st->t->nr_units * ne, sizeof(*units));
		if (!prev || !units) {
			cli_error("out of memory");
			err = -ENOMEM;
			goto out;
		}
		next_tick = st->start_ns + (uint64_t)o->interval_ms * 1000000ull;
		stat_print_interval_header(&o->pr);
	}
	for (;;) {
		struct pollfd fds[3];
		int nfds = 0, timeout = -1, ctl_idx = -1, wl_idx = -1;
		uint64_t now = pk_now_ns(), wake = 0;

		if (st->wl.pid > 0 && !st->reaped && st->wl_pidfd < 0) {
			/* No pidfd: poll for the exit. */
			pid_t r = wait4(st->wl.pid, &res->status, WNOHANG, &res->ru);

			if (r == st->wl.pid) {
				res->have_status = true;
				st->reaped = true;
				break;
			}
			wake = now + 10000000ull;
		}
		if (st->wl.pid <= 0 && st->t->nr_tids) {
			/* -p/-t without a command: end when the targets are gone. */
			if (!targets_alive(st->t))
				break;
			wake = now + 100000000ull;
		}
		if (enable_at && (!wake || enable_at < wake))
			wake = enable_at;
		if (next_tick && (!wake || next_tick < wake))
			wake = next_tick;
		if (wake)
			timeout = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;

		fds[nfds].fd = sig_pipe[0];
		fds[nfds++].events = POLLIN;
		if (st->wl_pidfd >= 0 && !st->reaped) {
			wl_idx = nfds;
			fds[nfds].fd = st->wl_pidfd;
			fds[nfds++].events = POLLIN;
		}
		if (st->ctl && stat_control_fd(st->ctl) >= 0) {
			ctl_idx = nfds;
			fds[nfds].fd = stat_control_fd(st->ctl);
			fds[nfds++].events = POLLIN;
		}
		if (poll(fds, (nfds_t)nfds, timeout) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		if (sig_caught)
			break;
		if (wl_idx >= 0 && (fds[wl_idx].revents & POLLIN)) {
			err = reap_workload(st, res);
			break;
		}
		if (ctl_idx >= 0 && (fds[ctl_idx].revents & (POLLIN | POLLHUP))) {
			enum stat_ctl_cmd cmd = stat_control_read(st->ctl);

			if (cmd == STAT_CTL_ENABLE) {
				pk_counters_enable(st->c);
				fprintf(stderr, "Events enabled\n");
			} else if (cmd == STAT_CTL_DISABLE) {
				pk_counters_disable(st->c);
				fprintf(stderr, "Events disabled\n");
			}
			if (cmd != STAT_CTL_NONE)
				stat_control_ack(st->ctl);
			if (cmd == STAT_CTL_STOP)
				break;
		}
		now = pk_now_ns();
		if (enable_at && now >= enable_at) {
			pk_counters_enable(st->c);
			fprintf(stderr, "Events enabled\n");
			enable_at = 0;
		}
		if (next_tick && now >= next_tick) {
			err = print_interval(st, prev, units, &last_ns);
			if (err)
				break;
			while (next_tick <= now)
				next_tick += (uint64_t)o->interval_ms * 1000000ull;
		}
	}
	res->wall_ns = (double)(pk_now_ns() - st->start_ns);
	if (!err && o->interval_ms)
		err = print_interval(st, prev, units, &last_ns);
out:
	free(prev);
	free(units);
	return err;
}

static int open_counters(const struct stat_opts *o, struct stat_target *t, pid_t child,
			 struct pk_counters **c)
{
	PK_OPTS(pk_counter_opts, copts,
		.inherit = !o->no_inherit,
		.enable_on_exec = child > 0 && o->delay_ms == 0,
		.start_disabled = o->delay_ms != 0);
	struct pk_target pt = {
		.tids = t->tids, .nr_tids = t->nr_tids,
		.cpus = t->cpus, .nr_cpus = t->nr_cpus,
	};
	struct pk_diag d;
	int err;

	if (child > 0 && !o->system_wide) {
		pt.tids = &child;
		pt.nr_tids = 1;
	}
	pk_diag_init(&d);
	err = pk_counters_open(c, &o->events, &pt, &copts, &d);
	if (err)
		cli_diag(&d, err);
	return err;
}

/* One measured run. Returns 0 or -errno (the message already printed). */
static int run_once(const struct stat_opts *o, struct stat_target *t, struct stat_control *ctl,
		    struct run_result *res)
{
	struct run_state st = { .o = o, .t = t, .ctl = ctl, .wl_pidfd = -1 };
	bool follow_child = o->argv && !o->system_wide && !o->pid_list && !o->tid_list;
	struct pk_diag d;
	int err;

	st.wl.pid = -1;
	pk_diag_init(&d);
	if (o->argv) {
		err = pk_workload_prepare(&st.wl, o->argv, &d);
		if (err) {
			cli_diag(&d, err);
			return err;
		}
	}
	/* With a command alone the counters follow it from its exec; otherwise the target. */
	err = open_counters(o, t, follow_child ? st.wl.pid : -1, &st.c);
	if (err) {
		pk_workload_abort(&st.wl);
		return err;
	}
	if ((err = print_ctx_init(&st.pc, &o->pr, t, st.c))) {
		pk_workload_abort(&st.wl);
		goto out;
	}
	if (!follow_child && o->delay_ms == 0)
		pk_counters_enable(st.c);
	st.start_ns = pk_now_ns();
	if (o->argv) {
		err = pk_workload_start(&st.wl, &d);
		if (err) {
			pk_diag_subject(&d, o->argv[0]);
			cli_diag(&d, err);
			/* killed before it started: that wait status, as for a command killed later */
			res->status = err == -ECHILD ? st.wl.status : (-err == EACCES ? 126 : 127) << 8;
			res->have_status = true;
			err = -ECHILD;
			goto out;
		}
		st.wl_pidfd = pidfd_open_compat(st.wl.pid);
	}
	err = run_loop(&st, res);
	if (!err && !o->interval_ms) {
		err = pk_counters_read(st.c, &d);
		if (err)
			cli_diag(&d, err);
		else
			aggregate(st.c, t, NULL, res->unit_counts);
	}
	if (st.wl.pid > 0 && !st.reaped) {
		/* Interrupted: the command got the terminal's SIGINT too; make sure it ends. */
		if (waitpid(st.wl.pid, NULL, WNOHANG) == 0)
			kill(st.wl.pid, SIGTERM);
		reap_workload(&st, res);
	}
out:
	if (st.wl_pidfd >= 0)
		close(st.wl_pidfd);
	print_ctx_release(&st.pc);
	res->c = st.c;
	return err;
}

static int exit_status_of(const struct run_result *res)
{
	if (!res->have_status)
		return 0;
	if (WIFEXITED(res->status))
		return WEXITSTATUS(res->status);
	if (WIFSIGNALED(res->status))
		return 128 + WTERMSIG(res->status);
	return 1;
}

/* The -o file (with perf's "# started on" line), or stderr; NULL (errno set) with the message printed. */
static FILE *open_output(const struct stat_opts *o)
{
	FILE *f;
	time_t now;

	if (!o->output)
		return stderr;
	f = fopen(o->output, "w");
	if (!f) {
		int err = errno;

		cli_error("cannot write '%s': %s", o->output, strerror(err));
		errno = err;
		return NULL;
	}
	now = time(NULL);
	fprintf(f, "# started on %s\n", ctime(&now));
	return f;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Repeat the run, accumulate means and noise, print the report. */
static int stat_main(struct stat_opts *o, struct stat_target *t, struct stat_control *ctl)
{
	size_t ne = o->events.n, nu = t->nr_units;
	struct pk_counts *sum = calloc(nu * ne, sizeof(*sum));
	struct pk_stats *noise = calloc(nu * ne, sizeof(*noise));
	struct run_result res = { .unit_counts = calloc(nu * ne, sizeof(struct pk_counts)) };
	struct pk_stats wall = { 0, 0, 0 };
	int status = 0, err = 0, runs = 0;

	if (!sum || !noise || !res.unit_counts) {
		cli_error("out of memory");
		err = -ENOMEM;
		goto out;
	}
	for (int r = 0; r < o->repeat && !sig_caught; r++) {
		memset(res.unit_counts, 0, nu * ne * sizeof(*res.unit_counts));
		res.have_status = false;
		pk_counters_free(res.c);
		res.c = NULL;
		err = run_once(o, t, ctl, &res);
		status = exit_status_of(&res);
		if (err)
			break;
		runs++;
		pk_stats_update(&wall, res.wall_ns / 1e9);
		for (size_t i = 0; i < nu * ne; i++) {
			struct pk_scaled sc;

			sum[i].val += res.unit_counts[i].val;
			sum[i].ena += res.unit_counts[i].ena;
			sum[i].run += res.unit_counts[i].run;
			pk_counts_scale(&res.unit_counts[i], &sc);
			pk_stats_update(&noise[i], sc.value);
		}
	}
	if (err == -ECHILD) {
		err = 0;
		goto out;
	}
	if (err || runs == 0 || o->interval_ms)
		goto out;
	for (size_t i = 0; i < nu * ne; i++) {
		sum[i].val /= (uint64_t)runs;
		sum[i].ena /= (uint64_t)runs;
		sum[i].run /= (uint64_t)runs;
	}
	{
		struct print_ctx pc;

		if ((err = print_ctx_init(&pc, &o->pr, t, res.c)))
			goto out;
		stat_print_title(&o->pr, t->title, o->repeat);
		print_view(&pc, sum, o->repeat > 1 ? noise : NULL, wall.mean * 1e9, false, 0);
		stat_print_footer(&o->pr, &wall, o->repeat,
				  res.ru.ru_utime.tv_sec + res.ru.ru_utime.tv_usec / 1e6,
				  res.ru.ru_stime.tv_sec + res.ru.ru_stime.tv_usec / 1e6,
				  o->argv && o->repeat == 1 && res.have_status);
		print_ctx_release(&pc);
	}
out:
	pk_counters_free(res.c);
	free(sum);
	free(noise);
	free(res.unit_counts);
	if (err)
		return err == -EINVAL ? 2 : 1;
	return status;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o;
	struct stat_target t;
	struct stat_control *ctl = NULL;
	int code = 0;

	memset(&o, 0, sizeof(o));
	memset(&t, 0, sizeof(t));
	pk_event_list_init(&o.events);
	if (parse_options(argc, argv, &o, &code))
		goto out;
	cli_log_init(o.verbose);
	if (o.pr.big_num)
		setlocale(LC_NUMERIC, "");
	if (o.events.n == 0 && pk_event_add_defaults(&o.events)) {
		code = 1;
		goto out;
	}
	code = build_target(&o, &t);
	if (code)
		goto out;
	if (o.control) {
		struct pk_diag d;
		int err;

		pk_diag_init(&d);
		if ((err = stat_control_open(&ctl, o.control, &d))) {
			cli_diag(&d, err);
			code = cli_status_of(err);
			goto out;
		}
	}
	o.pr.out = open_output(&o);
	if (!o.pr.out) {
		code = cli_status_of(-errno);
		goto out;
	}
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		cli_error("cannot create a pipe: %s", strerror(errno));
		code = 1;
		goto out;
	}
	install_signals();
	code = stat_main(&o, &t, ctl);
	if (o.pr.out != stderr)
		fclose(o.pr.out);
out:
	stat_control_close(ctl);
	target_release(&t);
	pk_event_list_release(&o.events);
	return code;
}
