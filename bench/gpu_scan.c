/*
 * Benchmark of the gpu scanner: what one pk_gpu_scanner_refresh() over a
 * large /proc tree costs, against the bare system calls any tool needs to
 * read the same DRM fdinfo files.
 *
 *   gpu_scan gen DIR [NPROC] [NFD] [NDRM]   write a fake tree under DIR
 *   gpu_scan run DIR [REPS]                 time bare loop vs perfkit
 *
 * gen writes DIR/proc (devices, <pid>/stat, <pid>/fd/<n> symlinks,
 * <pid>/fdinfo/<n>), DIR/sys/class/drm (empty), DIR/files (the targets of
 * the ordinary fds) and, as root, the character devices
 * DIR/dev/dri/renderD128..131 (226:128..131) that the DRM fd links point at
 * by absolute path, so that one fstatat() of a link identifies the fd as
 * on a real /proc. Without the right to mknod, DRM links dangle to
 * /dev/dri/renderD12x and both sides fall back to readlink. DRM fd k of a
 * process refers to device k % 4 (i915 iGPU, xe, amdgpu, i915 discrete),
 * each fd its own client (drm-client-id unique per device).
 *
 * run alternates, REPS times, in this one process:
 *   (a) the bare loop: getdents64 of proc; per numeric entry open <pid>/fd,
 *       getdents64, fstatat every fd through that dirfd, close; for every
 *       character device of major 226 open <pid>/fdinfo/<n>, read() to EOF,
 *       close. No parsing. Its system calls are counted as made.
 *   (b) pk_gpu_scanner_new + pk_gpu_scanner_refresh (the first refresh
 *       timed alone and with new), (c) a second refresh with nothing
 *       changed, then pk_gpu_scanner_free.
 * Wall time is CLOCK_MONOTONIC, CPU time getrusage (user + sys). Both
 * sides must see the same DRM fds and fdinfo reads, and the snapshot one
 * client per DRM fd, or the run aborts. After the timed runs one untimed
 * round counts each side's system calls by type with perf tracepoint
 * counters (syscalls:sys_enter_*), when the kernel lets us.
 *
 * Output: human-readable lines indented by two spaces, then one line
 *   RESULT first_ratio=R unchanged_ratio=R first_ms=M unchanged_ms=M bare_ms=M
 * for bench/gpu_scan.sh. Exit 0 when measured, 1 when something is broken.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <perfkit/core.h>
#include <perfkit/gpu.h>

#define DRM_MAJOR 226
#define N_DEVICES 4

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("gpu_scan: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* ---- gen ------------------------------------------------------------------ */

/* The four fake devices: DRM fd k of a process refers to device k % 4. */
static const char *const dev_pdev[N_DEVICES] = {
	"0000:00:02.0", "0000:03:00.0", "0000:04:00.0", "0000:05:00.0",
};


static void write_at(int dirfd, const char *name, const char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		die("cannot create '%s': %s", name, strerror(errno));
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("cannot write '%s': %s", name, strerror(errno));
		}
		buf += n;
		len -= (size_t)n;
	}
	if (close(fd))
		die("cannot write '%s': %s", name, strerror(errno));
}

static void mkdir_at(int dirfd, const char *name)
{
	if (mkdirat(dirfd, name, 0755) && errno != EEXIST)
		die("cannot create directory '%s': %s", name, strerror(errno));
}

static int open_dir_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		die("cannot open directory '%s': %s", name, strerror(errno));
	return fd;
}

