/*
 * The recorded machine: threads and their address spaces rebuilt from
 * COMM/FORK/EXIT/MMAP records the way perf 6.1's machine.c does it (threads of
 * a process share one map group; a FORK of a new process copies the parent's
 * maps unless it is a FORK_EXEC; a new map replaces the parts of older maps it
 * overlaps, as maps__fixup_overlappings does), user MMAPs, and address
 * resolution with a (DSO, address) -> symbol cache. Kernel and module maps
 * are made in kernel_maps.c.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include "symbols/internal.h"

#define HUGETLB_FLAG 0x40000   /* MAP_HUGETLB in mmap2 flags */
#define MISC_FORK_EXEC (1u << 13)  /* PERF_RECORD_MISC_FORK_EXEC (perf-data.md, misc bits) */

/* ---- map groups ------------------------------------------------------------ */

void *sym_out_of_memory(struct pk_symbols *s)
{
	if (!s->said_out_of_memory)
		pk_log(PK_LOG_WARN, "out of memory following the recorded processes: some samples are "
		       "shown without their thread, map or symbol");
	s->said_out_of_memory = 1;
	return NULL;
}

struct sym_maps *sym_maps_new(struct pk_symbols *s)
{
	struct sym_maps *m = calloc(1, sizeof(*m));

	if (!m)
		return sym_out_of_memory(s);
	m->next = s->all_maps;
	s->all_maps = m;
	return m;
}

uint64_t sym_map_ip(const struct sym_map *m, uint64_t ip)
{
	return m->identity ? ip : ip - m->pub.start + m->pub.pgoff;
}

/* Index of the first map with end > @addr (perf's find_vma rule). */
static size_t maps_first_after(const struct sym_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid]->pub.end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

struct sym_map *sym_maps_find(const struct sym_maps *m, uint64_t ip)
{
	size_t i;

	if (!m)
		return NULL;
	i = maps_first_after(m, ip);
	if (i < m->n && m->v[i]->pub.start <= ip)
		return m->v[i];
	return NULL;
}

static int maps_reserve(struct sym_maps *m, size_t extra)
{
	if (m->n + extra > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct sym_map **v;

		while (cap < m->n + extra)
			cap *= 2;
		v = realloc(m->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	return 0;
}

/* Maps come from the arena: never freed before the session ends (pointers were handed out). */
static struct sym_map *map_clone(struct pk_symbols *s, const struct sym_map *src)
{
	struct sym_map *c = sym_arena_alloc(&s->arena, sizeof(*c));

	if (c)
		*c = *src;
	return c;
}

/*
 * Insert @map, cutting older maps it overlaps (keeping the parts before and
 * after it, with the after part's pgoff advanced).
 */
int sym_maps_insert(struct pk_symbols *s, struct sym_maps *m, struct sym_map *map)
{
	size_t first = maps_first_after(m, map->pub.start), last = first;
	struct sym_map *before = NULL, *after = NULL;
	size_t nr_new;

	while (last < m->n && m->v[last]->pub.start < map->pub.end)
		last++;
	if (last > first) {
		struct sym_map *a = m->v[first], *z = m->v[last - 1];

		if (map->pub.start > a->pub.start) {
			before = map_clone(s, a);
			if (!before)
				goto nomem;
			before->pub.end = map->pub.start;
		}
		if (map->pub.end < z->pub.end) {
			after = map_clone(s, z);
			if (!after)
				goto nomem;
			after->pub.start = map->pub.end;
			after->pub.pgoff += map->pub.end - z->pub.start;
		}
	}
	nr_new = 1 + !!before + !!after;
	if (maps_reserve(m, nr_new))
		goto nomem;
	/* replace v[first, last) with before?, map, after? */
	memmove(&m->v[first + nr_new], &m->v[last], (m->n - last) * sizeof(*m->v));
	m->n = m->n - (last - first) + nr_new;
	if (before)
		m->v[first++] = before;
	m->v[first++] = map;
	if (after)
		m->v[first] = after;
	return 0;
nomem:
	sym_out_of_memory(s);
	return -ENOMEM;
}

void sym_maps_remove(struct sym_maps *m, struct sym_map *map)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->v[i] == map) {
			memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof(*m->v));
			m->n--;
			return;
		}
}

/* ---- symbol cache ---------------------------------------------------------- */

