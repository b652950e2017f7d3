/*
 * Unit tests for lib/counter against the kernel: counters opened for real on
 * forked children, on this process and on CPUs (groups, inherit, unsupported
 * events, vanished threads, unprivileged fallback), self-monitoring reads,
 * and the /proc and /sys target helpers.
 *
 * The test binary is also its own workload: "test_counter_kernel --touch N
 * self|fork" touches N fresh pages (in a forked child with "fork") and exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/counter.h>
#include "../tap.h"

#define RF_TE PERF_FORMAT_TOTAL_TIME_ENABLED
#define RF_TR PERF_FORMAT_TOTAL_TIME_RUNNING
#define RF_ID PERF_FORMAT_ID
#define RF_LOST PERF_FORMAT_LOST
#define RF_GROUP PERF_FORMAT_GROUP
#include "counter_fixture.h"

/* ---- workload ------------------------------------------------------------ */

static void touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)n * (size_t)page;
	volatile char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		_exit(3);
	madvise((void *)mem, len, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		mem[i * page] = 1;
	munmap((void *)mem, len);
}

static int workload_main(long pages, bool in_child)
{
	pid_t pid;
	int st;

	if (!in_child) {
		touch_pages(pages);
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		touch_pages(pages);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 4;
	return WEXITSTATUS(st);
}

/* ---- helpers ------------------------------------------------------------- */

/* This binary, resolved once (under valgrind /proc/self/exe is the tool). */
static char self_exe[4096];



/*
 * Run this binary as a child touching @pages pages (in a grandchild when
 * @grandchild), counting @l on it from its exec with inherit; sums in @out.
 */
static int count_workload(const struct pk_event_list *l, long pages, bool grandchild,
			  struct pk_counts *out, struct pk_diag *d)
{
	PK_OPTS(pk_counter_opts, o, .inherit = true, .enable_on_exec = true);
	struct pk_target t = { .nr_tids = 1 };
	struct pk_counters *c = NULL;
	char arg[32];
	int pfd[2], st, err;
	pid_t pid;
	size_t i;

	snprintf(arg, sizeof(arg), "%ld", pages);
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		char b;

		close(pfd[1]);
		if (read(pfd[0], &b, 1) != 1)
			_exit(126);
		execl(self_exe, "test_counter", "--touch", arg,
		      grandchild ? "fork" : "self", (char *)NULL);
		_exit(127);
	}
	close(pfd[0]);
	t.tids = &pid;
	err = pk_counters_open(&c, l, &t, &o, d);
	if (write(pfd[1], "g", 1) != 1)
		err = err ? err : -EPIPE;
	close(pfd[1]);
	waitpid(pid, &st, 0);
	if (!err)
		err = pk_counters_read(c, d);
	for (i = 0; !err && i < l->n; i++)
		pk_counters_sum(c, i, &out[i]);
	pk_counters_free(c);
	if (!err && (!WIFEXITED(st) || WEXITSTATUS(st)))
		err = -ECHILD;
	return err;
}

/* Run @fn in a forked child and copy back the @sz bytes it leaves in @res. */
static int in_child(void (*fn)(void *res), void *res, size_t sz)
{
	int pfd[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return -errno;
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		fn(res);
		_exit(write(pfd[1], res, sz) == (ssize_t)sz ? 0 : 1);
	}
	close(pfd[1]);
	n = read(pfd[0], res, sz);
	close(pfd[0]);
	waitpid(pid, &st, 0);
	return n == (ssize_t)sz ? 0 : -EIO;
}

/* ---- counters on real children ------------------------------------------ */

#define PAGES 4000L

/* Page faults of the exec'd workload beyond the pages it touches (loader, libc, sanitizers). */
#define STARTUP_FAULTS 20000

/* page-faults of the same workload as Linux perf counts them, or -1 without perf. */
static long long perf_oracle_faults(long pages)
{
	char cmd[4200], line[256];
	long long v = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "perf stat -x, -e page-faults -- '%s' --touch %ld self "
		 "2>&1 >/dev/null", self_exe, pages);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (strstr(line, ",page-faults,"))
			v = atoll(line);
	pclose(p);
	return v;
}

