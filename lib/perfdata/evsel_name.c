/*
 * perf's default name for an attr (evsel__name() in perf 6.1: "cycles",
 * "cpu-clock", "L1-dcache-load-misses", "raw 0x1cd", "mem:0x...:rw", with
 * the ":ukhppp"-style modifiers perf appends), and the "sys:name" of a
 * tracepoint looked up by id in a tracing-data blob. Names that a file
 * carries (EVENT_DESC, EVENT_UPDATE) take precedence; see evlist.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include "perfdata/internal.h"

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

static const char *const cache_names[] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};
static const char *const cache_op[][2] = {
	{ "load", "loads" }, { "store", "stores" }, { "prefetch", "prefetches" },
};
static const char *const cache_result[] = { "refs", "misses" };
/* valid ops per cache type: bit 0 read, 1 write, 2 prefetch */
static const unsigned cache_ops_valid[] = { 7, 5, 7, 7, 1, 1, 7 };

#define APPEND(...) do { \
	if (n < sz) \
		n += (size_t)snprintf(buf + n, sz - n, __VA_ARGS__); \
} while (0)

/* perf's evsel__add_modifiers(). */
static size_t add_modifiers(const struct perf_event_attr *a, char *buf, size_t sz)
{
	size_t n = 0, colon = 0;
	int guest_default = 0;

#define MOD(excl, c) do { \
	if (!(excl)) { \
		if (!colon) { colon = n + 1; APPEND(":"); } \
		APPEND("%c", c); \
	} \
} while (0)

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(a->exclude_kernel, 'k');
		MOD(a->exclude_user, 'u');
		MOD(a->exclude_hv, 'h');
		guest_default = 1;
	}
	if (a->precise_ip) {
		if (!colon) {
			colon = n + 1;
			APPEND(":");
		}
		APPEND("%.*s", (int)a->precise_ip, "ppp");
		guest_default = 1;
	}
	if (a->exclude_host || (int)a->exclude_guest == guest_default) {
		MOD(a->exclude_host, 'H');
		MOD(a->exclude_guest, 'G');
	}
#undef MOD
	return n;
}

size_t pk_perfdata_attr_name(const struct perf_event_attr *a, char *buf, size_t sz)
{
	size_t n = 0;
	uint64_t cfg = a->config;

	if (!sz)
		return 0;
	buf[0] = '\0';
	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		cfg &= 0xffffffffull;        /* hybrid: PMU type in the upper half */
		APPEND("%s", cfg < sizeof(hw_names) / sizeof(hw_names[0]) ? hw_names[cfg]
									 : "unknown-hardware");
		break;
	case PERF_TYPE_SOFTWARE:
		APPEND("%s", cfg < sizeof(sw_names) / sizeof(sw_names[0]) ? sw_names[cfg]
									 : "unknown-software");
		break;
	case PERF_TYPE_HW_CACHE: {
		unsigned type = cfg & 0xff, op = (cfg >> 8) & 0xff, res = (cfg >> 16) & 0xff;

		if (type >= 7)
			APPEND("unknown-ext-hardware-cache-type");
		else if (op >= 3)
			APPEND("unknown-ext-hardware-cache-op");
		else if (res >= 2)
			APPEND("unknown-ext-hardware-cache-result");
		else if (!(cache_ops_valid[type] & (1u << op)))
			APPEND("invalid-cache");
		else if (res)
			APPEND("%s-%s-%s", cache_names[type], cache_op[op][0], cache_result[res]);
		else
			APPEND("%s-%s", cache_names[type], cache_op[op][1]);
		break;
	}
	case PERF_TYPE_RAW:
		APPEND("raw 0x%llx", (unsigned long long)a->config);
		break;
	case PERF_TYPE_TRACEPOINT:
		/* perf 6.1's evsel__name(); the tracing data usually names it instead */
		APPEND("unknown tracepoint");
		return n;
	case PERF_TYPE_BREAKPOINT:
		APPEND("mem:0x%llx:", (unsigned long long)a->bp_addr);
		if (a->bp_type & HW_BREAKPOINT_R)
			APPEND("r");
		if (a->bp_type & HW_BREAKPOINT_W)
			APPEND("w");
		if (a->bp_type & HW_BREAKPOINT_X)
			APPEND("x");
		break;
	default:
		APPEND("unknown attr type: %u", a->type);
		return n;
	}
	if (n < sz)
		n += add_modifiers(a, buf + n, sz - n);
	return n;
}

