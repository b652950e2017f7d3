/*
 * The --sort keys of perf report: what each key groups by, the text and
 * column title perf prints for it, its column width and its tie order.
 * Keys: comm, pid (and tid, the same: perf groups by thread), dso, sym,
 * srcline, cpu, symoff, parent, time (the sample's time rounded down to
 * --time-quantum), srcfile (srcline's file), dso_size (the map's size),
 * cgroup (the sample's PERF_SAMPLE_CGROUP id, printed as the path a CGROUP
 * record gave it, "unknown" without one, "N/A" for id 0), cgroup_id (the
 * thread's cgroup namespace from NAMESPACES, "dev/0xinode"), local_weight
 * and local_ins_lat (the sample's weight, its WEIGHT_STRUCT instruction
 * latency), weight and ins_lat (the same times the row's samples), and the
 * memory keys mem, snoop, tlb, lock (texts from pk_mem_*_str).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <perfkit/sample.h>
#include <perfkit/symbols.h>
#include "internal.h"

static const struct rp_keydef keydefs[] = {
	{ "comm", "Command", RP_K_COMM },
	{ "pid", "    Pid:Command", RP_K_PID },
	{ "tid", "    Tid:Command", RP_K_TID },
	{ "dso", "Shared Object", RP_K_DSO },
	{ "symbol", "Symbol", RP_K_SYM },
	{ "srcline", "Source:Line", RP_K_SRCLINE },
	{ "cpu", "CPU", RP_K_CPU },
	{ "symoff", "Symbol+Offset", RP_K_SYMOFF },
	{ "parent", "Parent symbol", RP_K_PARENT },
	{ "srcfile", "Source File", RP_K_SRCFILE },
	{ "dso_size", "DSO size", RP_K_DSO_SIZE },
	{ "time", "Time", RP_K_TIME },
	{ "cgroup", "Cgroup", RP_K_CGROUP },
	{ "cgroup_id", "cgroup id (dev/inode)", RP_K_CGROUP_ID },
	{ "weight", "Weight", RP_K_WEIGHT },
	{ "local_weight", "Local Weight", RP_K_LOCAL_WEIGHT },
	{ "ins_lat", "INSTR Latency", RP_K_INS_LAT },
	{ "local_ins_lat", "Local INSTR Latency", RP_K_LOCAL_INS_LAT },
	{ "dso_from", "Source Shared Object", RP_K_DSO_FROM },
	{ "dso_to", "Target Shared Object", RP_K_DSO_TO },
	{ "symbol_from", "Source Symbol", RP_K_SYM_FROM },
	{ "symbol_to", "Target Symbol", RP_K_SYM_TO },
	{ "cycles", "Basic Block Cycles", RP_K_CYCLES },
	{ "symbol_size", "Symbol size", RP_K_SYM_SIZE },
	{ "socket", "Socket", RP_K_SOCKET },
	{ "code_page_size", "Code Page Size", RP_K_CODE_PAGE_SIZE },
	{ "trace", "Trace output", RP_K_TRACE },
	{ "mem", "Memory access", RP_K_MEM },
	{ "snoop", "Snoop", RP_K_SNOOP },
	{ "tlb", "Data TLB access", RP_K_TLB },
	{ "lock", "Locked", RP_K_LOCK },
	{ "locked", "Locked", RP_K_LOCK },
};

const struct rp_keydef rp_ipc_keydef = { "ipc", "IPC   [IPC Coverage]", RP_K_IPC };


const struct rp_keydef *rp_keydef_find(const char *name)
{
	size_t len = strlen(name);

	if (!len)
		return NULL;
	for (size_t i = 0; i < sizeof(keydefs) / sizeof(keydefs[0]); i++)
		if (!strcmp(keydefs[i].name, name))
			return &keydefs[i];
	/* perf accepts unique prefixes ("sym" for "symbol") */
	for (size_t i = 0; i < sizeof(keydefs) / sizeof(keydefs[0]); i++)
		if (!strncmp(keydefs[i].name, name, len) && (len >= 3 || keydefs[i].id == RP_K_SYM))
			return &keydefs[i];
	return NULL;
}