static void test_child_counts(void)
{
	struct pk_event lone[] = { SW(TASK_CLOCK, "task-clock", 0, 1),
				   SW(PAGE_FAULTS, "page-faults", 1, 1) };
	struct pk_event group[] = { SW(TASK_CLOCK, "task-clock", 0, 2),
				    SW(PAGE_FAULTS, "page-faults", 0, 0) };
	struct pk_event_list ll = LIST(lone), gl = LIST(group);
	struct pk_counts a[2] = { 0 }, b[2] = { 0 }, g[2] = { 0 };
	struct pk_diag d;
	long long oracle;
	int err;

	pk_diag_init(&d);
	err = count_workload(&ll, PAGES, false, a, &d);
	ok(!err, "lone task-clock, page-faults on an exec'd child (%s)", d.msg);
	ok(a[0].val > 0 && a[0].run > 0 && a[0].run == a[0].ena,
	   "task-clock counted: %llu ns", (unsigned long long)a[0].val);
	ok(a[1].val >= PAGES && a[1].val < PAGES + STARTUP_FAULTS,
	   "page-faults %llu >= %ld touched pages and plausible", (unsigned long long)a[1].val,
	   PAGES);

	oracle = perf_oracle_faults(PAGES);
	if (oracle < 0)
		diag("perf not usable here: no oracle for page-faults");
	else
		ok(llabs(oracle - (long long)a[1].val) <= PAGES / 50 + 50,
		   "page-faults %llu match perf stat's %lld", (unsigned long long)a[1].val, oracle);

	pk_diag_init(&d);
	err = count_workload(&gl, PAGES, false, g, &d);
	ok(!err, "group {task-clock,page-faults} with inherit on a child (%s)", d.msg);
	ok(g[0].val > 0 && g[0].run > 0 && g[0].ena == g[1].ena && g[0].run == g[1].run,
	   "group read: one time pair for both members");
	ok(llabs((long long)g[1].val - (long long)a[1].val) <= PAGES / 50 + 50,
	   "group page-faults %llu match lone %llu", (unsigned long long)g[1].val,
	   (unsigned long long)a[1].val);

	pk_diag_init(&d);
	err = count_workload(&gl, PAGES, true, b, &d);
	ok(!err && b[1].val >= PAGES && b[1].val < 2 * PAGES + STARTUP_FAULTS,
	   "inherit: group counts the forked grandchild's %llu page-faults",
	   (unsigned long long)b[1].val);
}

