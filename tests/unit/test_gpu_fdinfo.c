/*
 * Unit tests for the DRM fdinfo parser (lib/gpu/fdinfo.c, pk_fdinfo_*):
 *
 *  1. every published sample in $PK_SHARED/data/fdinfo (../shared when unset;
 *     skipped with a reason when the directory is absent) and every fixture
 *     of our own in tests/fixtures/fdinfo (one per driver of the spec notes:
 *     i915, xe, amdgpu, msm, panfrost, panthor, v3d, printed the way the
 *     kernel prints them) is parsed and each value is compared with a table
 *     written by hand from the file: identification, every engine with the
 *     fields present, every region with each memory kind in bytes, the
 *     driver keys kept as extras, the line and malformed-line counts (line 1
 *     of each file is a "# ..." comment, one malformed line at offset 0);
 *     the same files are parsed again into one reused pk_fdinfo;
 *  2. edge cases as inline strings: line ends, whitespace after the colon,
 *     units and their overflow, bad numbers, capacity 0, key-prefix
 *     precedence, names of 63 and 64 bytes, NUL bytes, a missing
 *     drm-driver, duplicate keys, drm-memory-<r> against drm-resident-<r>,
 *     100 engines and 100 regions in more than 4 KiB, and reuse of one
 *     pk_fdinfo without stale values.
 *
 * Every input is copied into a buffer of exactly its length (no NUL after
 * it) so that a sanitizer build catches a read past the end.
 * Fixtures are found under tests/fixtures relative to the current directory
 * (make runs the tests from the repository root) or under $PK_SRCDIR.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <perfkit/gpu.h>
#include "../shared_data.h"
#include "../tap.h"

#define KiB 1024ull
#define MiB 1048576ull
#define GiB 1073741824ull

/* Engine fields. */
#define E_NS PK_ENGINE_NS
#define E_CAP PK_ENGINE_CAPACITY
#define E_CYC PK_ENGINE_CYCLES
#define E_TOT PK_ENGINE_TOTAL_CYCLES
#define E_MF PK_ENGINE_MAXFREQ

/* Region fields. */
#define M_T (1u << PK_MEM_TOTAL)
#define M_S (1u << PK_MEM_SHARED)
#define M_R (1u << PK_MEM_RESIDENT)
#define M_P (1u << PK_MEM_PURGEABLE)
#define M_A (1u << PK_MEM_ACTIVE)
#define M_TSAR (M_T | M_S | M_A | M_R)
#define M_ALL (M_TSAR | M_P)

#define MAXW 16

struct want_engine {
	const char *name;
	unsigned fields;
	uint64_t ns, cycles, total_cycles, maxfreq_hz;
	uint32_t capacity;
};

struct want_region {
	const char *name;
	unsigned fields;
	uint64_t total, shared, resident, purgeable, active;
};

struct want_extra {
	const char *key, *value;
};

/* What one file must parse to; lists end at a NULL name. */
struct want {
	const char *file;
	int ret;
	const char *driver;       /* NULL: absent */
	const char *pdev;         /* NULL: absent */
	const char *client_name;  /* NULL: absent */
	int has_client_id;
	uint64_t client_id;
	struct want_engine engines[MAXW];
	struct want_region regions[MAXW];
	struct want_extra extras[MAXW];
	uint32_t n_lines, n_malformed;
	uint64_t first_malformed;
};

/* ---- the published samples (../shared/data/fdinfo), values read by hand ---- */

static const struct want shared_wants[] = {
	{
		.file = "amdgpu_tursulin-2024.fdinfo",
		.driver = "amdgpu", .pdev = "0000:04:00.0", .has_client_id = 1, .client_id = 30,
		.engines = {
			{ "gfx", E_NS, 39456116802ull, 0, 0, 0, 1 },
		},
		/* drm-memory-<r> repeats drm-resident-<r> and must not change it */
		.regions = {
			{ "cpu", M_TSAR, 0, 0, 0, 0, 0 },
			{ "gtt", M_TSAR, 22 * MiB, 0, 22 * MiB, 0, 10 * MiB },
			{ "vram", M_TSAR, 544428 * KiB, 13584 * KiB, 544428 * KiB, 0, 260356 * KiB },
		},
		.extras = {
			{ "pasid", "32785" },
			{ "amd-memory-visible-vram", "544428 KiB" },
			{ "amd-evicted-vram", "0 KiB" },
			{ "amd-evicted-visible-vram", "0 KiB" },
			{ "amd-requested-vram", "544428 KiB" },
			{ "amd-requested-visible-vram", "90112 KiB" },
			{ "amd-requested-gtt", "22528 KiB" },
		},
		.n_lines = 31, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "i915_man-pages-irogers-2024.fdinfo",
		.driver = "i915", .pdev = "0000:00:02.0", .has_client_id = 1, .client_id = 39,
		.engines = {
			{ "render", E_NS, 346249, 0, 0, 0, 1 },
			{ "copy", E_NS, 0, 0, 0, 0, 1 },
			{ "video", E_NS | E_CAP, 0, 0, 0, 0, 2 },
			{ "video-enhance", E_NS, 0, 0, 0, 0, 1 },
		},
		.regions = {
			{ "system0", M_ALL, 6044 * KiB, 0, 6044 * KiB, 1688 * KiB, 0 },
			{ "stolen-system0", M_ALL, 0, 0, 0, 0, 0 },
		},
		.n_lines = 23, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "msm_robclark-patch-2022.fdinfo",
		.driver = "msm", .has_client_id = 1, .client_id = 7,
		.engines = {
			{ "gpu", E_NS | E_CYC | E_MF, 1734371319, 1153645024, 0, 800000000, 1 },
		},
		.n_lines = 10, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "panfrost_dri-devel-larumbe.fdinfo",
		.driver = "panfrost", .has_client_id = 1, .client_id = 6,
		.engines = {
			{ "fragment", E_NS | E_CYC | E_MF, 481941638, 60243117, 0, 799999987, 1 },
			{ "vertex-tiler", E_NS | E_CYC | E_MF, 55546675, 6943796, 0, 799999987, 1 },
		},
		.regions = {
			{ "memory", M_ALL, 138420 * KiB, 7200 * KiB, 2196 * KiB, 128 * KiB, 0 },
		},
		.extras = {
			{ "drm-curfreq-fragment", "124999998 Hz" },
			{ "drm-curfreq-vertex-tiler", "124999998 Hz" },
			{ "drm-internal-memory", "0" },
		},
		.n_lines = 17, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "panfrost_kernel-doc.fdinfo",
		.driver = "panfrost", .has_client_id = 1, .client_id = 14,
		.engines = {
			{ "fragment", E_NS | E_CYC | E_MF, 1846584880, 1424359409, 0, 799999987, 1 },
			{ "vertex-tiler", E_NS | E_CYC | E_MF, 71932239, 52617357, 0, 799999987, 1 },
		},
		.regions = {
			{ "memory", M_ALL, 290 * MiB, 0, 36496 * KiB, 128 * KiB, 226 * MiB },
		},
		.extras = {
			{ "drm-curfreq-fragment", "799999987 Hz" },
			{ "drm-curfreq-vertex-tiler", "799999987 Hz" },
		},
		.n_lines = 20, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "panthor_dri-devel-larumbe.fdinfo",
		.driver = "panthor", .has_client_id = 1, .client_id = 3,
		.engines = {
			{ "panthor", E_NS | E_CYC | E_MF, 611046570346ull, 1172733302061ull, 0, 1000000000, 1 },
		},
		.regions = {
			{ "memory", M_ALL, 16480 * KiB, 0, 26876 * KiB, 0, 16200 * KiB },
		},
		.extras = {
			{ "drm-curfreq-panthor", "1000000000 Hz" },
			{ "drm-internal-memory", "10396 KiB" },
		},
		.n_lines = 13, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "panthor_kernel-doc.fdinfo",
		.driver = "panthor", .has_client_id = 1, .client_id = 10,
		.engines = {
			{ "panthor", E_NS | E_CYC | E_MF, 111110952750ull, 94439687187ull, 0, 1000000000, 1 },
		},
		.regions = {
			{ "memory", M_ALL, 16480 * KiB, 0, 16480 * KiB, 0, 16200 * KiB },
		},
		.extras = {
			{ "drm-curfreq-panthor", "1000000000 Hz" },
		},
		.n_lines = 16, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "v3d_mcanal-2023.fdinfo",
		.driver = "v3d", .has_client_id = 1, .client_id = 44,
		.engines = {
			{ "bin", E_NS, 1661076898, 0, 0, 0, 1 },
			{ "render", E_NS, 31469427170ull, 0, 0, 0, 1 },
			{ "tfu", E_NS, 5002964, 0, 0, 0, 1 },
			{ "csd", E_NS, 188038329691ull, 0, 0, 0, 1 },
			{ "cache_clean", E_NS, 27736024038ull, 0, 0, 0, 1 },
		},
		.extras = {
			{ "v3d-jobs-bin", "19576 jobs" },
			{ "v3d-jobs-render", "19575 jobs" },
			{ "v3d-jobs-tfu", "13 jobs" },
			{ "v3d-jobs-csd", "250393 jobs" },
			{ "v3d-jobs-cache_clean", "250392 job" },
		},
		.n_lines = 17, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "v3d_mcanal-2024-memstats.fdinfo",
		.driver = "v3d", .has_client_id = 1, .client_id = 81,
		.engines = {
			{ "bin", E_NS, 4916187, 0, 0, 0, 1 },
			{ "render", E_NS, 154563573, 0, 0, 0, 1 },
			{ "tfu", E_NS, 10574, 0, 0, 0, 1 },
			{ "csd", E_NS, 0, 0, 0, 0, 1 },
			{ "cache_clean", E_NS, 0, 0, 0, 0, 1 },
			{ "cpu", E_NS, 0, 0, 0, 0, 1 },
		},
		.regions = {
			{ "memory", M_T | M_S | M_A, 15168 * KiB, 9336 * KiB, 0, 0, 0 },
		},
		.extras = {
			{ "v3d-jobs-bin", "98 jobs" },
			{ "v3d-jobs-render", "98 jobs" },
			{ "v3d-jobs-tfu", "1 jobs" },
			{ "v3d-jobs-csd", "0 jobs" },
			{ "v3d-jobs-cache_clean", "0 jobs" },
			{ "v3d-jobs-cpu", "0 jobs" },
		},
		.n_lines = 22, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "xe_kernel-doc.fdinfo",
		.driver = "xe", .pdev = "0000:03:00.0", .has_client_id = 1, .client_id = 3,
		.engines = {
			{ "rcs", E_CYC | E_TOT, 0, 28257900, 7655183225ull, 0, 1 },
			{ "bcs", E_CYC | E_TOT, 0, 0, 7655183225ull, 0, 1 },
			{ "vcs", E_CYC | E_TOT | E_CAP, 0, 0, 7655183225ull, 0, 2 },
			{ "vecs", E_CYC | E_TOT | E_CAP, 0, 0, 7655183225ull, 0, 2 },
			{ "ccs", E_CYC | E_TOT | E_CAP, 0, 0, 7655183225ull, 0, 4 },
		},
		.regions = {
			{ "system", M_ALL, 0, 0, 0, 0, 0 },
			{ "gtt", M_TSAR, 192 * KiB, 0, 192 * KiB, 0, 0 },
			{ "vram0", M_TSAR, 23992 * KiB, 16 * MiB, 23992 * KiB, 0, 0 },
			{ "stolen", M_TSAR, 0, 0, 0, 0, 0 },
		},
		.n_lines = 38, .n_malformed = 1, .first_malformed = 0,
	},
};

