/*
 * Register mapping: perf's sample_regs_user layout to DWARF register numbers,
 * and the names perf prints for its bits (perf script -F uregs, iregs).
 *
 * PERF_SAMPLE_REGS_USER stores { u64 abi; u64 regs[popcount(mask)]; } with
 * the registers of the attr's sample_regs_user mask in ascending bit order
 * (../shared/reference/perf-data.md, REGS_USER). The bit numbers are perf's
 * per-architecture enums:
 *
 *   x86_64 (arch/x86/include/uapi/asm/perf_regs.h)
 *     bit  0 AX   1 BX   2 CX   3 DX   4 SI   5 DI   6 BP   7 SP
 *     bit  8 IP   9 FLAGS 10 CS 11 SS 12 DS 13 ES 14 FS 15 GS
 *     bit 16..23 R8..R15
 *     bit 32, 34, ..., 62 XMM0..XMM15 (two bits each; intr regs only)
 *   aarch64 (arch/arm64/include/uapi/asm/perf_regs.h)
 *     bit  0..30 X0..X30 (29 = FP, 30 = LR)   31 SP   32 PC   46 VG
 *   arm (arch/arm/include/uapi/asm/perf_regs.h)
 *     bit  0..10 R0..R10   11 FP   12 IP   13 SP   14 LR   15 PC
 *   riscv (arch/riscv/include/uapi/asm/perf_regs.h)
 *     bit  0 PC  1 RA  2 SP  3 GP  4 TP  5..7 T0..T2  8 S0  9 S1
 *     bit 10..17 A0..A7  18..27 S2..S11  28..31 T3..T6
 *
 * DWARF numbers (x86-64 psABI, AArch64 DWARF ABI):
 *   x86_64: rax 0, rdx 1, rcx 2, rbx 3, rsi 4, rdi 5, rbp 6, rsp 7,
 *           r8..r15 8..15, return address (rip) 16
 *   aarch64: x0..x30 0..30, sp 31; the PC has no DWARF number
 */
#include <errno.h>
#include <string.h>
#include <elf.h>
#include <perfkit/unwind.h>

#define X86_PERF_IP 8
#define X86_PERF_SP 7
#define ARM64_PERF_SP 31
#define ARM64_PERF_PC 32

static const char *const x86_names[24] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
	"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
};
static const char *const x86_xmm_names[16] = {
	"XMM0", "XMM1", "XMM2", "XMM3", "XMM4", "XMM5", "XMM6", "XMM7",
	"XMM8", "XMM9", "XMM10", "XMM11", "XMM12", "XMM13", "XMM14", "XMM15",
};
static const char *const arm64_names[33] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12",
	"x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24",
	"x25", "x26", "x27", "x28", "x29", "lr", "sp", "pc",
};
static const char *const arm_names[16] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "fp", "ip",
	"sp", "lr", "pc",
};
static const char *const riscv_names[32] = {
	"pc", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2",
	"a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9",
	"s10", "s11", "t3", "t4", "t5", "t6",
};

#define NAMES(a) a, sizeof(a) / sizeof(a[0])

/* @arch's family as perf normalizes uname's machine (its perf_env__arch). */
static int arch_is(const char *arch, const char *family)
{
	if (!strcmp(family, "x86"))
		return !strcmp(arch, "x86_64") || !strcmp(arch, "amd64") ||
		       (arch[0] == 'i' && !strcmp(arch + 2, "86"));
	if (!strcmp(family, "arm64"))
		return !strcmp(arch, "aarch64") || !strcmp(arch, "arm64");
	if (!strcmp(family, "arm"))
		return !strncmp(arch, "arm", 3) || !strcmp(arch, "sa110");
	return !strncmp(arch, family, strlen(family));
}

static const char *name_in(const char *const *names, size_t n, unsigned bit)
{
	return bit < n ? names[bit] : "unknown";
}

const char *pk_perf_reg_name(const char *arch, unsigned bit)
{
	if (!arch)
		return "unknown";
	if (arch_is(arch, "x86")) {
		if (bit >= 32 && bit < 64 && !(bit & 1))
			return x86_xmm_names[(bit - 32) / 2];
		return name_in(NAMES(x86_names), bit);
	}
	if (arch_is(arch, "arm64"))
		return bit == 46 ? "vg" : name_in(NAMES(arm64_names), bit);
	if (arch_is(arch, "arm"))
		return name_in(NAMES(arm_names), bit);
	if (arch_is(arch, "riscv"))
		return name_in(NAMES(riscv_names), bit);
	return "unknown";
}

/* x86_64: perf bit of each DWARF register 0..16 */
static const uint8_t x86_64_perf_bit[17] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8,
};

uint16_t pk_unwind_machine(const char *arch)
{
	if (!arch)
		return 0;
	if (!strcmp(arch, "x86_64") || !strcmp(arch, "amd64"))
		return EM_X86_64;
	if (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64"))
		return EM_AARCH64;
	return 0;
}

/* The value of perf register @bit, if @mask has it. */
static int reg_value(uint64_t mask, const uint64_t *regs, unsigned bit, uint64_t *out)
{
	if (bit >= 64 || !((mask >> bit) & 1))
		return 0;
	memcpy(out, &regs[__builtin_popcountll(mask & ((1ull << bit) - 1))], sizeof(*out));
	return 1;
}

int pk_unwind_dwarf_regs(uint16_t e_machine, uint64_t mask, const uint64_t *regs,
			 uint64_t *dwarf, uint32_t nr, uint64_t *have, uint64_t *pc, uint64_t *sp)
{
	unsigned perf_pc, perf_sp, n, i;

	*have = 0;
	switch (e_machine) {
	case EM_X86_64:
		perf_pc = X86_PERF_IP;
		perf_sp = X86_PERF_SP;
		n = 17;
		break;
	case EM_AARCH64:
		perf_pc = ARM64_PERF_PC;
		perf_sp = ARM64_PERF_SP;
		n = 32;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (!regs || !reg_value(mask, regs, perf_pc, pc) || !reg_value(mask, regs, perf_sp, sp))
		return -ENOENT;
	for (i = 0; i < n && i < nr && i < 64; i++) {
		unsigned bit = e_machine == EM_X86_64 ? x86_64_perf_bit[i] : i;

		if (reg_value(mask, regs, bit, &dwarf[i]))
			*have |= 1ull << i;
	}
	return 0;
}
