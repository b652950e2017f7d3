/*
 * The per-sample walk: libdwfl's unwinder driven by a sample's registers
 * and stack copy.
 *
 * Each process's Dwfl (space.c) is attached once with the thread callbacks
 * below; they read the sample being unwound from uw->cur, so one attached
 * Dwfl serves every sample of the process:
 *  - set_initial_registers: REGS_USER mapped to DWARF numbers (regs.c);
 *  - memory_read: words in [sp, sp + dyn_size) from the stack copy, other
 *    addresses from the file mapped there (its PT_LOAD bytes), like perf;
 *  - the frame callback reports the module of each PC before libdwfl needs
 *    its CFI, and records the PC (return addresses minus 1, as perf does
 *    for non-activation frames).
 * The walk is bounded by the frame limit and PK_UNWIND_MAX_READS reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include "unwind/internal.h"

/* ---- thread callbacks --------------------------------------------------------- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct pk_unwind *uw = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = uw;
	return uw->cur.tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl; (void)tid;
	*thread_argp = arg;
	return true;
}

/* A word of the file mapped at @addr (its PT_LOAD file bytes). */
static bool read_file_word(struct pk_unwind *uw, uint64_t addr, Dwarf_Word *out)
{
	Dwfl_Module *mod = pk_unwind_module_at(uw, addr);
	GElf_Addr bias;
	size_t phnum, rawsz;
	char *raw;
	Elf *elf;

	if (!mod)
		return false;
	elf = dwfl_module_getelf(mod, &bias);
	if (!elf || elf_getphdrnum(elf, &phnum) != 0)
		return false;
	raw = elf_rawfile(elf, &rawsz);
	if (!raw)
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph_mem, *ph = gelf_getphdr(elf, (int)i, &ph_mem);
		uint64_t vaddr = addr - bias, off;

		if (!ph || ph->p_type != PT_LOAD || vaddr < ph->p_vaddr ||
		    ph->p_filesz < sizeof(*out) || vaddr - ph->p_vaddr > ph->p_filesz - sizeof(*out))
			continue;
		off = ph->p_offset + (vaddr - ph->p_vaddr);
		if (off < ph->p_offset || off > rawsz || rawsz - off < sizeof(*out))
			return false;
		memcpy(out, raw + off, sizeof(*out));
		return true;
	}
	return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct pk_unwind *uw = arg;

	(void)dwfl;
	if (++uw->cur.reads > PK_UNWIND_MAX_READS)
		return false;
	if (addr >= uw->cur.sp && uw->cur.stack_size >= sizeof(*result) &&
	    addr - uw->cur.sp <= uw->cur.stack_size - sizeof(*result)) {
		memcpy(result, uw->cur.stack + (addr - uw->cur.sp), sizeof(*result));
		return true;
	}
	return read_file_word(uw, addr, result);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct pk_unwind *uw = arg;
	unsigned i = 0, j;

	while (i < 32) {
		if (!((uw->cur.have >> i) & 1)) {
			i++;
			continue;
		}
		for (j = i; j < 32 && ((uw->cur.have >> j) & 1); j++)
			;
		if (!dwfl_thread_state_registers(thread, (int)i, j - i, &uw->cur.dwarf[i]))
			return false;
		i = j;
	}
	dwfl_thread_state_register_pc(thread, uw->cur.pc);
	return true;
}

const Dwfl_Thread_Callbacks pk_unwind_thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- the walk --------------------------------------------------------------------- */

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct pk_unwind *uw = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, NULL) || !pc)
		return DWARF_CB_ABORT;
	/* the module must be known before libdwfl unwinds this frame */
	if (pk_unwind_module_at(uw, pc))
		uw->cur.got_file = 1;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	uw->cur.ips[uw->cur.nr++] = activation ? pc : pc - 1;
	if (uw->cur.nr >= uw->cur.max || uw->cur.reads > PK_UNWIND_MAX_READS)
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

struct pk_unwind *pk_unwind_new(const struct pk_unwind_opts *opts_in)
{
	struct pk_unwind_opts opts = { .sz = sizeof(opts) };
	struct pk_unwind *uw;
	const char *home;