/* ---- our fixtures (tests/fixtures/fdinfo), TAB after the colon ------------- */

static const struct want fixture_wants[] = {
	{
		.file = "i915_dg2.fdinfo",
		.driver = "i915", .pdev = "0000:03:00.0", .has_client_id = 1, .client_id = 112,
		.engines = {
			{ "render", E_NS, 25662044495ull, 0, 0, 0, 1 },
			{ "copy", E_NS, 1035, 0, 0, 0, 1 },
			{ "video", E_NS | E_CAP, 1318543, 0, 0, 0, 2 },
			{ "video-enhance", E_NS, 0, 0, 0, 0, 1 },
			{ "compute", E_NS | E_CAP, 8830611, 0, 0, 0, 4 },
		},
		.regions = {
			{ "system0", M_ALL, 4 * MiB, 0, 4 * MiB, 0, 0 },
			{ "local0", M_ALL, 1605636 * KiB, 32 * MiB, 1605636 * KiB, 0, 40964 * KiB },
			{ "stolen-local0", M_ALL, 0, 0, 0, 0, 0 },
		},
		.n_lines = 30, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "xe_bmg.fdinfo",
		.driver = "xe", .pdev = "0000:03:00.0", .has_client_id = 1, .client_id = 57,
		.engines = {
			{ "rcs", E_CYC | E_TOT, 0, 4519828347ull, 95712088571ull, 0, 1 },
			{ "bcs", E_CYC | E_TOT | E_CAP, 0, 88221, 95712088571ull, 0, 8 },
			{ "vcs", E_CYC | E_TOT | E_CAP, 0, 2071500, 95712088571ull, 0, 2 },
			{ "vecs", E_CYC | E_TOT | E_CAP, 0, 0, 95712088571ull, 0, 2 },
			{ "ccs", E_CYC | E_TOT | E_CAP, 0, 730110294, 95712088571ull, 0, 4 },
		},
		.regions = {
			{ "system", M_ALL, 12 * KiB, 0, 12 * KiB, 0, 0 },
			{ "gtt", M_TSAR, 3620 * KiB, 0, 3620 * KiB, 0, 0 },
			{ "vram0", M_TSAR, 1106012 * KiB, 18 * MiB, 1106012 * KiB, 0, 388 * MiB },
			{ "stolen", M_TSAR, 0, 0, 0, 0, 0 },
		},
		.n_lines = 39, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "amdgpu_navi.fdinfo",
		.driver = "amdgpu", .pdev = "0000:0c:00.0", .client_name = "blender render",
		.has_client_id = 1, .client_id = 1734,
		.engines = {
			{ "gfx", E_NS, 70716012347ull, 0, 0, 0, 1 },
			{ "compute", E_NS, 5311990225ull, 0, 0, 0, 1 },
			{ "dma", E_NS, 187205610, 0, 0, 0, 1 },
			{ "dec", E_NS, 92338477, 0, 0, 0, 1 },
			{ "enc", E_NS, 11801, 0, 0, 0, 1 },
			{ "jpeg", E_NS, 4002, 0, 0, 0, 1 },
		},
		.regions = {
			{ "cpu", M_TSAR, 0, 0, 0, 0, 0 },
			{ "gtt", M_TSAR, 130 * MiB, 2 * MiB, 130 * MiB, 0, 0 },
			{ "vram", M_TSAR, 3 * GiB, 8452 * KiB, 3 * GiB, 0, 1210 * MiB },
		},
		.extras = {
			{ "pasid", "32771" },
			{ "amd-memory-visible-vram", "262144 KiB" },
			{ "amd-evicted-vram", "1024 KiB" },
			{ "amd-evicted-visible-vram", "0 KiB" },
			{ "amd-requested-vram", "3145728 KiB" },
			{ "amd-requested-visible-vram", "262144 KiB" },
			{ "amd-requested-gtt", "133120 KiB" },
		},
		.n_lines = 37, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "msm_a660.fdinfo",
		.driver = "msm", .has_client_id = 1, .client_id = 19,
		.engines = {
			{ "gpu", E_NS | E_CYC | E_MF, 92006412876ull, 54038520118ull, 0, 840000000, 1 },
		},
		.regions = {
			{ "memory", M_ALL, 113864 * KiB, 16448 * KiB, 110792 * KiB, 512 * KiB, 4 * MiB },
		},
		.n_lines = 15, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "panfrost_g57.fdinfo",
		.driver = "panfrost", .has_client_id = 1, .client_id = 21,
		.engines = {
			{ "fragment", E_NS | E_CYC | E_MF, 9081127644ull, 7124061193ull, 0, 850000000, 1 },
			{ "vertex-tiler", E_NS | E_CYC | E_MF, 1203305911, 963287541, 0, 850000000, 1 },
		},
		.regions = {
			{ "memory", M_ALL, 77 * MiB, 6144 * KiB, 59244 * KiB, 256 * KiB, 0 },
		},
		.extras = {
			{ "drm-curfreq-fragment", "400000000 Hz" },
			{ "drm-curfreq-vertex-tiler", "400000000 Hz" },
		},
		.n_lines = 20, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "panthor_g610.fdinfo",
		.driver = "panthor", .has_client_id = 1, .client_id = 8,
		.engines = {
			{ "panthor", E_NS | E_CYC | E_MF, 4410877053ull, 4190333200ull, 0, 1000000000, 1 },
		},
		.regions = {
			{ "memory", M_ALL, 40960 * KiB, 0, 38 * MiB, 0, 2048 * KiB },
		},
		.extras = {
			{ "drm-curfreq-panthor", "300000000 Hz" },
		},
		.n_lines = 16, .n_malformed = 1, .first_malformed = 0,
	},
	{
		.file = "v3d_rpi5.fdinfo",
		.driver = "v3d", .has_client_id = 1, .client_id = 203,
		.engines = {
			{ "bin", E_NS, 88213417, 0, 0, 0, 1 },
			{ "render", E_NS, 2901778253ull, 0, 0, 0, 1 },
			{ "tfu", E_NS, 331210, 0, 0, 0, 1 },
			{ "csd", E_NS, 0, 0, 0, 0, 1 },
			{ "cache_clean", E_NS, 0, 0, 0, 0, 1 },
			{ "cpu", E_NS, 1409332, 0, 0, 0, 1 },
		},
		.regions = {
			{ "memory", M_ALL, 25452 * KiB, 9336 * KiB, 25452 * KiB, 0, 4 * KiB },
		},
		.extras = {
			{ "v3d-jobs-bin", "1204 jobs" },
			{ "v3d-jobs-render", "1203 jobs" },
			{ "v3d-jobs-tfu", "17 jobs" },
			{ "v3d-jobs-csd", "0 jobs" },
			{ "v3d-jobs-cache_clean", "0 jobs" },
			{ "v3d-jobs-cpu", "6 jobs" },
		},
		.n_lines = 24, .n_malformed = 1, .first_malformed = 0,
	},
};

