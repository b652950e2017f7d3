/*
 * Side-band synthesis: the records `perf record` writes when recording starts
 * for what already exists, read from /proc (or a tree that looks like it).
 *
 *  - the kernel: MMAP "[kernel.kallsyms]_text" from _text to _etext of
 *    kallsyms, and one MMAP "[name]" per module of /proc/modules;
 *  - per process: per thread FORK then COMM, and after the leader's COMM one
 *    MMAP2 per executable mapping of /proc/PID/maps (with mmap_data also the
 *    readable data mappings, misc MMAP_DATA).
 *
 * Rules observed with perf 6.1 (`perf report -D`): synthesized records carry
 * an all-zero sample_id trailer; the FORK has misc FORK_EXEC (1 << 13), time
 * 0, and for a non-leader thread ppid = ptid = tgid; an unnamed mapping is
 * "//anon"; " (deleted)" and spaces stay in the file name; [vdso] and
 * [vsyscall] are executable mappings like any other.
 *
 * /proc text is read through a bounded line reader: any line length (the
 * excess of a long line is dropped), fixed memory per file. A process that
 * vanishes or cannot be read is skipped; only an emit callback's error (or
 * ENOMEM) stops the walk.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <perfkit/record.h>
#include "internal.h"

#define SYNTH_PATH_MAX 4096         /* file name bytes kept, NUL included (PATH_MAX) */
#define SYNTH_COMM_LEN 16           /* TASK_COMM_LEN */
#define SYNTH_MAX_MODULES 65536
#define MISC_FORK_EXEC (1 << 13)    /* perf's PERF_RECORD_MISC_FORK_EXEC */

/* ---- record layouts (include/uapi/linux/perf_event.h) ---------------------- */

struct rec_mmap {                   /* PERF_RECORD_MMAP */
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	char filename[];
};

struct rec_mmap2 {                  /* PERF_RECORD_MMAP2, the maj/min/ino form */
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

struct rec_comm {                   /* PERF_RECORD_COMM */
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};

struct rec_fork {                   /* PERF_RECORD_FORK */
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* Room for the largest record: MMAP2 + file name + a full trailer. */
union rec_space {
	struct perf_event_header h;
	uint64_t u64[(sizeof(struct rec_mmap2) + SYNTH_PATH_MAX + 8 * 8) / 8 + 1];
};

/*
 * The sample_id trailer of @a (sample_id_all) written at @out, every slot 0
 * but the id ones (ID, IDENTIFIER), which get @id; returns its size. Slots in
 * order: TID (pid, tid), TIME, ID, STREAM_ID, CPU (cpu, res), IDENTIFIER.
 */
size_t pk_rec_id_trailer(const struct perf_event_attr *a, uint64_t id, void *out)
{
	static const uint64_t order[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
					  PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					  PERF_SAMPLE_IDENTIFIER };
	char *p = out;
	size_t n = 0;

	if (!a || !a->sample_id_all)
		return 0;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		uint64_t v = order[i] & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER) ? id : 0;

		if (!(a->sample_type & order[i]))
			continue;
		memcpy(p + n, &v, sizeof(v));
		n += sizeof(v);
	}
	return n;
}

/*
 * Finish the record in @r whose fixed part is @fixed bytes: append @name (or
 * nothing when NULL) NUL-padded to 8, the zero trailer, set the size, emit.
 */
static int emit_rec(const struct pk_synth *s, union rec_space *r, size_t fixed,
		    const char *name)
{
	char *p = (char *)r;
	size_t size = fixed;

	if (name) {
		size_t n = strnlen(name, SYNTH_PATH_MAX - 1);
		size_t padded = (n + 1 + 7) & ~(size_t)7;

		memcpy(p + size, name, n);
		memset(p + size + n, 0, padded - n);
		size += padded;
	}
	size += pk_rec_id_trailer(s->attr, 0, p + size);
	r->h.size = (uint16_t)size;
	return s->emit(s->ctx, &r->h);
}

/* ---- bounded line reader ----------------------------------------------------- */

struct lines {
	int fd;
	int eof;
	size_t pos, end;
	char buf[16384];
};

static int lines_open(struct lines *l, const char *path)
{
	l->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0)
		return -errno;
	l->eof = 0;
	l->pos = l->end = 0;
	return 0;
}

