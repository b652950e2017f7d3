/*
 * Unit tests for lib/symbols/perf_tree.c: where a DSO's symbols overlap,
 * the symbol an address resolves to is the one perf 6.1's red-black tree
 * finds first. The oracle is perf script on files written here:
 *
 * - ELF programs built here from generated assembly (drawn by seed): 400
 *   symbols in 16 KB of code, sized, zero-sized (stretched to the next
 *   symbol), nested, overlapping, aliases at one address (some erased as
 *   duplicates, as perf's tree erases them), text labels, and a PLT under
 *   the zero-sized _init; PIE and not. Samples every 3 bytes of the file,
 *   data labels included.
 * - A JIT map (/tmp/perf-PID.map) of overlapping and repeated entries,
 *   which perf leaves unsorted and unfixed.
 *
 * perf script and perfkit script must print the same "ip sym+off (dso)"
 * lines. A replay check builds trees from histories drawn here and checks
 * that they are search trees over the table, of red-black height.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfkit/perfdata.h>
#include "../tap.h"
#include "perfdata_write.h"
#include "fixture_files.h"
#include "symbols/internal.h"

#define NR_ASM_SYMS 400
#define CODE_BYTES 16384
#define NR_JIT 300
#define MAP_BASE 0x7f0000000000ull
#define PID 4242

static char dir[] = "/tmp/pk-overlap-XXXXXX";
static const char *perfkit;

static uint64_t rng;

static uint64_t draw(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Assembly for seed @seed: main (which calls through the PLT), then the drawn symbols in its code. */
static int write_asm(const char *path, unsigned seed)
{
	static const unsigned sizes[] = { 0, 0, 1, 8, 16, 64, 256, 1024 };
	static const char *const binds[] = { "globl", "globl", "weak", "local", "label" };
	unsigned offs[NR_ASM_SYMS];
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	rng = 0x9e3779b97f4a7c15ull * seed;
	fprintf(f, ".text\n.globl main\n.type main,@function\nmain:\n xor %%eax,%%eax\n ret\n"
		   " call strlen@PLT\n call memset@PLT\n call qsort@PLT\n.size main, .-main\n"
		   ".Lb:\n .skip %d, 0x90\n", CODE_BYTES);
	for (unsigned i = 0; i < NR_ASM_SYMS; i++) {
		unsigned size = draw() % 9, under = draw() % 5;
		const char *bind = binds[draw() % 5];
		char name[64];

		offs[i] = i && draw() % 10 < 3 ? offs[draw() % i] : (unsigned)(draw() % (CODE_BYTES - 16));
		size = size < 8 ? sizes[size] : 1 + (unsigned)(draw() % 4096);
		snprintf(name, sizeof(name), "%.*ss%u%.*s", under > 2 ? (int)under - 2 : 0, "__", i,
			 (int)(draw() % 4), "xxx");
		if (!strcmp(bind, "label")) {
			/* no type: a text label, global */
			fprintf(f, ".globl %s\n.set %s, .Lb + %u\n", name, name, offs[i]);
			continue;
		}
		if (strcmp(bind, "local"))
			fprintf(f, ".%s %s\n", bind, name);
		fprintf(f, ".type %s,@function\n.set %s, .Lb + %u\n", name, name, offs[i]);
		if (size)
			fprintf(f, ".size %s, %u\n", name, size);
	}
	return fclose(f);
}

/*
 * A perf.data file: @path_mapped mapped whole at MAP_BASE for PID (file
 * offset 0, @len bytes), and one sample every 3 bytes of it.
 */
static int write_samples(const char *out, const char *path_mapped, uint64_t len)
{
	static const uint64_t ids[] = { 1 };
	struct perf_event_attr attr;
	struct pk_writer_evsel ev = { .attr = &attr, .name = "cpu-clock", .ids = ids, .nr_ids = 1 };
	size_t n = 0, max = 2 + (size_t)len / 3 + 1;
	uint64_t (*recs)[64] = calloc(max, sizeof(*recs));
	size_t *lens = calloc(max, sizeof(*lens));
	int err;

	if (!recs || !lens) {
		free(recs);
		free(lens);
		return -1;
	}
	cpu_clock_attr(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD);
	lens[n] = comm_record(recs[n], PID, "overlap");
	n++;
	lens[n] = mmap_record(recs[n], PID, PID, MAP_BASE, len, 0, path_mapped);
	n++;
	for (uint64_t off = 0; off < len && n < max; off += 3, n++) {
		struct perf_event_header *h = (struct perf_event_header *)recs[n];

		recs[n][1] = MAP_BASE + off;
		recs[n][2] = (uint64_t)PID << 32 | PID;
		recs[n][3] = 1000 * n;
		recs[n][4] = 1;
		h->type = PERF_RECORD_SAMPLE;
		h->misc = PERF_RECORD_MISC_USER;
		h->size = 40;
		lens[n] = 40;
	}
	err = write_perfdata(out, &ev, 1, recs, lens, n);
	free(recs);
	free(lens);
	return err;
}

