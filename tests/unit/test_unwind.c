/*
 * Tests of the unwind module: perf's register layout to DWARF numbers, and
 * unwinding a real user stack. The oracle for the walk is this program
 * itself: level3() captures its registers and stack exactly as the kernel
 * does for PERF_SAMPLE_REGS_USER / STACK_USER (x86_64 perf register order),
 * and each level records __builtin_return_address(0), so the expected
 * frames are [captured ip, ret3 - 1, ret2 - 1, ret1 - 1, ...]. The maps come
 * from /proc/self/maps. Corrupt stacks (random words, loops, missing
 * registers, huge limits) must end quickly with at most the frame limit.
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perfkit/unwind.h>
#include "../tap.h"

/* ---- /proc/self/maps as the find_map callback ------------------------------- */

struct tmap {
	uint64_t start, end, pgoff;
	char path[256];
};
static struct tmap maps[512];
static int nr_maps;
static int find_calls;

static void load_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	nr_maps = 0;
	while (f && fgets(line, sizeof(line), f) && nr_maps < 512) {
		struct tmap *m = &maps[nr_maps];
		unsigned long long s, e, off;
		char perms[8], path[256] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %255s", &s, &e, perms, &off, path) < 4)
			continue;
		m->start = s;
		m->end = e;
		m->pgoff = off;
		snprintf(m->path, sizeof(m->path), "%s", path);
		nr_maps++;
	}
	if (f)
		fclose(f);
}

static int find_map(void *ctx, uint64_t addr, struct pk_unwind_map *out)
{
	(void)ctx;
	find_calls++;
	for (int i = 0; i < nr_maps; i++) {
		if (addr >= maps[i].start && addr < maps[i].end) {
			out->start = maps[i].start;
			out->end = maps[i].end;
			out->pgoff = maps[i].pgoff;
			out->path = maps[i].path;
			return 1;
		}
	}
	return 0;
}

/* every mapping claims to be a file that does not exist */
static int find_map_missing(void *ctx, uint64_t addr, struct pk_unwind_map *out)
{
	int r = find_map(ctx, addr, out);

	if (r)
		out->path = "/nonexistent/perfkit-unwind-test.so";
	return r;
}

/* ---- register mapping ------------------------------------------------------------- */

static void test_regs(void)
{
	uint64_t regs[33], dwarf[32], have, pc, sp;
	uint64_t packed[20];
	int n = 0;

	for (int i = 0; i < 33; i++)
		regs[i] = 1000 + i;
	/* x86_64 with perf's default dwarf mask 0xff0fff: AX..SS and R8..R15 */
	for (int bit = 0; bit < 24; bit++)
		if ((0xff0fffull >> bit) & 1)
			packed[n++] = 1000 + bit;
	is_int(n, 20, "x86_64 mask 0xff0fff has 20 registers");
	is_int(pk_unwind_dwarf_regs(EM_X86_64, 0xff0fff, packed, dwarf, 32, &have, &pc, &sp), 0,
	       "x86_64: registers mapped");
	ok(dwarf[0] == 1000 && dwarf[1] == 1003 && dwarf[2] == 1002 && dwarf[3] == 1001,
	   "x86_64: rax rdx rcx rbx are perf AX DX CX BX");
	ok(dwarf[4] == 1004 && dwarf[5] == 1005 && dwarf[6] == 1006 && dwarf[7] == 1007,
	   "x86_64: rsi rdi rbp rsp are perf SI DI BP SP");
	ok(dwarf[8] == 1016 && dwarf[15] == 1023, "x86_64: r8..r15 are perf bits 16..23");
	ok(dwarf[16] == 1008 && pc == 1008 && sp == 1007, "x86_64: rip is DWARF 16, IP and SP found");
	is_int((long long)have, 0x1ffff, "x86_64: all 17 DWARF registers present");
	is_int(pk_unwind_dwarf_regs(EM_X86_64, 0xff0eff, packed, dwarf, 32, &have, &pc, &sp),
	       -ENOENT, "x86_64: no IP in the mask");
	/* aarch64 with 33 registers */
	is_int(pk_unwind_dwarf_regs(EM_AARCH64, 0x1ffffffffull, regs, dwarf, 32, &have, &pc, &sp), 0,
	       "aarch64: registers mapped");
	ok(dwarf[0] == 1000 && dwarf[30] == 1030 && dwarf[31] == 1031 && pc == 1032 && sp == 1031,
	   "aarch64: x0..x30, sp 31, pc from perf bit 32");
	is_int(pk_unwind_dwarf_regs(EM_386, 0xff, regs, dwarf, 32, &have, &pc, &sp), -EOPNOTSUPP,
	       "i386: not supported");
	is_int(pk_unwind_machine("x86_64"), EM_X86_64, "arch x86_64");
	is_int(pk_unwind_machine("arm64"), EM_AARCH64, "arch arm64");
	is_int(pk_unwind_machine("aarch64"), EM_AARCH64, "arch aarch64");
	is_int(pk_unwind_machine("ppc64le"), 0, "arch ppc64le unknown");
	is_int(pk_unwind_machine(NULL), 0, "arch NULL unknown");
}