static uint32_t rp_dso_id(struct pk_report *r, const struct pk_location *l)
{
	if (!l->dso)
		return 0;
	return rp_strtab_id_ptr(&r->strs, l->dso->short_name ? l->dso->short_name : l->dso->name);
}

/* The address perf keeps for an unresolved location: map-relative for the sample, raw for frames. */
static uint64_t rp_unres_ip(const struct rp_keyctx *c)
{
	return (c->self && c->loc->map) ? c->loc->addr : c->loc->ip;
}

/*
 * The srcline text of @l ("file.c:12", or "sym+off", "dso[addr]" without
 * line info), or with @file_only the srcfile one ("file.c", or "").
 */
static uint32_t rp_srcline_id(struct pk_report *r, const struct pk_location *l, int file_only)
{
	struct pk_srcline sl[8];
	char buf[512];
	uint32_t *v, id;
	int n = 0, found;

	v = rp_map_find(&r->srcline_cache, (uintptr_t)l->dso, l->addr, (uint64_t)file_only);
	if (v)
		return *v;
	if (r->syms && l->dso)
		n = pk_symbols_srcline(r->syms, l, sl, 8);
	if (n > 0 && sl[0].file && file_only && !strcmp(sl[0].file, "??")) {
		buf[0] = '\0';                 /* perf's srcfile of "??:0": none */
	} else if (n > 0 && sl[0].file) {
		snprintf(buf, sizeof(buf), file_only ? "%s" : "%s:%" PRIu32,
			 pk_srcline_shown_file(sl[0].file, r->o.full_source_path), sl[0].line);
	} else if (file_only) {
		buf[0] = '\0';
	} else if (l->sym) {
		snprintf(buf, sizeof(buf), "%s+%" PRIu64, l->sym->name, l->symoff);
	} else {
		snprintf(buf, sizeof(buf), "%s[%" PRIx64 "]", l->dso ? l->dso->short_name : "??",
			 l->addr);
	}
	id = rp_strtab_id(&r->strs, buf);
	if (id != UINT32_MAX &&
	    !rp_map_get(&r->srcline_cache, (uintptr_t)l->dso, l->addr, (uint64_t)file_only, &found, id))
		return UINT32_MAX;
	return id;
}

static uint32_t rp_mem_id(struct pk_report *r, enum rp_key_id k, uint64_t data_src)
{
	char buf[128];

	switch (k) {
	case RP_K_MEM: pk_mem_lvl_str(data_src, buf, sizeof(buf)); break;
	case RP_K_SNOOP: pk_mem_snoop_str(data_src, buf, sizeof(buf)); break;
	case RP_K_TLB: pk_mem_tlb_str(data_src, buf, sizeof(buf)); break;
	default: pk_mem_lock_str(data_src, buf, sizeof(buf)); break;
	}
	return rp_strtab_id(&r->strs, buf);
}

/* A branch's source; outside branch mode there is none (an empty location). */
static const struct pk_location *branch_from(const struct rp_keyctx *c)
{
	static const struct pk_location none;

	return c->from ? c->from : &none;
}

/*
 * The level of a branch end: perf looks its address up as user, kernel, then
 * guest space (no guest here) and keeps the last try's level: 'H' when no map
 * has it.
 */
static char branch_level(const struct pk_location *l)
{
	if (!l->map)
		return 'H';
	return l->dso && l->dso->kernel ? 'k' : '.';
}

/* The address perf prints for an unresolved branch end: inside its map when it has one. */
static uint64_t branch_addr(const struct pk_location *l)
{
	return l->map ? l->addr : l->ip;
}