static int open_self(struct pk_counters **c, struct pk_event *evs, size_t n,
		     bool disabled, struct pk_diag *d)
{
	PK_OPTS(pk_counter_opts, o, .start_disabled = disabled);
	struct pk_event_list l = { .ev = evs, .n = n };
	static pid_t self;
	struct pk_target t = { .tids = &self, .nr_tids = 1 };

	self = getpid();
	pk_diag_init(d);
	return pk_counters_open(c, &l, &t, &o, d);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Burn 2 ms of this thread's CPU time; counters see at least half of it. */
#define SPIN_NS 2000000
static void spin(void)
{
	uint64_t end = thread_cpu_ns() + SPIN_NS;

	while (thread_cpu_ns() < end)
		;
}

static void test_unsupported(void)
{
	struct pk_event lone[] = { HW(CPU_CYCLES, "cycles", 0, 1),
				   SW(TASK_CLOCK, "task-clock", 1, 1) };
	struct pk_event badlead[] = { HW(CPU_CYCLES, "cycles", 0, 2),
				      SW(PAGE_FAULTS, "page-faults", 0, 0) };
	struct pk_event member[] = { SW(TASK_CLOCK, "task-clock", 0, 3),
				     HW(CPU_CYCLES, "cycles", 0, 0),
				     SW(PAGE_FAULTS, "page-faults", 0, 0) };
	struct pk_counters *c = NULL;
	struct pk_counts s;
	struct pk_diag d;
	int err;

	err = open_self(&c, lone, 2, false, &d);
	ok(!err, "cycles and task-clock open (%s)", d.msg);
	if (err)
		return;
	if (pk_counters_supported(c, 0)) {
		diag("this machine counts cycles: unsupported-event checks skipped");
		pk_counters_free(c);
		return;
	}
	spin();
	ok(!pk_counters_read(c, &d), "read with an unsupported event");
	pk_counters_sum(c, 0, &s);
	ok(!pk_counters_supported(c, 0) && s.val == 0 && s.run == 0,
	   "cycles not supported, reads zero");
	pk_counters_sum(c, 1, &s);
	ok(pk_counters_supported(c, 1) && s.val > 0 && s.run > 0, "task-clock still counts");
	pk_counters_free(c);

	err = open_self(&c, badlead, 2, false, &d);
	ok(err == -EOPNOTSUPP && !strcmp(d.subject, "cycles") && !c,
	   "group led by unsupported cycles fails: '%s': %s", d.subject, d.msg);

	err = open_self(&c, member, 3, false, &d);
	ok(!err, "group with an unsupported member opens (%s)", d.msg);
	if (err)
		return;
	spin();
	ok(!pk_counters_read(c, &d), "read the broken group");
	ok(pk_counters_supported(c, 0) && !pk_counters_supported(c, 1) &&
	   pk_counters_supported(c, 2), "only the member cycles is not supported");
	ok(pk_counters_get(c, 0, 0)->run == 0 && pk_counters_get(c, 2, 0)->run == 0,
	   "rest of the group not counted");
	pk_counters_free(c);
}

static void test_self_ioctls(void)
{
	struct pk_event ev[] = { SW(TASK_CLOCK, "task-clock", 0, 2),
				 SW(PAGE_FAULTS, "page-faults", 0, 0) };
	struct pk_event bad[] = { SW(TASK_CLOCK, "task-clock", 1, 1),
				  SW(PAGE_FAULTS, "page-faults", 1, 1) };
	struct pk_counters *c = NULL;
	struct pk_target both = { .tids = (pid_t[]){ 1 }, .nr_tids = 1,
				  .cpus = (int[]){ 0 }, .nr_cpus = 1 };
	struct pk_event_list l = LIST(ev);
	struct pk_diag d;
	int err;

	err = open_self(&c, ev, 2, true, &d);
	ok(!err && pk_counters_nr_events(c) == 2 && pk_counters_nr_slots(c) == 1,
	   "start_disabled group on this process (%s)", d.msg);
	if (err)
		return;
	spin();
	ok(!pk_counters_read(c, &d) && pk_counters_get(c, 0, 0)->val == 0,
	   "disabled: nothing counted");
	ok(!pk_counters_enable(c), "enable");
	touch_pages(64);
	spin();
	err = pk_counters_read(c, &d);
	ok(!err && pk_counters_get(c, 0, 0)->val >= SPIN_NS / 2 &&
	   pk_counters_get(c, 1, 0)->val >= 64, "enabled: task-clock %llu ns, %llu faults",
	   (unsigned long long)pk_counters_get(c, 0, 0)->val,
	   (unsigned long long)pk_counters_get(c, 1, 0)->val);
	ok(!pk_counters_disable(c) && !pk_counters_reset(c), "disable and reset");
	ok(!pk_counters_read(c, &d) && pk_counters_get(c, 0, 0)->val == 0 &&
	   pk_counters_get(c, 1, 0)->val == 0, "reset zeroes the group");
	ok(pk_counters_get(c, 5, 0)->val == 0 && pk_counters_event(c, 5) == NULL &&
	   !strcmp(pk_counters_event(c, 1)->name, "page-faults"), "accessors and bounds");
	pk_counters_free(c);

	err = open_self(&c, bad, 2, false, &d);
	ok(err == -EINVAL && !c, "leader index pointing forward rejected: %s", d.msg);
	pk_diag_init(&d);
	err = pk_counters_open(&c, &l, &both, NULL, &d);
	ok(err == -EINVAL, "target of threads and CPUs at once rejected: %s", d.msg);
}

static void test_cpu_and_gone(void)
{
	struct pk_event ev[] = { SW(TASK_CLOCK, "task-clock", 0, 1) };
	struct pk_event_list l = LIST(ev);
	pid_t tids[2], dead;
	struct pk_target t = { .tids = tids, .nr_tids = 2 };
	struct pk_counters *c = NULL;
	struct pk_diag d;
	int *cpus = NULL, n, err;

	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	tids[0] = getpid();
	tids[1] = dead;
	pk_diag_init(&d);
	err = pk_counters_open(&c, &l, &t, NULL, &d);
	ok(!err && pk_counters_nr_slots(c) == 2, "exited thread skipped quietly (%s)", d.msg);
	spin();
	ok(c && !pk_counters_read(c, &d) && pk_counters_get(c, 0, 0)->val > 0 &&
	   pk_counters_get(c, 0, 1)->run == 0, "live slot counts, gone slot reads zero");
	pk_counters_free(c);
	c = NULL;
	t.tids = &dead;
	t.nr_tids = 1;
	pk_diag_init(&d);
	err = pk_counters_open(&c, &l, &t, NULL, &d);
	ok(err == -ESRCH && !c, "every thread gone: ESRCH (%s)", d.msg);

	n = pk_cpus_online(&cpus);
	is_int(n, sysconf(_SC_NPROCESSORS_ONLN), "online CPUs");
	if (n > 0) {
		struct pk_target ct = { .cpus = cpus, .nr_cpus = (size_t)n };
		struct pk_counts s;

		pk_diag_init(&d);
		err = pk_counters_open(&c, &l, &ct, NULL, &d);
		ok(!err && pk_counters_nr_slots(c) == (size_t)n, "CPU-wide task-clock (%s)", d.msg);
		spin();
		if (!err) {
			pk_counters_read(c, &d);
			pk_counters_sum(c, 0, &s);
			ok(s.val >= SPIN_NS / 2 && s.run > 0, "CPU-wide sum %llu ns",
			   (unsigned long long)s.val);
		}
		pk_counters_free(c);
	}
	free(cpus);
}

/* ---- permission and descriptor limits, in children ------------------------ */

struct child_res {
	int err, err2, exclude_kernel;
	char name[64], msg[512], hint[256];
};

static void unpriv_child(void *p)
{
	struct child_res *r = p;
	struct pk_event ev[] = { SW(TASK_CLOCK, "task-clock", 0, 1) };
	struct pk_event_list l = LIST(ev);
	pid_t self = getpid();
	int cpu = 0;
	struct pk_target t = { .tids = &self, .nr_tids = 1 };
	struct pk_target ct = { .cpus = &cpu, .nr_cpus = 1 };
	struct pk_counters *c = NULL;
	struct pk_diag d;

	memset(r, 0, sizeof(*r));
	if (setgid(65534) || setuid(65534)) {
		r->err = -999;
		return;
	}
	pk_diag_init(&d);
	r->err = pk_counters_open(&c, &l, &t, NULL, &d);
	if (!r->err) {
		snprintf(r->name, sizeof(r->name), "%s", pk_counters_event(c, 0)->name);
		r->exclude_kernel = pk_counters_event(c, 0)->attr.exclude_kernel;
		pk_counters_free(c);
	}
	pk_diag_init(&d);
	r->err2 = pk_counters_open(&c, &l, &ct, NULL, &d);
	pk_counters_free(c);
	snprintf(r->msg, sizeof(r->msg), "%s", d.msg);
	snprintf(r->hint, sizeof(r->hint), "%s", d.hint);
}

static void emfile_child(void *p)
{
	struct child_res *r = p;
	struct pk_event ev[6];
	struct pk_event_list l = LIST(ev);
	int fd = dup(0), i;
	struct rlimit rl;
	struct pk_counters *c = NULL;
	struct pk_diag d;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < 6; i++)
		ev[i] = SW(TASK_CLOCK, "task-clock", i, 1);
	close(fd);
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = (rlim_t)fd + 2;
	setrlimit(RLIMIT_NOFILE, &rl);
	pk_diag_init(&d);
	r->err = open_self(&c, ev, 6, false, &d);
	pk_counters_free(c);
	snprintf(r->msg, sizeof(r->msg), "%s", d.msg);
	snprintf(r->hint, sizeof(r->hint), "%s", d.hint);
	(void)l;
}