/* i915 integrated GPU (device 0) or discrete (device 3, with local0). */
static int fdinfo_i915(char *b, size_t sz, bool discrete, uint64_t client, int pid, uint64_t ino,
		       uint64_t r)
{
	int n = snprintf(b, sz,
		"pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t%" PRIu64 "\n"
		"drm-driver:\ti915\ndrm-client-id:\t%" PRIu64 "\ndrm-pdev:\t%s\n"
		"drm-client-name:\tcomm-%d\n"
		"drm-total-system0:\t%" PRIu64 " KiB\ndrm-shared-system0:\t0\ndrm-active-system0:\t0\n"
		"drm-resident-system0:\t%" PRIu64 " KiB\ndrm-purgeable-system0:\t%" PRIu64 " KiB\n",
		ino, client, dev_pdev[discrete ? 3 : 0], pid, 4096 + r % 8192, 4096 + r % 8192,
		r % 2048);
	if (discrete)
		n += snprintf(b + n, sz - (size_t)n,
			"drm-total-local0:\t%" PRIu64 " MiB\ndrm-shared-local0:\t0\n"
			"drm-active-local0:\t%" PRIu64 " KiB\ndrm-resident-local0:\t%" PRIu64 " MiB\n"
			"drm-purgeable-local0:\t0\n",
			64 + (r >> 8) % 900, (r >> 12) % 65536, 64 + (r >> 8) % 900);
	else
		n += snprintf(b + n, sz - (size_t)n,
			"drm-total-stolen-system0:\t0\ndrm-shared-stolen-system0:\t0\n"
			"drm-active-stolen-system0:\t0\ndrm-resident-stolen-system0:\t0\n"
			"drm-purgeable-stolen-system0:\t0\n");
	n += snprintf(b + n, sz - (size_t)n,
		"drm-engine-render:\t%" PRIu64 " ns\ndrm-engine-copy:\t%" PRIu64 " ns\n"
		"drm-engine-video:\t%" PRIu64 " ns\ndrm-engine-capacity-video:\t2\n"
		"drm-engine-video-enhance:\t0 ns\n%s",
		(r >> 5) % UINT64_C(400000000000), (r >> 17) % UINT64_C(1000000000), (r >> 23) % UINT64_C(5000000000),
		discrete ? "drm-engine-compute:\t0 ns\ndrm-engine-capacity-copy:\t2\n" : "");
	return n;
}

static int fdinfo_xe(char *b, size_t sz, uint64_t client, uint64_t ino, uint64_t r)
{
	uint64_t ts = UINT64_C(7655183225) + (r >> 20) % UINT64_C(1000000000);

	return snprintf(b, sz,
		"pos:\t0\nflags:\t0100002\nmnt_id:\t26\nino:\t%" PRIu64 "\n"
		"drm-driver:\txe\ndrm-client-id:\t%" PRIu64 "\ndrm-pdev:\t%s\n"
		"drm-total-system:\t0\ndrm-shared-system:\t0\ndrm-active-system:\t0\n"
		"drm-resident-system:\t0\ndrm-purgeable-system:\t0\n"
		"drm-total-gtt:\t%" PRIu64 " KiB\ndrm-shared-gtt:\t0\ndrm-active-gtt:\t0\n"
		"drm-resident-gtt:\t%" PRIu64 " KiB\n"
		"drm-total-vram0:\t%" PRIu64 " KiB\ndrm-shared-vram0:\t16 MiB\ndrm-active-vram0:\t0\n"
		"drm-resident-vram0:\t%" PRIu64 " KiB\n"
		"drm-total-stolen:\t0\ndrm-shared-stolen:\t0\ndrm-active-stolen:\t0\n"
		"drm-resident-stolen:\t0\n"
		"drm-cycles-rcs:\t%" PRIu64 "\ndrm-total-cycles-rcs:\t%" PRIu64 "\n"
		"drm-cycles-bcs:\t%" PRIu64 "\ndrm-total-cycles-bcs:\t%" PRIu64 "\n"
		"drm-cycles-vcs:\t0\ndrm-total-cycles-vcs:\t%" PRIu64 "\ndrm-engine-capacity-vcs:\t2\n"
		"drm-cycles-vecs:\t0\ndrm-total-cycles-vecs:\t%" PRIu64 "\ndrm-engine-capacity-vecs:\t2\n"
		"drm-cycles-ccs:\t%" PRIu64 "\ndrm-total-cycles-ccs:\t%" PRIu64 "\n"
		"drm-engine-capacity-ccs:\t4\n",
		ino, client, dev_pdev[1], 64 + r % 1024, 64 + r % 1024, 20000 + (r >> 10) % 9000,
		20000 + (r >> 10) % 9000, (r >> 3) % UINT64_C(300000000), ts, (r >> 29) % UINT64_C(1000000), ts, ts,
		ts, (r >> 37) % UINT64_C(100000), ts);
}

