/*
 * perfkit unwind: DWARF unwinding of a sample's copy of the user stack.
 *
 * `perf record --call-graph dwarf` stores, instead of a user call chain, the
 * user registers (PERF_SAMPLE_REGS_USER) and a copy of the top of the user
 * stack (PERF_SAMPLE_STACK_USER); the call chain is rebuilt at report time
 * from the CFI (.eh_frame, .debug_frame) of the mapped files. This module
 * does that with elfutils' libdwfl unwinder: stack words come from the copy,
 * any other address from the file mapped there.
 *
 * It knows nothing about perfkit's symbols module: the caller describes the
 * thread's address space through a find_map callback. One address space
 * (a Dwfl with the modules met so far) is kept per process, so each file is
 * opened and its CFI read once per process, not once per sample.
 *
 * Supported: x86_64 and aarch64, 64-bit ABI. Not thread-safe: one unwinder
 * per thread of the caller.
 */
#ifndef PERFKIT_UNWIND_H
#define PERFKIT_UNWIND_H

#include <stdint.h>
#include <perfkit/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* perf's default --max-stack (PERF_MAX_STACK_DEPTH) */
#define PK_UNWIND_DEFAULT_FRAMES 127
/* the most frames pk_unwind_sample() ever returns */
#define PK_UNWIND_MAX_FRAMES 1024

/* One mapping of the thread's address space, as the unwinder needs it. */
struct pk_unwind_map {
	uint64_t start, end, pgoff;  /* runtime [start, end), file offset of start */
	const char *path;            /* the mapped file; NULL, "" or "[...]" = no file to read */
	const uint8_t *build_id;     /* optional: tried as ~/.debug/.build-id/xx/yyy/elf if path fails */
	uint8_t build_id_size;
};

/*
 * The caller's view of the thread's maps: fill @map for the mapping that
 * holds @addr and return 1, or return 0 if @addr is not mapped.
 */
typedef int (*pk_unwind_find_map_fn)(void *ctx, uint64_t addr, struct pk_unwind_map *map);

/* The user state of one sample. */
struct pk_unwind_regs {
	uint64_t abi;                /* PERF_SAMPLE_REGS_ABI_64 (2); anything else is not unwound */
	uint64_t mask;               /* the attr's sample_regs_user */
	const uint64_t *regs;        /* popcount(mask) values in bit order (may be unaligned) */
	const void *stack;           /* the stack copy, starting at the sampled SP */
	uint64_t stack_size;         /* valid bytes of it (STACK_USER dyn_size) */
};

struct pk_unwind_opts {
	size_t sz;
	uint16_t e_machine;          /* EM_X86_64 or EM_AARCH64; 0 = the machine perfkit runs on */
	const char *symfs;           /* prefix for every path opened, default none */
	const char *home;            /* for ~/.debug, default $HOME */
	uint32_t max_spaces;         /* processes whose address space is kept, default 16 */
	/*
	 * The file was recorded on this machine's kernel: a "[vdso]" map without
	 * a build-id may be read from perfkit's own vDSO (with a build-id, the
	 * image is used when the build-ids match, whatever this says).
	 */
	int own_vdso;
};

struct pk_unwind;

/* A new unwinder, or NULL (out of memory). */
PK_API struct pk_unwind *pk_unwind_new(const struct pk_unwind_opts *opts);
PK_API void pk_unwind_free(struct pk_unwind *uw);

/*
 * Unwind one sample of thread @tid of process @pid. Writes at most @max
 * (capped at PK_UNWIND_MAX_FRAMES) addresses to @ips, leaf first: ips[0] is
 * the sampled user IP, the others are return addresses minus 1 (the call
 * instruction, what perf prints and looks up). Zero addresses are never
 * returned. Returns the number of addresses, 0 when nothing can be said
 * (no registers, no stack, no readable file in this process yet), or
 * -EOPNOTSUPP for an architecture or ABI it cannot unwind, -ENOMEM.
 * Corrupt stacks are safe: the walk stops after @max frames or a bounded
 * number of memory reads.
 */
PK_API int pk_unwind_sample(struct pk_unwind *uw, int32_t pid, int32_t tid,
			    const struct pk_unwind_regs *in, pk_unwind_find_map_fn find_map,
			    void *ctx, uint64_t *ips, uint32_t max);

/* Drop the address space kept for @pid (after exit or exec; optional). */
PK_API void pk_unwind_forget(struct pk_unwind *uw, int32_t pid);

/* EM_X86_64 / EM_AARCH64 for a HEADER_ARCH string ("x86_64", "aarch64", "arm64"), else 0. */
PK_API uint16_t pk_unwind_machine(const char *arch);

/*
 * Map perf's sample_regs_user values to DWARF registers for @e_machine:
 * dwarf[i] (i < @nr) gets register i and bit i of *@have is set when it is
 * present; *@pc and *@sp get the IP and SP. 0, or -EOPNOTSUPP (machine),
 * -ENOENT (IP or SP missing from @mask).
 */
PK_API int pk_unwind_dwarf_regs(uint16_t e_machine, uint64_t mask, const uint64_t *regs,
				uint64_t *dwarf, uint32_t nr, uint64_t *have, uint64_t *pc,
				uint64_t *sp);

/*
 * The name perf gives register @bit of a sample_regs_user/_intr mask on
 * @arch (HEADER_ARCH, uname's machine: "x86_64", "aarch64", "armv7l",
 * "riscv64"): "AX", "x29", "lr", "pc"; "unknown" where perf 6.1 knows none
 * (other bits, other architectures).
 */
PK_API const char *pk_perf_reg_name(const char *arch, unsigned bit);

/* Counters for tests and benchmarks. */
struct pk_unwind_stats {
	uint64_t samples, frames;
	uint64_t spaces_created;     /* Dwfl address spaces built */
	uint64_t modules_reported;   /* files opened (dwfl_report_elf that succeeded) */
	uint64_t files_missing;      /* paths that could not be opened (each counted once) */
	uint64_t read_limit_hits;    /* samples cut short by the memory-read bound */
};
PK_API void pk_unwind_get_stats(const struct pk_unwind *uw, struct pk_unwind_stats *out);

#ifdef __cplusplus
}
#endif
#endif