#define N_SHARED (sizeof(shared_wants) / sizeof(shared_wants[0]))
#define N_FIXTURES (sizeof(fixture_wants) / sizeof(fixture_wants[0]))

/* ---- helpers -------------------------------------------------------------- */

/* Parse @len bytes from a copy of exactly that size (a sanitizer sees over-reads). */
static int parse_exact(struct pk_fdinfo *fi, const char *text, size_t len)
{
	char *copy = malloc(len ? len : 1);
	int ret;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	ret = pk_fdinfo_parse(fi, copy, len);
	/* results must not point into the input */
	memset(copy, 'X', len);
	free(copy);
	return ret;
}

static int parse_str(struct pk_fdinfo *fi, const char *text)
{
	return parse_exact(fi, text, strlen(text));
}

/* Read a whole file; NULL when it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			char *p = realloc(buf, cap ? cap * 2 : 4096);

			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
			cap = cap ? cap * 2 : 4096;
		}
		got = fread(buf + n, 1, cap - n, f);
		if (got == 0)
			break;
		n += got;
	}
	fclose(f);
	*len = n;
	return buf;
}

static void check_engine(const struct pk_fdinfo *fi, const char *what, const struct want_engine *w)
{
	const struct pk_fdinfo_engine *e = pk_fdinfo_engine(fi, w->name);

	if (!ok(e != NULL, "%s: engine %s present", what, w->name))
		return;
	is_int(e->fields, w->fields, "%s: engine %s fields", what, w->name);
	is_int(e->ns, w->ns, "%s: engine %s ns", what, w->name);
	is_int(e->cycles, w->cycles, "%s: engine %s cycles", what, w->name);
	is_int(e->total_cycles, w->total_cycles, "%s: engine %s total_cycles", what, w->name);
	is_int(e->maxfreq_hz, w->maxfreq_hz, "%s: engine %s maxfreq_hz", what, w->name);
	is_int(e->capacity, w->capacity, "%s: engine %s capacity", what, w->name);
}

static void check_region(const struct pk_fdinfo *fi, const char *what, const struct want_region *w)
{
	const struct pk_fdinfo_region *r = pk_fdinfo_region(fi, w->name);
	const uint64_t want[PK_MEM_KINDS] = {
		[PK_MEM_TOTAL] = w->total,
		[PK_MEM_SHARED] = w->shared,
		[PK_MEM_RESIDENT] = w->resident,
		[PK_MEM_PURGEABLE] = w->purgeable,
		[PK_MEM_ACTIVE] = w->active,
	};
	int k;

	if (!ok(r != NULL, "%s: region %s present", what, w->name))
		return;
	is_int(r->fields, w->fields, "%s: region %s fields", what, w->name);
	for (k = 0; k < PK_MEM_KINDS; k++) {
		/* absent kinds must read 0, never a stale value */
		uint64_t g = r->bytes[k], x = (w->fields & (1u << k)) ? want[k] : 0;

		if (!ok(g == x, "%s: region %s %s bytes", what, w->name,
			pk_gpu_mem_kind_name((enum pk_gpu_mem_kind)k)))
			diag("  got %" PRIu64 ", want %" PRIu64, g, x);
	}
}

/* Everything @fi holds compared with @w. */
static void check_want(const struct pk_fdinfo *fi, int ret, const struct want *w, const char *what)
{
	uint32_t n, i;

	is_int(ret, w->ret, "%s: return value", what);
	if (w->driver) {
		ok(fi->has & PK_FDINFO_DRIVER, "%s: has driver", what);
		is_str(fi->driver, w->driver, "%s: driver", what);
	} else {
		ok(!(fi->has & PK_FDINFO_DRIVER), "%s: no driver", what);
	}
	if (w->pdev) {
		ok(fi->has & PK_FDINFO_PDEV, "%s: has pdev", what);
		is_str(fi->pdev, w->pdev, "%s: pdev", what);
	} else {
		ok(!(fi->has & PK_FDINFO_PDEV), "%s: no pdev", what);
		is_str(fi->pdev, "", "%s: pdev empty", what);
	}
	if (w->client_name) {
		ok(fi->has & PK_FDINFO_CLIENT_NAME, "%s: has client name", what);
		is_str(fi->client_name, w->client_name, "%s: client name", what);
	} else {
		ok(!(fi->has & PK_FDINFO_CLIENT_NAME), "%s: no client name", what);
		is_str(fi->client_name, "", "%s: client name empty", what);
	}
	is_int(!!(fi->has & PK_FDINFO_CLIENT_ID), w->has_client_id, "%s: has client id", what);
	if (!ok(fi->client_id == w->client_id, "%s: client id", what))
		diag("  got %" PRIu64 ", want %" PRIu64, fi->client_id, w->client_id);

	for (n = 0; n < MAXW && w->engines[n].name; n++)
		;
	is_int(fi->n_engines, n, "%s: engine count", what);
	for (i = 0; i < n; i++) {
		if (i < fi->n_engines)
			is_str(fi->engines[i].name, w->engines[i].name, "%s: engine %u in file order",
			       what, i);
		check_engine(fi, what, &w->engines[i]);
	}

	for (n = 0; n < MAXW && w->regions[n].name; n++)
		;
	is_int(fi->n_regions, n, "%s: region count", what);
	for (i = 0; i < n; i++) {
		if (i < fi->n_regions)
			is_str(fi->regions[i].name, w->regions[i].name, "%s: region %u in file order",
			       what, i);
		check_region(fi, what, &w->regions[i]);
	}

	for (n = 0; n < MAXW && w->extras[n].key; n++)
		;
	is_int(fi->n_extras, n, "%s: extra count", what);
	for (i = 0; i < n; i++) {
		if (i < fi->n_extras) {
			is_str(fi->extras[i].key, w->extras[i].key, "%s: extra %u key", what, i);
			is_str(fi->extras[i].value, w->extras[i].value, "%s: extra %u value", what, i);
		}
		is_str(pk_fdinfo_extra(fi, w->extras[i].key), w->extras[i].value, "%s: extra %s",
		       what, w->extras[i].key);
	}
	ok(!pk_fdinfo_extra(fi, "pos") && !pk_fdinfo_extra(fi, "flags") &&
	   !pk_fdinfo_extra(fi, "mnt_id") && !pk_fdinfo_extra(fi, "ino"),
	   "%s: pos, flags, mnt_id, ino are not extras", what);

	is_int(fi->n_lines, w->n_lines, "%s: lines", what);
	is_int(fi->n_malformed, w->n_malformed, "%s: malformed lines", what);
	if (!ok(fi->first_malformed == w->first_malformed, "%s: first malformed offset", what))
		diag("  got %" PRIu64 ", want %" PRIu64, fi->first_malformed, w->first_malformed);
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Parse every file of @wants under @dir twice: into a fresh pk_fdinfo and
 * into @reused, which keeps whatever the previous files left in it.
 */
static void check_files(const char *dir, const struct want *wants, size_t n, struct pk_fdinfo *reused)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char path[4096], what[256];
		struct pk_fdinfo fi;
		size_t len = 0;
		char *text;
		int ret;

		snprintf(path, sizeof(path), "%s/%s", dir, wants[i].file);
		text = slurp(path, &len);
		if (!ok(text != NULL, "%s readable", path))
			continue;
		pk_fdinfo_init(&fi);
		ret = parse_exact(&fi, text, len);
		check_want(&fi, ret, &wants[i], wants[i].file);
		pk_fdinfo_release(&fi);

		ret = parse_exact(reused, text, len);
		snprintf(what, sizeof(what), "%s (reused pk_fdinfo)", wants[i].file);
		check_want(reused, ret, &wants[i], what);
		free(text);
	}
}

