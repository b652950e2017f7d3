/*
 * The /proc scanner of perfkit gpu: finds every DRM fd of every process (or
 * of one process tree), reads each one's fdinfo once per scan and feeds the
 * samples to a tracker (tracker.c), which turns them into clients.
 *
 * Cost is what matters here: a scan of a busy machine touches thousands of
 * fds. The walk uses directory fds and getdents64 (no stdio, no readdir
 * allocation), builds paths relative to the proc root in a stack buffer, and
 * reuses every buffer between scans. Per process it caches the sorted list
 * of fd numbers and their classification (DRM node or not): a process whose
 * fd list is unchanged keeps it without a single fstatat, except every
 * revalidate_ns, so a steady-state scan costs one getdents64 per process
 * plus the fdinfo reads of the DRM fds. The cache is an array sorted by pid,
 * aligned with the sorted pid list of the scan, and merged with it once per
 * scan (entries of pids that are gone are dropped there).
 *
 * The files read, relative to the proc root:
 *   devices               "Character devices:" then "<major> <name>" lines;
 *                         the "drm" and "accel" majors (default 226, 261)
 *   <pid>/fd/<n>          fstatat(): a character device of those majors;
 *                         a link that cannot be followed (fixture trees) is
 *                         recognized by its target: /dev/dri/cardN,
 *                         /dev/dri/renderDN, /dev/dri/controlDN, /dev/accel/accelN
 *   <pid>/fdinfo/<n>      the DRM usage stats (../shared/specs/drm-usage-stats.txt),
 *                         read to EOF, at most 1 MiB
 *   <pid>/stat            "pid (comm) S ppid ...": comm is everything between the
 *                         first '(' and the last ')' (a name may contain ')')
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <perfkit/gpu.h>

#define FDINFO_MAX (1u << 20)      /* longer fdinfo is treated as malformed */
#define TEXT_FIRST (16u << 10)
#define DENTS_SIZE (64u << 10)
#define COMM_MAX 64
#define DEFAULT_REVALIDATE_NS 5000000000ULL
#define DEFAULT_DRM_MAJOR 226
#define DEFAULT_ACCEL_MAJOR 261

enum { FD_OTHER, FD_DRM };

/* One fd of a process, as last identified. */
struct scan_fd {
	int fd;
	int kind;                 /* FD_OTHER or FD_DRM */
	int major, minor;
};

enum {
	P_FDS = 1u << 0,          /* fds holds an identification */
	P_COMM = 1u << 1,         /* comm is known */
	P_PPID = 1u << 2,         /* ppid is known */
};

/* What the scanner remembers of one process between scans. */
struct scan_proc {
	pid_t pid, ppid;
	unsigned flags;           /* P_* */
	uint64_t ident_ns;        /* when its fds were last identified */
	uint64_t stat_seq;        /* the scan that last read its stat */
	struct scan_fd *fds;      /* sorted by fd */
	uint32_t n_fds;
	size_t fds_cap;
	char comm[COMM_MAX];
};

/* The layout of one getdents64 record. */
struct dirent64_rec {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct pk_gpu_scanner {
	char *proc_root;
	int rootfd;
	pid_t target;             /* > 0: only this process tree */
	uint64_t revalidate_ns;
	pk_gpu_clock_fn clock;
	void *clock_ctx;
	pk_gpu_fdinfo_fn on_fdinfo;
	void *on_fdinfo_ctx;
	int drm_major, accel_major;
	uint64_t seq;

	struct pk_gpu_device *devs;
	uint32_t n_devs;
	struct pk_gpu_tracker *tracker;
	struct pk_fdinfo fi;

	char *text;               /* the file being read */
	size_t text_cap;
	char *dents;              /* getdents64 buffer */

	pid_t *pids;              /* this scan's pids, sorted */
	size_t n_pids, pids_cap;
	struct scan_proc *procs;  /* the cache, aligned with pids after the merge */
	size_t n_procs, procs_cap;
	struct scan_proc *next;   /* the merge's output, swapped with procs */
	size_t next_cap;
	int *list;                /* one process's fd numbers */
	size_t list_cap;
	uint8_t *sel;             /* -p: per pid 0 unknown, 1 in the tree, 2 not, 3 being resolved */
	size_t sel_cap;
	uint32_t *stack;
	size_t stack_cap;
};

static uint64_t default_clock(void *ctx)
{
	return pk_now_ns();
}

/* Parse a whole string of decimal digits into a positive int; -1 if it is not one. */
static long parse_uint(const char *s)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return -1;
	}
	return v;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void sort_ints(int *v, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i - 1] > v[i])
			break;
	if (i < n)
		qsort(v, n, sizeof(*v), cmp_int);
}