void sym_cache_clear(struct pk_symbols *s)
{
	if (s->cache)
		memset(s->cache, 0, s->cache_size * sizeof(*s->cache));
	s->cache_used = 0;
}

static size_t cache_slot(const struct pk_symbols *s, const struct sym_dso *d, uint64_t addr)
{
	uint64_t h = ((uint64_t)(uintptr_t)d * 0x9e3779b97f4a7c15ull) ^ (addr * 0xff51afd7ed558ccdull);

	h ^= h >> 29;
	return (size_t)h & (s->cache_size - 1);
}

static int cache_grow(struct pk_symbols *s)
{
	size_t n = s->cache_size ? s->cache_size * 2 : 4096, i;
	struct sym_cache_ent *old = s->cache, *nc = calloc(n, sizeof(*nc));
	size_t old_size = s->cache_size;

	if (!nc)
		return -ENOMEM;
	s->cache = nc;
	s->cache_size = n;
	for (i = 0; i < old_size; i++) {
		size_t j;

		if (!old[i].dso)
			continue;
		for (j = cache_slot(s, old[i].dso, old[i].addr); nc[j].dso; j = (j + 1) & (n - 1))
			;
		nc[j] = old[i];
	}
	free(old);
	return 0;
}

static const struct pk_sym *lookup_sym(struct pk_symbols *s, struct sym_dso *d, uint64_t addr)
{
	const struct pk_sym *sym;
	size_t j;

	if (s->cache_size) {
		for (j = cache_slot(s, d, addr); s->cache[j].dso; j = (j + 1) & (s->cache_size - 1))
			if (s->cache[j].dso == d && s->cache[j].addr == addr)
				return s->cache[j].sym;
	}
	sym_dso_load(s, d);
	s->nr_lookups++;
	sym = sym_dso_find_sym(d, addr);
	if ((s->cache_used + 1) * 2 > s->cache_size && cache_grow(s))
		return sym;
	for (j = cache_slot(s, d, addr); s->cache[j].dso; j = (j + 1) & (s->cache_size - 1))
		;
	s->cache[j].dso = d;
	s->cache[j].addr = addr;
	s->cache[j].sym = sym;
	s->cache_used++;
	return sym;
}

int sym_keep_old(struct pk_symbols *s, void *p)
{
	if (s->nr_old == s->cap_old) {
		size_t cap = s->cap_old ? s->cap_old * 2 : 16;
		void **v = realloc(s->old_arrays, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->old_arrays = v;
		s->cap_old = cap;
	}
	s->old_arrays[s->nr_old++] = p;
	return 0;
}

/* ---- threads --------------------------------------------------------------- */

static size_t tid_slot(const struct pk_symbols *s, int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) & (s->thr_hash_size - 1);
}

static struct sym_thread *thread_find(struct pk_symbols *s, int32_t tid)
{
	struct sym_thread *t;

	if (!s->thr_hash)
		return NULL;
	for (t = s->thr_hash[tid_slot(s, tid)]; t; t = t->hnext)
		if (t->pub.tid == tid)
			return t;
	return NULL;
}

static void thread_unhash(struct pk_symbols *s, struct sym_thread *th)
{
	struct sym_thread **pp = &s->thr_hash[tid_slot(s, th->pub.tid)];

	for (; *pp; pp = &(*pp)->hnext)
		if (*pp == th) {
			*pp = th->hnext;
			s->nr_threads--;
			return;
		}
}

static int thr_hash_grow(struct pk_symbols *s)
{
	size_t n = s->thr_hash_size ? s->thr_hash_size * 2 : 1024, i;
	struct sym_thread **h = calloc(n, sizeof(*h)), **old = s->thr_hash;
	size_t old_size = s->thr_hash_size;

	if (!h)
		return -ENOMEM;
	s->thr_hash = h;
	s->thr_hash_size = n;
	for (i = 0; i < old_size; i++) {
		struct sym_thread *t = old[i], *nx;

		for (; t; t = nx) {
			size_t b = tid_slot(s, t->pub.tid);

			nx = t->hnext;
			t->hnext = h[b];
			h[b] = t;
		}
	}
	free(old);
	return 0;
}

static struct sym_thread *thread_findnew(struct pk_symbols *s, int32_t pid, int32_t tid,
					 int create);

