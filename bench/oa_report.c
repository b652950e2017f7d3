/*
 * Benchmark helper for bench/oa_report.sh.
 *
 *   oa_report gen FILE N      write an N-report Broadwell GT2 RenderBasic
 *                             recording (tests/unit/oa_gen.h: plausible
 *                             counters, 40-bit counters near their wrap, a
 *                             new context every 64 reports over 5 contexts,
 *                             a correlation point every 10,000 reports)
 *   oa_report decode FILE R   read FILE once, then time R passes of raw
 *                             decoding + accumulation of every consecutive
 *                             pair (pk_oa_accumulate_run over the whole
 *                             recording, one core); prints the median as
 *                             "RESULT reports=N ns=T rate=R" (reports/s)
 *   oa_report floor FILE R    the least time a process takes to map FILE
 *                             and read all of it once, on one thread or
 *                             two (medians of R runs each, "FLOOR ms=M
 *                             one-thread=A two-threads=B headers-only=H",
 *                             M the lesser): the bound under any reader
 *                             of every report; H, mapping FILE and
 *                             reading only each record's header, is the
 *                             bound under one that, as i915-perf-reader,
 *                             reads a segment's first and last reports
 *   oa_report phases FILE DIR R
 *                             where `perfkit oa report -c all` spends its
 *                             time inside the process, as it calls the
 *                             library (metric files in DIR): reading FILE
 *                             with its segments, the metric set, printing
 *                             to /dev/null, freeing; medians of R runs,
 *                             "PHASES read=A metrics=B print=C free=D" (ms)
 *   oa_report peak CMD ARG... run CMD (its output to /dev/null) and print
 *                             its peak resident memory, "PEAK kb=K"
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <perfkit/oa.h>
#include "../tests/unit/oa_gen.h"

static int gen(const char *path, size_t n)
{
	/* Broadwell GT2: one slice, three subslices of eight EUs (gpu.md 1.5 layout) */
	static struct pk_oa_topology t = {
		.max_slices = 1, .max_subslices = 3, .max_eus_per_subslice = 8,
		.subslice_offset = 1, .subslice_stride = 1, .eu_offset = 2, .eu_stride = 1,
		.data_len = 5, .data = { 0x1, 0x7, 0xff, 0xff, 0xff },
	};
	struct oa_gen g = {
		.pci_id = 0x1616, .format = PK_OA_FORMAT_A32u40_A4u32_B8_C8, .graphics_ver = 8,
		.ts_freq = 12500000, .set = "RenderBasic", .uuid = "b541bd57-0e0f-4154-b4c0-5858010a2bf7",
		.topo = &t, .n_reports = n, .period = 1000, .ts0 = 0x310000000ull,
		.a40_start = (1ull << 40) - 50000000, .u32_start = 0xff000000u, .ctx_every = 64,
		.lost_every = 0, .corr_every = 10000, .seed = 42,
	};
	struct pk_buf b;
	FILE *f;
	int err;
	const char *every = getenv("BENCH_OA_CTX_EVERY");

	if (every && atoi(every) > 0)
		g.ctx_every = (unsigned)atoi(every);

	pk_buf_init(&b);
	if ((err = oa_gen_write(&g, &b)) || !(f = fopen(path, "w"))) {
		fprintf(stderr, "oa_report: cannot generate %s\n", path);
		return 1;
	}
	if (fwrite(b.data, 1, b.len, f) != b.len || fclose(f)) {
		fprintf(stderr, "oa_report: cannot write %s\n", path);
		return 1;
	}
	printf("  recording: %zu reports, %zu bytes\n", n, b.len);
	pk_buf_release(&b);
	return 0;
}

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int decode(const char *path, int reps)
{
	struct pk_oa_recording *rec;
	struct pk_diag d;
	uint64_t t[64], sink = 0;
	size_t n;

	pk_diag_init(&d);
	if (pk_oa_recording_read_file(path, &rec, &d)) {
		fprintf(stderr, "oa_report: %s: %s\n", path, d.msg);
		return 1;
	}
	n = pk_oa_recording_n_reports(rec);
	if (reps < 1 || reps > 64)
		reps = 9;
	for (int r = 0; r < reps; r++) {
		uint64_t deltas[PK_OA_MAX_VALUES] = { 0 }, t0 = now();

		pk_oa_recording_accumulate(rec, 0, n - 1, deltas);
		t[r] = now() - t0;
		for (int k = 0; k < PK_OA_MAX_VALUES; k++)
			sink += deltas[k];
	}
	qsort(t, (size_t)reps, sizeof(t[0]), cmp_u64);
	{
		/* the same work on 4,096 reports (1 MiB, in cache) repeated: the compute rate */
		size_t m = n < 4096 ? n : 4096, rounds = m > 1 ? (n - 1) / (m - 1) : 0;
		uint64_t deltas[PK_OA_MAX_VALUES] = { 0 }, t0 = now(), tc;

		for (size_t r = 0; r < rounds; r++)
			pk_oa_recording_accumulate(rec, 0, m - 1, deltas);
		tc = now() - t0;
		sink += deltas[2];
		printf("CACHED pairs=%zu ns=%" PRIu64 " rate=%.0f\n", rounds * (m - 1), tc,
		       tc ? (double)(rounds * (m - 1)) * 1e9 / (double)tc : 0.0);
	}
	printf("RESULT reports=%zu ns=%" PRIu64 " rate=%.0f sink=%" PRIu64 "\n", n, t[reps / 2],
	       (double)(n - 1) * 1e9 / (double)t[reps / 2], sink);
	pk_oa_recording_free(rec);
	return 0;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22   /* Linux 5.14 */
#endif

/* A part of the mapped file that one thread maps in and reads. */
struct floor_part {
	const uint8_t *p;
	size_t len;
	bool populate;            /* fault it in first (MADV_POPULATE_READ) */
	uint64_t sum;
};

static void *floor_read(void *arg)
{
	struct floor_part *q = arg;
	const uint64_t *w = (const uint64_t *)q->p;
	uint64_t sum = 0;

	if (q->populate)
		madvise((void *)q->p, q->len, MADV_POPULATE_READ);
	for (size_t i = 0; i < q->len / 8; i += 8)
		sum += w[i];   /* a word of each 64-byte line: every line fetched once */
	q->sum = sum;
	return NULL;
}

/* Walk the records of the mapped file by their headers (perfkit's record iterator): a sum of their types. */
static uint64_t walk_headers(const uint8_t *p, size_t len)
{
	struct pk_oa_record_iter it;
	struct pk_oa_record r;
	struct pk_diag d;
	uint64_t sum = 0;

	pk_diag_init(&d);
	pk_oa_record_iter_init(&it, p, len);
	while (pk_oa_record_next(&it, &r, &d) > 0)
		sum += r.type;
	return sum;
}

/*
 * One run of the floor in a child process of its own: map FILE and read
 * each cache line once, on one thread (MAP_POPULATE, as perfkit maps) or
 * on two (each faults in and reads its half); with @threads 0, map it and
 * read only the records' headers. Nanoseconds, 0 on failure.
 */
static uint64_t floor_run(const char *path, int threads)
{
	uint64_t t0 = now();
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int fd = open(path, O_RDONLY);
		struct stat st;
		struct floor_part a, b;
		pthread_t th;
		size_t half;
		uint8_t *p;

		if (fd < 0 || fstat(fd, &st) < 0)
			_exit(1);
		p = mmap(NULL, (size_t)st.st_size, PROT_READ,
			 MAP_PRIVATE | (threads < 2 ? MAP_POPULATE : 0), fd, 0);
		if (p == MAP_FAILED)
			_exit(1);
		if (threads == 0)
			_exit(walk_headers(p, (size_t)st.st_size) == 1 ? 3 : 0);
		half = ((size_t)st.st_size / 2) & ~(size_t)4095;
		a = (struct floor_part){ p, half, threads == 2, 0 };
		b = (struct floor_part){ p + half, (size_t)st.st_size - half, threads == 2, 0 };
		if (threads == 2 && pthread_create(&th, NULL, floor_read, &b) == 0) {
			floor_read(&a);
			pthread_join(th, NULL);
		} else {
			floor_read(&a);
			floor_read(&b);
		}
		_exit(a.sum + b.sum == 1 ? 3 : 0);  /* the sums are used: the loops stay */
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 1)
		return 0;
	return now() - t0;
}