static void lines_close(struct lines *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

/*
 * The next line into @out without its newline, at most @cap - 1 bytes (the
 * rest of a longer line is dropped). 1: a line, 0: end of file, -errno.
 */
static int lines_next(struct lines *l, char *out, size_t cap)
{
	size_t n = 0;
	int got = 0;

	for (;;) {
		const char *p, *nl;
		size_t avail, take, room;

		if (l->pos == l->end) {
			ssize_t k;

			if (l->eof)
				break;
			k = read(l->fd, l->buf, sizeof(l->buf));
			if (k < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (k == 0) {
				l->eof = 1;
				break;
			}
			l->pos = 0;
			l->end = (size_t)k;
		}
		got = 1;
		p = l->buf + l->pos;
		avail = l->end - l->pos;
		nl = memchr(p, '\n', avail);
		take = nl ? (size_t)(nl - p) : avail;
		room = cap - 1 - n;
		memcpy(out + n, p, take < room ? take : room);
		n += take < room ? take : room;
		l->pos += take + (nl ? 1 : 0);
		if (nl)
			break;
	}
	out[n] = '\0';
	return got;
}

/* ---- the kernel ---------------------------------------------------------------- */

struct kmod {
	uint64_t start, size;
	char name[64];
};

static int kmod_cmp(const void *a, const void *b)
{
	const struct kmod *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * _text (or _stext) and _etext of kallsyms: "ffffffff81000000 T _text".
 * *ref names the symbol found ("" when none); all-zero addresses (kptr_restrict)
 * count as not found.
 */
static void read_kallsyms(const char *root, uint64_t *text, uint64_t *etext, const char **ref)
{
	char path[512], line[512];
	struct lines l;
	uint64_t stext = 0;

	*text = *etext = 0;
	*ref = "";
	snprintf(path, sizeof(path), "%s/kallsyms", root);
	if (lines_open(&l, path) < 0)
		return;
	while (lines_next(&l, line, sizeof(line)) > 0) {
		char *end, name[64];
		char type;
		uint64_t addr = strtoull(line, &end, 16);

		if (end == line || sscanf(end, " %c %63s", &type, name) != 2 || !addr)
			continue;
		if (!strcmp(name, "_text")) {
			*text = addr;
			*ref = "_text";
		} else if (!strcmp(name, "_stext")) {
			stext = addr;
		} else if (!strcmp(name, "_etext")) {
			*etext = addr;
		}
		if (*text && *etext)
			break;
	}
	lines_close(&l);
	if (!*text && stext) {
		*text = stext;
		*ref = "_stext";
	}
}

/*
 * /proc/modules, sorted by address: "name size refs deps state 0xaddr [taint]".
 * Modules at address 0 (kptr_restrict) are left out. Returns the count or -ENOMEM.
 */
static int read_modules(const char *root, struct kmod **out)
{
	char path[512], line[1024];
	struct kmod *m = NULL;
	size_t n = 0, cap = 0;
	struct lines l;

	*out = NULL;
	snprintf(path, sizeof(path), "%s/modules", root);
	if (lines_open(&l, path) < 0)
		return 0;
	while (n < SYNTH_MAX_MODULES && lines_next(&l, line, sizeof(line)) > 0) {
		struct kmod k;
		char *addr = strstr(line, " 0x");
		unsigned long long size;

		memset(&k, 0, sizeof(k));
		if (!addr || sscanf(line, "%63s %llu", k.name, &size) != 2)
			continue;
		k.size = size;
		k.start = strtoull(addr + 1, NULL, 16);
		if (!k.start)
			continue;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			struct kmod *nm = realloc(m, ncap * sizeof(*m));

			if (!nm) {
				free(m);
				lines_close(&l);
				return -ENOMEM;
			}
			m = nm;
			cap = ncap;
		}
		m[n++] = k;
	}
	lines_close(&l);
	if (n)
		qsort(m, n, sizeof(*m), kmod_cmp);
	*out = m;
	return (int)n;
}

static int emit_kmap(const struct pk_synth *s, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *name)
{
	union rec_space r;
	struct rec_mmap *m = (struct rec_mmap *)&r;

	memset(m, 0, sizeof(*m));
	m->h.type = PERF_RECORD_MMAP;
	m->h.misc = PERF_RECORD_MISC_KERNEL;
	m->pid = (uint32_t)-1;
	m->tid = 0;
	m->addr = start;
	m->len = len;
	m->pgoff = pgoff;
	return emit_rec(s, &r, sizeof(*m), name);
}

int pk_synth_kernel(const struct pk_synth *s)
{
	const char *root, *ref;
	uint64_t text, etext, end = UINT64_MAX;
	struct kmod *mods;
	char name[96];
	int n, i, err;

	if (!s || !s->emit)
		return -EINVAL;
	root = s->proc_root ? s->proc_root : "/proc";
	read_kallsyms(root, &text, &etext, &ref);
	n = read_modules(root, &mods);
	if (n < 0)
		return n;
	/* perf: the kernel map ends at _etext, else at the next module, else at the top */
	if (etext > text)
		end = etext;
	else
		for (i = 0; i < n; i++)
			if (mods[i].start > text) {
				end = mods[i].start;
				break;
			}
	snprintf(name, sizeof(name), "[kernel.kallsyms]%s", *ref ? ref : "_text");
	err = emit_kmap(s, text, end - text, text, name);
	for (i = 0; !err && i < n; i++) {
		snprintf(name, sizeof(name), "[%s]", mods[i].name);
		err = emit_kmap(s, mods[i].start, mods[i].size, 0, name);
	}
	free(mods);
	return err;
}

/* ---- processes ----------------------------------------------------------------- */

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* The numeric entries of directory @path, ascending (caller frees). Count or -errno. */
static int list_numeric(const char *path, int **out)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int *v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!d)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long id = strtol(e->d_name, &end, 10);

		if (*end || end == e->d_name || id <= 0 || id > INT32_MAX)
			continue;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			int *nv = realloc(v, ncap * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
			cap = ncap;
		}
		v[n++] = (int)id;
	}
	closedir(d);
	if (n > INT32_MAX)
		n = INT32_MAX;
	if (n)
		qsort(v, n, sizeof(*v), int_cmp);
	*out = v;
	return (int)n;
}