static int is_vanished_errno(int e)
{
	return e == ENOENT || e == ESRCH || e == ENOTDIR;
}

static int is_fatal_errno(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOMEM;
}

/*
 * Read @path (relative to @dirfd) to EOF into s->text, NUL-terminated.
 * 0, -EFBIG past FDINFO_MAX bytes, -ENOMEM, or the -errno of open/read.
 */
static int read_at(struct pk_gpu_scanner *s, int dirfd, const char *path, size_t *len)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	int err = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;

		if (n + 1 >= s->text_cap) {
			size_t cap = s->text_cap * 2;
			char *p;

			if (cap > FDINFO_MAX + 2)
				cap = FDINFO_MAX + 2;
			if (cap <= s->text_cap) {
				err = -EFBIG;
				break;
			}
			p = realloc(s->text, cap);
			if (!p) {
				err = -ENOMEM;
				break;
			}
			s->text = p;
			s->text_cap = cap;
		}
		r = read(fd, s->text + n, s->text_cap - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > FDINFO_MAX) {
			err = -EFBIG;
			break;
		}
	}
	close(fd);
	if (err)
		return err;
	s->text[n] = '\0';
	*len = n;
	return 0;
}

/* The "drm" and "accel" majors from <proc>/devices; defaults when absent. */
static void read_majors(struct pk_gpu_scanner *s)
{
	const char *p, *end;
	size_t len;
	int in_chr = 0;

	s->drm_major = DEFAULT_DRM_MAJOR;
	s->accel_major = DEFAULT_ACCEL_MAJOR;
	if (read_at(s, s->rootfd, "devices", &len) < 0)
		return;
	for (p = s->text, end = s->text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *q = p;
		long major = 0;
		int digits = 0;

		if (le - p >= 18 && memcmp(p, "Character devices:", 18) == 0) {
			in_chr = 1;
		} else if (le - p >= 14 && memcmp(p, "Block devices:", 14) == 0) {
			in_chr = 0;
		} else if (in_chr) {
			while (q < le && *q == ' ')
				q++;
			while (q < le && *q >= '0' && *q <= '9' && major < INT_MAX / 10) {
				major = major * 10 + (*q++ - '0');
				digits++;
			}
			if (digits && q < le && *q == ' ') {
				while (q < le && *q == ' ')
					q++;
				if (le - q == 3 && memcmp(q, "drm", 3) == 0)
					s->drm_major = (int)major;
				else if (le - q == 5 && memcmp(q, "accel", 5) == 0)
					s->accel_major = (int)major;
			}
		}
		p = le + 1;
	}
}

#define OPT(o, f, def) \
	((o) && (o)->sz >= offsetof(struct pk_gpu_scan_opts, f) + sizeof((o)->f) && (o)->f ? (o)->f : (def))

struct pk_gpu_scanner *pk_gpu_scanner_new(const struct pk_gpu_scan_opts *opts, struct pk_diag *diag)
{
	const char *proc_root = OPT(opts, proc_root, "/proc");
	const char *sys_root = OPT(opts, sys_root, "/sys");
	struct pk_gpu_scanner *s = calloc(1, sizeof(*s));
	int err;