static int fdinfo_amdgpu(char *b, size_t sz, uint64_t client, uint64_t ino, uint64_t r)
{
	uint64_t vram = 65536 + r % 900000;

	return snprintf(b, sz,
		"pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t%" PRIu64 "\n"
		"drm-driver:\tamdgpu\ndrm-client-id:\t%" PRIu64 "\ndrm-pdev:\t%s\npasid:\t%" PRIu64 "\n"
		"drm-total-cpu:\t0\ndrm-shared-cpu:\t0\ndrm-active-cpu:\t0\ndrm-resident-cpu:\t0\n"
		"drm-total-gtt:\t%" PRIu64 " MiB\ndrm-shared-gtt:\t0\ndrm-active-gtt:\t10 MiB\n"
		"drm-resident-gtt:\t%" PRIu64 " MiB\n"
		"drm-total-vram:\t%" PRIu64 " KiB\ndrm-shared-vram:\t13584 KiB\n"
		"drm-active-vram:\t%" PRIu64 " KiB\ndrm-resident-vram:\t%" PRIu64 " KiB\n"
		"drm-memory-vram:\t%" PRIu64 " KiB\ndrm-memory-gtt: \t%" PRIu64 " KiB\n"
		"drm-memory-cpu: \t0 KiB\n"
		"amd-memory-visible-vram:\t%" PRIu64 " KiB\namd-evicted-vram:\t0 KiB\n"
		"amd-evicted-visible-vram:\t0 KiB\namd-requested-vram:\t%" PRIu64 " KiB\n"
		"amd-requested-visible-vram:\t90112 KiB\namd-requested-gtt:\t%" PRIu64 " KiB\n"
		"drm-engine-gfx:\t%" PRIu64 " ns\ndrm-engine-compute:\t%" PRIu64 " ns\n"
		"drm-engine-dma:\t%" PRIu64 " ns\ndrm-engine-dec:\t%" PRIu64 " ns\n",
		ino, client, dev_pdev[2], 32768 + client % 32768, 10 + r % 40, 10 + r % 40, vram,
		vram / 2, vram, vram, (10 + r % 40) * 1024, vram, vram, (10 + r % 40) * 1024,
		(r >> 7) % UINT64_C(50000000000), (r >> 19) % UINT64_C(1000000000), (r >> 27) % UINT64_C(100000000),
		(r >> 31) % UINT64_C(10000000));
}

/*
 * Which fds of NFD are DRM: NDRM of them spread from fd 3 on
 * (24 fds, 4 DRM: 3, 8, 13, 18), or the last ones when crowded.
 */
static int drm_index(unsigned fd, unsigned nfd, unsigned ndrm)
{
	if (nfd < ndrm + 3) {
		return fd >= nfd - ndrm ? (int)(fd - (nfd - ndrm)) : -1;
	}
	unsigned stride = (nfd - 3) / ndrm;

	if (fd < 3 || (fd - 3) % stride || (fd - 3) / stride >= ndrm)
		return -1;
	return (int)((fd - 3) / stride);
}