	if (opts_in)
		memcpy(&opts, opts_in, opts_in->sz && opts_in->sz < sizeof(opts) ? opts_in->sz : sizeof(opts));
	uw = calloc(1, sizeof(*uw));
	if (!uw)
		return NULL;
	uw->e_machine = opts.e_machine;
	if (!uw->e_machine) {
#if defined(__x86_64__)
		uw->e_machine = EM_X86_64;
#elif defined(__aarch64__)
		uw->e_machine = EM_AARCH64;
#endif
	}
	uw->max_spaces = opts.max_spaces ? opts.max_spaces : 16;
	uw->own_vdso = opts.own_vdso;
	uw->vdso_fd = -2;
	if (uw->max_spaces > 4096)
		uw->max_spaces = 4096;
	home = opts.home ? opts.home : getenv("HOME");
	uw->symfs = opts.symfs && opts.symfs[0] ? strdup(opts.symfs) : NULL;
	uw->home = home && home[0] ? strdup(home) : NULL;
	uw->spaces = calloc(uw->max_spaces, sizeof(*uw->spaces));
	if (!uw->spaces || (opts.symfs && opts.symfs[0] && !uw->symfs)) {
		pk_unwind_free(uw);
		return NULL;
	}
	if (uw->e_machine == EM_X86_64 || uw->e_machine == EM_AARCH64) {
		/* a bare little-endian ELF64 header: all libdwfl needs to pick the backend */
		Elf64_Ehdr eh;

		memset(&eh, 0, sizeof(eh));
		memcpy(eh.e_ident, ELFMAG, SELFMAG);
		eh.e_ident[EI_CLASS] = ELFCLASS64;
		eh.e_ident[EI_DATA] = ELFDATA2LSB;
		eh.e_ident[EI_VERSION] = EV_CURRENT;
		eh.e_type = ET_CORE;
		eh.e_machine = uw->e_machine;
		eh.e_version = EV_CURRENT;
		eh.e_ehsize = sizeof(eh);
		memcpy(uw->ehdr, &eh, sizeof(eh));
		elf_version(EV_CURRENT);
		uw->arch_elf = elf_memory((char *)uw->ehdr, sizeof(eh));
	}
	return uw;
}

void pk_unwind_free(struct pk_unwind *uw)
{
	if (!uw)
		return;
	for (uint32_t i = 0; uw->spaces && i < uw->max_spaces; i++)
		pk_unwind_space_drop(uw, &uw->spaces[i]);
	if (uw->arch_elf)
		elf_end(uw->arch_elf);
	pk_unwind_missing_release(uw);
	pk_unwind_vdso_release(uw);
	free(uw->spaces);
	free(uw->symfs);
	free(uw->home);
	free(uw);
}

void pk_unwind_forget(struct pk_unwind *uw, int32_t pid)
{
	for (uint32_t i = 0; uw && i < uw->max_spaces; i++)
		if (uw->spaces[i].dwfl && uw->spaces[i].pid == pid)
			pk_unwind_space_drop(uw, &uw->spaces[i]);
}

void pk_unwind_get_stats(const struct pk_unwind *uw, struct pk_unwind_stats *out)
{
	*out = uw->stats;
}

int pk_unwind_sample(struct pk_unwind *uw, int32_t pid, int32_t tid,
		     const struct pk_unwind_regs *in, pk_unwind_find_map_fn find_map,
		     void *ctx, uint64_t *ips, uint32_t max)
{
	int ret;

	if (!uw || !in || !find_map || !ips)
		return -EINVAL;
	if (!in->abi || !in->regs || !in->stack || !in->stack_size || !max)
		return 0;
	if (in->abi != PERF_SAMPLE_REGS_ABI_64 || !uw->arch_elf)
		return -EOPNOTSUPP;
	if (max > PK_UNWIND_MAX_FRAMES)
		max = PK_UNWIND_MAX_FRAMES;
	memset(&uw->cur, 0, sizeof(uw->cur));
	ret = pk_unwind_dwarf_regs(uw->e_machine, in->mask, in->regs, uw->cur.dwarf, 32,
				   &uw->cur.have, &uw->cur.pc, &uw->cur.sp);
	if (ret == -ENOENT || (!ret && !uw->cur.pc))
		return 0;
	if (ret < 0)
		return ret;
	uw->cur.tid = tid > 0 ? tid : 1;
	uw->cur.stack = in->stack;
	uw->cur.stack_size = in->stack_size;
	uw->cur.find_map = find_map;
	uw->cur.ctx = ctx;
	uw->cur.ips = ips;
	uw->cur.max = max;
	uw->stats.samples++;
	/* a second try when the maps changed under a kept module (exec, remap) */
	for (int attempt = 0; attempt < 2; attempt++) {
		struct pk_unwind_space *sp = pk_unwind_space_get(uw, pid);

		if (!sp)
			return -ENOMEM;
		uw->cur.space = sp;
		uw->cur.nr = 0;
		uw->cur.reads = 0;
		uw->cur.got_file = 0;
		dwfl_getthread_frames(sp->dwfl, uw->cur.tid, frame_cb, uw);
		uw->cur.space = NULL;
		if (!sp->stale)
			break;
		pk_unwind_space_drop(uw, sp);
	}
	if (uw->cur.reads > PK_UNWIND_MAX_READS)
		uw->stats.read_limit_hits++;
	/* no file of this stack could be read: say nothing, as perf does without its binaries */
	if (!uw->cur.got_file)
		uw->cur.nr = 0;
	uw->stats.frames += uw->cur.nr;
	return (int)uw->cur.nr;
}