/* Every *.fdinfo in @dir has a table entry (a new sample is not left unchecked). */
static void check_all_listed(const char *dir, const struct want *wants, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned seen = 0;

	if (!ok(d != NULL, "%s listable", dir))
		return;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name), i;
		int found = 0;

		if (l < 7 || strcmp(de->d_name + l - 7, ".fdinfo") != 0)
			continue;
		seen++;
		for (i = 0; i < n; i++)
			found |= strcmp(wants[i].file, de->d_name) == 0;
		ok(found, "%s/%s has expected values in this test", dir, de->d_name);
	}
	closedir(d);
	is_int(seen, n, "%s: number of samples", dir);
}

static void test_shared_samples(struct pk_fdinfo *reused)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/data/fdinfo", shared_dir());
	if (!is_dir(dir)) {
		ok(1, "# SKIP shared samples: %s not found", dir);
		return;
	}
	check_all_listed(dir, shared_wants, N_SHARED);
	check_files(dir, shared_wants, N_SHARED, reused);
}

static void test_fixtures(struct pk_fdinfo *reused)
{
	const char *src = getenv("PK_SRCDIR");
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s%stests/fixtures/fdinfo", src ? src : "", src ? "/" : "");
	if (!ok(is_dir(dir), "fixtures found in %s (run from the repository root or set PK_SRCDIR)",
		dir))
		return;
	check_all_listed(dir, fixture_wants, N_FIXTURES);
	check_files(dir, fixture_wants, N_FIXTURES, reused);
}

/* ---- edge cases -------------------------------------------------------------- */

/* The engine @name's one field, or a sentinel when absent. */
#define NONE UINT64_MAX

static uint64_t eng_ns(const struct pk_fdinfo *fi, const char *name)
{
	const struct pk_fdinfo_engine *e = pk_fdinfo_engine(fi, name);

	return e && (e->fields & E_NS) ? e->ns : NONE;
}

static uint64_t eng_maxfreq(const struct pk_fdinfo *fi, const char *name)
{
	const struct pk_fdinfo_engine *e = pk_fdinfo_engine(fi, name);

	return e && (e->fields & E_MF) ? e->maxfreq_hz : NONE;
}

static uint64_t reg_bytes(const struct pk_fdinfo *fi, const char *name, enum pk_gpu_mem_kind k)
{
	const struct pk_fdinfo_region *r = pk_fdinfo_region(fi, name);

	return r && (r->fields & (1u << k)) ? r->bytes[k] : NONE;
}

#define is_u64(got, want, ...) do { \
	uint64_t gu_ = (got), wu_ = (want); \
	if (!tap_result(gu_ == wu_, __FILE__, __LINE__, __VA_ARGS__)) \
		printf("#   got %" PRIu64 ", want %" PRIu64 "\n", gu_, wu_); \
} while (0)

static void test_line_ends(struct pk_fdinfo *fi)
{
	static const char crlf[] =
		"drm-driver: xe\r\ndrm-client-id: 5\r\ndrm-pdev: 0000:03:00.0\r\n"
		"drm-total-vram0: 4 KiB\r\ndrm-engine-capacity-ccs: 4\r\n"
		"drm-cycles-ccs: 77\r\namd-x: a b \r\n";
	int ret;

	ret = parse_str(fi, "drm-driver:\ti915\ndrm-engine-render:\t12 ns");
	is_int(ret, 0, "no trailing newline: parsed");
	is_u64(eng_ns(fi, "render"), 12, "no trailing newline: last line kept");
	is_int(fi->n_lines, 2, "no trailing newline: 2 lines");
	is_int(fi->n_malformed, 0, "no trailing newline: nothing malformed");

	ret = parse_str(fi, "drm-driver:\ti915\ndrm-client-id:\t7");
	is_int(ret, 0, "no trailing newline after a number: parsed");
	is_u64(fi->client_id, 7, "no trailing newline after a number: client id");

	ret = parse_str(fi, crlf);
	is_int(ret, 0, "CRLF: parsed");
	is_str(fi->driver, "xe", "CRLF: driver without CR");
	is_str(fi->pdev, "0000:03:00.0", "CRLF: pdev without CR");
	is_u64(fi->client_id, 5, "CRLF: client id");
	is_u64(reg_bytes(fi, "vram0", PK_MEM_TOTAL), 4096, "CRLF: size with unit before CR");
	ok(pk_fdinfo_engine(fi, "ccs") && pk_fdinfo_engine(fi, "ccs")->capacity == 4, "CRLF: capacity");
	ok(pk_fdinfo_engine(fi, "ccs") && pk_fdinfo_engine(fi, "ccs")->cycles == 77, "CRLF: cycles");
	is_str(pk_fdinfo_extra(fi, "amd-x"), "a b", "CRLF: extra value trimmed of CR and blanks");
	is_int(fi->n_lines, 7, "CRLF: 7 lines");
	is_int(fi->n_malformed, 0, "CRLF: nothing malformed");

	ret = parse_str(fi, "\n\ndrm-driver: x\n\n\n   \n\t\n\r\ndrm-client-id: 1\n\n");
	is_int(ret, 0, "empty lines: parsed");
	is_str(fi->driver, "x", "empty lines: driver");
	is_u64(fi->client_id, 1, "empty lines: client id");
	is_int(fi->n_lines, 2, "empty lines: blank lines are not counted");
	is_int(fi->n_malformed, 0, "empty lines: not malformed");
	ok(fi->first_malformed == PK_NO_OFFSET, "empty lines: no first malformed offset");

	ret = parse_str(fi, "");
	is_int(ret, -ENOENT, "empty text: -ENOENT");
	is_int(fi->n_lines, 0, "empty text: no lines");
	ret = pk_fdinfo_parse(fi, NULL, 0);
	is_int(ret, -ENOENT, "NULL text of length 0: -ENOENT");
}

static void test_whitespace(struct pk_fdinfo *fi)
{
	int ret = parse_str(fi,
			    "drm-driver:amdgpu\n"
			    "drm-engine-a:5 ns\n"
			    "drm-engine-b:\t6 ns\n"
			    "drm-engine-c: \t7 ns\n"
			    "drm-engine-d:  \t \t8ns\n"
			    "drm-engine-e:    9   ns  \t\n"
			    "drm-memory-gtt: \t22528 KiB\n"
			    "amd-evicted-vram: \t 0 KiB \t\n"
			    "drm-client-name:   my app  \n");

	is_int(ret, 0, "whitespace: parsed");
	is_str(fi->driver, "amdgpu", "whitespace: no space after the colon");
	is_u64(eng_ns(fi, "a"), 5, "whitespace: none before the value");
	is_u64(eng_ns(fi, "b"), 6, "whitespace: one TAB (the kernel)");
	is_u64(eng_ns(fi, "c"), 7, "whitespace: space then TAB (amdgpu legacy)");
	is_u64(eng_ns(fi, "d"), 8, "whitespace: mixed blanks, unit without space");
	is_u64(eng_ns(fi, "e"), 9, "whitespace: blanks around the unit");
	is_u64(reg_bytes(fi, "gtt", PK_MEM_RESIDENT), 22528 * KiB, "whitespace: legacy memory line");
	is_str(pk_fdinfo_extra(fi, "amd-evicted-vram"), "0 KiB", "whitespace: extra value trimmed");
	is_str(fi->client_name, "my app", "whitespace: client name trimmed, inner space kept");
	is_int(fi->n_malformed, 0, "whitespace: nothing malformed");
}

