/*
 * The DRM fdinfo parser: the text of one /proc/<pid>/fdinfo/<fd> of a DRM
 * file into a pk_fdinfo, following the DRM client usage-stats specification
 * (../shared/specs/drm-usage-stats.txt).
 *
 * Layout read (one pair per line, "key:" then any whitespace then the value):
 *
 *   key                          value                         kept as
 *   drm-driver                   <valstr>                      driver (mandatory)
 *   drm-pdev                     <aaaa:bb:cc.d>                pdev
 *   drm-client-id                <uint>                        client_id
 *   drm-client-name              <valstr>                      client_name
 *   drm-engine-capacity-<e>      <uint> > 0                    engine.capacity
 *   drm-engine-<e>               <uint> [ns]                   engine.ns
 *   drm-cycles-<e>               <uint>                        engine.cycles
 *   drm-total-cycles-<e>         <uint>                        engine.total_cycles
 *   drm-maxfreq-<e>              <uint> [Hz|KHz|MHz|GHz]       engine.maxfreq_hz
 *   drm-{total,shared,resident,purgeable,active}-<r>
 *                                <uint> [KiB|MiB|GiB]          region.bytes[kind]
 *   drm-memory-<r>               <uint> [KiB|MiB|GiB]          resident, if no drm-resident-<r>
 *   pos, flags, mnt_id, ino      (the VFS's own lines)         ignored
 *   anything else                <valstr>                      extras (amd-*, v3d-*, drm-curfreq-*)
 *
 * Prefixes are tried longest first (drm-engine-capacity- before drm-engine-,
 * drm-total-cycles- before drm-total-) and keys are matched whole, so an
 * engine name is never confused with a longer one. The kernel prints a TAB
 * after the colon; documentation shows spaces; amdgpu's legacy lines have a
 * space before the TAB; all of these are whitespace to skip. A size may be
 * printed in bytes, KiB or MiB from one read to the next (the DRM core
 * divides while the value stays aligned), so the unit is read every time.
 *
 * Nothing here is fatal: a line that breaks the rules is skipped and
 * counted in n_malformed, with the offset of the first one kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/gpu.h>

/*
 * Distinct engines, regions and extra keys kept per file (real files have a
 * handful); lines beyond are malformed. It bounds the name lookups, which
 * are linear, so a hostile file costs O(lines), not O(lines^2).
 */
#define MAX_NAMES 256

/* Region fields bit marking a resident value that came from drm-memory-<r>. */
#define RESIDENT_FROM_LEGACY (1u << PK_MEM_KINDS)

static const char *const mem_kind_names[PK_MEM_KINDS] = {
	[PK_MEM_TOTAL] = "total",
	[PK_MEM_SHARED] = "shared",
	[PK_MEM_RESIDENT] = "resident",
	[PK_MEM_PURGEABLE] = "purgeable",
	[PK_MEM_ACTIVE] = "active",
};

PK_API const char *pk_gpu_mem_kind_name(enum pk_gpu_mem_kind k)
{
	return (unsigned)k < PK_MEM_KINDS ? mem_kind_names[k] : "?";
}

PK_API void pk_fdinfo_init(struct pk_fdinfo *fi)
{
	memset(fi, 0, sizeof(*fi));
	fi->first_malformed = PK_NO_OFFSET;
}

PK_API void pk_fdinfo_release(struct pk_fdinfo *fi)
{
	free(fi->engines);
	free(fi->regions);
	free(fi->extras);
	free(fi->store);
	pk_fdinfo_init(fi);
}

/* A slice of the text. */
struct span {
	const char *p;
	size_t n;
};