/* perf's machine__update_thread_pid(): a thread first seen without pid joins its leader. */
static void thread_update_pid(struct pk_symbols *s, struct sym_thread *th, int32_t pid)
{
	struct sym_thread *leader;

	if (pid == th->pub.pid || pid == -1 || th->pub.pid != -1)
		return;
	th->pub.pid = pid;
	if (pid == th->pub.tid)
		return;
	leader = thread_findnew(s, pid, pid, 1);
	if (!leader)
		return;
	if (!leader->maps)
		leader->maps = sym_maps_new(s);
	if (leader->maps)
		th->maps = leader->maps;
}

static struct sym_thread *thread_findnew(struct pk_symbols *s, int32_t pid, int32_t tid,
					 int create)
{
	struct sym_thread *th = thread_find(s, tid);
	size_t b;

	if (th) {
		thread_update_pid(s, th, pid);
		return th;
	}
	if (!create)
		return NULL;
	if (s->nr_threads >= s->thr_hash_size && thr_hash_grow(s))
		return sym_out_of_memory(s);
	th = calloc(1, sizeof(*th));
	if (!th)
		return sym_out_of_memory(s);
	th->pub.pid = pid;
	th->pub.tid = tid;
	th->pub.comm = "";
	th->pub.ppid = -1;
	th->next = s->threads;
	s->threads = th;
	b = tid_slot(s, tid);
	th->hnext = s->thr_hash[b];
	s->thr_hash[b] = th;
	s->nr_threads++;
	/* thread__init_maps(): a process gets its own maps, a thread shares its leader's */
	if (pid == tid || pid == -1) {
		th->maps = sym_maps_new(s);
	} else {
		struct sym_thread *leader = thread_findnew(s, pid, pid, 1);

		if (leader) {
			if (!leader->maps)
				leader->maps = sym_maps_new(s);
			th->maps = leader->maps;
		}
	}
	return th;
}

PK_API struct pk_thread *pk_symbols_thread(struct pk_symbols *s, int32_t pid, int32_t tid)
{
	struct sym_thread *th = thread_findnew(s, pid, tid, 1);

	return th ? &th->pub : NULL;
}

static void thread_set_comm(struct pk_symbols *s, struct sym_thread *th, const char *comm)
{
	const char *c = sym_arena_strdup(&s->arena, comm);

	if (c) {
		if (!th->comm_set)
			th->pub.first_comm = c;
		th->pub.comm = c;
		th->comm_set = 1;
	}
}

/*
 * perf 6.1 keeps a thread's maps across exec (__thread__set_comm only flushes
 * unwind state); the new binary's MMAPs replace what they overlap.
 */
PK_API void pk_symbols_comm(struct pk_symbols *s, int32_t pid, int32_t tid, const char *comm,
			    int exec)
{
	struct sym_thread *th = thread_findnew(s, pid, tid, 1);

	(void)exec;
	if (th && comm)
		thread_set_comm(s, th, comm);
}

PK_API void pk_symbols_fork(struct pk_symbols *s, int32_t pid, int32_t ppid, int32_t tid,
			    int32_t ptid, uint16_t misc)
{
	struct sym_thread *th = thread_findnew(s, pid, tid, 0);
	struct sym_thread *parent = thread_findnew(s, ppid, ptid, 1);
	size_t i;

	if (parent && parent->pub.pid != ppid) {
		/* a stale thread with this tid: drop it and start afresh */
		thread_unhash(s, parent);
		parent = thread_findnew(s, ppid, ptid, 1);
	}
	if (th)
		thread_unhash(s, th);
	th = thread_findnew(s, pid, tid, 1);
	if (!th || !parent)
		return;
	th->pub.ppid = parent->pub.tid;
	if (parent->comm_set)
		thread_set_comm(s, th, parent->pub.comm);
	if (th->pub.pid == parent->pub.pid || th->maps == parent->maps || !th->maps ||
	    !parent->maps)
		return;
	/* perf's thread__clone_maps(): a FORK_EXEC child starts with no maps */
	if (misc & MISC_FORK_EXEC)
		return;
	/* a new process: copy the parent's maps (maps never change once inserted) */
	if (maps_reserve(th->maps, parent->maps->n))
		return;
	for (i = 0; i < parent->maps->n; i++)
		sym_maps_insert(s, th->maps, parent->maps->v[i]);
}

PK_API void pk_symbols_namespaces(struct pk_symbols *s, int32_t pid, int32_t tid, uint64_t cgroup_dev,
				  uint64_t cgroup_ino)
{
	struct sym_thread *th = thread_findnew(s, pid, tid, 1);

	if (!th)
		return;
	th->pub.cgroup_ns_dev = cgroup_dev;
	th->pub.cgroup_ns_ino = cgroup_ino;
}