int rp_key_compute(struct pk_report *r, const struct rp_keydef *k, const struct rp_keyctx *c,
		   uint64_t out[2])
{
	const struct pk_location *l = c->loc;
	uint32_t id;

	out[0] = out[1] = 0;
	switch (k->id) {
	case RP_K_COMM:
		out[0] = c->comm_id;
		if (c->placeholder_comm) {      /* the thread's own until its first comm names it */
			out[0] |= RP_COMM_PLACEHOLDER;
			out[1] = (uintptr_t)c->rs->thread;
		}
		break;
	case RP_K_PID:
	case RP_K_TID:
		out[0] = (uint32_t)(c->who ? c->who->tid : (int32_t)c->rs->s->tid);
		break;
	case RP_K_DSO:
		id = rp_dso_id(r, l);
		if (id == UINT32_MAX)
			return -ENOMEM;
		out[0] = id;
		break;
	case RP_K_SYM:
	case RP_K_SYMOFF:
	case RP_K_IPC:          /* perf's ipc_null compares as the symbol key (sort__sym_cmp) */
		id = rp_dso_id(r, l);
		if (id == UINT32_MAX)
			return -ENOMEM;
		out[0] = (uint64_t)id << 2 | (l->sym != NULL);
		out[1] = l->sym ? l->sym->start : rp_unres_ip(c);
		/* perf's sort__sym_cmp(): two unresolved symbols are the same by address alone */
		if (!l->sym && k->id != RP_K_SYMOFF)
			out[0] = 0;
		if (k->id == RP_K_SYMOFF && l->sym)
			out[1] = l->addr;
		/*
		 * An inline frame's symbol shares its start with the containing
		 * function: perf's _sort__sym_cmp() tells them apart by name. The
		 * session keeps one synthesized symbol per (function, name).
		 */
		if (c->inlined && l->sym && k->id != RP_K_SYMOFF) {
			out[0] |= 2;
			out[1] = (uintptr_t)l->sym;
		}
		break;
	case RP_K_SRCLINE:
	case RP_K_SRCFILE:
		id = rp_srcline_id(r, l, k->id == RP_K_SRCFILE);
		if (id == UINT32_MAX)
			return -ENOMEM;
		out[0] = id;
		break;
	case RP_K_TIME: {
		uint64_t q = r->o.time_quantum ? r->o.time_quantum : 100000000;

		out[0] = (c->rs->s->present & PERF_SAMPLE_TIME) ? c->rs->s->time / q * q : 0;
		break;
	}
	case RP_K_DSO_SIZE:
		out[0] = l->map ? l->map->end - l->map->start : 0;
		break;
	case RP_K_CGROUP:
		out[0] = (c->rs->s->present & PERF_SAMPLE_CGROUP) ? c->rs->s->cgroup : 0;
		break;
	case RP_K_TRACE:
		id = rp_trace_text_id(r, c->rs);
		if (id == UINT32_MAX)
			return -ENOMEM;
		out[0] = id;
		break;
	case RP_K_DSO_FROM:
	case RP_K_DSO_TO:
		id = rp_dso_id(r, k->id == RP_K_DSO_FROM ? branch_from(c) : l);
		if (id == UINT32_MAX)
			return -ENOMEM;
		out[0] = id;
		break;
	case RP_K_SYM_FROM:
	case RP_K_SYM_TO: {     /* perf's sort__sym_from_cmp(): by start and end, unresolved by address */
		const struct pk_location *b = k->id == RP_K_SYM_FROM ? branch_from(c) : l;

		out[0] = b->sym ? b->sym->start : b->ip;
		out[1] = b->sym ? b->sym->end : UINT64_MAX;
		break;
	}
	case RP_K_CYCLES:
		out[0] = c->cycles;
		break;
	case RP_K_SYM_SIZE:
		out[0] = l->sym ? l->sym->end - l->sym->start : 0;
		break;
	case RP_K_CODE_PAGE_SIZE:
		out[0] = (c->rs->s->present & PERF_SAMPLE_CODE_PAGE_SIZE) ? c->rs->s->code_page_size : 0;
		break;
	case RP_K_SOCKET: {     /* the sample's cpu's socket in the file's topology, else -1 */
		uint32_t cpu = (c->rs->s->present & PERF_SAMPLE_CPU) ? c->rs->s->cpu : UINT32_MAX;
		const uint32_t *socket = r->feat ? r->feat->cpu_topo.socket_id : NULL;

		out[0] = (uint32_t)(socket && cpu < r->feat->cpu_topo.nr_cpus ? (int32_t)socket[cpu] : -1);
		break;
	}
	case RP_K_WEIGHT:
	case RP_K_LOCAL_WEIGHT:
		out[0] = (c->rs->s->present & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) ?
			 c->rs->s->weight : 0;
		break;
	case RP_K_INS_LAT:
	case RP_K_LOCAL_INS_LAT:
		out[0] = (c->rs->s->present & PERF_SAMPLE_WEIGHT_STRUCT) ? c->rs->s->ins_lat : 0;
		break;
	case RP_K_CGROUP_ID: {
		const struct pk_thread *t = c->who ? c->who : c->rs->thread;

		out[0] = t ? t->cgroup_ns_dev : 0;
		out[1] = t ? t->cgroup_ns_ino : 0;
		break;
	}
	case RP_K_CPU:
		out[0] = (c->rs->s->present & PERF_SAMPLE_CPU) ? c->rs->s->cpu : UINT32_MAX;
		break;
	case RP_K_PARENT:
		out[0] = c->parent_id;
		break;
	case RP_K_MEM:
	case RP_K_SNOOP:
	case RP_K_TLB:
	case RP_K_LOCK:
		id = rp_mem_id(r, k->id, c->rs->s->data_src);
		if (id == UINT32_MAX)
			return -ENOMEM;
		out[0] = id;
		break;
	}
	return 0;
}