struct thread_info {
	int tgid, ppid;
	char comm[SYNTH_COMM_LEN];
};

/* Tgid, PPid and the name of thread @tid of @pid. 0 or -errno (vanished, unreadable). */
static int read_thread(const char *root, int pid, int tid, struct thread_info *t)
{
	char path[512], line[256];
	struct lines l;
	int err, r;

	memset(t, 0, sizeof(*t));
	t->tgid = -1;
	snprintf(path, sizeof(path), "%s/%d/task/%d/status", root, pid, tid);
	err = lines_open(&l, path);
	if (err)
		return err;
	while ((r = lines_next(&l, line, sizeof(line))) > 0) {
		if (!strncmp(line, "Name:", 5))
			sscanf(line + 5, " %15[^\n]", t->comm);
		else if (!strncmp(line, "Tgid:", 5))
			t->tgid = atoi(line + 5);
		else if (!strncmp(line, "PPid:", 5))
			t->ppid = atoi(line + 5);
	}
	lines_close(&l);
	if (r < 0)
		return r;
	if (t->tgid <= 0)
		return -ENOENT;
	/* the comm file holds the name unescaped (status escapes '\n' and '\\') */
	snprintf(path, sizeof(path), "%s/%d/task/%d/comm", root, pid, tid);
	if (pk_file_read_line(path, line, sizeof(line)) == 0) {
		memset(t->comm, 0, sizeof(t->comm));
		memcpy(t->comm, line, strnlen(line, SYNTH_COMM_LEN - 1));
	}
	return 0;
}

static int emit_fork_comm(const struct pk_synth *s, int tid, const struct thread_info *t)
{
	union rec_space r;
	struct rec_fork *f = (struct rec_fork *)&r;
	struct rec_comm *c = (struct rec_comm *)&r;
	int err;

	memset(f, 0, sizeof(*f));
	f->h.type = PERF_RECORD_FORK;
	f->h.misc = MISC_FORK_EXEC;
	f->pid = (uint32_t)t->tgid;
	f->tid = (uint32_t)tid;
	/* perf: the leader's parent is PPid, other threads are the leader's children */
	f->ppid = f->ptid = (uint32_t)(tid == t->tgid ? t->ppid : t->tgid);
	err = emit_rec(s, &r, sizeof(*f), NULL);
	if (err)
		return err;
	memset(c, 0, sizeof(*c));
	c->h.type = PERF_RECORD_COMM;
	c->pid = (uint32_t)t->tgid;
	c->tid = (uint32_t)tid;
	return emit_rec(s, &r, sizeof(*c), t->comm);
}

/*
 * One /proc/PID/maps line into @m (filename points into @line):
 *   start-end perms offset maj:min inode [filename]
 *   55e824184000-55e824189000 r-xp 00002000 fe:00 248056   /usr/bin/sleep
 * (hex, hex, 4 chars, hex, hex:hex, decimal, the rest of the line). 0 or -EINVAL.
 */