PK_API void pk_symbols_cgroup(struct pk_symbols *s, uint64_t id, const char *path)
{
	const char *copy;

	if (!s || !path || pk_symbols_cgroup_path(s, id))
		return;
	if (s->nr_cgroups == s->cap_cgroups) {
		size_t cap = s->cap_cgroups ? s->cap_cgroups * 2 : 16;
		struct sym_cgroup *v = realloc(s->cgroups, cap * sizeof(*v));

		if (!v) {
			sym_out_of_memory(s);
			return;
		}
		s->cgroups = v;
		s->cap_cgroups = cap;
	}
	copy = sym_arena_strdup(&s->arena, path);
	if (!copy) {
		sym_out_of_memory(s);
		return;
	}
	s->cgroups[s->nr_cgroups++] = (struct sym_cgroup){ .id = id, .path = copy };
}

PK_API const char *pk_symbols_cgroup_path(const struct pk_symbols *s, uint64_t id)
{
	for (size_t i = 0; s && i < s->nr_cgroups; i++)
		if (s->cgroups[i].id == id)
			return s->cgroups[i].path;
	return NULL;
}

PK_API int pk_symbols_foreach_thread(struct pk_symbols *s,
				     int (*fn)(void *ctx, const struct pk_thread *t), void *ctx)
{
	for (size_t b = 0; s && b < s->thr_hash_size; b++)
		for (struct sym_thread *t = s->thr_hash[b]; t; t = t->hnext) {
			int ret = fn(ctx, &t->pub);

			if (ret)
				return ret;
		}
	return 0;
}

PK_API int pk_symbols_foreach_map(struct pk_symbols *s, const struct pk_thread *t,
				  int (*fn)(void *ctx, const struct pk_map *m), void *ctx)
{
	const struct sym_thread *th = (const struct sym_thread *)t;

	(void)s;
	for (size_t i = 0; th && th->maps && i < th->maps->n; i++) {
		int ret = fn(ctx, &th->maps->v[i]->pub);

		if (ret)
			return ret;
	}
	return 0;
}

PK_API uint8_t pk_symbols_addr_cpumode(uint64_t addr)
{
	return addr >= 0xffff800000000000ULL ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
}

/* perf 6.1 only marks the thread dead: later samples still find it and its maps. */
PK_API void pk_symbols_exit(struct pk_symbols *s, int32_t pid, int32_t tid)
{
	(void)s;
	(void)pid;
	(void)tid;
}

/* ---- MMAP ------------------------------------------------------------------ */

static int is_anon_memory(const char *f)
{
	return !strcmp(f, "//anon") || !strncmp(f, "/dev/zero", 9) || !strncmp(f, "/anon_hugepage", 14);
}

static int is_no_dso_memory(const char *f)
{
	return !strncmp(f, "[stack", 6) || !strncmp(f, "/SYSV", 5) || !strcmp(f, "[heap]");
}

int sym_is_vdso(const char *f)
{
	return !strcmp(f, "[vdso]") || !strcmp(f, "[vdso32]") || !strcmp(f, "[vdsox32]");
}

void sym_dso_set_build_id(struct sym_dso *d, const uint8_t *bid, uint8_t size)
{
	if (!bid || !size)
		return;
	if (size > sizeof(d->pub.build_id))
		size = sizeof(d->pub.build_id);
	memcpy(d->pub.build_id, bid, size);
	memset(d->pub.build_id + size, 0, sizeof(d->pub.build_id) - size);
	d->pub.build_id_size = size;
}

struct sym_map *sym_map_new(struct pk_symbols *s, struct sym_dso *d, uint64_t start, uint64_t len,
			    uint64_t pgoff, uint32_t prot, uint32_t flags, int identity)
{
	struct sym_map *m = sym_arena_alloc(&s->arena, sizeof(*m));

	if (!m)
		return NULL;
	memset(m, 0, sizeof(*m));
	m->pub.start = start;
	m->pub.end = start + len < start ? UINT64_MAX : start + len;
	m->pub.pgoff = pgoff;
	m->pub.dso = &d->pub;
	m->pub.prot = prot;
	m->pub.flags = flags;
	m->identity = (uint8_t)identity;
	return m;
}