static char rp_level(const struct pk_location *l)
{
	switch (l->cpumode) {
	case PERF_RECORD_MISC_KERNEL: return 'k';
	case PERF_RECORD_MISC_USER: return '.';
	case PERF_RECORD_MISC_GUEST_KERNEL: return 'g';
	case PERF_RECORD_MISC_GUEST_USER: return 'u';
	case PERF_RECORD_MISC_HYPERVISOR: return 'H';
	default: return (l->dso && l->dso->kernel) ? 'k' : '.';
	}
}

int rp_entry_display(struct pk_report *r, struct rp_entry *e, const struct rp_keyctx *c)
{
	const struct pk_location *l = c->loc;
	uint32_t id = rp_dso_id(r, l);

	e->comm_id = c->comm_id;
	e->pid = c->who ? c->who->pid : (int32_t)c->rs->s->pid;
	e->tid = c->who ? c->who->tid : (int32_t)c->rs->s->tid;
	e->thread = c->rs->thread;
	e->cpu = (c->rs->s->present & PERF_SAMPLE_CPU) ? (int32_t)c->rs->s->cpu : -1;
	if (id == UINT32_MAX)
		return -ENOMEM;
	e->dso_id = id;
	e->sym = l->sym;
	e->inlined = c->inlined && l->sym;
	e->ip = rp_unres_ip(c);
	e->symoff = l->symoff;
	e->level = c->self ? rp_level(l) : c->level;
	e->parent_id = c->parent_id;
	if (c->from) {
		e->level_from = branch_level(c->from);
		e->level_to = branch_level(l);
		e->sym_from = c->from->sym;
		e->ip_from = branch_addr(c->from);
		e->ip_to = branch_addr(l);
		e->dso_from_id = rp_dso_id(r, c->from);
		if (e->dso_from_id == UINT32_MAX)
			return -ENOMEM;
		e->cycles = c->cycles;
	}
	for (int i = 0; i < r->nr_keys; i++) {
		enum rp_key_id k = r->keys[i]->id;

		if (k == RP_K_SRCLINE)
			e->srcline_id = (uint32_t)e->key[1 + 2 * i];
		else if (k == RP_K_SRCFILE)
			e->srcfile_id = (uint32_t)e->key[1 + 2 * i];
		else if (k == RP_K_TIME)
			e->time = e->key[1 + 2 * i];
		else if (k == RP_K_DSO_SIZE)
			e->dso_size = e->key[1 + 2 * i];
		else if (k >= RP_K_MEM)
			e->mem_id[k - RP_K_MEM] = (uint32_t)e->key[1 + 2 * i];
	}
	return 0;
}

/* The two words key @k of @r stored in @e (rp_key_values()'s out[]). */
static const uint64_t *key_words(const struct pk_report *r, const struct rp_keydef *k,
				 const struct rp_entry *e)
{
	static const uint64_t none[2];

	for (int i = 0; i < r->nr_keys; i++)
		if (r->keys[i] == k)
			return &e->key[1 + 2 * i];
	return none;
}

