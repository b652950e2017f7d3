/*
 * Private declarations of the unwind module: the address-space cache
 * (space.c) and the set of files known to be unreadable, shared with the
 * libdwfl callbacks and the per-sample walk (unwind.c).
 */
#ifndef PK_UNWIND_INTERNAL_H
#define PK_UNWIND_INTERNAL_H

#include <elfutils/libdwfl.h>
#include <perfkit/unwind.h>

/* memory reads allowed per sample: bounds the work on a corrupt stack */
#define PK_UNWIND_MAX_READS 8192
/* files kept open over all address spaces before the oldest space is dropped */
#define PK_UNWIND_MAX_MODULES 512

/* A file reported into a space: the base it was reported at and its map path. */
struct pk_unwind_mod {
	uint64_t base;
	char *path;
};

/* One process's address space: a Dwfl with the modules met so far. */
struct pk_unwind_space {
	Dwfl *dwfl;
	int32_t pid;
	uint64_t used;               /* LRU clock */
	int stale;                   /* a module no longer matches the maps: rebuild */
	struct pk_unwind_mod *mods;
	uint32_t nr_mods, cap_mods;
};

struct pk_unwind {
	uint16_t e_machine;
	char *symfs, *home;
	uint32_t max_spaces;
	struct pk_unwind_space *spaces;  /* max_spaces slots, dwfl NULL = free */
	uint64_t clock;
	uint32_t nr_modules;             /* over all spaces */
	unsigned char ehdr[64];          /* a bare ELF header naming the machine, for libdwfl */
	Elf *arch_elf;
	/* paths that failed to open: open-addressing set of strings */
	char **missing;
	uint32_t missing_cap, nr_missing;
	struct pk_unwind_stats stats;
	/* this process's vDSO image (vdso.c): fd -2 = not looked for yet, -1 = none */
	int vdso_fd;
	int own_vdso;
	uint8_t vdso_build_id[20], vdso_build_id_size;
	/* the sample being unwound */
	struct {
		struct pk_unwind_space *space;
		int32_t tid;
		uint64_t dwarf[32], have, pc, sp;
		const unsigned char *stack;
		uint64_t stack_size;
		pk_unwind_find_map_fn find_map;
		void *ctx;
		uint64_t *ips;
		uint32_t nr, max;
		uint32_t reads;
		int got_file;            /* some frame's file could be read */
	} cur;
};

/* space.c */
struct pk_unwind_space *pk_unwind_space_get(struct pk_unwind *uw, int32_t pid);
void pk_unwind_space_drop(struct pk_unwind *uw, struct pk_unwind_space *sp);
/* The module holding @addr in the current sample's space, reporting it if needed; NULL if none. */
Dwfl_Module *pk_unwind_module_at(struct pk_unwind *uw, uint64_t addr);
int pk_unwind_missing_has(const struct pk_unwind *uw, const char *path);
void pk_unwind_missing_add(struct pk_unwind *uw, const char *path);
void pk_unwind_missing_release(struct pk_unwind *uw);

/* vdso.c: a new fd of this process's vDSO image if it may stand for @m's "[vdso]", else -1 */
int pk_unwind_vdso_fd(struct pk_unwind *uw, const struct pk_unwind_map *m);
void pk_unwind_vdso_release(struct pk_unwind *uw);

/* unwind.c: the libdwfl thread callbacks */
extern const Dwfl_Thread_Callbacks pk_unwind_thread_callbacks;

#endif