static int parse_maps_line(char *line, struct rec_mmap2 *m, const char **filename)
{
	char *p = line, *end;
	uint64_t start, stop;

	start = strtoull(p, &end, 16);
	if (end == p || *end != '-')
		return -EINVAL;
	p = end + 1;
	stop = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || stop < start || strlen(end + 1) < 5 || end[5] != ' ')
		return -EINVAL;
	p = end + 1;
	m->prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
		  (p[2] == 'x' ? PROT_EXEC : 0);
	m->flags = p[3] == 's' ? MAP_SHARED : (p[3] == 'p' ? MAP_PRIVATE : 0);
	p += 5;
	m->pgoff = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return -EINVAL;
	p = end + 1;
	m->maj = (uint32_t)strtoul(p, &end, 16);
	if (end == p || *end != ':')
		return -EINVAL;
	p = end + 1;
	m->min = (uint32_t)strtoul(p, &end, 16);
	if (end == p || *end != ' ')
		return -EINVAL;
	p = end + 1;
	m->ino = strtoull(p, &end, 10);
	if (end == p || (*end != ' ' && *end != '\0'))
		return -EINVAL;
	while (*end == ' ' || *end == '\t')
		end++;
	m->addr = start;
	m->len = stop - start;
	m->ino_generation = 0;
	*filename = *end ? end : "//anon";
	return 0;
}

/* MMAP2 records of /proc/@pid/maps. Only an emit error is returned; unreadable maps are skipped. */
static int synth_maps(const struct pk_synth *s, const char *root, int pid, int tgid)
{
	union rec_space r;
	struct rec_mmap2 *m = (struct rec_mmap2 *)&r;
	char path[512];
	char *line;
	struct lines *l;
	int err = 0, got;

	l = malloc(sizeof(*l));
	line = malloc(SYNTH_PATH_MAX + 128);
	if (!l || !line) {
		free(l);
		free(line);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "%s/%d/maps", root, pid);
	if (lines_open(l, path) < 0) {
		pk_log(PK_LOG_DEBUG, "synth: cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	while ((got = lines_next(l, line, SYNTH_PATH_MAX + 128)) > 0) {
		const char *name;

		memset(m, 0, sizeof(*m));
		if (parse_maps_line(line, m, &name))
			continue;
		m->h.type = PERF_RECORD_MMAP2;
		m->h.misc = PERF_RECORD_MISC_USER;
		if (!(m->prot & PROT_EXEC)) {
			if (!s->mmap_data || !(m->prot & PROT_READ))
				continue;
			m->h.misc |= PERF_RECORD_MISC_MMAP_DATA;
		}
		m->pid = (uint32_t)tgid;
		m->tid = (uint32_t)pid;
		err = emit_rec(s, &r, sizeof(*m), name);
		if (err)
			break;
	}
	if (got < 0)
		pk_log(PK_LOG_DEBUG, "synth: reading %s: %s", path, strerror(-got));
	lines_close(l);
out:
	free(l);
	free(line);
	return err;
}

int pk_synth_process(const struct pk_synth *s, pid_t pid)
{
	const char *root;
	char path[512];
	int *tids, n, i, err = 0;

	if (!s || !s->emit || pid <= 0)
		return -EINVAL;
	root = s->proc_root ? s->proc_root : "/proc";
	snprintf(path, sizeof(path), "%s/%d/task", root, (int)pid);
	n = list_numeric(path, &tids);
	if (n == -ENOMEM)
		return n;
	if (n < 0) {   /* vanished (ENOENT, ESRCH) or unreadable (EACCES): skip */
		pk_log(PK_LOG_DEBUG, "synth: skipping %s: %s", path, strerror(-n));
		return 0;
	}
	for (i = 0; i < n && !err; i++) {
		struct thread_info t;

		if (read_thread(root, (int)pid, tids[i], &t))
			continue;        /* the thread exited since the listing */
		err = emit_fork_comm(s, tids[i], &t);
		if (!err && tids[i] == (int)pid)
			err = synth_maps(s, root, (int)pid, t.tgid);
	}
	free(tids);
	return err;
}

int pk_synth_all(const struct pk_synth *s)
{
	int *pids, n, i, err = 0;

	if (!s || !s->emit)
		return -EINVAL;
	n = list_numeric(s->proc_root ? s->proc_root : "/proc", &pids);
	if (n < 0)
		return n;
	for (i = 0; i < n && !err; i++)
		err = pk_synth_process(s, pids[i]);
	free(pids);
	return err;
}