/* The text of a key that prints as one stored string; NULL for the others. */
static const char *rp_key_str(const struct pk_report *r, const struct rp_keydef *k,
			      const struct rp_entry *e)
{
	switch (k->id) {
	case RP_K_COMM:
		return r->strs.str[e->comm_id];
	case RP_K_DSO:
	case RP_K_DSO_TO:
		return e->dso_id ? r->strs.str[e->dso_id] : "[unknown]";
	case RP_K_DSO_FROM:
		return e->dso_from_id ? r->strs.str[e->dso_from_id] : "[unknown]";
	case RP_K_SRCLINE:
		return r->strs.str[e->srcline_id];
	case RP_K_SRCFILE:
		return r->strs.str[e->srcfile_id];
	case RP_K_TRACE:
		return r->strs.str[key_words(r, k, e)[0]];
	case RP_K_PARENT:
		return e->parent_id ? r->strs.str[e->parent_id] : "[other]";
	case RP_K_MEM:
	case RP_K_SNOOP:
	case RP_K_TLB:
	case RP_K_LOCK:
		return r->strs.str[e->mem_id[k->id - RP_K_MEM]];
	default:
		return NULL;
	}
}

/*
 * The comm the pid and tid keys print: the thread's as it is now, at the
 * end (perf's thread__comm_str(he->thread)), ":TID" if it never had one.
 */
static const char *thread_comm_now(const struct pk_report *r, const struct rp_entry *e, char *own,
				   size_t sz)
{
	if (!e->thread)
		return r->strs.str[e->comm_id];
	if (e->thread->comm && e->thread->comm[0])
		return e->thread->comm;
	snprintf(own, sz, ":%d", e->thread->tid);
	return own;
}

size_t rp_key_text(const struct pk_report *r, const struct rp_keydef *k, const struct rp_entry *e,
		   char *buf, size_t sz)
{
	const char *str = rp_key_str(r, k, e);
	const uint64_t *w;
	int n = 0;

	switch (k->id) {
	case RP_K_SYM_FROM:
	case RP_K_SYM_TO: {
		const struct pk_sym *sym = k->id == RP_K_SYM_FROM ? e->sym_from : e->sym;

		char level = k->id == RP_K_SYM_FROM ? e->level_from : e->level_to;

		if (sym)
			n = snprintf(buf, sz, "[%c] %s", level, sym->name);
		else
			n = snprintf(buf, sz, "[%c] %#.16" PRIx64, level,
				     k->id == RP_K_SYM_FROM ? e->ip_from : e->ip_to);
		break;
	}
	case RP_K_CYCLES:
		n = e->cycles ? snprintf(buf, sz, "%d", (int)(int16_t)e->cycles) : snprintf(buf, sz, "-");
		break;
	case RP_K_SYM_SIZE:
		n = e->sym ? snprintf(buf, sz, "%" PRIu64, e->sym->end - e->sym->start) : snprintf(buf, sz, "unknown");
		break;
	case RP_K_CODE_PAGE_SIZE: {     /* "4K", "2M"; N/A for 0 */
		char ps[PK_PAGE_SIZE_MAX];

		pk_format_page_size(key_words(r, k, e)[0], ps);
		n = snprintf(buf, sz, "%s", ps);
		break;
	}
	case RP_K_SOCKET:       /* perf's "%*.*d" in 6 columns: three digits at least */
		n = snprintf(buf, sz, "%.3d", (int32_t)key_words(r, k, e)[0]);
		break;
	case RP_K_IPC:          /* ipc_null's "%-5s %2s" of "-" and "-"; ipc_lbr's "-" (no cycle counts kept) */
		n = snprintf(buf, sz, r->branch_mode ? "-" : "-      -");
		break;
	case RP_K_CGROUP:
		w = key_words(r, k, e);
		str = pk_symbols_cgroup_path(r->syms, w[0]);
		n = snprintf(buf, sz, "%s", !w[0] ? "N/A" : str ? str : "unknown");
		break;
	case RP_K_CGROUP_ID:
		w = key_words(r, k, e);
		n = snprintf(buf, sz, "%" PRIu64 "/0x%" PRIx64, w[0], w[1]);
		break;
	case RP_K_LOCAL_WEIGHT:
	case RP_K_LOCAL_INS_LAT:
		n = snprintf(buf, sz, "%" PRIu64, key_words(r, k, e)[0]);
		break;
	case RP_K_WEIGHT:       /* every sample of the row has this weight: their sum */
	case RP_K_INS_LAT:
		n = snprintf(buf, sz, "%" PRIu64, key_words(r, k, e)[0] * e->nr_self);
		break;
	case RP_K_PID:
	case RP_K_TID: {
		char own[32];

		n = snprintf(buf, sz, "%7d:%s", e->tid, thread_comm_now(r, e, own, sizeof(own)));
		break;
	}
	case RP_K_SYM:
		if (e->sym)
			n = snprintf(buf, sz, "[%c] %s%s", e->level, e->sym->name,
				     e->inlined ? " (inlined)" : "");
		else
			n = snprintf(buf, sz, "[%c] %#.16" PRIx64, e->level, e->ip);
		break;
	case RP_K_SYMOFF:
		if (e->sym)
			n = snprintf(buf, sz, "[%c] %s+%#" PRIx64, e->level, e->sym->name, e->symoff);
		else
			n = snprintf(buf, sz, "[%c] %#.16" PRIx64, e->level, e->ip);
		break;
	case RP_K_CPU:
		n = snprintf(buf, sz, "%*.*d", 3, 3, e->cpu);
		break;
	case RP_K_TIME:         /* perf's "%-.*s": cut to the column's fixed width */
		n = snprintf(buf, sz, r->o.time_ns ? "%" PRIu64 ".%09" PRIu64 : "%" PRIu64 ".%06" PRIu64,
			     e->time / 1000000000, r->o.time_ns ? e->time % 1000000000 : e->time % 1000000000 / 1000);
		if (n > (int)rp_key_width(r, k, e))
			n = (int)rp_key_width(r, k, e);
		if ((size_t)n < sz)
			buf[n] = '\0';
		break;
	case RP_K_DSO_SIZE:
		n = e->dso_size ? snprintf(buf, sz, "%" PRIu64, e->dso_size) : snprintf(buf, sz, "unknown");
		break;
	default:
		n = snprintf(buf, sz, "%s", str);
		break;
	}
	if (n < 0)
		n = 0;
	return (size_t)n < sz ? (size_t)n : sz - 1;
}

