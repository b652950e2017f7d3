/*
 * Private structures of the symbols module: the session (machine), DSOs with
 * their sorted symbol tables, maps with perf's map_ip rule, threads with
 * address spaces shared by the threads of a process, and a string arena.
 * Nothing here is freed before pk_symbols_free(), so pointers handed out
 * (threads, maps, DSOs, symbols, names) stay valid for the session.
 */
#ifndef PK_SYMBOLS_INTERNAL_H
#define PK_SYMBOLS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <perfkit/symbols.h>

/* ---- string arena ------------------------------------------------------- */

struct sym_arena_block;

struct sym_arena {
	struct sym_arena_block *head;
};

void sym_arena_release(struct sym_arena *a);
void *sym_arena_alloc(struct sym_arena *a, size_t n);
const char *sym_arena_strndup(struct sym_arena *a, const char *s, size_t n);
const char *sym_arena_strdup(struct sym_arena *a, const char *s);

/* ---- symbol tables ------------------------------------------------------ */

/* A symbol being collected before the table is sorted and fixed up. */
struct sym_raw {
	uint64_t start, end;
	const char *name;     /* arena string */
	uint32_t idx;         /* insertion order: ties keep it, as perf's rb-tree does */
	uint8_t bind, type;
};

/* A symbol sym_fixup_duplicate dropped: perf erased it from its tree then. */
struct sym_erased {
	uint64_t start;
	uint32_t idx;
	uint32_t at;          /* how many symbols had been added by then */
};

/*
 * The symbols, and the history perf's tree of them went through: every
 * symbol added (idx 0, 1, ... in turn) and the ones erased since, in order.
 */
struct sym_rawvec {
	struct sym_raw *v;
	size_t n, cap;
	uint32_t next_idx;
	struct sym_erased *erased;
	size_t nr_erased, cap_erased;
};

int sym_rawvec_push(struct sym_rawvec *rv, uint64_t start, uint64_t size, const char *name,
		    uint8_t bind, uint8_t type);
void sym_rawvec_release(struct sym_rawvec *rv);
/* Sort by start (stable), then perf's fixups: end of zero-sized symbols, duplicates. */
void sym_rawvec_sort(struct sym_rawvec *rv);
void sym_fixup_end(struct sym_rawvec *rv, int is_kallsyms);
int sym_fixup_duplicate(struct sym_rawvec *rv);    /* 0 or -ENOMEM */

/* ---- DSOs ---------------------------------------------------------------- */

enum sym_dso_kind {
	SYM_DSO_USER,       /* ELF file (or missing file) */
	SYM_DSO_KERNEL,     /* [kernel.kallsyms] */
	SYM_DSO_MODULE,     /* [modname] */
	SYM_DSO_PERFMAP,    /* /tmp/perf-PID.map (JIT) */
	SYM_DSO_NODSO,      /* //anon, [heap], [stack...] without exec: no symbols */
	SYM_DSO_KSYM,       /* KSYMBOL: BPF program or out-of-line code */
	SYM_DSO_VDSO,       /* [vdso] */
};

struct sym_load {       /* a PT_LOAD of the runtime ELF: file offset <-> link vaddr */
	uint64_t off, vaddr, size;
};

struct sym_dso {
	struct pk_dso pub;       /* first: pk_dso pointers cast back */
	enum sym_dso_kind kind;
	struct pk_sym *syms;     /* sorted by start, non-overlapping starts */
	size_t nr_syms;
	uint32_t *tree;          /* where symbols overlap: perf's tree over syms (perf_tree.c), else NULL */
	uint32_t tree_root;
	struct sym_load *loads;  /* PT_LOADs of the runtime file (srcline vaddr) */
	size_t nr_loads;
	const char *dwarf_file;  /* file with .debug_info, NULL unknown */
	void *dwarf;             /* Dwarf * (srcline.c) */
	int dwarf_fd;
	uint8_t dwarf_tried;
	uint64_t first_ino;      /* the first MMAP2 inode of this file, 0 none (pk_map.ino) */
	struct sym_dso *hnext;   /* dso table chain */
	struct sym_dso *next;    /* all DSOs */
};

/* ---- maps and threads --------------------------------------------------- */

struct sym_map {
	struct pk_map pub;       /* first */
	uint8_t identity;        /* map_ip(ip) = ip (kernel, anon, JIT) */
};