static int cmd_gen(const char *dir, unsigned nproc, unsigned nfd, unsigned ndrm)
{
	char top[PATH_MAX], path[PATH_MAX + 64], buf[4096];
	uint64_t client[N_DEVICES] = { 0 }, ino = 100000;
	bool dangling = false;
	int mk_errno = 0;

	if (ndrm > nfd)
		die("NDRM (%u) exceeds NFD (%u)", ndrm, nfd);
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("cannot create '%s': %s", dir, strerror(errno));
	if (!realpath(dir, top))
		die("'%s': %s", dir, strerror(errno));

	int topfd = open_dir_at(AT_FDCWD, top);

	mkdir_at(topfd, "proc");
	mkdir_at(topfd, "sys");
	mkdir_at(topfd, "sys/class");
	mkdir_at(topfd, "sys/class/drm");
	mkdir_at(topfd, "dev");
	mkdir_at(topfd, "dev/dri");
	mkdir_at(topfd, "files");
	for (int d = 0; d < N_DEVICES; d++) {
		snprintf(path, sizeof(path), "dev/dri/renderD%d", 128 + d);
		if (mknodat(topfd, path, S_IFCHR | 0666, makedev(DRM_MAJOR, 128 + d)) &&
		    errno != EEXIST) {
			dangling = true;
			mk_errno = errno;
		}
	}
	for (unsigned f = 0; f < nfd; f++) {
		snprintf(path, sizeof(path), "files/f%u", f);
		write_at(topfd, path, "", 0);
	}

	int procfd = open_dir_at(topfd, "proc");
	static const char devices[] =
		"Character devices:\n  1 mem\n  4 /dev/vc/0\n  4 tty\n  4 ttyS\n  5 /dev/tty\n"
		"  5 /dev/console\n  5 /dev/ptmx\n  7 vcs\n 10 misc\n 13 input\n 29 fb\n"
		"116 alsa\n128 ptm\n136 pts\n180 usb\n189 usb_device\n226 drm\n"
		"261 accel\n510 hidraw\n511 aux\n\nBlock devices:\n  7 loop\n  8 sd\n"
		"259 blkext\n";

	write_at(procfd, "devices", devices, sizeof(devices) - 1);
	for (unsigned i = 0; i < nproc; i++) {
		int pid = 1000 + (int)i;
		char name[32];

		snprintf(name, sizeof(name), "%d", pid);
		mkdir_at(procfd, name);
		int pfd = open_dir_at(procfd, name);

		mkdir_at(pfd, "fd");
		mkdir_at(pfd, "fdinfo");
		int n = snprintf(buf, sizeof(buf),
			"%d (comm-%d) S 1 %d %d 0 -1 4194560 %u 0 0 0 %u %u 0 0 20 0 1 0 %u "
			"%u 1234 18446744073709551615 1 1 0 0 0 0 0 4096 16384 0 0 0 17 %u 0 0 0 0 "
			"0 0 0 0 0 0 0 0 0\n",
			pid, pid, pid, pid, 1000 + i, i % 97, i % 13, 5000 + i, 100000000 + i * 4096,
			i % 2);
		write_at(pfd, "stat", buf, (size_t)n);

		int fdd = open_dir_at(pfd, "fd");
		int fid = open_dir_at(pfd, "fdinfo");

		for (unsigned f = 0; f < nfd; f++) {
			int k = drm_index(f, nfd, ndrm);
			uint64_t r = pk_hash_mix64(((uint64_t)pid << 16) ^ f);

			snprintf(name, sizeof(name), "%u", f);
			ino++;
			if (k < 0) {
				snprintf(path, sizeof(path), "%s/files/f%u", top, f);
				n = snprintf(buf, sizeof(buf),
					"pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t%" PRIu64 "\n", ino);
			} else {
				int d = k % N_DEVICES;
				uint64_t id = ++client[d];

				if (dangling)
					snprintf(path, sizeof(path), "/dev/dri/renderD%d", 128 + d);
				else
					snprintf(path, sizeof(path), "%s/dev/dri/renderD%d", top, 128 + d);
				if (d == 1)
					n = fdinfo_xe(buf, sizeof(buf), id, ino, r);
				else if (d == 2)
					n = fdinfo_amdgpu(buf, sizeof(buf), id, ino, r);
				else
					n = fdinfo_i915(buf, sizeof(buf), d == 3, id, pid, ino, r);
			}
			if (n <= 0 || (size_t)n >= sizeof(buf))
				die("fdinfo text too long");
			if (symlinkat(path, fdd, name) && errno != EEXIST)
				die("cannot create link '%s/proc/%d/fd/%s': %s", top, pid, name,
				    strerror(errno));
			write_at(fid, name, buf, (size_t)n);
		}
		close(fid);
		close(fdd);
		close(pfd);
	}
	close(procfd);
	close(topfd);
	printf("  tree: %s: %u processes x %u fds (%u DRM) = %u fdinfo files\n", top, nproc, nfd,
	       ndrm, nproc * ndrm);
	if (dangling)
		printf("  note: mknod failed (%s): DRM links dangle to /dev/dri/renderD12x, "
		       "identified by readlink on both sides\n", strerror(mk_errno));
	else
		printf("  DRM fds: links to character devices <tree>/dev/dri/renderD128..%d "
		       "(226:128..%d), one fstatat identifies each fd\n",
		       127 + N_DEVICES, 127 + N_DEVICES);
	return 0;
}

/* ---- the bare loop ---------------------------------------------------------- */

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct bare_res {
	uint32_t processes, fds, drm_fds, fdinfo_read;
	uint64_t syscalls, bytes;
};

static char root_buf[64 * 1024] __attribute__((aligned(8)));
static char fd_buf[64 * 1024] __attribute__((aligned(8)));
static char read_buf[4096];

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Is the fd @name in @fdd a DRM fd? fstatat, and readlink when the link dangles. */
static bool bare_is_drm(int fdd, const char *name, struct bare_res *r)
{
	struct stat st;

	r->syscalls++;
	if (fstatat(fdd, name, &st, 0) == 0)
		return S_ISCHR(st.st_mode) && major(st.st_rdev) == DRM_MAJOR;
	if (errno != ENOENT)
		return false;
	char target[64];

	r->syscalls++;
	ssize_t n = readlinkat(fdd, name, target, sizeof(target) - 1);

	return n > 9 && !memcmp(target, "/dev/dri/", 9);
}