/* perf's _sort__dso_cmp: no DSO ([unknown]) after every named one; equal ids are equal names */
static int dso_cmp(const struct pk_report *r, const struct rp_entry *a, const struct rp_entry *b)
{
	if (a->dso_id == b->dso_id)
		return 0;
	if (!a->dso_id || !b->dso_id)
		return (!a->dso_id) - (!b->dso_id);
	return strcmp(r->strs.str[a->dso_id], r->strs.str[b->dso_id]);
}

int rp_key_cmp(const struct pk_report *r, const struct rp_keydef *k, const struct rp_entry *a,
	       const struct rp_entry *b)
{
	char ba[1024], bb[1024];

	switch (k->id) {
	case RP_K_PID:
	case RP_K_TID:
		return (a->tid > b->tid) - (a->tid < b->tid);
	case RP_K_CPU:
		return (a->cpu > b->cpu) - (a->cpu < b->cpu);
	case RP_K_PARENT:       /* named parents by name, [other] after them (perf's cmp_null()) */
		if (!a->parent_id || !b->parent_id)
			return (!a->parent_id) - (!b->parent_id);
		return strcmp(r->strs.str[a->parent_id], r->strs.str[b->parent_id]);
	case RP_K_TIME:
		return (a->time > b->time) - (a->time < b->time);
	case RP_K_DSO_SIZE:     /* smallest first among equals, as perf prints them */
		return (a->dso_size > b->dso_size) - (a->dso_size < b->dso_size);
	case RP_K_CGROUP:       /* lowest id first, as perf prints them */
	case RP_K_CGROUP_ID: {  /* highest device, then inode, first */
		const uint64_t *wa = key_words(r, k, a), *wb = key_words(r, k, b);
		int c = wa[0] != wb[0] ? (wa[0] > wb[0] ? 1 : -1) : (wa[1] > wb[1]) - (wa[1] < wb[1]);

		return k->id == RP_K_CGROUP ? c : -c;
	}
	case RP_K_DSO_FROM:     /* the dso key's order reversed: perf passes the maps the other */
	case RP_K_DSO_TO: {     /* way round ([unknown] first, then names from the last) */
		uint32_t da = k->id == RP_K_DSO_FROM ? a->dso_from_id : a->dso_id;
		uint32_t db = k->id == RP_K_DSO_FROM ? b->dso_from_id : b->dso_id;

		if (da == db)
			return 0;
		if (!da || !db)
			return (!db) - (!da);
		return strcmp(r->strs.str[db], r->strs.str[da]);
	}
	case RP_K_SYM_FROM:
	case RP_K_SYM_TO: {     /* resolved first, then by start address (unresolved: by address) */
		const uint64_t *wa = key_words(r, k, a), *wb = key_words(r, k, b);
		int ra = wa[1] != UINT64_MAX, rb = wb[1] != UINT64_MAX;
		int64_t d;

		if (ra != rb)
			return ra ? -1 : 1;
		/* perf's int64_t differences: kernel addresses come before user ones */
		d = (int64_t)(wa[0] - wb[0]);
		if (!d && ra)
			d = (int64_t)(wa[1] - wb[1]);
		return (d > 0) - (d < 0);
	}
	case RP_K_CYCLES:       /* most cycles first */
		return (a->cycles < b->cycles) - (a->cycles > b->cycles);
	case RP_K_CODE_PAGE_SIZE: {     /* smallest first, N/A (0) before all: perf's right - left */
		uint64_t pa = key_words(r, k, a)[0], pb = key_words(r, k, b)[0];

		return (pa > pb) - (pa < pb);
	}
	case RP_K_SOCKET: {     /* lowest first */
		int32_t sa = (int32_t)key_words(r, k, a)[0], sb = (int32_t)key_words(r, k, b)[0];

		return (sa > sb) - (sa < sb);
	}
	case RP_K_SYM_SIZE: {   /* smallest first */
		uint64_t sa = key_words(r, k, a)[0], sb = key_words(r, k, b)[0];

		return (sa > sb) - (sa < sb);
	}
	case RP_K_WEIGHT:       /* highest weight first (perf's left - right) */
	case RP_K_LOCAL_WEIGHT:
	case RP_K_INS_LAT:
	case RP_K_LOCAL_INS_LAT: {
		uint64_t wa = key_words(r, k, a)[0], wb = key_words(r, k, b)[0];

		return (wa < wb) - (wa > wb);
	}
	case RP_K_COMM:         /* the string table holds each text once */
		return a->comm_id == b->comm_id ? 0 : strcmp(r->strs.str[a->comm_id], r->strs.str[b->comm_id]);
	case RP_K_DSO:
		return dso_cmp(r, a, b);
	case RP_K_SYM:
	case RP_K_SYMOFF:
	case RP_K_IPC:          /* as the symbol key */
		if (!a->sym || !b->sym) {
			if (a->sym || b->sym)   /* perf's cmp_null: resolved first */
				return a->sym ? -1 : 1;
			/*
			 * perf's sort__sym_sort() finds two unresolved symbols equal, so
			 * they keep the order perf inserts them in (collapse_order.c);
			 * symoff, a key perf 6.1 lacks, orders them by address
			 */
			return k->id != RP_K_SYMOFF ? 0 : ((int64_t)(a->ip - b->ip) > 0) - ((int64_t)(a->ip - b->ip) < 0);
		}
		return strcmp(a->sym->name, b->sym->name);
	default:
		if (rp_key_str(r, k, a))
			return strcmp(rp_key_str(r, k, a), rp_key_str(r, k, b));
		rp_key_text(r, k, a, ba, sizeof(ba));
		rp_key_text(r, k, b, bb, sizeof(bb));
		return strcmp(ba, bb);
	}
}