struct sym_maps {
	struct sym_map **v;      /* sorted by start, non-overlapping */
	size_t n, cap;
	struct sym_maps *next;   /* all map groups */
};

struct sym_thread {
	struct pk_thread pub;    /* first */
	struct sym_maps *maps;
	uint8_t comm_set;
	struct sym_thread *hnext;  /* tid hash chain (live threads only) */
	struct sym_thread *next;   /* all threads ever made */
};

struct sym_cache_ent {
	const struct sym_dso *dso;   /* NULL: empty slot */
	uint64_t addr;
	const struct pk_sym *sym;
};

struct pk_symbols {
	struct pk_symbols_opts opts;
	char *kallsyms_path, *symfs, *tmp_dir, *home, *osrelease;
	struct sym_arena arena;
	struct sym_dso **dso_hash;    /* by name */
	size_t dso_hash_size;
	struct sym_dso *dsos;
	size_t nr_dsos;
	struct sym_thread **thr_hash; /* by tid */
	size_t thr_hash_size, nr_threads;
	struct sym_thread *threads;
	struct sym_maps *all_maps;
	struct sym_maps *kmaps;
	struct sym_dso *kernel;       /* [kernel.kallsyms] once known */
	struct sym_map *kernel_map;
	uint64_t kernel_ref_addr;     /* _text address from the kernel MMAP (pgoff), 0 unknown */
	int kallsyms_read;            /* kallsyms with addresses were read for the kernel map */
	struct sym_cgroup { uint64_t id; const char *path; } *cgroups;   /* CGROUP records, path in arena */
	size_t nr_cgroups, cap_cgroups;
	int kallsyms_ok;              /* -1 not decided, 0 no, 1 yes */
	struct sym_cache_ent *cache;
	size_t cache_size, cache_used;
	uint64_t nr_lookups;
	void *srcline_cache;          /* srcline.c */
	void **old_arrays;            /* replaced symbol arrays kept alive */
	size_t nr_old, cap_old;
	void (*on_dso_change)(void *ctx); /* pk_symbols_on_dso_change() */
	void *on_dso_change_ctx;
	int said_out_of_memory;       /* sym_out_of_memory() warned */
};

/* cpumode of a record's misc (PERF_RECORD_MISC_CPUMODE_MASK = 7) */
#define CPUMODE_KERNEL 1
#define CPUMODE_USER 2
#define CPUMODE_GUEST_KERNEL 4

/* machine.c */
/*
 * A thread, map group, map or DSO could not be allocated: warned once, and
 * the samples that would have used it are shown unresolved. NULL, for
 * the caller to return.
 */
void *sym_out_of_memory(struct pk_symbols *s);
struct sym_maps *sym_maps_new(struct pk_symbols *s);
struct sym_map *sym_maps_find(const struct sym_maps *m, uint64_t ip);
int sym_maps_insert(struct pk_symbols *s, struct sym_maps *m, struct sym_map *map);
void sym_maps_remove(struct sym_maps *m, struct sym_map *map);
uint64_t sym_map_ip(const struct sym_map *m, uint64_t ip);
void sym_cache_clear(struct pk_symbols *s);
int sym_keep_old(struct pk_symbols *s, void *p);
int sym_is_vdso(const char *f);
void sym_dso_set_build_id(struct sym_dso *d, const uint8_t *bid, uint8_t size);
/* pk_symbols_mmap() with MMAP2's inode (pk_map.ino). */
void sym_mmap(struct pk_symbols *s, int32_t pid, int32_t tid, uint64_t start, uint64_t len,
	      uint64_t pgoff, const char *filename, uint8_t cpumode, const uint8_t *build_id,
	      uint8_t build_id_size, uint32_t prot, uint32_t flags, uint64_t ino);
struct sym_map *sym_map_new(struct pk_symbols *s, struct sym_dso *d, uint64_t start, uint64_t len,
			    uint64_t pgoff, uint32_t prot, uint32_t flags, int identity);

/* kernel_maps.c */
/* A kernel-space MMAP: the kernel ("[kernel.kallsyms]...") or a module. */
void sym_kernel_mmap(struct pk_symbols *s, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *filename, const uint8_t *bid, uint8_t bid_size);

/* dso.c */
struct sym_dso *sym_dso_find(struct pk_symbols *s, const char *name);
struct sym_dso *sym_dso_findnew(struct pk_symbols *s, const char *name, enum sym_dso_kind kind);
void sym_dso_set_short(struct pk_symbols *s, struct sym_dso *d, const char *short_name);
void sym_dso_load(struct pk_symbols *s, struct sym_dso *d);
const struct pk_sym *sym_dso_find_sym(const struct sym_dso *d, uint64_t addr);