/*
 * The floor of any tool reading FILE from the page cache: the median of
 * @reps runs of floor_run, on one thread and on two, in milliseconds; the
 * lesser is the floor. No tool that reads every report can take less (two
 * threads barely help: faulting the pages in is most of it). And the
 * floor of one that reads only the records' headers (threads 0).
 */
static int floor_ms(const char *path, int reps)
{
	double ms[3];

	if (reps < 1 || reps > 64)
		reps = 5;
	for (int threads = 0; threads <= 2; threads++) {
		uint64_t t[64];

		for (int r = 0; r < reps; r++)
			if (!(t[r] = floor_run(path, threads))) {
				fprintf(stderr, "oa_report: floor: cannot read %s\n", path);
				return 1;
			}
		qsort(t, (size_t)reps, sizeof(t[0]), cmp_u64);
		ms[threads] = (double)t[reps / 2] / 1e6;
	}
	printf("FLOOR ms=%.1f one-thread=%.1f two-threads=%.1f headers-only=%.1f\n",
	       ms[1] < ms[2] ? ms[1] : ms[2], ms[1], ms[2], ms[0]);
	return 0;
}

/* One run of what `perfkit oa report -c all` does in-process, each phase's time into @ns[4]. */
static int phases_run(const char *path, const char *dir, FILE *out, uint64_t *ns)
{
	PK_OA_SUMMARY_OPTS(so, .metrics_dir = dir, .counters = "all");
	struct pk_oa_recording *rec;
	struct pk_oa_timeline tl;
	struct pk_oa_summary s;
	struct pk_diag d;
	uint64_t t0 = now(), t1, t2, t3;

	pk_diag_init(&d);
	if (pk_oa_timeline_read_file(path, NULL, &rec, &tl, &d)) {
		fprintf(stderr, "oa_report: %s: %s\n", path, d.msg);
		return 1;
	}
	t1 = now();
	so.timeline = &tl;
	if (pk_oa_summary_init(&s, rec, &so, &d)) {
		fprintf(stderr, "oa_report: %s: %s\n", path, d.msg);
		pk_oa_recording_free(rec);
		return 1;
	}
	t2 = now();
	if (pk_oa_summary_print(&s, out, false, &d) || fflush(out)) {
		fprintf(stderr, "oa_report: %s: cannot print: %s\n", path, d.msg);
		pk_oa_summary_release(&s);
		pk_oa_recording_free(rec);
		return 1;
	}
	t3 = now();
	pk_oa_summary_release(&s);
	pk_oa_recording_free(rec);
	ns[0] = t1 - t0;
	ns[1] = t2 - t1;
	ns[2] = t3 - t2;
	ns[3] = now() - t3;
	return 0;
}