/* a before b when the signed difference a - b is negative (perf's int64_t subtractions) */
static int signed_diff_cmp(uint64_t a, uint64_t b)
{
	int64_t d = (int64_t)(a - b);

	return (d > 0) - (d < 0);
}

int rp_key_collapse_cmp(const struct pk_report *r, const struct rp_keydef *k,
			const struct rp_entry *a, const struct rp_entry *b)
{
	const struct pk_sym *sa = a->sym, *sb = b->sym;
	int c;

	if (k->id != RP_K_SYM && k->id != RP_K_SYMOFF)
		return rp_key_cmp(r, k, a, b);
	if (!sa && !sb)
		return signed_diff_cmp(a->ip, b->ip);
	if ((c = dso_cmp(r, a, b)))
		return c;
	if (!sa || !sb)
		return sa ? -1 : 1;     /* resolved first */
	if (sa != sb) {
		/* inline symbols by name, reversed (perf compares them the other way round) */
		if ((a->inlined || b->inlined) && (c = strcmp(sb->name, sa->name)))
			return c;
		if (!(a->inlined || b->inlined) || sa->start > sb->end || sa->end < sb->start) {
			if (sa->start != sb->start)
				return signed_diff_cmp(sa->start, sb->start);
			if ((c = signed_diff_cmp(sa->end, sb->end)))
				return c;
		}
	}
	return k->id == RP_K_SYMOFF ? (a->symoff > b->symoff) - (a->symoff < b->symoff) : 0;
}