static void test_units(struct pk_fdinfo *fi)
{
	static const struct {
		const char *text;
		uint64_t bytes;
	} sizes[] = {
		{ "drm-resident-vram: 1048576\n", 1048576 },
		{ "drm-resident-vram: 1024 KiB\n", 1048576 },
		{ "drm-resident-vram: 1 MiB\n", 1048576 },
		{ "drm-resident-vram: 1 GiB\n", GiB },
		{ "drm-resident-vram: 3 GiB\n", 3 * GiB },
		{ "drm-resident-vram: 0 MiB\n", 0 },
		{ "drm-resident-vram: 18446744073709551615\n", UINT64_MAX },
		{ "drm-resident-vram: 18014398509481983 KiB\n", UINT64_MAX - 1023 },
		{ "drm-resident-vram: 17179869183 GiB\n", 17179869183ull * GiB },
	};
	static const struct {
		const char *text;
		uint64_t hz;
	} freqs[] = {
		{ "drm-maxfreq-gpu: 800000000\n", 800000000 },
		{ "drm-maxfreq-gpu: 800000000 Hz\n", 800000000 },
		{ "drm-maxfreq-gpu: 800000 KHz\n", 800000000 },
		{ "drm-maxfreq-gpu: 800000 kHz\n", 800000000 },
		{ "drm-maxfreq-gpu: 800 MHz\n", 800000000 },
		{ "drm-maxfreq-gpu: 2 GHz\n", 2000000000 },
		{ "drm-maxfreq-gpu:\t799999987 Hz\n", 799999987 },
	};
	size_t i;
	int ret;

	/* one pk_fdinfo across all: the unit of a key may change between reads */
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ret = parse_str(fi, sizes[i].text);
		is_int(ret, -ENOENT, "size '%.*s': no driver", (int)strlen(sizes[i].text) - 1,
		       sizes[i].text);
		is_u64(reg_bytes(fi, "vram", PK_MEM_RESIDENT), sizes[i].bytes, "size '%.*s' in bytes",
		       (int)strlen(sizes[i].text) - 1, sizes[i].text);
		is_int(fi->n_malformed, 0, "size '%.*s' not malformed", (int)strlen(sizes[i].text) - 1,
		       sizes[i].text);
	}
	for (i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++) {
		ret = parse_str(fi, freqs[i].text);
		is_u64(eng_maxfreq(fi, "gpu"), freqs[i].hz, "frequency '%.*s' in Hz",
		       (int)strlen(freqs[i].text) - 1, freqs[i].text);
		is_int(fi->n_malformed, 0, "frequency '%.*s' not malformed",
		       (int)strlen(freqs[i].text) - 1, freqs[i].text);
	}
	(void)ret;

	ret = parse_str(fi, "drm-driver: i915\ndrm-engine-render: 5\ndrm-engine-copy: 6 ns\n");
	is_u64(eng_ns(fi, "render"), 5, "engine time without 'ns'");
	is_int(pk_fdinfo_engine(fi, "render") ? pk_fdinfo_engine(fi, "render")->fields : 0, E_NS,
	       "engine time without 'ns': only the ns field");
	is_u64(eng_ns(fi, "copy"), 6, "engine time with 'ns'");
	is_int(fi->n_malformed, 0, "engine times: nothing malformed");
}

/* Each line alone after a good engine line: malformed, nothing set. */
static void test_bad_numbers(struct pk_fdinfo *fi)
{
	static const char *const bad[] = {
		"drm-engine-render: -5 ns",
		"drm-engine-render: 12x",
		"drm-engine-render: 12 x",
		"drm-engine-render: 12 ms",
		"drm-engine-render: 0x10",
		"drm-engine-render: +5",
		"drm-engine-render: 1.5 ns",
		"drm-engine-render: 18446744073709551616",
		"drm-engine-render: 99999999999999999999999",
		"drm-engine-render:",
		"drm-engine-render:   \t",
		"drm-engine-render: ns",
		"drm-engine-render: 5 ns ns",
		"drm-cycles-render: 5 ns",
		"drm-total-cycles-render: 5 Hz",
		"drm-maxfreq-render: 5 THz",
		"drm-maxfreq-render: 5 KiB",
		"drm-maxfreq-render: 18446744074 GHz",
		"drm-engine-capacity-render: 0",
		"drm-engine-capacity-render: -1",
		"drm-engine-capacity-render: 4294967296",
		"drm-engine-capacity-render: 2 ns",
		"drm-resident-vram: 5 KB",
		"drm-resident-vram: 5 kib",
		"drm-resident-vram: 5 Hz",
		"drm-resident-vram: -1",
		"drm-resident-vram: 18014398509481984 KiB",
		"drm-resident-vram: 17179869184 GiB",
		"drm-resident-vram:",
		"drm-memory-vram: 1x",
		"drm-client-id: -1",
		"drm-client-id: 18446744073709551616",
		"drm-client-id: 3 KiB",
		"drm-client-id:",
	};
	static const char head[] = "drm-driver: i915\ndrm-engine-render: 1 ns\n";
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[256];
		const struct pk_fdinfo_engine *e;
		int ret;

		snprintf(text, sizeof(text), "%s%s\n", head, bad[i]);
		ret = parse_str(fi, text);
		is_int(ret, 0, "bad '%s': parse succeeds", bad[i]);
		is_int(fi->n_malformed, 1, "bad '%s': counted malformed", bad[i]);
		is_u64(fi->first_malformed, sizeof(head) - 1, "bad '%s': offset of its line", bad[i]);
		e = pk_fdinfo_engine(fi, "render");
		ok(e && e->fields == E_NS && e->ns == 1 && e->capacity == 1 && e->cycles == 0 &&
		   e->total_cycles == 0 && e->maxfreq_hz == 0,
		   "bad '%s': engine render unchanged", bad[i]);
		is_int(fi->n_engines, 1, "bad '%s': no engine added", bad[i]);
		is_int(fi->n_regions, 0, "bad '%s': no region added", bad[i]);
		is_int(fi->n_extras, 0, "bad '%s': not an extra", bad[i]);
		ok(!(fi->has & PK_FDINFO_CLIENT_ID) && fi->client_id == 0,
		   "bad '%s': no client id", bad[i]);
	}

	/* a bad value after a good one keeps the good one */
	parse_str(fi, "drm-driver: i915\ndrm-engine-capacity-video: 2\ndrm-engine-capacity-video: 0\n"
		      "drm-resident-vram: 7\ndrm-resident-vram: 7 XiB\ndrm-client-id: 4\n"
		      "drm-client-id: x\n");
	is_int(fi->n_malformed, 3, "bad after good: 3 malformed");
	ok(pk_fdinfo_engine(fi, "video") && pk_fdinfo_engine(fi, "video")->capacity == 2,
	   "bad after good: capacity 0 keeps 2");
	is_u64(reg_bytes(fi, "vram", PK_MEM_RESIDENT), 7, "bad after good: size kept");
	is_u64(fi->client_id, 4, "bad after good: client id kept");

	/* capacity 0 on an engine of its own: capacity stays 1, field not set */
	parse_str(fi, "drm-driver: i915\ndrm-engine-x: 5\ndrm-engine-capacity-x: 0\n");
	is_int(fi->n_malformed, 1, "capacity 0: malformed");
	ok(pk_fdinfo_engine(fi, "x") && pk_fdinfo_engine(fi, "x")->capacity == 1 &&
	   pk_fdinfo_engine(fi, "x")->fields == E_NS, "capacity 0: capacity stays 1, field absent");
	parse_str(fi, "drm-driver: i915\ndrm-engine-capacity-x: 4294967295\n");
	ok(pk_fdinfo_engine(fi, "x") && pk_fdinfo_engine(fi, "x")->capacity == UINT32_MAX,
	   "capacity 2^32-1 accepted");
}