/* Everything @cmd prints; NULL if it could not run. */
static char *output_of(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *out = NULL;
	size_t len = 0, cap = 0, got;

	if (!p)
		return NULL;
	do {
		if (cap - len < 65536) {
			char *grown = realloc(out, cap + 262144);

			if (!grown)
				break;
			out = grown;
			cap += 262144;
		}
		got = fread(out + len, 1, cap - len - 1, p);
		len += got;
	} while (got);
	if (out)
		out[len] = '\0';
	pclose(p);
	return out;
}

/* perf script and perfkit script print the same lines for @file; @what names the case. */
static void same_script(const char *file, const char *what, const char *must_show)
{
	char cmd[1024], *perf_out, *pk_out;
	size_t lines = 0;

	snprintf(cmd, sizeof(cmd), "perf script -F ip,sym,symoff,dso -i '%s' 2>/dev/null", file);
	perf_out = output_of(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' script -F ip,sym,symoff,dso -i '%s' 2>/dev/null", perfkit, file);
	pk_out = output_of(cmd);
	for (const char *p = perf_out; p && *p; p++)
		lines += *p == '\n';
	ok(lines > 1000 && strstr(perf_out, must_show) != NULL,
	   "%s: perf resolved %zu samples, among them \"%s\"", what, lines, must_show);
	if (!perf_out || !pk_out) {
		ok(0, "%s: both tools ran", what);
	} else if (!ok(!strcmp(perf_out, pk_out), "%s: every sample resolves as perf script resolves it",
		       what))
		diag_first_difference("perf   ", perf_out, "perfkit", pk_out);
	free(perf_out);
	free(pk_out);
}

static void test_elf(unsigned seed, int pie)
{
	char src[256], bin[256], data[256], cmd[1024], what[64];
	struct stat st;

	snprintf(src, sizeof(src), "%s/ov%u.s", dir, seed);
	snprintf(bin, sizeof(bin), "%s/ov%u", dir, seed);
	snprintf(data, sizeof(data), "%s/ov%u.data", dir, seed);
	snprintf(what, sizeof(what), "seed %u (%s)", seed, pie ? "PIE" : "no PIE");
	snprintf(cmd, sizeof(cmd), "cc %s -o '%s' '%s' 2>/dev/null", pie ? "-pie" : "-no-pie", bin, src);
	if (write_asm(src, seed) || system(cmd) != 0 || stat(bin, &st)) {
		ok(0, "%s: program built", what);
		return;
	}
	if (write_samples(data, bin, (uint64_t)st.st_size)) {
		ok(0, "%s: perf.data written", what);
		return;
	}
	/*
	 * The PLT's first entry (0x1030) lies in _init's stretched end, and
	 * perf's tree finds _init first: where the innermost symbol is not
	 * perf's answer.
	 */
	same_script(data, what, "1032 _init+0x32 (");
}

/* A JIT map of @NR_JIT entries, a quarter of them at an earlier entry's address; sizes unfixed. */
static void test_jit_map(void)
{
	static const unsigned sizes[] = { 0, 1, 16, 64, 256, 1024 };
	char map[64], data[256];
	uint64_t addrs[NR_JIT];
	FILE *f;

	snprintf(map, sizeof(map), "/tmp/perf-%d.map", PID);
	if (!access(map, F_OK)) {
		ok(1, "# SKIP %s exists (not this test's)", map);
		return;
	}
	f = fopen(map, "w");
	if (!f) {
		ok(0, "%s written", map);
		return;
	}
	rng = 0x2545f4914f6cdd1dull;
	for (unsigned i = 0; i < NR_JIT; i++) {
		unsigned size = (unsigned)(draw() % 7);

		addrs[i] = i && draw() % 4 == 0 ? addrs[draw() % i] : MAP_BASE + draw() % CODE_BYTES;
		fprintf(f, "%llx %x jit_%u\n", (unsigned long long)addrs[i],
			size < 6 ? sizes[size] : 1 + (unsigned)(draw() % 3000), i);
	}
	fclose(f);
	snprintf(data, sizeof(data), "%s/jit.data", dir);
	if (write_samples(data, "//anon", CODE_BYTES + 64))
		ok(0, "JIT map: perf.data written");
	else
		same_script(data, "JIT map", "jit_");   /* where perf's walk misses a holding entry: [unknown] */
	unlink(map);
}

/* Height of the subtree at @n (0: none); -1 where an index repeats or the order breaks. */
static int tree_height(const uint32_t *tree, const struct sym_raw *v, size_t nr, uint32_t n,
		       uint64_t lo, uint64_t hi, unsigned char *seen)
{
	int l, r;

	if (n == UINT32_MAX)
		return 0;
	if (n >= nr || seen[n] || v[n].start < lo || v[n].start > hi)
		return -1;
	seen[n] = 1;
	l = tree_height(tree, v, nr, tree[2 * n], lo, v[n].start, seen);
	r = tree_height(tree, v, nr, tree[2 * n + 1], v[n].start, hi, seen);
	return l < 0 || r < 0 ? -1 : 1 + (l > r ? l : r);
}

/*
 * Histories drawn here (adds with repeated starts, duplicates erased the
 * way sym_fixup_duplicate erases them, more adds after): the tree holds
 * every symbol of the table once, in search order, at most 2 log2(n + 1)
 * high as a red-black tree is.
 */
static void test_replay_shape(void)
{
	int good = 1;

	for (unsigned round = 1; round <= 40 && good; round++) {
		struct sym_rawvec rv = { 0 };
		size_t n0 = 50 * round, nr, size;
		uint32_t *tree, root;
		unsigned char *seen;
		int h, bound = 0;

		rng = 0xda942042e4dd58b5ull * round;
		for (size_t i = 0; i < n0; i++)
			sym_rawvec_push(&rv, draw() % (n0 * 2), draw() % 3 ? 0 : 8, "s", STB_GLOBAL, STT_FUNC);
		sym_rawvec_sort(&rv);
		sym_fixup_end(&rv, 0);
		sym_fixup_duplicate(&rv);
		for (size_t i = 0; i < n0 / 4; i++)
			sym_rawvec_push(&rv, draw() % (n0 * 2), 16, "t", STB_GLOBAL, STT_FUNC);
		sym_rawvec_sort(&rv);
		nr = rv.n;
		size = sym_tree_size(&rv);
		tree = malloc((size ? size : 1) * sizeof(*tree));
		seen = calloc(nr, 1);
		if (!size || !tree || !seen || sym_tree_build(&rv, tree, &root)) {
			good = ok(0, "replay round %u: overlapping table, tree built", round);
		} else {
			h = tree_height(tree, rv.v, nr, root, 0, UINT64_MAX, seen);
			while ((1ull << bound) < nr + 1)
				bound++;
			good = memchr(seen, 0, nr) == NULL && h > 0 && h <= 2 * bound;
			if (!good)
				diag("round %u: %zu symbols, %zu erased, height %d (bound %d), all held: %s",
				     round, nr, rv.nr_erased, h, 2 * bound, memchr(seen, 0, nr) ? "no" : "yes");
		}
		free(tree);
		free(seen);
		sym_rawvec_release(&rv);
	}
	ok(good, "40 replayed histories: each symbol once, in search order, red-black height");
}

int main(void)
{
	test_replay_shape();
	perfkit = getenv("PERFKIT") ? getenv("PERFKIT") : "build/perfkit";
	if (system("perf version >/dev/null 2>&1") != 0 || system("cc --version >/dev/null 2>&1") != 0 ||
	    access(perfkit, X_OK)) {
		ok(1, "# SKIP the oracle needs Linux perf, cc and the perfkit command");
		return done_testing();
	}
	if (!mkdtemp(dir)) {
		ok(0, "temporary directory");
		return done_testing();
	}
	test_elf(1, 0);
	test_elf(2, 1);
	test_elf(3, 0);
	test_elf(4, 1);
	test_jit_map();
	rm_tree(dir);
	return done_testing();
}