int rp_entry_collapse_cmp(const struct pk_report *r, const struct rp_entry *a, const struct rp_entry *b)
{
	int c;

	for (int i = 0; i < r->nr_keys; i++)
		if ((c = rp_key_collapse_cmp(r, r->keys[i], a, b)))
			return c;
	return 0;
}

size_t rp_key_width(const struct pk_report *r, const struct rp_keydef *k, const struct rp_entry *e)
{
	const char *str = rp_key_str(r, k, e);
	char buf[1024];

	switch (k->id) {
	case RP_K_SYM:
		return e->sym ? strlen(e->sym->name) + 4 : 16 + 4 + 2;
	case RP_K_DSO: {
		/* perf widens the DSO column to 16 when any symbol is unresolved */
		size_t w = strlen(str);

		return (!e->sym && w < 16) ? 16 : w;
	}
	case RP_K_PID:
	case RP_K_TID: {
		char own[32];

		return strlen(thread_comm_now(r, e, own, sizeof(own))) + 8;
	}
	case RP_K_COMM:
		/* perf measures the thread's comm as it is at the end (its cached length) */
		if (e->thread && e->thread->comm && e->thread->comm[0])
			return strlen(e->thread->comm);
		return strlen(str);
	case RP_K_CPU:
		return 3;
	case RP_K_TIME:         /* perf's fixed column */
		return r->o.time_ns ? 16 : 12;
	case RP_K_DSO_SIZE:     /* the title's width ("%*d" overflows it) */
		return 0;
	case RP_K_TRACE:
		/*
		 * perf makes the text when its comparison first meets the row: an
		 * event of one sample never compares one, so its column keeps the
		 * title's width and the text is cut to it
		 */
		if (e->evsel < r->nr_hists && r->hists[e->evsel].nr_samples <= 1)
			return 0;
		return strlen(str);
	case RP_K_DSO_FROM:     /* perf sizes these by the DSOs of resolved ends only (else 16) */
		return e->sym_from ? strlen(str) : 16;
	case RP_K_DSO_TO:
		return e->sym ? strlen(str) : 16;
	case RP_K_SYM_FROM:
		return e->sym_from ? strlen(e->sym_from->name) + 4 : 16 + 4 + 2;
	case RP_K_SYM_TO:
		return e->sym ? strlen(e->sym->name) + 4 : 16 + 4 + 2;
	case RP_K_CYCLES:       /* the title's width */
	case RP_K_IPC:
	case RP_K_SOCKET:
		return 0;
	case RP_K_WEIGHT:       /* perf's fixed columns */
	case RP_K_LOCAL_WEIGHT:
		return 12;
	case RP_K_INS_LAT:
	case RP_K_LOCAL_INS_LAT:
		return 13;
	case RP_K_MEM:
		return 24;
	case RP_K_SNOOP:
		return 12;
	case RP_K_TLB:
		return 22;
	case RP_K_LOCK:
		return 6;
	default:
		return str ? strlen(str) : rp_key_text(r, k, e, buf, sizeof(buf));
	}
}

int rp_key_right_align(const struct rp_keydef *k)
{
	return k->id == RP_K_DSO_SIZE || k->id == RP_K_SYM_SIZE || k->id == RP_K_SOCKET;
}