static void test_key_matching(struct pk_fdinfo *fi)
{
	const struct pk_fdinfo_engine *e;
	int ret;

	ret = parse_str(fi,
			"drm-driver: i915\n"
			"drm-engine-capacity-video: 2\n"
			"drm-engine-video: 10 ns\n"
			"drm-engine-video-enhance: 20 ns\n"
			"drm-engine-capacity-video-enhance: 3\n"
			"drm-engine-capacity: 7\n"
			"drm-total-cycles-rcs: 9\n"
			"drm-cycles-rcs: 4\n"
			"drm-total-system0: 1 KiB\n"
			"drm-total-cycles: 5\n"
			"drm-engine-capacity-: 3\n"
			"drm-engine-: 3\n"
			"drm-total-: 3\n"
			"drm-curfreq-video: 300 MHz\n"
			"drm-foo: bar\n"
			"drm-: x\n");
	is_int(ret, 0, "keys: parsed");
	is_int(fi->n_engines, 4, "keys: 4 engines");
	e = pk_fdinfo_engine(fi, "video");
	ok(e && e->fields == (E_NS | E_CAP) && e->ns == 10 && e->capacity == 2,
	   "keys: capacity before time, video ns 10 capacity 2");
	e = pk_fdinfo_engine(fi, "video-enhance");
	ok(e && e->fields == (E_NS | E_CAP) && e->ns == 20 && e->capacity == 3,
	   "keys: video-enhance kept apart from video (ns 20, capacity 3)");
	e = pk_fdinfo_engine(fi, "capacity");
	ok(e && e->fields == E_NS && e->ns == 7 && e->capacity == 1,
	   "keys: drm-engine-capacity: 7 is an engine named capacity");
	e = pk_fdinfo_engine(fi, "rcs");
	ok(e && e->fields == (E_TOT | E_CYC) && e->total_cycles == 9 && e->cycles == 4,
	   "keys: drm-total-cycles-rcs is an engine key");
	ok(!pk_fdinfo_region(fi, "cycles-rcs"), "keys: no region cycles-rcs");
	is_u64(reg_bytes(fi, "system0", PK_MEM_TOTAL), 1024, "keys: drm-total-system0 is a region");
	/* without the dash drm-total-cycles is drm-total-<region> for a region named cycles */
	is_u64(reg_bytes(fi, "cycles", PK_MEM_TOTAL), 5, "keys: drm-total-cycles is region cycles");
	is_int(fi->n_regions, 2, "keys: 2 regions");
	ok(!pk_fdinfo_engine(fi, "") && !pk_fdinfo_region(fi, ""), "keys: no empty names");
	is_int(fi->n_malformed, 3, "keys: empty engine and region names are malformed");
	is_str(pk_fdinfo_extra(fi, "drm-curfreq-video"), "300 MHz", "keys: drm-curfreq-* is an extra");
	is_str(pk_fdinfo_extra(fi, "drm-foo"), "bar", "keys: unknown drm- key is an extra");
	is_str(pk_fdinfo_extra(fi, "drm-"), "x", "keys: bare drm- is an extra");
	is_int(fi->n_extras, 3, "keys: 3 extras");

	/* reversed order: the longer name first */
	parse_str(fi, "drm-driver: i915\ndrm-engine-video-enhance: 1\ndrm-engine-video: 2\n"
		      "drm-engine-capacity-video: 5\n");
	ok(pk_fdinfo_engine(fi, "video-enhance") && pk_fdinfo_engine(fi, "video-enhance")->ns == 1 &&
	   pk_fdinfo_engine(fi, "video-enhance")->capacity == 1,
	   "keys: video-enhance first, its values alone");
	ok(pk_fdinfo_engine(fi, "video") && pk_fdinfo_engine(fi, "video")->ns == 2 &&
	   pk_fdinfo_engine(fi, "video")->capacity == 5, "keys: then video");
	is_str(fi->engines[0].name, "video-enhance", "keys: order of first appearance (0)");
	is_str(fi->engines[1].name, "video", "keys: order of first appearance (1)");
	ok(!pk_fdinfo_engine(fi, "vid") && !pk_fdinfo_engine(fi, "video-"),
	   "keys: lookup matches whole names");
	ok(!pk_fdinfo_region(fi, "video") && !pk_fdinfo_extra(fi, "drm-engine-video"),
	   "keys: lookups of other kinds miss");
}

static void test_names(struct pk_fdinfo *fi)
{
	char n63[64], n64[65], text[1024];
	int ret;

	memset(n63, 'e', 63);
	n63[63] = '\0';
	memset(n64, 'f', 64);
	n64[64] = '\0';

	snprintf(text, sizeof(text),
		 "drm-driver: %s\ndrm-pdev: %s\ndrm-engine-%s: 1\ndrm-engine-%s: 2\n"
		 "drm-cycles-%s: 3\ndrm-resident-%s: 4\ndrm-resident-%s: 5\n",
		 n63, n63, n63, n64, n64, n63, n64);
	ret = parse_str(fi, text);
	is_int(ret, 0, "names: parsed");
	is_str(fi->driver, n63, "names: 63-byte driver kept");
	is_str(fi->pdev, n63, "names: 63-byte pdev kept");
	is_u64(eng_ns(fi, n63), 1, "names: 63-byte engine kept");
	ok(!pk_fdinfo_engine(fi, n64), "names: 64-byte engine rejected");
	is_int(fi->n_engines, 1, "names: one engine");
	is_u64(reg_bytes(fi, n63, PK_MEM_RESIDENT), 4, "names: 63-byte region kept");
	ok(!pk_fdinfo_region(fi, n64), "names: 64-byte region rejected");
	is_int(fi->n_regions, 1, "names: one region");
	is_int(fi->n_malformed, 3, "names: 3 lines with 64-byte names malformed");

	snprintf(text, sizeof(text), "drm-driver: %s\ndrm-pdev: %s\n", n64, n64);
	ret = parse_str(fi, text);
	is_int(ret, -ENOENT, "names: 64-byte driver rejected, no driver");
	ok(!(fi->has & (PK_FDINFO_DRIVER | PK_FDINFO_PDEV)) && !fi->driver[0] && !fi->pdev[0],
	   "names: 64-byte driver and pdev not set");
	is_int(fi->n_malformed, 2, "names: 2 malformed");

	/* client names longer than PK_GPU_CLIENT_NAME_MAX - 1 are cut, not rejected */
	{
		char longname[300];

		memset(longname, 'n', 299);
		longname[299] = '\0';
		snprintf(text, sizeof(text), "drm-driver: x\ndrm-client-name: %s\n", longname);
		parse_str(fi, text);
		is_int(strlen(fi->client_name), PK_GPU_CLIENT_NAME_MAX - 1, "names: long client name cut");
		ok(fi->has & PK_FDINFO_CLIENT_NAME, "names: long client name present");
		is_int(fi->n_malformed, 0, "names: long client name not malformed");
	}
}