static bool span_is(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n == n && memcmp(s.p, lit, n) == 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Bytes that may not appear in a key: whitespace and NUL. */
static bool not_key_byte(char c)
{
	return (unsigned char)c <= ' ';
}

/*
 * An unsigned decimal number, then optional whitespace and a unit among
 * @units (each with its multiplier; "" = no unit). False on anything else
 * or on overflow.
 */
struct unit {
	const char *name;
	unsigned char len;
	uint64_t mult;
};

static bool parse_uint_unit(struct span v, const struct unit *units, uint64_t *out)
{
	uint64_t x = 0;
	size_t i = 0;
	struct span u;

	if (v.n == 0 || v.p[0] < '0' || v.p[0] > '9')
		return false;
	for (; i < v.n && v.p[i] >= '0' && v.p[i] <= '9'; i++) {
		unsigned d = (unsigned)(v.p[i] - '0');

		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	while (i < v.n && is_space(v.p[i]))
		i++;
	u.p = v.p + i;
	u.n = v.n - i;
	for (; units->name; units++) {
		if (u.n == units->len && memcmp(u.p, units->name, u.n) == 0) {
			if (units->mult > 1 && x > UINT64_MAX / units->mult)
				return false;
			*out = x * units->mult;
			return true;
		}
	}
	return false;
}

static const struct unit no_units[] = { { "", 0, 1 }, { NULL, 0, 0 } };
static const struct unit ns_units[] = { { "", 0, 1 }, { "ns", 2, 1 }, { NULL, 0, 0 } };
static const struct unit size_units[] = {
	{ "", 0, 1 }, { "B", 1, 1 }, { "KiB", 3, 1ull << 10 }, { "MiB", 3, 1ull << 20 },
	{ "GiB", 3, 1ull << 30 }, { "TiB", 3, 1ull << 40 }, { NULL, 0, 0 },
};
static const struct unit freq_units[] = {
	{ "", 0, 1 }, { "Hz", 2, 1 }, { "KHz", 3, 1000 }, { "kHz", 3, 1000 },
	{ "MHz", 3, 1000000 }, { "GHz", 3, 1000000000 }, { NULL, 0, 0 },
};

/* Copy a name into a fixed field; false when empty or too long. */
static bool copy_name(char *dst, size_t sz, struct span s)
{
	if (s.n == 0 || s.n >= sz)
		return false;
	memcpy(dst, s.p, s.n);
	dst[s.n] = '\0';
	return true;
}

/* @name (shorter than PK_GPU_NAME_MAX) equals @s (s.n checked by the caller). */
static bool name_eq(const char *name, struct span s)
{
	return name[s.n] == '\0' && memcmp(name, s.p, s.n) == 0;
}

/* The engine named @s, created on first mention. NULL: bad name or no memory. */
static struct pk_fdinfo_engine *engine_get(struct pk_fdinfo *fi, struct span s, int *nomem)
{
	struct pk_fdinfo_engine *e;
	uint32_t i;

	if (s.n == 0 || s.n >= PK_GPU_NAME_MAX)
		return NULL;
	for (i = 0; i < fi->n_engines; i++)
		if (name_eq(fi->engines[i].name, s))
			return &fi->engines[i];
	if (fi->n_engines >= MAX_NAMES)
		return NULL;
	if (pk_array_grow((void **)&fi->engines, &fi->engines_cap, fi->n_engines + 1,
			  sizeof(*fi->engines), 8)) {
		*nomem = 1;
		return NULL;
	}
	e = &fi->engines[fi->n_engines++];
	memset(e, 0, sizeof(*e));
	copy_name(e->name, sizeof(e->name), s);
	e->capacity = 1;
	return e;
}

static struct pk_fdinfo_region *region_get(struct pk_fdinfo *fi, struct span s, int *nomem)
{
	struct pk_fdinfo_region *r;
	uint32_t i;

	if (s.n == 0 || s.n >= PK_GPU_NAME_MAX)
		return NULL;
	for (i = 0; i < fi->n_regions; i++)
		if (name_eq(fi->regions[i].name, s))
			return &fi->regions[i];
	if (fi->n_regions >= MAX_NAMES)
		return NULL;
	if (pk_array_grow((void **)&fi->regions, &fi->regions_cap, fi->n_regions + 1,
			  sizeof(*fi->regions), 8)) {
		*nomem = 1;
		return NULL;
	}
	r = &fi->regions[fi->n_regions++];
	memset(r, 0, sizeof(*r));
	copy_name(r->name, sizeof(r->name), s);
	return r;
}

/* Append @s plus a NUL to the store; its offset, or -1 without memory. */
static ssize_t store_add(struct pk_fdinfo *fi, struct span s)
{
	size_t off = fi->store_len;

	if (fi->store_len + s.n + 1 > fi->store_cap) {
		size_t cap = fi->store_cap ? fi->store_cap : 256;
		char *p;

		while (cap < fi->store_len + s.n + 1)
			cap *= 2;
		p = realloc(fi->store, cap);
		if (!p)
			return -1;
		fi->store = p;
		fi->store_cap = cap;
	}
	memcpy(fi->store + off, s.p, s.n);
	fi->store[off + s.n] = '\0';
	fi->store_len += s.n + 1;
	return (ssize_t)off;
}

/*
 * Extras hold store offsets in their pointer fields while parsing (the
 * store may move); pk_fdinfo_parse() turns them into pointers at the end.
 */
static int extra_set(struct pk_fdinfo *fi, struct span key, struct span val)
{
	ssize_t koff = -1, voff;
	uint32_t i;

	for (i = 0; i < fi->n_extras; i++) {
		uintptr_t off = (uintptr_t)fi->extras[i].key;

		if (strlen(fi->store + off) == key.n && memcmp(fi->store + off, key.p, key.n) == 0) {
			koff = (ssize_t)off;
			break;
		}
	}
	if (i == fi->n_extras && fi->n_extras >= MAX_NAMES)
		return -E2BIG;
	voff = store_add(fi, val);
	if (voff < 0)
		return -ENOMEM;
	if (koff >= 0) {
		fi->extras[i].value = (const char *)(uintptr_t)voff;
		return 0;
	}
	koff = store_add(fi, key);
	if (koff < 0)
		return -ENOMEM;
	if (pk_array_grow((void **)&fi->extras, &fi->extras_cap, fi->n_extras + 1,
			  sizeof(*fi->extras), 8))
		return -ENOMEM;
	fi->extras[fi->n_extras].key = (const char *)(uintptr_t)koff;
	fi->extras[fi->n_extras].value = (const char *)(uintptr_t)voff;
	fi->n_extras++;
	return 0;
}

/* What a drm- key is, from its name after "drm-". */
enum key_kind {
	K_DRIVER, K_PDEV, K_CLIENT_ID, K_CLIENT_NAME,
	K_ENGINE_CAPACITY, K_ENGINE, K_CYCLES, K_TOTAL_CYCLES, K_MAXFREQ,
	K_MEMORY, K_MEMORY_LEGACY,
};

/*
 * The standard keys after "drm-": whole names, or prefixes followed by an
 * engine or region name. Where one prefix starts another, the longer comes
 * first (engine-capacity- before engine-, total-cycles- before total-).
 */
static const struct key_rule {
	const char *name;
	unsigned char len;
	bool prefix;
	enum key_kind kind;
	enum pk_gpu_mem_kind mem;
} key_rules[] = {
	{ "driver", 6, false, K_DRIVER, 0 },
	{ "pdev", 4, false, K_PDEV, 0 },
	{ "client-id", 9, false, K_CLIENT_ID, 0 },
	{ "client-name", 11, false, K_CLIENT_NAME, 0 },
	{ "engine-capacity-", 16, true, K_ENGINE_CAPACITY, 0 },
	{ "engine-", 7, true, K_ENGINE, 0 },
	{ "cycles-", 7, true, K_CYCLES, 0 },
	{ "total-cycles-", 13, true, K_TOTAL_CYCLES, 0 },
	{ "maxfreq-", 8, true, K_MAXFREQ, 0 },
	{ "total-", 6, true, K_MEMORY, PK_MEM_TOTAL },
	{ "shared-", 7, true, K_MEMORY, PK_MEM_SHARED },
	{ "resident-", 9, true, K_MEMORY, PK_MEM_RESIDENT },
	{ "purgeable-", 10, true, K_MEMORY, PK_MEM_PURGEABLE },
	{ "active-", 7, true, K_MEMORY, PK_MEM_ACTIVE },
	{ "memory-", 7, true, K_MEMORY_LEGACY, PK_MEM_RESIDENT },
};

/* The rule matching @rest (the key after "drm-"), with @rest advanced past a prefix. */
static const struct key_rule *key_rule_find(struct span *rest)
{
	size_t i;

	for (i = 0; i < sizeof(key_rules) / sizeof(key_rules[0]); i++) {
		const struct key_rule *r = &key_rules[i];

		if (r->name[0] != rest->p[0] || rest->n < r->len || memcmp(rest->p, r->name, r->len) != 0)
			continue;
		if (!r->prefix) {
			if (rest->n != r->len)
				continue;
		} else {
			rest->p += r->len;
			rest->n -= r->len;
		}
		return r;
	}
	return NULL;
}

/* An engine key (@name is the engine): false when malformed. */
static bool parse_engine_key(struct pk_fdinfo *fi, enum key_kind kind, struct span name,
			     struct span val, int *nomem)
{
	struct pk_fdinfo_engine *e;
	uint64_t x;
	const struct unit *units = kind == K_ENGINE ? ns_units : kind == K_MAXFREQ ? freq_units : no_units;

	if (!parse_uint_unit(val, units, &x))
		return false;
	if (kind == K_ENGINE_CAPACITY && (x == 0 || x > UINT32_MAX))
		return false;
	e = engine_get(fi, name, nomem);
	if (!e)
		return false;
	switch (kind) {
	case K_ENGINE_CAPACITY: e->capacity = (uint32_t)x; e->fields |= PK_ENGINE_CAPACITY; break;
	case K_ENGINE: e->ns = x; e->fields |= PK_ENGINE_NS; break;
	case K_CYCLES: e->cycles = x; e->fields |= PK_ENGINE_CYCLES; break;
	case K_TOTAL_CYCLES: e->total_cycles = x; e->fields |= PK_ENGINE_TOTAL_CYCLES; break;
	default: e->maxfreq_hz = x; e->fields |= PK_ENGINE_MAXFREQ; break;
	}
	return true;
}

/* A memory key (@region named): false when malformed. */
static bool parse_memory_key(struct pk_fdinfo *fi, const struct key_rule *rule, struct span region,
			     struct span val, int *nomem)
{
	struct pk_fdinfo_region *r;
	enum pk_gpu_mem_kind kind = rule->mem;
	unsigned bit = 1u << kind;
	uint64_t x;

	if (!parse_uint_unit(val, size_units, &x))
		return false;
	r = region_get(fi, region, nomem);
	if (!r)
		return false;
	if (rule->kind == K_MEMORY_LEGACY) {
		/* drm-memory-<r> is an alias of resident: it never overrides drm-resident-<r>. */
		if ((r->fields & bit) && !(r->fields & RESIDENT_FROM_LEGACY))
			return true;
		r->fields |= RESIDENT_FROM_LEGACY;
	} else if (kind == PK_MEM_RESIDENT) {
		r->fields &= ~RESIDENT_FROM_LEGACY;
	}
	r->fields |= bit;
	r->bytes[kind] = x;
	return true;
}

/* A standard drm- key: false when malformed. */
static bool parse_drm_key(struct pk_fdinfo *fi, const struct key_rule *rule, struct span rest,
			  struct span val, int *nomem)
{
	uint64_t x;

	switch (rule->kind) {
	case K_DRIVER:
		if (!copy_name(fi->driver, sizeof(fi->driver), val))
			return false;
		fi->has |= PK_FDINFO_DRIVER;
		return true;
	case K_PDEV:
		if (!copy_name(fi->pdev, sizeof(fi->pdev), val))
			return false;
		fi->has |= PK_FDINFO_PDEV;
		return true;
	case K_CLIENT_ID:
		if (!parse_uint_unit(val, no_units, &x))
			return false;
		fi->client_id = x;
		fi->has |= PK_FDINFO_CLIENT_ID;
		return true;
	case K_CLIENT_NAME: {
		size_t n = val.n < sizeof(fi->client_name) ? val.n : sizeof(fi->client_name) - 1;

		memcpy(fi->client_name, val.p, n);
		fi->client_name[n] = '\0';
		fi->has |= PK_FDINFO_CLIENT_NAME;
		return true;
	}
	case K_MEMORY:
	case K_MEMORY_LEGACY:
		return parse_memory_key(fi, rule, rest, val, nomem);
	default:
		return parse_engine_key(fi, rule->kind, rest, val, nomem);
	}
}

/*
 * One "key: value" line (without its newline) whose key starts at
 * line.p[0] and ends at @colon. False when malformed.
 */
static bool parse_line(struct pk_fdinfo *fi, struct span line, const char *colon, int *nomem)
{
	struct span key, val;

	key.p = line.p;
	key.n = (size_t)(colon - line.p);
	val.p = colon + 1;
	val.n = line.n - key.n - 1;
	while (val.n && is_space(val.p[0])) {
		val.p++;
		val.n--;
	}
	while (val.n && is_space(val.p[val.n - 1]))
		val.n--;
	/* a value is text: a NUL would silently cut it */
	if (memchr(val.p, '\0', val.n))
		return false;

	if (key.n > 4 && memcmp(key.p, "drm-", 4) == 0) {
		struct span rest = { key.p + 4, key.n - 4 };
		const struct key_rule *rule = key_rule_find(&rest);

		if (rule)
			return parse_drm_key(fi, rule, rest, val, nomem);
	} else if (span_is(key, "pos") || span_is(key, "flags") || span_is(key, "mnt_id") ||
		   span_is(key, "ino")) {
		return true;
	}
	switch (extra_set(fi, key, val)) {
	case 0:
		return true;
	case -E2BIG:
		return false;
	default:
		*nomem = 1;
		return false;
	}
}

PK_API int pk_fdinfo_parse(struct pk_fdinfo *fi, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int nomem = 0;
	uint32_t i;

	fi->has = 0;
	fi->driver[0] = fi->pdev[0] = fi->client_name[0] = '\0';
	fi->client_id = 0;
	fi->n_engines = fi->n_regions = fi->n_extras = 0;
	fi->n_lines = fi->n_malformed = 0;
	fi->first_malformed = PK_NO_OFFSET;
	fi->store_len = 0;

	while (p < end && !nomem) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *q = p;
		struct span line = { p, (size_t)(le - p) };
		bool ok = false;

		/* the key: up to the colon, with no whitespace or NUL */
		while (q < le && *q != ':' && !not_key_byte(*q))
			q++;
		if (q < le && *q == ':' && q > p) {
			fi->n_lines++;
			ok = parse_line(fi, line, q, &nomem);
		} else {
			/* no key: a blank line, or a malformed one */
			for (q = p; q < le && is_space(*q); q++)
				;
			if (q == le) {
				p = nl ? nl + 1 : end;
				continue;
			}
			fi->n_lines++;
		}
		if (!ok && !nomem && fi->n_malformed++ == 0)
			fi->first_malformed = (uint64_t)(p - text);
		p = nl ? nl + 1 : end;
	}
	if (nomem) {
		fi->n_extras = 0;   /* their pointers are still offsets */
		return -ENOMEM;
	}
	for (i = 0; i < fi->n_regions; i++)
		fi->regions[i].fields &= ~RESIDENT_FROM_LEGACY;
	for (i = 0; i < fi->n_extras; i++) {
		fi->extras[i].key = fi->store + (uintptr_t)fi->extras[i].key;
		fi->extras[i].value = fi->store + (uintptr_t)fi->extras[i].value;
	}
	return (fi->has & PK_FDINFO_DRIVER) ? 0 : -ENOENT;
}

PK_API const struct pk_fdinfo_engine *pk_fdinfo_engine(const struct pk_fdinfo *fi, const char *name)
{
	uint32_t i;

	for (i = 0; i < fi->n_engines; i++)
		if (strcmp(fi->engines[i].name, name) == 0)
			return &fi->engines[i];
	return NULL;
}

PK_API const struct pk_fdinfo_region *pk_fdinfo_region(const struct pk_fdinfo *fi, const char *name)
{
	uint32_t i;

	for (i = 0; i < fi->n_regions; i++)
		if (strcmp(fi->regions[i].name, name) == 0)
			return &fi->regions[i];
	return NULL;
}

PK_API const char *pk_fdinfo_extra(const struct pk_fdinfo *fi, const char *key)
{
	uint32_t i;

	for (i = 0; i < fi->n_extras; i++)
		if (strcmp(fi->extras[i].key, key) == 0)
			return fi->extras[i].value;
	return NULL;
}