#if defined(__x86_64__)

/* ---- a captured sample of this process --------------------------------------------- */

#define STACK_MAX (64 * 1024)

struct capture {
	uint64_t regs[24];           /* perf order, mask 0xffffff */
	unsigned char stack[STACK_MAX];
	uint64_t stack_size;
	uint64_t ret[4];             /* return addresses of level3, level2, level1 */
};

static struct capture cap;
static uintptr_t stack_top;     /* an address in main's frame: the copy stops there */
static volatile int sink;

/* copy raw stack bytes (redzones included under ASan, as the kernel would) */
__attribute__((no_sanitize_address, noinline)) static void copy_stack(unsigned char *dst,
								   uintptr_t src, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		dst[i] = ((const volatile unsigned char *)src)[i];
}

__attribute__((noinline)) static void level3(void)
{
	uint64_t *r = cap.regs;
	uint64_t sp, n;

	__asm__ volatile(
		"movq %%rax, 0(%0)\n\t"
		"movq %%rbx, 8(%0)\n\t"
		"movq %%rcx, 16(%0)\n\t"
		"movq %%rdx, 24(%0)\n\t"
		"movq %%rsi, 32(%0)\n\t"
		"movq %%rdi, 40(%0)\n\t"
		"movq %%rbp, 48(%0)\n\t"
		"movq %%rsp, 56(%0)\n\t"
		"movq %%r8, 128(%0)\n\t"
		"movq %%r9, 136(%0)\n\t"
		"movq %%r10, 144(%0)\n\t"
		"movq %%r11, 152(%0)\n\t"
		"movq %%r12, 160(%0)\n\t"
		"movq %%r13, 168(%0)\n\t"
		"movq %%r14, 176(%0)\n\t"
		"movq %%r15, 184(%0)\n\t"
		"leaq 0(%%rip), %%r11\n\t"
		"movq %%r11, 64(%0)\n\t"
		: : "r"(r) : "r11", "memory");
	cap.ret[0] = (uint64_t)__builtin_return_address(0);
	sp = cap.regs[7];
	n = stack_top > sp ? stack_top - sp : 0;
	if (n > STACK_MAX)
		n = STACK_MAX;
	copy_stack(cap.stack, (uintptr_t)sp, n);
	cap.stack_size = n;
	sink++;
}

__attribute__((noinline)) static void level2(void)
{
	cap.ret[1] = (uint64_t)__builtin_return_address(0);
	level3();
	sink++;
}

__attribute__((noinline)) static void level1(void)
{
	cap.ret[2] = (uint64_t)__builtin_return_address(0);
	level2();
	sink++;
}

/* depth-deep recursion, then a capture at the bottom */
__attribute__((noinline)) static void recurse(int depth)
{
	if (depth > 0)
		recurse(depth - 1);
	else
		level3();
	sink++;
}

static struct pk_unwind_regs sample_in(void)
{
	struct pk_unwind_regs in = {
		.abi = PERF_SAMPLE_REGS_ABI_64, .mask = 0xffffff, .regs = cap.regs,
		.stack = cap.stack, .stack_size = cap.stack_size,
	};
	return in;
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 11;
}