static void test_limits(void)
{
	struct child_res r;
	int paranoid = -1, err;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -1;
		fclose(f);
	}
	err = in_child(emfile_child, &r, sizeof(r));
	ok(!err && r.err == -EMFILE && strstr(r.hint, "ulimit -n"), "EMFILE: %s; %s",
	   r.msg, r.hint);
	if (getuid() != 0 || paranoid < 2) {
		diag("needs root to drop privileges and perf_event_paranoid >= 2 (is %d): "
		     "fallback checks skipped", paranoid);
		return;
	}
	err = in_child(unpriv_child, &r, sizeof(r));
	ok(!err && r.err == 0 &&
	   !strcmp(r.name, "task-clock:u") && r.exclude_kernel,
	   "unprivileged at paranoid %d: falls back to user-only '%s' (%d)", paranoid,
	   r.name, r.err);
	ok((r.err2 == -EACCES || r.err2 == -EPERM) &&
	   strstr(r.msg, "/proc/sys/kernel/perf_event_paranoid is 2") &&
	   strstr(r.msg, "kernel profiling") && strstr(r.hint, "to 1 or run as root"),
	   "unprivileged CPU-wide refused: %s; hint: %s", r.msg, r.hint);
}

/* ---- self-monitoring and system targets ---------------------------------- */