static void bare_process(int root, const char *pid, struct bare_res *r)
{
	char path[64];
	int drm[256];
	uint32_t n_drm = 0;

	snprintf(path, sizeof(path), "%s/fd", pid);
	r->syscalls++;
	int fdd = openat(root, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fdd < 0)
		return;
	r->processes++;
	for (;;) {
		r->syscalls++;
		long n = syscall(SYS_getdents64, fdd, fd_buf, sizeof(fd_buf));

		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(fd_buf + off);

			off += d->d_reclen;
			if (d->d_name[0] == '.')
				continue;
			r->fds++;
			if (bare_is_drm(fdd, d->d_name, r)) {
				if (n_drm == sizeof(drm) / sizeof(drm[0]))
					die("more than %zu DRM fds in one process", sizeof(drm) / sizeof(drm[0]));
				drm[n_drm++] = atoi(d->d_name);
			}
		}
	}
	r->syscalls++;
	close(fdd);
	r->drm_fds += n_drm;
	for (uint32_t i = 0; i < n_drm; i++) {
		snprintf(path, sizeof(path), "%s/fdinfo/%d", pid, drm[i]);
		r->syscalls++;
		int fd = openat(root, path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		for (;;) {
			r->syscalls++;
			ssize_t n = read(fd, read_buf, sizeof(read_buf));

			if (n <= 0)
				break;
			r->bytes += (uint64_t)n;
		}
		r->fdinfo_read++;
		r->syscalls++;
		close(fd);
	}
}

static void bare_scan(const char *proc, struct bare_res *r)
{
	memset(r, 0, sizeof(*r));
	r->syscalls++;
	int root = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (root < 0)
		die("cannot open '%s': %s", proc, strerror(errno));
	for (;;) {
		r->syscalls++;
		long n = syscall(SYS_getdents64, root, root_buf, sizeof(root_buf));

		if (n < 0)
			die("getdents64 '%s': %s", proc, strerror(errno));
		if (n == 0)
			break;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(root_buf + off);

			off += d->d_reclen;
			if (all_digits(d->d_name))
				bare_process(root, d->d_name, r);
		}
	}
	r->syscalls++;
	close(root);
}

/* ---- measurement ------------------------------------------------------------ */

struct cost {
	double wall_ms, cpu_ms, user_ms, sys_ms;
};

struct mark {
	struct timespec wall;
	struct rusage ru;
};

static void mark_now(struct mark *m)
{
	getrusage(RUSAGE_SELF, &m->ru);
	clock_gettime(CLOCK_MONOTONIC, &m->wall);
}

static double tv_ms(struct timeval a, struct timeval b)
{
	return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_usec - a.tv_usec) / 1e3;
}

static struct cost cost_between(const struct mark *a, const struct mark *b)
{
	struct cost c;

