/*
 * A trial run of libtraceevent on a file's tracing data, one step ahead,
 * in a child process, so that what crashes it (libtraceevent 1.7's parser
 * takes NULL tokens and fields, and divides by zero, on hostile formats:
 * the tracing fuzz target finds such formats within seconds) crashes the
 * child, not perfkit.
 *
 * The body makes its libtraceevent calls as steps: before each it asks
 * pk_trace_trial_step() whether to make it. The child runs the body first
 * and tells each step's number on a pipe as it starts it, then that it is
 * done. The caller runs the same body at the same time and makes a step
 * only once the child has started the next one (or is done), so one step
 * behind it, on another core. When the child dies in the step the caller
 * waits on, that step is marked and left out, and a new child runs the
 * body again without it (from the start: a step may depend on the ones
 * before). A child that makes no progress for stall_ms is killed, and its
 * step left out the same way. After PK_TRACE_TRIAL_MAX marked steps the
 * caller makes no more.
 * Where fork or pipe fails, or the child dies outside any step, the rest
 * of the steps are made without a trial.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "script/tracing.h"

#define TRIAL_DONE UINT32_MAX

/* Set in sanitizer builds: where their reports go, and what runs before they end the process. */
extern void __sanitizer_set_report_path(const char *path) __attribute__((weak));
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static int is_crashed(const struct pk_trace_trial *t, uint32_t n)
{
	for (size_t i = 0; i < t->n_crashed; i++)
		if (t->crashed[i] == n)
			return 1;
	return 0;
}

/* The child: the body with its steps told on @fd, its messages to /dev/null. */
static _Noreturn void child(struct pk_trace_trial *t, int fd)
{
	static const int deadly[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	uint32_t done = TRIAL_DONE;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (null >= 0)
		dup2(null, STDERR_FILENO);
	/*
	 * The crash this child is for ends it at once: no sanitizer reports it
	 * (to its log_path) and no fuzzer saves the input as a crash of its
	 * own; what a sanitizer still reports goes to /dev/null.
	 */
	for (size_t i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++)
		signal(deadly[i], SIG_DFL);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
	if (__sanitizer_set_report_path)
		__sanitizer_set_report_path("stderr");
	t->is_child = 1;
	t->fd = fd;
	t->step = 0;
	t->body(t->ctx, t);
	if (write(fd, &done, sizeof(done)) != (ssize_t)sizeof(done))
		_exit(1);
	_exit(0);
}

/* A child to run ahead of the caller; without one (fork or pipe failed), no trial. */
static void start_child(struct pk_trace_trial *t)
{
	int fds[2];
	pid_t pid;

	t->pid = 0;
	t->fd = -1;
	t->child_seen = t->child_done = 0;
	if (pipe2(fds, O_CLOEXEC))
		return;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		child(t, fds[1]);
	}
	close(fds[1]);
	t->pid = pid;
	t->fd = fds[0];
}

/* The child's end: its pipe closed, the child waited for. */
static void reap(struct pk_trace_trial *t)
{
	int status;

	if (t->fd >= 0)
		close(t->fd);
	while (t->pid > 0 && waitpid(t->pid, &status, 0) < 0 && errno == EINTR)
		;
	t->fd = -1;
	t->pid = 0;
}

/*
 * The child's next message into child_at / child_done; 0 at its end (it
 * exited or died, or made no progress for stall_ms and was killed: a step
 * that hangs is left out as one that crashes).
 */
static int next_message(struct pk_trace_trial *t)
{
	struct pollfd p = { .fd = t->fd, .events = POLLIN };
	uint32_t n;
	ssize_t r;
	int ready;

	while ((ready = poll(&p, 1, t->stall_ms)) < 0 && errno == EINTR)
		;
	if (ready == 0) {
		kill(t->pid, SIGKILL);
		return 0;
	}
	while ((r = read(t->fd, &n, sizeof(n))) < 0 && errno == EINTR)
		;
	if (r != (ssize_t)sizeof(n))
		return 0;
	if (n == TRIAL_DONE) {
		t->child_done = 1;
	} else {
		t->child_at = n;
		t->child_seen = 1;
	}
	return 1;
}

int pk_trace_trial_step(struct pk_trace_trial *t)
{
	uint32_t n = t->step++;

	if (t->gave_up || is_crashed(t, n))
		return 0;
	if (t->is_child) {
		if (t->fd >= 0 && write(t->fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
			t->fd = -1;      /* the caller is gone: nothing to tell */
		return 1;
	}
	/* the caller: step n once the child has started a later one, or is done */
	while (t->pid > 0 && !t->child_done && !(t->child_seen && t->child_at > n)) {
		if (next_message(t))
			continue;
		reap(t);
		if (!t->child_seen || t->child_at != n)
			return 1;        /* it died outside step n: no trial for the rest */
		t->crashed[t->n_crashed++] = n;
		if (t->n_crashed == PK_TRACE_TRIAL_MAX)
			t->gave_up = 1;
		else
			start_child(t);
		return 0;
	}
	return 1;
}

int pk_trace_trial_run(struct pk_trace_trial *t, void (*body)(void *ctx, struct pk_trace_trial *t), void *ctx,
		       int stall_ms)
{
	memset(t, 0, sizeof(*t));
	t->stall_ms = stall_ms;
	t->body = body;
	t->ctx = ctx;
	start_child(t);
	body(ctx, t);
	/* the child is at its last step or past it: let it finish */
	while (t->pid > 0 && next_message(t))
		;
	reap(t);
	return t->gave_up ? -1 : 0;
}