PK_API void pk_symbols_mmap(struct pk_symbols *s, int32_t pid, int32_t tid, uint64_t start,
			    uint64_t len, uint64_t pgoff, const char *filename, uint8_t cpumode,
			    const uint8_t *build_id, uint8_t build_id_size, uint32_t prot,
			    uint32_t flags)
{
	sym_mmap(s, pid, tid, start, len, pgoff, filename, cpumode, build_id, build_id_size, prot, flags, 0);
}

void sym_mmap(struct pk_symbols *s, int32_t pid, int32_t tid, uint64_t start, uint64_t len,
	      uint64_t pgoff, const char *filename, uint8_t cpumode, const uint8_t *build_id,
	      uint8_t build_id_size, uint32_t prot, uint32_t flags, uint64_t ino)
{
	struct sym_thread *th;
	struct sym_dso *d;
	struct sym_map *m;
	char jit[64];
	int anon, no_dso, identity;

	if (!s || !filename)
		return;
	cpumode &= 7;
	if (cpumode == CPUMODE_KERNEL) {
		sym_kernel_mmap(s, start, len, pgoff, filename, build_id, build_id_size);
		return;
	}
	if (cpumode == CPUMODE_GUEST_KERNEL)
		return;
	th = thread_findnew(s, pid, tid, 1);
	if (!th || !th->maps)
		return;
	anon = is_anon_memory(filename) || (flags & HUGETLB_FLAG);
	no_dso = is_no_dso_memory(filename);
	identity = anon || no_dso;
	if (identity && (prot & PROT_EXEC)) {
		snprintf(jit, sizeof(jit), "/tmp/perf-%d.map", (int)th->pub.pid);
		filename = jit;
	}
	if (sym_is_vdso(filename)) {
		pgoff = 0;
		d = sym_dso_findnew(s, filename, SYM_DSO_VDSO);
	} else if (!strncmp(filename, "/tmp/perf-", 10)) {
		d = sym_dso_findnew(s, filename, SYM_DSO_PERFMAP);
	} else {
		d = sym_dso_findnew(s, filename, identity ? SYM_DSO_NODSO : SYM_DSO_USER);
	}
	if (!d)
		return;
	sym_dso_set_build_id(d, build_id, build_id_size);
	if (!d->first_ino)
		d->first_ino = ino;   /* perf's dso__inject_id(): an id-less DSO takes the first one */
	m = sym_map_new(s, d, start, len, pgoff, prot, flags, identity);
	if (!m)
		return;
	m->pub.ino = ino ? ino : d->first_ino;
	sym_maps_insert(s, th->maps, m);
}

/* ---- resolution ------------------------------------------------------------ */

static void ensure_kernel_map(struct pk_symbols *s)
{
	if (s->kernel_map || !s->kmaps || s->opts.recorded_kernel_only)
		return;
	/* no kernel MMAP seen: perf top and record make it from the running kernel */
	if (!s->kernel)
		s->kernel = sym_dso_findnew(s, "[kernel.kallsyms]", SYM_DSO_KERNEL);
	if (!s->kernel)
		return;
	sym_dso_load(s, s->kernel);
}

PK_API const struct pk_dso *pk_symbols_kernel_dso(const struct pk_symbols *s, uint64_t *ref_addr,
						  int *symbols_read)
{
	const struct pk_dso *d = s && s->kernel_map ? s->kernel_map->pub.dso : NULL;

	if (ref_addr)
		*ref_addr = d ? s->kernel_ref_addr : 0;
	if (symbols_read)
		*symbols_read = d && (d->has_symbols || s->kallsyms_read);
	return d;
}

PK_API int pk_symbols_resolve(struct pk_symbols *s, const struct pk_thread *t, uint8_t cpumode,
			      uint64_t ip, struct pk_location *loc)
{
	const struct sym_thread *th = (const struct sym_thread *)t;
	const struct sym_maps *maps = NULL;
	struct sym_map *m;
	struct sym_dso *d;

	memset(loc, 0, sizeof(*loc));
	loc->ip = ip;
	loc->cpumode = cpumode;
	loc->addr = ip;
	if (!s)
		return 0;
	cpumode &= 7;
	if (cpumode == CPUMODE_KERNEL) {
		ensure_kernel_map(s);
		maps = s->kmaps;
	} else if (cpumode == CPUMODE_USER && th) {
		maps = th->maps;
	}
	m = sym_maps_find(maps, ip);
	if (!m)
		return 0;
	d = (struct sym_dso *)m->pub.dso;
	/*
	 * Kernel maps may move or shrink when kallsyms loads. Like perf's
	 * thread__find_map(), the map found before loading is still used for
	 * this lookup; later lookups see the new extent.
	 */
	if (cpumode == CPUMODE_KERNEL)
		sym_dso_load(s, d);
	loc->map = &m->pub;
	loc->dso = &d->pub;
	loc->addr = sym_map_ip(m, ip);
	loc->sym = lookup_sym(s, d, loc->addr);
	if (!loc->sym)
		return 0;
	loc->symoff = loc->addr - loc->sym->start;
	return 1;
}