	c.wall_ms = (double)(b->wall.tv_sec - a->wall.tv_sec) * 1e3 +
		    (double)(b->wall.tv_nsec - a->wall.tv_nsec) / 1e6;
	c.user_ms = tv_ms(a->ru.ru_utime, b->ru.ru_utime);
	c.sys_ms = tv_ms(a->ru.ru_stime, b->ru.ru_stime);
	c.cpu_ms = c.user_ms + c.sys_ms;
	return c;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(const struct cost *c, unsigned n, size_t field)
{
	double v[n];

	for (unsigned i = 0; i < n; i++)
		v[i] = *(const double *)((const char *)&c[i] + field);
	qsort(v, n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static struct cost median_cost(const struct cost *c, unsigned n)
{
	struct cost m = {
		.wall_ms = median_of(c, n, offsetof(struct cost, wall_ms)),
		.cpu_ms = median_of(c, n, offsetof(struct cost, cpu_ms)),
		.user_ms = median_of(c, n, offsetof(struct cost, user_ms)),
		.sys_ms = median_of(c, n, offsetof(struct cost, sys_ms)),
	};
	return m;
}

/* ---- system-call counters (perf tracepoints), best effort ------------------------ */

static const char *const sc_names[] = {
	"openat", "read", "pread64", "close", "newfstatat", "statx", "getdents64", "readlinkat",
	"fstat", "lseek", "mmap", "munmap", "brk",
};
#define N_SC (sizeof(sc_names) / sizeof(sc_names[0]))

struct sc_counters {
	int leader;                 /* raw_syscalls:sys_enter, -1 when unavailable */
	int fd[N_SC];               /* -1 where that tracepoint is missing */
	int slot[N_SC];             /* index in the group read, -1 if none */
	unsigned n;                 /* members read back (leader included) */
};

struct sc_counts {
	bool valid;
	uint64_t total, by[N_SC];
};

static long tracepoint_id(const char *ev)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[256];

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/id", roots[i], ev);
		FILE *f = fopen(path, "re");

		if (!f)
			continue;
		long id = -1;

		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
		if (id >= 0)
			return id;
	}
	return -1;
}

static int tp_open(const char *ev, int group)
{
	struct perf_event_attr a;
	long id = tracepoint_id(ev);

	if (id < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	a.disabled = group < 0;
	a.read_format = PERF_FORMAT_GROUP;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static void sc_open(struct sc_counters *c)
{
	char ev[64];

	c->n = 0;
	c->leader = tp_open("raw_syscalls/sys_enter", -1);
	for (size_t i = 0; i < N_SC; i++) {
		c->fd[i] = -1;
		c->slot[i] = -1;
	}
	if (c->leader < 0)
		return;
	c->n = 1;
	for (size_t i = 0; i < N_SC; i++) {
		snprintf(ev, sizeof(ev), "syscalls/sys_enter_%s", sc_names[i]);
		c->fd[i] = tp_open(ev, c->leader);
		if (c->fd[i] >= 0)
			c->slot[i] = (int)c->n++;
	}
}

static void sc_start(struct sc_counters *c)
{
	if (c->leader < 0)
		return;
	ioctl(c->leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	ioctl(c->leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

/* Stop and read; the disabling ioctl itself is not counted in the result. */
static struct sc_counts sc_stop(struct sc_counters *c)
{
	struct sc_counts r = { 0 };
	uint64_t v[1 + 1 + N_SC];

	if (c->leader < 0)
		return r;
	ioctl(c->leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (read(c->leader, v, sizeof(v)) < (ssize_t)((1 + c->n) * sizeof(uint64_t)))
		return r;
	r.valid = true;
	r.total = v[1] ? v[1] - 1 : 0;
	for (size_t i = 0; i < N_SC; i++)
		r.by[i] = c->slot[i] >= 0 ? v[1 + c->slot[i]] : 0;
	return r;
}

/* ---- run -------------------------------------------------------------------- */

struct pk_round {
	struct cost first, with_new, unchanged;
	struct pk_gpu_scan_stats st1, st2;
	uint32_t clients1, clients2;
};

static void check_same(const char *what, const struct bare_res *b, const struct pk_gpu_scan_stats *st,
		       uint32_t n_clients)
{
	if (st->drm_fds != b->drm_fds || st->fdinfo_read != b->fdinfo_read ||
	    n_clients != b->drm_fds)
		die("%s: perfkit saw %u DRM fds, read %u fdinfo files, %u clients; the bare loop "
		    "%u DRM fds, %u fdinfo files (expected one client per DRM fd)",
		    what, st->drm_fds, st->fdinfo_read, n_clients, b->drm_fds, b->fdinfo_read);
}

static const struct pk_gpu_snapshot *refresh(struct pk_gpu_scanner *sc, const char *what)
{
	struct pk_diag d;
	char msg[1200];

	pk_diag_init(&d);
	int rc = pk_gpu_scanner_refresh(sc, &d);

	if (rc)
		die("%s: pk_gpu_scanner_refresh: %s (%s)", what, pk_diag_str(&d, msg, sizeof(msg)),
		    strerror(-rc));
	return pk_gpu_scanner_snapshot(sc);
}

static struct pk_gpu_scanner *scanner_new(const struct pk_gpu_scan_opts *o)
{
	struct pk_diag d;
	char msg[1200];

	pk_diag_init(&d);
	struct pk_gpu_scanner *sc = pk_gpu_scanner_new(o, &d);

	if (!sc)
		die("pk_gpu_scanner_new: %s", pk_diag_str(&d, msg, sizeof(msg)));
	return sc;
}

/* One perfkit round: new, first refresh, unchanged refresh, free. */
static void pk_round(const struct pk_gpu_scan_opts *o, struct pk_round *r)
{
	struct mark m0, m1, m2, m3, m4;

	mark_now(&m0);
	struct pk_gpu_scanner *sc = scanner_new(o);

	mark_now(&m1);
	const struct pk_gpu_snapshot *s = refresh(sc, "first refresh");

	mark_now(&m2);
	r->st1 = s->stats;
	r->clients1 = s->n_clients;
	mark_now(&m3);
	s = refresh(sc, "unchanged refresh");
	mark_now(&m4);
	r->st2 = s->stats;
	r->clients2 = s->n_clients;
	pk_gpu_scanner_free(sc);
	r->first = cost_between(&m1, &m2);
	r->with_new = cost_between(&m0, &m2);
	r->unchanged = cost_between(&m3, &m4);
}

static void print_row(const char *name, struct cost c, uint32_t nproc, uint32_t ndrm, double bare_wall)
{
	printf("  %-26s %9.2f ms  %9.2f ms (%6.2f user + %6.2f sys)  %7.2f us/process  %7.2f us/DRM fd",
	       name, c.wall_ms, c.cpu_ms, c.user_ms, c.sys_ms, c.wall_ms * 1e3 / nproc,
	       c.wall_ms * 1e3 / ndrm);
	if (bare_wall > 0)
		printf("  %5.2fx", c.wall_ms / bare_wall);
	putchar('\n');
}

static void print_counts(const char *name, const struct sc_counts *c, uint32_t nproc)
{
	printf("  %-26s %8" PRIu64 " %6.1f/proc", name, c->total, (double)c->total / nproc);
	uint64_t known = 0;

	for (size_t i = 0; i < N_SC; i++) {
		known += c->by[i];
		if (c->by[i])
			printf("  %s %" PRIu64, sc_names[i], c->by[i]);
	}
	if (c->total > known)
		printf("  other %" PRIu64, c->total - known);
	putchar('\n');
}

static int cmd_run(const char *dir, unsigned reps)
{
	char proc[PATH_MAX], sys[PATH_MAX];
	struct bare_res b, b0;
	struct pk_round warm;

	if (reps < 1)
		die("REPS must be at least 1");
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(sys, sizeof(sys), "%s/sys", dir);

	struct pk_gpu_scan_opts o = { .sz = sizeof(o), .proc_root = proc, .sys_root = sys };
	struct cost *bare = calloc(reps, sizeof(*bare));
	struct pk_round *pk = calloc(reps, sizeof(*pk));
	struct cost *c1 = calloc(reps, sizeof(*c1)), *cn = calloc(reps, sizeof(*cn));
	struct cost *c2 = calloc(reps, sizeof(*c2));

	if (!bare || !pk || !c1 || !cn || !c2)
		die("out of memory");

	/* One warm-up round of each, which also checks that both sides agree. */
	bare_scan(proc, &b0);
	if (!b0.drm_fds)
		die("'%s': the bare loop found no DRM fd (generate the tree with `gpu_scan gen`)", proc);
	pk_round(&o, &warm);
	check_same("first refresh", &b0, &warm.st1, warm.clients1);
	check_same("unchanged refresh", &b0, &warm.st2, warm.clients2);

	for (unsigned i = 0; i < reps; i++) {
		struct mark a, z;

		if (i % 2) {
			pk_round(&o, &pk[i]);
		}
		mark_now(&a);
		bare_scan(proc, &b);
		mark_now(&z);
		bare[i] = cost_between(&a, &z);
		if (!(i % 2))
			pk_round(&o, &pk[i]);
		if (b.drm_fds != b0.drm_fds || b.syscalls != b0.syscalls)
			die("the tree changed during the run (%u DRM fds, then %u)", b0.drm_fds, b.drm_fds);
		check_same("first refresh", &b, &pk[i].st1, pk[i].clients1);
		check_same("unchanged refresh", &b, &pk[i].st2, pk[i].clients2);
		c1[i] = pk[i].first;
		cn[i] = pk[i].with_new;
		c2[i] = pk[i].unchanged;
	}

	struct cost mb = median_cost(bare, reps), m1 = median_cost(c1, reps);
	struct cost mn = median_cost(cn, reps), m2 = median_cost(c2, reps);
	uint32_t np = b0.processes, nd = b0.drm_fds;

	printf("  seen: %u processes, %u fds, %u DRM fds, %u fdinfo files (%.0f bytes each)\n", np,
	       b0.fds, nd, b0.fdinfo_read, (double)b0.bytes / b0.fdinfo_read);
	printf("  perfkit: first refresh identified %u fds, read %u fdinfo files; "
	       "unchanged refresh identified %u, read %u\n",
	       pk[0].st1.fds_identified, pk[0].st1.fdinfo_read, pk[0].st2.fds_identified,
	       pk[0].st2.fdinfo_read);
	printf("  median of %u runs           wall            CPU time\n", reps);
	print_row("bare system calls", mb, np, nd, 0);
	print_row("perfkit first refresh", m1, np, nd, mb.wall_ms);
	print_row("perfkit new + first", mn, np, nd, mb.wall_ms);
	print_row("perfkit unchanged refresh", m2, np, nd, mb.wall_ms);
	printf("  CPU-time ratios: first %.2fx, unchanged %.2fx of the bare loop\n",
	       m1.cpu_ms / mb.cpu_ms, m2.cpu_ms / mb.cpu_ms);

	/* One untimed round with the system calls counted by type. */
	struct sc_counters ctr;

	sc_open(&ctr);
	if (ctr.leader < 0) {
		printf("  system calls: bare loop %" PRIu64 " (%.1f per process); perfkit's not counted "
		       "(no perf tracepoints: %s)\n",
		       b0.syscalls, (double)b0.syscalls / np, strerror(errno));
	} else {
		struct sc_counts kb, kn, k1, k2;
		struct pk_diag d;

		sc_start(&ctr);
		bare_scan(proc, &b);
		kb = sc_stop(&ctr);
		pk_diag_init(&d);
		sc_start(&ctr);
		struct pk_gpu_scanner *sc = pk_gpu_scanner_new(&o, &d);

		kn = sc_stop(&ctr);
		if (!sc)
			die("pk_gpu_scanner_new failed in the counting round");
		sc_start(&ctr);
		refresh(sc, "first refresh");
		k1 = sc_stop(&ctr);
		sc_start(&ctr);
		refresh(sc, "unchanged refresh");
		k2 = sc_stop(&ctr);
		pk_gpu_scanner_free(sc);
		printf("  system calls (one untimed round, perf tracepoints; bare loop's own count %" PRIu64 ")\n",
		       b.syscalls);
		print_counts("bare system calls", &kb, np);
		print_counts("perfkit new", &kn, np);
		print_counts("perfkit first refresh", &k1, np);
		print_counts("perfkit unchanged refresh", &k2, np);
		close(ctr.leader);
		for (size_t i = 0; i < N_SC; i++)
			if (ctr.fd[i] >= 0)
				close(ctr.fd[i]);
	}
	printf("RESULT first_ratio=%.4f unchanged_ratio=%.4f first_ms=%.3f unchanged_ms=%.3f "
	       "bare_ms=%.3f new_first_ms=%.3f first_cpu_ratio=%.4f unchanged_cpu_ratio=%.4f\n",
	       m1.wall_ms / mb.wall_ms, m2.wall_ms / mb.wall_ms, m1.wall_ms, m2.wall_ms, mb.wall_ms,
	       mn.wall_ms, m1.cpu_ms / mb.cpu_ms, m2.cpu_ms / mb.cpu_ms);
	free(bare);
	free(pk);
	free(c1);
	free(cn);
	free(c2);
	return 0;
}

static unsigned arg_uint(const char *s, const char *what)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);

	if (errno || *end || !*s || v > 10000000)
		die("bad %s: '%s'", what, s);
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "gen") && argc <= 6)
		return cmd_gen(argv[2], argc > 3 ? arg_uint(argv[3], "NPROC") : 2000,
			       argc > 4 ? arg_uint(argv[4], "NFD") : 24,
			       argc > 5 ? arg_uint(argv[5], "NDRM") : 4);
	if (argc >= 3 && !strcmp(argv[1], "run") && argc <= 4)
		return cmd_run(argv[2], argc > 3 ? arg_uint(argv[3], "REPS") : 15);
	fprintf(stderr, "usage: gpu_scan gen DIR [NPROC] [NFD] [NDRM]\n"
			"       gpu_scan run DIR [REPS]\n");
	return 2;
}