	if (!s) {
		pk_diag_fail(diag, -ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	s->rootfd = -1;
	pk_fdinfo_init(&s->fi);
	s->target = OPT(opts, pid, 0);
	s->revalidate_ns = OPT(opts, revalidate_ns, DEFAULT_REVALIDATE_NS);
	s->clock = OPT(opts, clock, default_clock);
	s->clock_ctx = OPT(opts, clock_ctx, NULL);
	s->on_fdinfo = OPT(opts, on_fdinfo, NULL);
	s->on_fdinfo_ctx = OPT(opts, on_fdinfo_ctx, NULL);
	s->proc_root = strdup(proc_root);
	s->text = malloc(TEXT_FIRST);
	s->text_cap = TEXT_FIRST;
	s->dents = malloc(DENTS_SIZE);
	s->tracker = pk_gpu_tracker_new();
	if (!s->proc_root || !s->text || !s->dents || !s->tracker) {
		pk_diag_fail(diag, -ENOMEM, "out of memory");
		goto fail_errno;
	}
	s->rootfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->rootfd < 0) {
		err = -errno;
		pk_diag_subject(diag, proc_root);
		pk_diag_fail(diag, err, "cannot open the proc root: %s", strerror(-err));
		goto fail;
	}
	read_majors(s);
	err = pk_gpu_devices_load(sys_root, &s->devs, &s->n_devs, diag);
	if (err)
		goto fail;
	err = pk_gpu_tracker_set_devices(s->tracker, s->devs, s->n_devs);
	if (err) {
		pk_diag_fail(diag, err, "cannot set the gpu devices: %s", strerror(-err));
		goto fail;
	}
	return s;

fail_errno:
	err = -ENOMEM;
fail:
	pk_gpu_scanner_free(s);
	errno = -err;
	return NULL;
}

void pk_gpu_scanner_free(struct pk_gpu_scanner *s)
{
	size_t i;

	if (!s)
		return;
	if (s->rootfd >= 0)
		close(s->rootfd);
	for (i = 0; i < s->n_procs; i++)
		free(s->procs[i].fds);
	free(s->procs);
	free(s->next);
	free(s->pids);
	free(s->list);
	free(s->sel);
	free(s->stack);
	free(s->text);
	free(s->dents);
	free(s->devs);
	free(s->proc_root);
	pk_fdinfo_release(&s->fi);
	pk_gpu_tracker_free(s->tracker);
	free(s);
}

/* ---- listing ----------------------------------------------------------------- */

/*
 * The entries of directory @dfd named by a number >= @min into *@out
 * (grown as needed), sorted. Count or -errno.
 */
static long list_numbers(struct pk_gpu_scanner *s, int dfd, long min, int **out, size_t *cap)
{
	size_t count = 0;

	for (;;) {
		long n = syscall(SYS_getdents64, dfd, s->dents, DENTS_SIZE);
		long off;

		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		for (off = 0; off < n;) {
			const struct dirent64_rec *d = (const void *)(s->dents + off);
			long v = parse_uint(d->d_name);

			off += d->d_reclen;
			if (v < min)
				continue;
			if (count >= *cap && pk_array_grow((void **)out, cap, count + 1, sizeof(**out), 64))
				return -ENOMEM;
			(*out)[count++] = (int)v;
		}
	}
	sort_ints(*out, count);
	return (long)count;
}

/* The pids in the proc root into s->pids, sorted. 0 or -errno. */
static int list_pids(struct pk_gpu_scanner *s)
{
	long n;

	s->n_pids = 0;
	if (lseek(s->rootfd, 0, SEEK_SET) < 0)
		return -errno;
	n = list_numbers(s, s->rootfd, 1, &s->pids, &s->pids_cap);
	if (n < 0)
		return (int)n;
	s->n_pids = (size_t)n;
	return 0;
}

/* The fd numbers of the directory @dfd into s->list, sorted. Count or -errno. */
static long list_fds(struct pk_gpu_scanner *s, int dfd)
{
	return list_numbers(s, dfd, 0, &s->list, &s->list_cap);
}

/*
 * Align the cache with this scan's pids: s->procs[i] becomes the entry of
 * s->pids[i] (kept, or new and empty); entries of pids gone are freed.
 */
static int merge_cache(struct pk_gpu_scanner *s)
{
	struct scan_proc *tmp;
	size_t i, j = 0, cap;

	if (pk_array_grow((void **)&s->next, &s->next_cap, s->n_pids ? s->n_pids : 1,
			  sizeof(*s->next), 256))
		return -ENOMEM;
	for (i = 0; i < s->n_pids; i++) {
		pid_t pid = s->pids[i];

		while (j < s->n_procs && s->procs[j].pid < pid)
			free(s->procs[j++].fds);
		if (j < s->n_procs && s->procs[j].pid == pid) {
			s->next[i] = s->procs[j++];
		} else {
			memset(&s->next[i], 0, sizeof(s->next[i]));
			s->next[i].pid = pid;
		}
	}
	while (j < s->n_procs)
		free(s->procs[j++].fds);
	tmp = s->procs;
	s->procs = s->next;
	s->next = tmp;
	cap = s->procs_cap;
	s->procs_cap = s->next_cap;
	s->next_cap = cap;
	s->n_procs = s->n_pids;
	return 0;
}

/* ---- per process ---------------------------------------------------------------- */

/* Read <pid>/stat: comm and ppid. 0 or -errno. */
static int read_stat(struct pk_gpu_scanner *s, struct scan_proc *p)
{
	char path[32], *e;
	const char *open_p, *close_p, *q, *end;
	size_t len, n;
	long ppid = 0;
	ssize_t r;
	int err, fd;

	e = path + pk_fmt_uint(path, (uint64_t)p->pid);
	memcpy(e, "/stat", 6);
	/* one read: the kernel formats stat whole, and only its start is needed */
	fd = openat(s->rootfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		r = read(fd, s->text, s->text_cap - 1);
	while (r < 0 && errno == EINTR);
	err = r < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	len = (size_t)r;
	s->text[len] = '\0';
	p->stat_seq = s->seq;
	open_p = memchr(s->text, '(', len);
	close_p = memrchr(s->text, ')', len);
	if (!open_p || !close_p || close_p < open_p) {
		p->comm[0] = '\0';
		p->flags |= P_COMM;
		return 0;
	}
	n = (size_t)(close_p - open_p - 1);
	if (n >= sizeof(p->comm))
		n = sizeof(p->comm) - 1;
	memcpy(p->comm, open_p + 1, n);
	p->comm[n] = '\0';
	p->flags |= P_COMM;
	/* ") S PPID ..." */
	end = s->text + len;
	q = close_p + 1;
	while (q < end && *q == ' ')
		q++;
	while (q < end && *q != ' ')
		q++;
	while (q < end && *q == ' ')
		q++;
	if (q < end && *q >= '0' && *q <= '9') {
		while (q < end && *q >= '0' && *q <= '9' && ppid < INT_MAX / 10)
			ppid = ppid * 10 + (*q++ - '0');
		p->ppid = (pid_t)ppid;
		p->flags |= P_PPID;
	}
	return 0;
}

/* Recognize a DRM or accel node by a link target; 1 if it is one. */
static int node_from_target(const struct pk_gpu_scanner *s, const char *t, int *major, int *minor)
{
	static const struct { const char *prefix; int accel; } known[] = {
		{ "/dev/dri/renderD", 0 },
		{ "/dev/dri/card", 0 },
		{ "/dev/dri/controlD", 0 },
		{ "/dev/accel/accel", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		size_t n = strlen(known[i].prefix);
		long v;

		if (strncmp(t, known[i].prefix, n) != 0)
			continue;
		v = parse_uint(t + n);
		if (v < 0)
			return 0;
		*major = known[i].accel ? s->accel_major : s->drm_major;
		*minor = (int)v;
		return 1;
	}
	return 0;
}

/* Identify fd @f of the fd directory @dfd. */
static void identify_fd(struct pk_gpu_scanner *s, int dfd, struct scan_fd *f,
			struct pk_gpu_scan_stats *st)
{
	char name[16], target[64];
	struct stat sb;
	ssize_t n;

	name[pk_fmt_uint(name, (uint64_t)f->fd)] = '\0';
	f->kind = FD_OTHER;
	f->major = f->minor = -1;
	st->fds_identified++;
	if (fstatat(dfd, name, &sb, 0) == 0) {
		if (S_ISCHR(sb.st_mode) && ((int)major(sb.st_rdev) == s->drm_major ||
					    (int)major(sb.st_rdev) == s->accel_major)) {
			f->kind = FD_DRM;
			f->major = (int)major(sb.st_rdev);
			f->minor = (int)minor(sb.st_rdev);
		}
		return;
	}
	if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
		return;
	n = readlinkat(dfd, name, target, sizeof(target) - 1);
	if (n < 0) {
		if (errno == ENOENT)
			st->vanished++;
		return;
	}
	target[n] = '\0';
	if (node_from_target(s, target, &f->major, &f->minor))
		f->kind = FD_DRM;
}

/* Read and feed the fdinfo of DRM fd @f of process @p. 0, or a fatal -errno. */
static int read_drm_fd(struct pk_gpu_scanner *s, struct scan_proc *p, struct scan_fd *f,
		       struct pk_gpu_scan_stats *st, int *unreadable)
{
	struct pk_gpu_fd_sample sample;
	char path[48], *e;
	size_t len;
	int err;

	e = path + pk_fmt_uint(path, (uint64_t)p->pid);
	memcpy(e, "/fdinfo/", 8);
	e[8 + pk_fmt_uint(e + 8, (uint64_t)f->fd)] = '\0';
	err = read_at(s, s->rootfd, path, &len);
	if (err) {
		if (err == -EFBIG) {
			st->fdinfo_read++;
			st->malformed++;
			return 0;
		}
		if (err == -ENOMEM || is_fatal_errno(-err))
			return err;
		if (err == -EACCES || err == -EPERM)
			*unreadable = 1;
		else
			st->vanished++;
		return 0;
	}
	st->fdinfo_read++;
	sample.pid = p->pid;
	sample.comm = p->comm;
	sample.fd = f->fd;
	sample.major = f->major;
	sample.minor = f->minor;
	sample.time_ns = s->clock(s->clock_ctx);
	sample.fdinfo = &s->fi;
	err = pk_fdinfo_parse(&s->fi, s->text, len);
	if (err == -ENOENT) {
		/* not a DRM client after all (no drm-driver): remember it */
		st->malformed += s->fi.n_malformed;
		f->kind = FD_OTHER;
		return 0;
	}
	if (err)
		return err;
	st->malformed += s->fi.n_malformed;
	st->drm_fds++;
	if (s->on_fdinfo) {
		err = s->on_fdinfo(s->on_fdinfo_ctx, &sample, s->text, len);
		if (err)
			return err;
	}
	return pk_gpu_tracker_add(s->tracker, &sample);
}

/* Scan one process. 0, or a fatal -errno. */
static int scan_proc(struct pk_gpu_scanner *s, struct scan_proc *p, uint64_t now,
		     struct pk_gpu_scan_stats *st)
{
	char path[32], *e;
	int dfd, unreadable = 0, err = 0;
	long n;
	uint32_t i, n_drm = 0;

	st->processes++;
	e = path + pk_fmt_uint(path, (uint64_t)p->pid);
	memcpy(e, "/fd", 4);
	dfd = openat(s->rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		int e2 = errno;

		p->flags &= ~P_FDS;
		p->n_fds = 0;
		if (is_fatal_errno(e2))
			return -e2;
		if (e2 == EACCES || e2 == EPERM) {
			st->unreadable++;
			if (!st->first_unreadable)
				st->first_unreadable = p->pid;
		} else {
			st->vanished++;
		}
		return 0;
	}
	n = list_fds(s, dfd);
	if (n < 0) {
		close(dfd);
		p->flags &= ~P_FDS;
		p->n_fds = 0;
		if (n == -ENOMEM)
			return -ENOMEM;
		st->vanished++;
		return 0;
	}
	if (!(p->flags & P_FDS) || (uint32_t)n != p->n_fds || now < p->ident_ns ||
	    now - p->ident_ns >= s->revalidate_ns) {
		goto identify;
	}
	for (i = 0; i < p->n_fds; i++)
		if (p->fds[i].fd != s->list[i])
			goto identify;
	goto identified;

identify:
	if (pk_array_grow((void **)&p->fds, &p->fds_cap, n ? (size_t)n : 1, sizeof(*p->fds), 8)) {
		close(dfd);
		return -ENOMEM;
	}
	for (i = 0; i < (uint32_t)n; i++) {
		p->fds[i].fd = s->list[i];
		identify_fd(s, dfd, &p->fds[i], st);
	}
	p->n_fds = (uint32_t)n;
	p->ident_ns = now;
	p->flags |= P_FDS;
	if (p->stat_seq != s->seq)
		p->flags &= ~P_COMM;   /* fds changed: the process may have exec'd */

identified:
	close(dfd);
	for (i = 0; i < p->n_fds; i++)
		n_drm += p->fds[i].kind == FD_DRM;
	if (!n_drm)
		return 0;
	if (!(p->flags & P_COMM)) {
		err = read_stat(s, p);
		if (err) {
			if (is_fatal_errno(-err))
				return err;
			if (err == -EACCES || err == -EPERM) {
				p->comm[0] = '\0';
			} else {
				st->vanished++;
				return 0;
			}
		}
	}
	for (i = 0; i < p->n_fds; i++) {
		if (p->fds[i].kind != FD_DRM)
			continue;
		err = read_drm_fd(s, p, &p->fds[i], st, &unreadable);
		if (err)
			return err;
	}
	if (unreadable) {
		st->unreadable++;
		if (!st->first_unreadable)
			st->first_unreadable = p->pid;
	}
	return 0;
}

/* ---- -p: one process tree --------------------------------------------------------- */

static long pid_index(const struct pk_gpu_scanner *s, pid_t pid)
{
	size_t lo = 0, hi = s->n_pids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->pids[mid] < pid)
			lo = mid + 1;
		else if (s->pids[mid] > pid)
			hi = mid;
		else
			return (long)mid;
	}
	return -1;
}

/* Mark in s->sel the processes of the target's tree (ppid chains). 0 or -errno. */
static int select_tree(struct pk_gpu_scanner *s, struct pk_gpu_scan_stats *st)
{
	size_t i;

	if (pk_array_grow((void **)&s->sel, &s->sel_cap, s->n_pids ? s->n_pids : 1, 1, 256) ||
	    pk_array_grow((void **)&s->stack, &s->stack_cap, s->n_pids ? s->n_pids : 1,
			  sizeof(*s->stack), 256))
		return -ENOMEM;
	memset(s->sel, 0, s->n_pids);
	for (i = 0; i < s->n_pids; i++) {
		struct scan_proc *p = &s->procs[i];
		int err;

		if (p->flags & P_PPID)
			continue;
		err = read_stat(s, p);
		if (err) {
			if (is_fatal_errno(-err))
				return err;
			if (is_vanished_errno(-err))
				st->vanished++;
			s->sel[i] = 2;
		}
	}
	for (i = 0; i < s->n_pids; i++) {
		size_t depth = 0, k;
		long j = (long)i;
		uint8_t res = 2;

		while (s->sel[j] == 0) {
			const struct scan_proc *p = &s->procs[j];

			s->sel[j] = 3;
			s->stack[depth++] = (uint32_t)j;
			if (p->pid == s->target) {
				res = 1;
				break;
			}
			if (!(p->flags & P_PPID) || p->ppid <= 0 || p->ppid == p->pid)
				break;
			j = pid_index(s, p->ppid);
			if (j < 0)
				break;
		}
		if (j >= 0 && s->sel[j] != 3)
			res = s->sel[j];
		for (k = 0; k < depth; k++)
			s->sel[s->stack[k]] = res;
	}
	return 0;
}

/* ---- the scan -------------------------------------------------------------------- */

int pk_gpu_scanner_refresh(struct pk_gpu_scanner *s, struct pk_diag *diag)
{
	struct pk_gpu_scan_stats st;
	uint64_t now;
	size_t i;
	int err;

	memset(&st, 0, sizeof(st));
	s->seq++;
	now = s->clock(s->clock_ctx);
	err = pk_gpu_tracker_begin(s->tracker, now);
	if (err)
		return pk_diag_fail(diag, err, "cannot start a gpu scan: %s", strerror(-err));
	err = list_pids(s);
	if (!err)
		err = merge_cache(s);
	if (err) {
		pk_diag_subject(diag, s->proc_root);
		return pk_diag_fail(diag, err, "cannot list the processes: %s", strerror(-err));
	}
	if (s->target > 0) {
		err = select_tree(s, &st);
		if (err)
			goto fail;
	}
	for (i = 0; i < s->n_pids; i++) {
		if (s->target > 0 && s->sel[i] != 1)
			continue;
		err = scan_proc(s, &s->procs[i], now, &st);
		if (err)
			goto fail;
	}
	err = pk_gpu_tracker_end(s->tracker, &st);
	if (err)
		goto fail;
	return 0;

fail:
	pk_diag_subject(diag, s->proc_root);
	return pk_diag_fail(diag, err, "gpu scan failed: %s", strerror(err < 0 ? -err : err));
}

const struct pk_gpu_snapshot *pk_gpu_scanner_snapshot(const struct pk_gpu_scanner *s)
{
	return pk_gpu_tracker_snapshot(s->tracker);
}

const struct pk_gpu_device *pk_gpu_scanner_devices(const struct pk_gpu_scanner *s, uint32_t *n)
{
	if (n)
		*n = s->n_devs;
	return s->devs;
}