/* The medians of @reps phases_run, in milliseconds. */
static int phases(const char *path, const char *dir, int reps)
{
	uint64_t t[4][64];
	FILE *out = fopen("/dev/null", "w");
	int err = 0;

	if (!out)
		return 1;
	if (reps < 1 || reps > 64)
		reps = 5;
	for (int r = 0; r < reps && !err; r++) {
		uint64_t ns[4] = { 0 };

		err = phases_run(path, dir, out, ns);
		for (int k = 0; k < 4; k++)
			t[k][r] = ns[k];
	}
	fclose(out);
	if (err)
		return 1;
	for (int k = 0; k < 4; k++)
		qsort(t[k], (size_t)reps, sizeof(t[k][0]), cmp_u64);
	printf("PHASES read=%.1f metrics=%.1f print=%.1f free=%.1f\n", (double)t[0][reps / 2] / 1e6,
	       (double)t[1][reps / 2] / 1e6, (double)t[2][reps / 2] / 1e6, (double)t[3][reps / 2] / 1e6);
	return 0;
}

/* Run @argv with its output to /dev/null; print its peak resident memory (ru_maxrss). */
static int peak(char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null < 0 || dup2(null, 1) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 127) {
		fprintf(stderr, "oa_report: peak: cannot run %s\n", argv[0]);
		return 1;
	}
	printf("PEAK kb=%ld\n", ru.ru_maxrss);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], strtoul(argv[3], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "decode"))
		return decode(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "floor"))
		return floor_ms(argv[2], atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "phases"))
		return phases(argv[2], argv[3], atoi(argv[4]));
	if (argc >= 3 && !strcmp(argv[1], "peak"))
		return peak(argv + 2);
	fprintf(stderr, "usage: oa_report gen FILE N | decode FILE REPS | floor FILE REPS | phases FILE DIR REPS | peak CMD...\n");
	return 2;
}