static void test_self_counter(void)
{
	struct pk_event ev = SW(TASK_CLOCK, "task-clock", 0, 1);
	struct pk_self_counter sc;
	struct pk_counts a = { 0 }, b = { 0 };
	struct pk_diag d;
	int err;

	pk_diag_init(&d);
	err = pk_self_counter_open(&sc, &ev, &d);
	ok(!err && sc.fd >= 0 && sc.page, "self counter with its mmap page (%s)", d.msg);
	if (err)
		return;
	err = pk_self_counter_read(&sc, &a);
	spin();
	err |= pk_self_counter_read(&sc, &b);
	ok(!err && b.val > a.val && b.val - a.val >= SPIN_NS / 2 && b.ena >= b.run && b.run > 0,
	   "task-clock self reads increase: %llu -> %llu", (unsigned long long)a.val,
	   (unsigned long long)b.val);
	pk_self_counter_close(&sc);
	ok(sc.fd == -1 && !sc.page && pk_self_counter_read(&sc, &a) == -EBADF, "closed");
}

static pthread_barrier_t barrier;
static pid_t thread_tid;

static void *thread_fn(void *arg)
{
	thread_tid = gettid();
	pthread_barrier_wait(&barrier);
	pthread_barrier_wait(&barrier);
	return arg;
}

static void test_targets(void)
{
	struct pk_cpu_topo topo = { -1, -1, -1 };
	pid_t *tids = NULL, dead;
	pthread_t th;
	bool found = false, sorted = true;
	int n, i, err;

	err = pk_cpu_topology(0, &topo);
	ok(!err && topo.socket >= 0 && topo.die >= 0 && topo.core >= 0,
	   "cpu0 topology: socket %d die %d core %d", topo.socket, topo.die, topo.core);
	ok(pk_cpu_topology(-1, &topo) == -EINVAL && pk_cpu_topology(1 << 20, &topo) == -ENOENT,
	   "topology of a missing CPU fails");

	pthread_barrier_init(&barrier, NULL, 2);
	pthread_create(&th, NULL, thread_fn, NULL);
	pthread_barrier_wait(&barrier);
	n = pk_proc_threads(getpid(), &tids);
	for (i = 0; i < n; i++) {
		found |= tids[i] == thread_tid;
		if (i && tids[i - 1] >= tids[i])
			sorted = false;
	}
	ok(n >= 2 && found && sorted && tids[0] == getpid(),
	   "threads of this process (%d) include the new thread %d, sorted", n, (int)thread_tid);
	free(tids);
	pthread_barrier_wait(&barrier);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&barrier);

	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	ok(pk_proc_threads(dead, &tids) == -ESRCH && !tids, "threads of a gone process: ESRCH");
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc == 4 && !strcmp(argv[1], "--touch"))
		return workload_main(atol(argv[2]), !strcmp(argv[3], "fork"));
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0) {
		skip_all("cannot resolve /proc/self/exe");
		return 0;
	}
	self_exe[n] = '\0';
	test_child_counts();
	test_unsupported();
	test_self_ioctls();
	test_cpu_and_gone();
	test_limits();
	test_self_counter();
	test_targets();
	return done_testing();
}

