/*
 * Launching a command to measure. The child is forked first and waits on a
 * pipe, so the caller can open counters on its pid (with enable_on_exec they
 * start exactly at the exec); then it is released to execvp(). If the exec
 * fails the child writes its errno to a close-on-exec pipe, which the parent
 * reads: EOF there means the exec succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfkit/core.h>

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int pk_workload_prepare(struct pk_workload *w, char *const argv[], struct pk_diag *diag)
{
	int go[2], errp[2];
	pid_t pid;

	w->pid = -1;
	w->go_fd = w->err_fd = -1;
	w->status = -1;
	if (!argv || !argv[0])
		return pk_diag_fail(diag, -EINVAL, "no command to run");
	if (pipe2(go, O_CLOEXEC) < 0)
		return pk_diag_fail(diag, -errno, "cannot create a pipe: %s", strerror(errno));
	if (pipe2(errp, O_CLOEXEC) < 0) {
		int err = -errno;

		close(go[0]);
		close(go[1]);
		return pk_diag_fail(diag, err, "cannot create a pipe: %s", strerror(-err));
	}
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(go[0]);
		close(go[1]);
		close(errp[0]);
		close(errp[1]);
		return pk_diag_fail(diag, err, "cannot fork: %s", strerror(-err));
	}
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(errp[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		/* Wait to be released; EOF (the parent died) means do not run. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0) {
			/* nothing more we can tell the parent */
		}
		_exit(e == EACCES ? 126 : 127);
	}
	close(go[0]);
	close(errp[1]);
	w->pid = pid;
	w->go_fd = go[1];
	w->err_fd = errp[0];
	return 0;
}

int pk_workload_start(struct pk_workload *w, struct pk_diag *diag)
{
	ssize_t n;
	int e = 0;

	if (write(w->go_fd, "g", 1) != 1) {
		int err = -errno, status;

		close_fd(&w->go_fd);
		close_fd(&w->err_fd);
		/* EPIPE: the child is gone (killed before it was released); say how it ended */
		if (err == -EPIPE && waitpid(w->pid, &status, 0) == w->pid) {
			w->pid = -1;
			w->status = status;
			if (WIFSIGNALED(status))
				return pk_diag_fail(diag, -ECHILD,
						    "the command was killed by signal %d before it started",
						    WTERMSIG(status));
			return pk_diag_fail(diag, -ECHILD, "the command ended before it started");
		}
		return pk_diag_fail(diag, err, "cannot start the command: %s", strerror(-err));
	}
	close_fd(&w->go_fd);
	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close_fd(&w->err_fd);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(w->pid, NULL, 0);
		w->pid = -1;
		if (e == ENOENT)
			return pk_diag_fail(diag, -e, "command not found");
		return pk_diag_fail(diag, -e, "cannot run the command: %s", strerror(e));
	}
	return 0;
}

int pk_workload_start_exit_code(const struct pk_workload *w, int err)
{
	if (err == -ECHILD && w->status >= 0) {
		if (WIFSIGNALED(w->status))
			return 128 + WTERMSIG(w->status);
		if (WIFEXITED(w->status))
			return WEXITSTATUS(w->status);
	}
	return err == -EACCES ? 126 : 127;
}

void pk_workload_abort(struct pk_workload *w)
{
	close_fd(&w->go_fd);
	close_fd(&w->err_fd);
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
	}
	w->pid = -1;
}