static void test_malformed_lines(struct pk_fdinfo *fi)
{
	static const char text[] =
		"drm-driver: i915\n"                 /* 0 */
		"drm engine-render: 5\n"             /* 17 */
		"drm-engine-ren der: 5\n"
		"drm-engine-render : 5\n"
		" drm-engine-render: 5\n"
		"drm-driver i915\n"
		": 5\n"
		"# comment: yes\n"
		"drm-engine-render: 3 ns\n";
	static const char nul[] = "drm-driver: x\n\0\0\0\ndrm-eng\0ine-a: 5\ndrm-engine-b: 5\0 ns\n"
				  "drm-client-id: 9\n";
	int ret;

	ret = parse_str(fi, text);
	is_int(ret, 0, "malformed: parsed");
	is_int(fi->n_lines, 9, "malformed: 9 lines");
	is_int(fi->n_malformed, 7, "malformed: space in keys, no colon, empty key, comment");
	is_u64(fi->first_malformed, 17, "malformed: offset of the first one");
	is_int(fi->n_engines, 1, "malformed: only the good engine");
	is_u64(eng_ns(fi, "render"), 3, "malformed: good engine value");
	is_int(fi->n_extras, 0, "malformed: nothing kept as an extra");

	ret = parse_exact(fi, nul, sizeof(nul) - 1);
	is_int(ret, 0, "NUL bytes: parsed");
	is_str(fi->driver, "x", "NUL bytes: driver");
	is_u64(fi->client_id, 9, "NUL bytes: parsing goes on after them");
	is_int(fi->n_lines, 5, "NUL bytes: 5 lines");
	is_int(fi->n_malformed, 3, "NUL bytes: NUL line, NUL in key, NUL in value malformed");
	is_u64(fi->first_malformed, 14, "NUL bytes: offset of the NUL line");
	is_int(fi->n_engines, 0, "NUL bytes: no engine");

	/*
	 * A NUL inside a string value makes the line malformed, as it does in a
	 * key or a number: a C string cannot hold the value, and cutting it at
	 * the NUL would give an empty driver or pdev on a line that counted as
	 * present, or a value ending in blanks ("trimmed" is the API's promise).
	 */
	{
		static const char v1[] = "drm-driver: i915\namd-x: a \0b\n";
		static const char v2[] = "drm-driver: \0i915\n";
		static const char v3[] = "drm-driver: i915\ndrm-pdev: \0\n";
		static const char v4[] = "drm-driver: i915\ndrm-client-name: ab \0cd\n";

		ret = parse_exact(fi, v1, sizeof(v1) - 1);
		is_int(fi->n_malformed, 1, "NUL in an extra's value: malformed");
		ok(!pk_fdinfo_extra(fi, "amd-x"), "NUL in an extra's value: not kept");
		ret = parse_exact(fi, v2, sizeof(v2) - 1);
		is_int(ret, -ENOENT, "NUL in drm-driver's value: no driver");
		ok(!(fi->has & PK_FDINFO_DRIVER), "NUL in drm-driver's value: driver not set");
		is_int(fi->n_malformed, 1, "NUL in drm-driver's value: malformed");
		ret = parse_exact(fi, v3, sizeof(v3) - 1);
		ok(!(fi->has & PK_FDINFO_PDEV), "NUL in drm-pdev's value: pdev not set");
		is_int(fi->n_malformed, 1, "NUL in drm-pdev's value: malformed");
		ret = parse_exact(fi, v4, sizeof(v4) - 1);
		ok(!(fi->has & PK_FDINFO_CLIENT_NAME), "NUL in drm-client-name's value: name not set");
		is_int(fi->n_malformed, 1, "NUL in drm-client-name's value: malformed");
		(void)ret;
	}
}

static void test_no_driver(struct pk_fdinfo *fi)
{
	int ret = parse_str(fi, "pos:\t0\ndrm-client-id:\t4\ndrm-pdev:\t0000:01:00.0\n"
				"drm-engine-gfx:\t9 ns\ndrm-total-vram:\t2 KiB\namd-x:\ty\n");

	is_int(ret, -ENOENT, "no drm-driver: -ENOENT");
	ok(!(fi->has & PK_FDINFO_DRIVER) && fi->driver[0] == '\0', "no drm-driver: driver empty");
	ok((fi->has & PK_FDINFO_CLIENT_ID) && fi->client_id == 4, "no drm-driver: client id parsed");
	is_str(fi->pdev, "0000:01:00.0", "no drm-driver: pdev parsed");
	is_u64(eng_ns(fi, "gfx"), 9, "no drm-driver: engine parsed");
	is_u64(reg_bytes(fi, "vram", PK_MEM_TOTAL), 2048, "no drm-driver: region parsed");
	is_str(pk_fdinfo_extra(fi, "amd-x"), "y", "no drm-driver: extras usable");
	is_int(fi->n_malformed, 0, "no drm-driver: nothing malformed");
}

static void test_duplicates(struct pk_fdinfo *fi)
{
	int ret = parse_str(fi,
			    "drm-driver: i915\ndrm-driver: xe\n"
			    "drm-client-id: 1\ndrm-client-id: 2\n"
			    "drm-pdev: 0000:00:02.0\ndrm-pdev: 0000:03:00.0\n"
			    "drm-client-name: a\ndrm-client-name: b\n"
			    "drm-engine-render: 5\ndrm-engine-render: 9 ns\n"
			    "drm-engine-capacity-render: 2\ndrm-engine-capacity-render: 3\n"
			    "drm-cycles-render: 1\ndrm-cycles-render: 2\n"
			    "drm-total-vram: 1 KiB\ndrm-total-vram: 1 MiB\n"
			    "amd-x: 1\namd-y: 0\namd-x: 2\n");

	is_int(ret, 0, "duplicates: parsed");
	is_str(fi->driver, "xe", "duplicates: last driver");
	is_u64(fi->client_id, 2, "duplicates: last client id");
	is_str(fi->pdev, "0000:03:00.0", "duplicates: last pdev");
	is_str(fi->client_name, "b", "duplicates: last client name");
	is_u64(eng_ns(fi, "render"), 9, "duplicates: last engine time");
	ok(pk_fdinfo_engine(fi, "render") && pk_fdinfo_engine(fi, "render")->capacity == 3 &&
	   pk_fdinfo_engine(fi, "render")->cycles == 2, "duplicates: last capacity and cycles");
	is_int(fi->n_engines, 1, "duplicates: one engine");
	is_u64(reg_bytes(fi, "vram", PK_MEM_TOTAL), MiB, "duplicates: last size");
	is_int(fi->n_regions, 1, "duplicates: one region");
	is_int(fi->n_extras, 2, "duplicates: one extra per key");
	is_str(pk_fdinfo_extra(fi, "amd-x"), "2", "duplicates: last extra value");
	is_str(fi->n_extras ? fi->extras[0].key : NULL, "amd-x", "duplicates: extra keeps its place");
	is_int(fi->n_malformed, 0, "duplicates: not malformed");

	/* drm-memory-<r> (amdgpu legacy) against drm-resident-<r> */
	parse_str(fi, "drm-resident-vram: 100\ndrm-memory-vram: 200\n");
	is_u64(reg_bytes(fi, "vram", PK_MEM_RESIDENT), 100, "legacy after resident: resident wins");
	parse_str(fi, "drm-memory-vram: 200\ndrm-resident-vram: 100\n");
	is_u64(reg_bytes(fi, "vram", PK_MEM_RESIDENT), 100, "legacy before resident: resident wins");
	parse_str(fi, "drm-memory-vram: 200\ndrm-resident-vram: 100\ndrm-memory-vram: 300\n");
	is_u64(reg_bytes(fi, "vram", PK_MEM_RESIDENT), 100, "legacy on both sides: resident wins");
	parse_str(fi, "drm-memory-vram: 200 KiB\ndrm-memory-vram: 300 KiB\n");
	is_u64(reg_bytes(fi, "vram", PK_MEM_RESIDENT), 300 * KiB, "legacy alone: last legacy value");
	ok(pk_fdinfo_region(fi, "vram") && pk_fdinfo_region(fi, "vram")->fields == M_R,
	   "legacy alone: only the resident field (no private bits)");
	parse_str(fi, "drm-resident-vram: 1\ndrm-resident-vram: 2\ndrm-memory-vram: 3\n");
	is_u64(reg_bytes(fi, "vram", PK_MEM_RESIDENT), 2, "resident twice then legacy: last resident");
	parse_str(fi, "drm-resident-vram: x\ndrm-memory-vram: 3\n");
	is_u64(reg_bytes(fi, "vram", PK_MEM_RESIDENT), 3, "bad resident then legacy: legacy");
}

/* More than 4 KiB of text, 100 engines and 100 regions (IGT stops at 16 each). */
static void test_many(struct pk_fdinfo *fi)
{
	size_t cap = 64 * 1024, len = 0;
	char *text = malloc(cap);
	int i, ret;

	if (!ok(text != NULL, "many: buffer"))
		return;
	len += (size_t)snprintf(text + len, cap - len, "drm-driver:\tbig\ndrm-client-id:\t77\n");
	for (i = 0; i < 100; i++) {
		len += (size_t)snprintf(text + len, cap - len,
					"drm-engine-engine%03d:\t%d ns\n"
					"drm-cycles-engine%03d:\t%d\n"
					"drm-engine-capacity-engine%03d:\t%d\n",
					i, 1000 + i, i, 2000 + i, i, 1 + i % 7);
	}
	for (i = 0; i < 100; i++) {
		len += (size_t)snprintf(text + len, cap - len,
					"drm-total-region%03d:\t%d KiB\n"
					"drm-resident-region%03d:\t%d MiB\n"
					"amd-key%03d:\tvalue %d\n",
					i, 10 + i, i, 20 + i, i, i);
	}
	ok(len > 4096, "many: text of %zu bytes, more than 4 KiB", len);
	ret = parse_exact(fi, text, len);
	is_int(ret, 0, "many: parsed");
	is_int(fi->n_engines, 100, "many: 100 engines");
	is_int(fi->n_regions, 100, "many: 100 regions");
	is_int(fi->n_extras, 100, "many: 100 extras");
	is_int(fi->n_lines, 2 + 600, "many: 602 lines");
	is_int(fi->n_malformed, 0, "many: nothing malformed");
	if (fi->n_engines == 100 && fi->n_regions == 100 && fi->n_extras == 100) {
		const struct pk_fdinfo_engine *e = &fi->engines[99];
		const struct pk_fdinfo_region *r = &fi->regions[99];

		is_str(e->name, "engine099", "many: last engine name");
		ok(e->ns == 1099 && e->cycles == 2099 && e->capacity == 1 + 99 % 7 &&
		   e->fields == (E_NS | E_CYC | E_CAP), "many: last engine values");
		ok(pk_fdinfo_engine(fi, "engine099") == e, "many: lookup of the last engine");
		ok(pk_fdinfo_engine(fi, "engine050") && pk_fdinfo_engine(fi, "engine050")->ns == 1050,
		   "many: lookup of a middle engine");
		is_str(r->name, "region099", "many: last region name");
		ok(r->bytes[PK_MEM_TOTAL] == 109 * KiB && r->bytes[PK_MEM_RESIDENT] == 119 * MiB &&
		   r->fields == (M_T | M_R), "many: last region values");
		ok(pk_fdinfo_region(fi, "region099") == r, "many: lookup of the last region");
		is_str(pk_fdinfo_extra(fi, "amd-key099"), "value 99", "many: last extra");
		is_str(pk_fdinfo_extra(fi, "amd-key000"), "value 0", "many: first extra");
	}
	free(text);
}