/*
 * Tracing data (perf's trace-event-read.c), numbers in the byte order the
 * blob declares:
 *   off 0  u8[10] "\x17\x08\x44tracing"
 *          char version[] (NUL-terminated), u8 big_endian, u8 long_size, u32 page_size
 *          "header_page\0" u64 size, data; "header_event\0" u64 size, data
 *          u32 nr_ftrace; { u64 size; data }[nr]
 *          u32 nr_systems; { char sys[]; u32 nr; { u64 size; format text }[nr] }[nr]
 *          (kallsyms, printk formats, saved cmdlines follow; not needed here)
 * Each format text starts "name: NAME\nID: N\n".
 */
struct tr {
	const uint8_t *b;
	uint64_t len, off;
	int swap;
};

static int tr_skip(struct tr *t, uint64_t n)
{
	if (!pk_range_ok(t->off, n, t->len))
		return -1;
	t->off += n;
	return 0;
}

static int tr_u32(struct tr *t, uint32_t *v)
{
	if (!pk_range_ok(t->off, 4, t->len))
		return -1;
	*v = pk_pd_u32(t->b + t->off, t->swap);
	t->off += 4;
	return 0;
}

static int tr_u64(struct tr *t, uint64_t *v)
{
	if (!pk_range_ok(t->off, 8, t->len))
		return -1;
	*v = pk_pd_u64(t->b + t->off, t->swap);
	t->off += 8;
	return 0;
}

static const char *tr_str(struct tr *t)
{
	const uint8_t *s = t->b + t->off;
	const void *z;

	if (t->off >= t->len)
		return NULL;
	z = memchr(s, 0, t->len - t->off);
	if (!z)
		return NULL;
	t->off += (uint64_t)((const uint8_t *)z - s) + 1;
	return (const char *)s;
}

static int tr_sized(struct tr *t)
{
	uint64_t n;

	return tr_u64(t, &n) || tr_skip(t, n);
}

/* Value of "key: value" at the start of a line in [s, s+n); copied to @out. */
static int fmt_field(const char *s, uint64_t n, const char *key, char *out, size_t sz)
{
	size_t kl = strlen(key);
	uint64_t i = 0;

	while (i < n) {
		uint64_t e = i;

		while (e < n && s[e] != '\n')
			e++;
		if (e - i > kl && !memcmp(s + i, key, kl)) {
			uint64_t v = i + kl, l;

			while (v < e && s[v] == ' ')
				v++;
			l = e - v;
			if (l >= sz)
				l = sz - 1;
			memcpy(out, s + v, l);
			out[l] = '\0';
			return 0;
		}
		i = e + 1;
	}
	return -1;
}

int pk_perfdata_tracing_name(const void *blob, uint64_t size, uint64_t id, char *buf, size_t sz)
{
	struct tr t = { blob, size, 0, 0 };
	uint32_t nr, nsys, i, j;
	uint8_t big;
	const char *s;

	if (size < 10 || memcmp(blob, "\x17\x08\x44tracing", 10))
		return -1;
	t.off = 10;
	if (!tr_str(&t) || !pk_range_ok(t.off, 6, size))
		return -1;
	big = t.b[t.off];
	t.swap = big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	t.off += 6;
	s = tr_str(&t);
	if (!s || strcmp(s, "header_page") || tr_sized(&t))
		return -1;
	s = tr_str(&t);
	if (!s || strcmp(s, "header_event") || tr_sized(&t))
		return -1;
	if (tr_u32(&t, &nr))
		return -1;
	for (i = 0; i < nr; i++)
		if (tr_sized(&t))
			return -1;
	if (tr_u32(&t, &nsys))
		return -1;
	for (i = 0; i < nsys; i++) {
		const char *sys = tr_str(&t);

		if (!sys || tr_u32(&t, &nr))
			return -1;
		for (j = 0; j < nr; j++) {
			uint64_t n;
			const char *f;
			char name[128], idstr[32];

			if (tr_u64(&t, &n) || !pk_range_ok(t.off, n, size))
				return -1;
			f = (const char *)t.b + t.off;
			t.off += n;
			if (fmt_field(f, n, "ID:", idstr, sizeof(idstr)) ||
			    strtoull(idstr, NULL, 10) != id ||
			    fmt_field(f, n, "name:", name, sizeof(name)))
				continue;
			snprintf(buf, sz, "%s:%s", sys, name);
			return 0;
		}
	}
	return -1;
}
