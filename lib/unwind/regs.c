/*
 * Register mapping: perf's sample_regs_user layout to DWARF register numbers.
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
 *   aarch64 (arch/arm64/include/uapi/asm/perf_regs.h)
 *     bit  0..30 X0..X30 (29 = FP, 30 = LR)   31 SP   32 PC
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