static void test_walk(void)
{
	struct pk_unwind_opts o = { .sz = sizeof(o), .e_machine = EM_X86_64 };
	struct pk_unwind *uw = pk_unwind_new(&o);
	struct pk_unwind_regs in;
	struct pk_unwind_stats st;
	uint64_t ips[PK_UNWIND_MAX_FRAMES];
	uint64_t packed[20];
	int n, good = 1, k;

	ok(uw != NULL, "unwinder created");
	level1();
	load_maps();
	in = sample_in();
	n = pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 127);
	diag("%d frames, stack copy %llu bytes", n, (unsigned long long)cap.stack_size);
	ok(n >= 4, "self stack: at least level3, level2, level1 and their caller (%d)", n);
	if (n >= 4) {
		ok(ips[0] == cap.regs[8], "frame 0 is the sampled ip");
		ok(ips[1] == cap.ret[0] - 1, "frame 1 is level3's return address - 1 (in level2)");
		ok(ips[2] == cap.ret[1] - 1, "frame 2 is level2's return address - 1 (in level1)");
		ok(ips[3] == cap.ret[2] - 1, "frame 3 is level1's return address - 1 (in the test)");
	}
	/* the same registers packed under perf's default mask 0xff0fff */
	k = 0;
	for (int bit = 0; bit < 24; bit++)
		if ((0xff0fffull >> bit) & 1)
			packed[k++] = cap.regs[bit];
	in.mask = 0xff0fff;
	in.regs = packed;
	is_int(pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 127), n,
	       "mask 0xff0fff: same frame count");
	in = sample_in();

	/* cache: more samples open no more files */
	pk_unwind_get_stats(uw, &st);
	{
		uint64_t reported = st.modules_reported;

		for (int i = 0; i < 100; i++)
			good &= pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 127) == n;
		ok(good, "100 more samples: same frames");
		pk_unwind_get_stats(uw, &st);
		is_int((long long)st.modules_reported, (long long)reported,
		       "100 more samples: no file reported again (%llu modules)",
		       (unsigned long long)reported);
		is_int((long long)st.spaces_created, 1, "one address space for the process");
	}
	/* a second pid has its own space */
	is_int(pk_unwind_sample(uw, 99, 99, &in, find_map, NULL, ips, 127), n, "pid 99: same frames");
	pk_unwind_get_stats(uw, &st);
	is_int((long long)st.spaces_created, 2, "pid 99: its own address space");
	pk_unwind_forget(uw, 99);

	/* limits */
	is_int(pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 2), 2, "max 2: two frames");
	is_int(pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 0), 0, "max 0: none");
	recurse(300);
	in = sample_in();
	is_int(pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 127), 127,
	       "300-deep recursion: stops at 127 frames");
	n = pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 100000);
	ok(n > 300 && n <= PK_UNWIND_MAX_FRAMES, "300-deep recursion, no limit: all frames (%d)", n);

	/* what cannot be unwound */
	in.stack_size = 0;
	is_int(pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 127), 0, "empty stack: 0");
	in = sample_in();
	in.abi = 0;
	is_int(pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 127), 0, "abi NONE: 0");
	in.abi = PERF_SAMPLE_REGS_ABI_32;
	is_int(pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 127), -EOPNOTSUPP,
	       "abi 32: not supported");
	in = sample_in();
	in.mask = 0xfffeff;   /* no IP */
	is_int(pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 127), 0, "no IP register: 0");
	in = sample_in();
	is_int(pk_unwind_sample(uw, 77, 77, &in, find_map_missing, NULL, ips, 127), 0,
	       "no readable file: nothing (as perf without the binaries)");
	pk_unwind_sample(uw, 77, 77, &in, find_map_missing, NULL, ips, 127);
	pk_unwind_get_stats(uw, &st);
	is_int((long long)st.files_missing, 1, "a missing file is tried once");

	/* corrupt stacks: random words, words pointing back into the stack and into code */
	{
		uint64_t seed = 42, words = cap.stack_size / 8, max_n = 0;
		int all_bounded = 1;

		for (int round = 0; round < 300; round++) {
			level1();
			for (uint64_t w = 0; w < words; w++) {
				uint64_t v, choice = lcg(&seed) % 4;

				if (choice == 0)
					v = lcg(&seed);
				else if (choice == 1)
					v = cap.regs[7] + (lcg(&seed) % (cap.stack_size + 64));
				else if (choice == 2)
					v = cap.regs[8] + (lcg(&seed) % 512) - 256;
				else
					memcpy(&v, cap.stack + w * 8, 8);
				memcpy(cap.stack + w * 8, &v, 8);
			}
			if (round % 3 == 0)
				cap.regs[7] += (lcg(&seed) % 64) * 8;   /* sp no longer the copy's start */
			in = sample_in();
			n = pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 127);
			all_bounded &= n >= 0 && n <= 127;
			if ((uint64_t)n > max_n)
				max_n = (uint64_t)n;
		}
		ok(all_bounded, "300 corrupt stacks: every walk ends within 127 frames (max %llu)",
		   (unsigned long long)max_n);
	}
	/* a stack of return addresses pointing at a return address: a loop */
	{
		level1();
		for (uint64_t w = 0; w + 8 <= cap.stack_size; w += 8)
			memcpy(cap.stack + w, &cap.ret[0], 8);
		in = sample_in();
		n = pk_unwind_sample(uw, 1234, 1234, &in, find_map, NULL, ips, 127);
		ok(n >= 0 && n <= 127, "self-repeating return addresses: bounded (%d)", n);
	}
	pk_unwind_free(uw);

	/* an unsupported machine */
	o.e_machine = EM_386;
	uw = pk_unwind_new(&o);
	level1();
	in = sample_in();
	is_int(pk_unwind_sample(uw, 1, 1, &in, find_map, NULL, ips, 127), -EOPNOTSUPP,
	       "EM_386 unwinder: not supported");
	pk_unwind_free(uw);
}
#endif

int main(void)
{
	int here;

	stack_top = (uintptr_t)&here;
	(void)stack_top;
	test_regs();
#if defined(__x86_64__)
	test_walk();
#else
	diag("stack walk tests need x86_64");
#endif
	return done_testing();
}