/*
 * A hostile file of 40,000 distinct keys of each kind: 256 of each are kept
 * and the rest counted malformed (the lookups stay bounded, the parse linear).
 */
static void test_too_many(struct pk_fdinfo *fi)
{
	size_t cap = 4u << 20, len = 0;
	char *text = malloc(cap);
	int i;

	if (!ok(text != NULL, "too many: buffer"))
		return;
	len += (size_t)snprintf(text + len, cap - len, "drm-driver:\thostile\n");
	for (i = 0; i < 40000; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"drm-engine-e%d:\t1\ndrm-total-r%d:\t1\nk%d:\tv\n", i, i, i);
	is_int(parse_exact(fi, text, len), 0, "too many: parsed");
	is_int(fi->n_engines, 256, "too many: 256 engines kept");
	is_int(fi->n_regions, 256, "too many: 256 regions kept");
	is_int(fi->n_extras, 256, "too many: 256 extras kept");
	is_int(fi->n_malformed, 3 * (40000 - 256), "too many: the rest malformed");
	is_str(fi->engines[255].name, "e255", "too many: the first 256 are the ones kept");
	free(text);
}

/* One pk_fdinfo through several parses: nothing from an earlier parse remains. */
static void test_reuse(struct pk_fdinfo *fi)
{
	const struct pk_fdinfo_engine *e;
	const struct pk_fdinfo_region *r;
	int ret;

	ret = parse_str(fi, "drm-driver: amdgpu\ndrm-pdev: 0000:0c:00.0\ndrm-client-id: 5\n"
			    "drm-client-name: first\nbad line\n"
			    "drm-engine-gfx: 100 ns\ndrm-engine-capacity-gfx: 3\ndrm-cycles-gfx: 7\n"
			    "drm-maxfreq-gfx: 1 GHz\ndrm-total-cycles-gfx: 8\n"
			    "drm-total-vram: 1 KiB\ndrm-shared-vram: 2 KiB\ndrm-resident-vram: 3 KiB\n"
			    "drm-purgeable-vram: 4 KiB\ndrm-active-vram: 5 KiB\n"
			    "amd-a: a long value to grow the store a bit more than the rest\n"
			    "amd-b: 1\n");
	is_int(ret, 0, "reuse 1: parsed");
	is_int(fi->n_malformed, 1, "reuse 1: one malformed");

	ret = parse_str(fi, "drm-driver: v3d\ndrm-engine-gfx: 1\ndrm-memory-vram: 9\namd-b: 2\n");
	is_int(ret, 0, "reuse 2: parsed");
	is_int(fi->has, PK_FDINFO_DRIVER, "reuse 2: only the driver is present");
	is_str(fi->driver, "v3d", "reuse 2: driver");
	is_str(fi->pdev, "", "reuse 2: pdev cleared");
	is_str(fi->client_name, "", "reuse 2: client name cleared");
	is_u64(fi->client_id, 0, "reuse 2: client id cleared");
	is_int(fi->n_engines, 1, "reuse 2: one engine");
	e = pk_fdinfo_engine(fi, "gfx");
	ok(e && e->fields == E_NS && e->ns == 1 && e->capacity == 1 && e->cycles == 0 &&
	   e->total_cycles == 0 && e->maxfreq_hz == 0, "reuse 2: engine has no stale fields");
	r = pk_fdinfo_region(fi, "vram");
	ok(r && r->fields == M_R && r->bytes[PK_MEM_RESIDENT] == 9 && r->bytes[PK_MEM_TOTAL] == 0 &&
	   r->bytes[PK_MEM_SHARED] == 0 && r->bytes[PK_MEM_PURGEABLE] == 0 &&
	   r->bytes[PK_MEM_ACTIVE] == 0, "reuse 2: legacy resident fills a fresh region");
	is_int(fi->n_extras, 1, "reuse 2: one extra");
	ok(!pk_fdinfo_extra(fi, "amd-a"), "reuse 2: old extra gone");
	is_str(pk_fdinfo_extra(fi, "amd-b"), "2", "reuse 2: extra value of this parse");
	is_int(fi->n_lines, 4, "reuse 2: line count reset");
	is_int(fi->n_malformed, 0, "reuse 2: malformed count reset");
	ok(fi->first_malformed == PK_NO_OFFSET, "reuse 2: first malformed offset reset");

	ret = parse_str(fi, "pos: 0\n");
	is_int(ret, -ENOENT, "reuse 3: no driver now");
	ok(fi->has == 0 && fi->driver[0] == '\0', "reuse 3: driver cleared");
	ok(fi->n_engines == 0 && fi->n_regions == 0 && fi->n_extras == 0, "reuse 3: all lists empty");
	ok(!pk_fdinfo_engine(fi, "gfx") && !pk_fdinfo_region(fi, "vram") && !pk_fdinfo_extra(fi, "amd-b"),
	   "reuse 3: lookups miss");
}

static void test_misc(void)
{
	struct pk_fdinfo fi;

	is_str(pk_gpu_mem_kind_name(PK_MEM_TOTAL), "total", "kind name total");
	is_str(pk_gpu_mem_kind_name(PK_MEM_SHARED), "shared", "kind name shared");
	is_str(pk_gpu_mem_kind_name(PK_MEM_RESIDENT), "resident", "kind name resident");
	is_str(pk_gpu_mem_kind_name(PK_MEM_PURGEABLE), "purgeable", "kind name purgeable");
	is_str(pk_gpu_mem_kind_name(PK_MEM_ACTIVE), "active", "kind name active");

	pk_fdinfo_init(&fi);
	ok(fi.n_engines == 0 && fi.n_regions == 0 && fi.n_extras == 0 && fi.has == 0 &&
	   fi.first_malformed == PK_NO_OFFSET, "init: empty");
	ok(!pk_fdinfo_engine(&fi, "x") && !pk_fdinfo_region(&fi, "x") && !pk_fdinfo_extra(&fi, "x"),
	   "init: lookups miss");
	pk_fdinfo_release(&fi);
	pk_fdinfo_release(&fi);
	ok(fi.engines == NULL && fi.store == NULL, "release twice is harmless");
}

int main(void)
{
	struct pk_fdinfo reused, fi;

	pk_fdinfo_init(&reused);
	pk_fdinfo_init(&fi);

	test_misc();
	test_line_ends(&fi);
	test_whitespace(&fi);
	test_units(&fi);
	test_bad_numbers(&fi);
	test_key_matching(&fi);
	test_names(&fi);
	test_malformed_lines(&fi);
	test_no_driver(&fi);
	test_duplicates(&fi);
	test_many(&fi);
	test_too_many(&fi);
	test_reuse(&fi);

	/* the reused pk_fdinfo starts with what the edge cases left in it */
	test_many(&reused);
	test_shared_samples(&reused);
	test_fixtures(&reused);

	pk_fdinfo_release(&fi);
	pk_fdinfo_release(&reused);
	return done_testing();
}
