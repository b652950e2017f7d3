/*
 * pk-workload: a workload whose event counts are known in advance, for
 * perfkit's tests, demo and benchmarks. Each worker does exactly
 * --writes N one-byte write(2) calls to /dev/null, touches exactly
 * --pages M fresh anonymous pages (huge pages disabled, so M page faults),
 * and spins --spin-ms of CPU. --threads T runs T workers in threads,
 * --children K runs the work in K forked children instead of this process,
 * --exec re-executes itself once before working. It prints nothing unless
 * asked (--print-pid), so it makes no writes of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long opt_writes, opt_pages, opt_spin_ms, opt_sleep_ms;
static int opt_threads = 1, opt_children, opt_exit;
static const char *opt_wait_file;

static double now_ms(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *work(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	char byte = 'x';

	(void)arg;
	for (long i = 0; i < opt_writes; i++)
		if (write(fd, &byte, 1) != 1)
			abort();
	close(fd);
	if (opt_pages > 0) {
		size_t len = (size_t)opt_pages * (size_t)page;
		volatile char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (mem == MAP_FAILED)
			abort();
		madvise((void *)mem, len, MADV_NOHUGEPAGE);
		for (long i = 0; i < opt_pages; i++)
			mem[i * page] = 1;
		munmap((void *)mem, len);
	}
	if (opt_spin_ms > 0) {
		clockid_t clk = CLOCK_THREAD_CPUTIME_ID;
		double end = now_ms(clk) + (double)opt_spin_ms;
		volatile unsigned long x = 0;

		while (now_ms(clk) < end)
			for (int i = 0; i < 10000; i++)
				x += (unsigned long)i;
	}
	return NULL;
}

static void run_worker(void)
{
	pthread_t tid[256];
	int n = opt_threads;

	if (n <= 1) {
		work(NULL);
		return;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&tid[i], NULL, work, NULL))
			abort();
	for (int i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
}

static void usage(void)
{
	fputs("usage: pk-workload [--writes N] [--pages M] [--spin-ms MS] [--threads T]\n"
	      "                   [--children K] [--exec] [--sleep-ms MS] [--wait-file PATH]\n"
	      "                   [--print-pid] [--exit CODE]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "writes", required_argument, NULL, 'w' },
		{ "pages", required_argument, NULL, 'p' },
		{ "spin-ms", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "children", required_argument, NULL, 'c' },
		{ "exec", no_argument, NULL, 'e' },
		{ "sleep-ms", required_argument, NULL, 'S' },
		{ "wait-file", required_argument, NULL, 'W' },
		{ "print-pid", no_argument, NULL, 'P' },
		{ "exit", required_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, do_exec = 0;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'w': opt_writes = atol(optarg); break;
		case 'p': opt_pages = atol(optarg); break;
		case 's': opt_spin_ms = atol(optarg); break;
		case 't': opt_threads = atoi(optarg); break;
		case 'c': opt_children = atoi(optarg); break;
		case 'e': do_exec = 1; break;
		case 'S': opt_sleep_ms = atol(optarg); break;
		case 'W': opt_wait_file = optarg; break;
		case 'P': printf("%d\n", getpid()); fflush(stdout); break;
		case 'x': opt_exit = atoi(optarg); break;
		default: usage();
		}
	}
	if (opt_threads < 1 || opt_threads > 256)
		usage();
	if (do_exec) {
		/* Re-execute without --exec: the same work after one execve. */
		char **args = calloc((size_t)argc + 1, sizeof(*args));
		int n = 0;

		for (int i = 0; i < argc; i++)
			if (strcmp(argv[i], "--exec"))
				args[n++] = argv[i];
		execv("/proc/self/exe", args);
		abort();
	}
	if (opt_wait_file) {
		struct stat st;

		while (stat(opt_wait_file, &st) != 0) {
			struct timespec ts = { 0, 5 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	if (opt_sleep_ms > 0) {
		struct timespec ts = { opt_sleep_ms / 1000, (opt_sleep_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	if (opt_children > 0) {
		for (int i = 0; i < opt_children; i++) {
			pid_t pid = fork();

			if (pid < 0)
				abort();
			if (pid == 0) {
				run_worker();
				_exit(0);
			}
		}
		while (wait(NULL) > 0 || errno == EINTR)
			;
	} else {
		run_worker();
	}
	return opt_exit;
}