/* Whether @s holds @addr, as perf's symbols__find tests it: a zero-sized symbol holds its start. */
static inline int sym_holds(const struct pk_sym *s, uint64_t addr)
{
	return addr >= s->start && (addr < s->end || (addr == s->start && s->end == s->start));
}

/*
 * perf_tree.c: where a table's symbols overlap, perf's answer depends on
 * the shape of its red-black tree. sym_tree_size(): 0 where no symbol of
 * sorted @rv overlaps the next, else the uint32_t count sym_tree_build()
 * fills (two per symbol) after replaying @rv's history; it returns the root.
 */
size_t sym_tree_size(const struct sym_rawvec *rv);
int sym_tree_build(const struct sym_rawvec *rv, uint32_t *tree, uint32_t *root);
const struct pk_sym *sym_tree_find(const struct pk_sym *syms, const uint32_t *tree, uint32_t root,
				   uint64_t addr);
int sym_dso_set_syms(struct pk_symbols *s, struct sym_dso *d, struct sym_rawvec *rv);
void sym_dso_free_all(struct pk_symbols *s);
/* Insert one symbol into a loaded DSO (KSYMBOL). */
int sym_dso_insert_sym(struct pk_symbols *s, struct sym_dso *d, uint64_t start, uint64_t len,
		       const char *name);
void sym_dso_remove_sym(struct pk_symbols *s, struct sym_dso *d, uint64_t addr);

/* elf_syms.c */
/*
 * Load .symtab/.dynsym (+PLT) of @d from its best symbol source. 0 or
 * -errno; -ENOMEM also when a candidate file could not be looked at.
 */
int sym_elf_load(struct pk_symbols *s, struct sym_dso *d);
/* Read the GNU build-id note of an ELF file. Returns its size (>0) or -errno (-ENOMEM: libelf ran out). */
int sym_elf_read_build_id(const char *path, uint8_t *bid, size_t max);
/* The same for this process's vdso image (vdso.c). */
int sym_vdso_build_id(uint8_t *bid, size_t max);

/* debug_find.c */
/*
 * Candidate files for @d's symbols in perf's order (debuglink, build-id
 * cache, /usr/lib/debug variants, the binary itself). Calls @fn for each path
 * that exists as a regular file until it returns nonzero, and returns that
 * (0 when none did). Sets *@out_of_memory when libelf ran out of memory
 * reading the binary's debuglink (the other candidates are still tried).
 */
int sym_debug_candidates(struct pk_symbols *s, const struct sym_dso *d,
			 int (*fn)(void *arg, const char *path, int is_binary), void *arg,
			 int *out_of_memory);
/* The .gnu_debuglink name of an ELF file into @out. 0 or -errno (-ENOMEM: libelf ran out). */
int sym_read_debuglink(const char *path, char *out, size_t sz);

/* kallsyms.c */
typedef int (*sym_kallsyms_fn)(void *arg, const char *name, char type, uint64_t start);
/* Parse /proc/kallsyms text (perf's kallsyms__parse rules). 0 or the callback's nonzero. */
int sym_kallsyms_parse(const char *buf, size_t len, sym_kallsyms_fn fn, void *arg);
int sym_kallsyms_load(struct pk_symbols *s);

/* perfmap.c */
typedef int (*sym_perfmap_fn)(void *arg, uint64_t start, uint64_t size, const char *name,
			      size_t name_len);
/* Parse perf-<pid>.map text ("START SIZE name" hex per line). Returns entries or <0. */
int sym_perfmap_parse(const char *buf, size_t len, sym_perfmap_fn fn, void *arg);
int sym_perfmap_load(struct pk_symbols *s, struct sym_dso *d);

/* demangle.c */
/* perf's demangling of a symbol name (C++, Rust legacy and v0); malloc'd or NULL. */
char *sym_demangle(const char *name);

/* vdso.c */
/* A malloc'd copy of this process's vdso image. 0 or -errno. */
int sym_vdso_image(void **image, size_t *size);
/* The file was recorded on this machine's kernel (same osrelease, or unknown). */
int sym_same_kernel(const struct pk_symbols *s);

/* srcline.c */
void sym_srcline_free_all(struct pk_symbols *s);

#endif