PK_API uint64_t pk_location_shown_symoff(const struct pk_location *loc)
{
	if (loc->addr < loc->sym->end || !loc->map)
		return loc->symoff;
	return loc->addr - loc->map->start - loc->sym->start;
}

PK_API const struct pk_map *pk_symbols_find_map(struct pk_symbols *s, const struct pk_thread *t,
						uint8_t cpumode, uint64_t ip)
{
	const struct sym_thread *th = (const struct sym_thread *)t;
	const struct sym_map *m = NULL;

	if (!s)
		return NULL;
	if ((cpumode & 7) == CPUMODE_KERNEL)
		m = sym_maps_find(s->kmaps, ip);
	else if ((cpumode & 7) == CPUMODE_USER && th)
		m = sym_maps_find(th->maps, ip);
	return m ? &m->pub : NULL;
}

PK_API uint64_t pk_symbols_nr_lookups(const struct pk_symbols *s)
{
	return s ? s->nr_lookups : 0;
}

/* ---- session --------------------------------------------------------------- */

static char *dup_or(const char *v, const char *def)
{
	const char *x = v ? v : def;

	return x ? strdup(x) : NULL;
}

PK_API struct pk_symbols *pk_symbols_new(const struct pk_symbols_opts *opts)
{
	struct pk_symbols *s = calloc(1, sizeof(*s));
	struct sym_thread *idle;
	size_t n;

	if (!s)
		return NULL;
	if (opts) {
		n = opts->sz && opts->sz < sizeof(s->opts) ? opts->sz : sizeof(s->opts);
		memcpy(&s->opts, opts, n);
	}
	s->opts.sz = sizeof(s->opts);
	s->kallsyms_path = dup_or(s->opts.kallsyms, "/proc/kallsyms");
	s->symfs = dup_or(s->opts.symfs, "");
	s->tmp_dir = dup_or(s->opts.tmp_dir, "/tmp");
	/* perf's build-id cache is SYMFS/.debug under --symfs (its symbol__config_symfs) */
	s->home = dup_or(s->symfs && s->symfs[0] ? s->symfs : s->opts.home, getenv("HOME"));
	s->osrelease = s->opts.osrelease ? strdup(s->opts.osrelease) : NULL;
	s->kallsyms_ok = -1;
	s->kmaps = sym_maps_new(s);
	if (!s->kallsyms_path || !s->symfs || !s->tmp_dir || !s->kmaps ||
	    (s->opts.osrelease && !s->osrelease)) {
		pk_symbols_free(s);
		return NULL;
	}
	/* perf registers the idle thread 0/0 as "swapper" */
	idle = thread_findnew(s, 0, 0, 1);
	if (idle)
		thread_set_comm(s, idle, "swapper");
	return s;
}

PK_API void pk_symbols_free(struct pk_symbols *s)
{
	struct sym_thread *t, *tn;
	struct sym_maps *m, *mn;
	size_t i;

	if (!s)
		return;
	sym_srcline_free_all(s);
	free(s->cgroups);
	for (t = s->threads; t; t = tn) {
		tn = t->next;
		free(t);
	}
	/* maps live in the arena: a map may sit in several groups after a fork */
	for (m = s->all_maps; m; m = mn) {
		mn = m->next;
		free(m->v);
		free(m);
	}
	for (i = 0; i < s->nr_old; i++)
		free(s->old_arrays[i]);
	free(s->old_arrays);
	sym_dso_free_all(s);
	free(s->thr_hash);
	free(s->cache);
	free(s->kallsyms_path);
	free(s->symfs);
	free(s->tmp_dir);
	free(s->home);
	free(s->osrelease);
	sym_arena_release(&s->arena);
	free(s);
}
