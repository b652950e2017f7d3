/*
 * perfkit symbols: turning sampled addresses into (shared object, symbol).
 *
 * A pk_symbols session rebuilds the recorded machine's processes from the
 * side-band records (MMAP/MMAP2, COMM, FORK, EXIT, exec) in the order the
 * reader delivers them, then resolves addresses against:
 *  - ELF .symtab/.dynsym through libelf, preferring a debug file found by
 *    build-id (~/.debug/.build-id, /usr/lib/debug/.build-id) or
 *    .gnu_debuglink next to the binary or under /usr/lib/debug;
 *  - /proc/kallsyms for the kernel when the recorded kernel is this one
 *    (same osrelease), otherwise kernel addresses stay unresolved (with no
 *    kernel build-id in the file, this kernel's kallsyms still bound the
 *    kernel map, as perf 6.1 does);
 *  - /tmp/perf-<pid>.map files for JIT code;
 *  - for "[vdso]" without a saved copy, this process's own vdso image when
 *    the file was recorded on this kernel (or its build-id matches);
 * with C++ and Rust names demangled, and, on request, inline frames and
 * source lines from DWARF through libdw.
 *
 * Every (DSO, address) is looked up once; later lookups are a hash hit.
 * Objects returned (threads, maps, DSOs, symbols) live as long as the
 * session and never move.
 */
#ifndef PERFKIT_SYMBOLS_H
#define PERFKIT_SYMBOLS_H

#include <stdint.h>
#include <perfkit/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A shared object (or the kernel, or an anonymous/JIT region). */
struct pk_dso {
	const char *name;            /* long name: the path as mapped, "[kernel.kallsyms]", "[vdso]", ... */
	const char *short_name;      /* what perf's "Shared Object" column shows (basename, or name in []) */
	uint8_t build_id[20];
	uint8_t build_id_size;       /* 0 if unknown */
	uint8_t kernel;              /* kernel or kernel module: symbols print as [k] */
	uint8_t loaded;              /* symbols were looked for (whether or not any were found) */
	uint8_t has_symbols;
	const char *symsrc;          /* the file the symbols came from, NULL if none */
};

/* A function symbol. */
struct pk_sym {
	uint64_t start, end;         /* DSO-relative addresses as the symbol table gives them */
	const char *name;            /* demangled unless demangling was turned off */
};

/* One mapping of a thread's address space. */
struct pk_map {
	uint64_t start, end, pgoff;  /* runtime addresses [start, end) */
	struct pk_dso *dso;
	uint32_t prot, flags;        /* MMAP2's; an MMAP's is PROT_EXEC (data: 0), as perf takes it */
	/*
	 * MMAP2's inode; without one, that of the first MMAP2 of the same file
	 * (perf keeps a DSO per file and inode, and finds an inode-less map's
	 * DSO by the file's name), else 0
	 */
	uint64_t ino;
};

/* A thread of the recorded machine (pid -1 and tid -1 are the idle/unknown thread). */
struct pk_thread {
	int32_t pid, tid;
	const char *comm;            /* current comm ("" until known; perf prints ":<tid>") */
	int32_t ppid;                /* the tid that FORKed it, -1 if none did (perf's thread->ppid) */
	/* its cgroup namespace (device, inode) from its latest NAMESPACES record, 0/0 before one */
	uint64_t cgroup_ns_dev, cgroup_ns_ino;
	/*
	 * The first comm it got (COMM, or its parent's at FORK), NULL before:
	 * perf renames a thread's ":TID" placeholder to it in place, so its
	 * samples from before that comm print it too (comm__override)
	 */
	const char *first_comm;
};

/* One inline frame or source position from DWARF. */
struct pk_srcline {
	const char *file;            /* source file (under the compilation directory when the line
	                                table names it relative), NULL if unknown */
	uint32_t line;
	const char *func;            /* inlined function name (inline frames), else NULL */
};

/* Where an address went. Filled by pk_symbols_resolve(). */
struct pk_location {
	uint64_t ip;                 /* the address looked up */
	uint8_t cpumode;             /* PERF_RECORD_MISC_* cpumode used */
	const struct pk_map *map;    /* NULL: no mapping (prints [unknown]) */
	struct pk_dso *dso;          /* map->dso or NULL */
	const struct pk_sym *sym;    /* NULL: no symbol (prints raw hex) */
	uint64_t addr;               /* address inside the DSO (map-relative, what perf's sort key uses) */
	uint64_t symoff;             /* addr - sym->start when sym */
};

struct pk_symbols_opts {
	size_t sz;
	const char *osrelease;       /* kernel the file was recorded on (OSRELEASE feature), NULL unknown */
	const char *kallsyms;        /* default /proc/kallsyms */
	const char *symfs;           /* prefix for every binary path looked up, default none */
	const char *tmp_dir;         /* where perf-<pid>.map files live, default /tmp */
	const char *home;            /* for ~/.debug, default $HOME; with symfs, symfs (as perf) */
	int no_demangle;
	int want_srcline;            /* open DWARF line tables (srcline, --inline) */
	/*
	 * The kernel map comes from the kernel MMAP fed (perf report and script
	 * on a file: without one kernel addresses stay unresolved). 0: without
	 * one, the running kernel's, as perf top and record make it.
	 */
	int recorded_kernel_only;
};

struct pk_symbols;

PK_API struct pk_symbols *pk_symbols_new(const struct pk_symbols_opts *opts);
PK_API void pk_symbols_free(struct pk_symbols *s);

/* ---- side band: feed these in record order -------------------------------- */

/*
 * COMM (exec set for COMM_EXEC). As in perf 6.1 the thread's maps are kept
 * across exec: the new image's MMAPs replace the ranges they overlap.
 */
PK_API void pk_symbols_comm(struct pk_symbols *s, int32_t pid, int32_t tid, const char *comm, int exec);
/*
 * FORK: the child inherits the parent's comm and (for a new process) a copy
 * of its maps. @misc is the record's header misc: with
 * PERF_RECORD_MISC_FORK_EXEC (bit 13, set on FORKs perf synthesizes for an
 * exec) the maps are not copied, as in perf 6.1.
 */
PK_API void pk_symbols_fork(struct pk_symbols *s, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid,
			    uint16_t misc);
PK_API void pk_symbols_exit(struct pk_symbols *s, int32_t pid, int32_t tid);
/*
 * MMAP/MMAP2 of @filename at [start, start+len) with file offset @pgoff.
 * @cpumode (from the record's misc) tells kernel maps (pid -1, "[kernel.kallsyms]_text",
 * modules) from user maps. @build_id may be NULL.
 */
PK_API void pk_symbols_mmap(struct pk_symbols *s, int32_t pid, int32_t tid, uint64_t start,
			    uint64_t len, uint64_t pgoff, const char *filename, uint8_t cpumode,
			    const uint8_t *build_id, uint8_t build_id_size, uint32_t prot, uint32_t flags);
/* A build-id from the BUILD_ID feature or a HEADER_BUILD_ID record (pid -1 = kernel). */
PK_API void pk_symbols_build_id(struct pk_symbols *s, int32_t pid, const char *filename,
				const uint8_t *build_id, uint8_t size);
/*
 * The same with the entry's header @misc: as in perf 6.1, an entry whose
 * cpumode is PERF_RECORD_MISC_KERNEL or _GUEST_KERNEL makes a kernel module
 * path ("/lib/modules/.../x.ko") a module DSO named by that path (what perf
 * script prints) with short name "[x]"; a module whose entry is user-space
 * (or absent) is named "[x]". pk_symbols_build_id() takes pid -1 as kernel.
 */
PK_API void pk_symbols_build_id_misc(struct pk_symbols *s, int32_t pid, uint16_t misc,
				     const char *filename, const uint8_t *build_id, uint8_t size);
/*
 * @fn(@ctx) is called before a DSO already handed out in a location changes
 * what pk_dso shows (short_name, kernel): a kernel module's MMAP or build-id
 * entry names it "[mod]". A reader of locations on another thread (the
 * report's pipeline) finishes with them first. One callback at a time:
 * 0, or -EBUSY when another is set; NULL @fn removes it.
 */
PK_API int pk_symbols_on_dso_change(struct pk_symbols *s, void (*fn)(void *ctx), void *ctx);
/* KSYMBOL: a BPF program or out-of-line kernel code [addr, addr+len) named @name. */
PK_API void pk_symbols_ksymbol(struct pk_symbols *s, uint64_t addr, uint32_t len, const char *name,
			       int unregister);

/* ---- lookups ------------------------------------------------------------- */

/* The thread (created with comm "" if never seen). */
/* The cpumode an address belongs to on x86-64 (kernel from 0xffff800000000000), as perf's machine__addr_cpumode. */
PK_API uint8_t pk_symbols_addr_cpumode(uint64_t addr);
PK_API struct pk_thread *pk_symbols_thread(struct pk_symbols *s, int32_t pid, int32_t tid);

/*
 * Resolve @ip in @t's address space (kernel addresses in the kernel's) for
 * @cpumode (PERF_RECORD_MISC_KERNEL, _USER, ...). Always fills @loc; returns
 * 1 if a symbol was found, 0 otherwise.
 */
PK_API int pk_symbols_resolve(struct pk_symbols *s, const struct pk_thread *t, uint8_t cpumode,
			      uint64_t ip, struct pk_location *loc);

/*
 * The offset perf prints after @loc's symbol name ("NAME+0x<off>"): symoff,
 * except where the address is not below the symbol's end (a zero-sized JIT
 * symbol hit at its start), where perf 6.1 subtracts the map's start too
 * and prints what that wraps to. @loc must have a symbol.
 */
PK_API uint64_t pk_location_shown_symoff(const struct pk_location *loc);

/*
 * Source line of @loc (file:line), and the chain of inline frames at it,
 * innermost first, into @out (at most @max). Returns the number of entries
 * (>= 1 when the line is known: entry 0 is the position itself, with func
 * NULL; entries 1.. are the inlined callers' positions with the inlined
 * function in func), 0 if unknown. Where the file has line tables but none
 * covers the address, entry 0 is what binutils' addr2line (perf's source)
 * answers: file "" inside a compilation unit, "??" elsewhere in a symbol,
 * line 0. Requires opts.want_srcline.
 */
PK_API int pk_symbols_srcline(struct pk_symbols *s, const struct pk_location *loc,
			      struct pk_srcline *out, int max);

/* A source file as perf prints it: its base name, or @file whole with @full_path (--full-source-path). */
PK_API const char *pk_srcline_shown_file(const char *file, int full_path);

/*
 * Apply side-band record @h (native order; MMAP, MMAP2, COMM, FORK, EXIT,
 * KSYMBOL, HEADER_BUILD_ID; others are ignored) whose sample_id trailer is
 * @trailer bytes. A malformed payload is skipped with a warning through
 * pk_log() (perf applies such records blindly). @off names the record's
 * place in messages. 0 or -errno.
 */
struct perf_event_header;
PK_API int pk_symbols_feed(struct pk_symbols *s, const struct perf_event_header *h, uint32_t trailer,
			   uint64_t off, struct pk_diag *d);

/*
 * The mapping @ip falls in for @cpumode in @t's address space (the kernel's
 * for kernel addresses), without loading any symbols; NULL if none.
 */
PK_API const struct pk_map *pk_symbols_find_map(struct pk_symbols *s, const struct pk_thread *t,
						uint8_t cpumode, uint64_t ip);

/*
 * The kernel map's DSO ("[kernel.kallsyms]"), NULL while there is none; with
 * *@ref_addr (may be NULL) the _text address its MMAP gave (pgoff), 0 when it
 * gave none (recorded under kptr_restrict): perf's ref_reloc_sym; and
 * *@symbols_read (may be NULL) 1 once kernel symbols were read for it, even
 * those of the running kernel kept back from another kernel's recording
 * (perf's map__has_symbols()).
 */
PK_API const struct pk_dso *pk_symbols_kernel_dso(const struct pk_symbols *s, uint64_t *ref_addr,
						  int *symbols_read);

/* NAMESPACES of @pid/@tid: its cgroup namespace's device and inode (pk_thread.cgroup_ns_*). */
PK_API void pk_symbols_namespaces(struct pk_symbols *s, int32_t pid, int32_t tid, uint64_t cgroup_dev,
				  uint64_t cgroup_ino);
/* CGROUP: cgroup @id is @path (the first path given for an id stays, as in perf). */
PK_API void pk_symbols_cgroup(struct pk_symbols *s, uint64_t id, const char *path);
/* The path of cgroup @id, NULL if no CGROUP record named it. */
PK_API const char *pk_symbols_cgroup_path(const struct pk_symbols *s, uint64_t id);

/*
 * Call @fn for every thread the machine holds now (perf's machine threads:
 * exited ones too, not those a later FORK of their tid replaced), in no
 * particular order; stops at @fn's first non-zero return, which it returns.
 */
PK_API int pk_symbols_foreach_thread(struct pk_symbols *s,
				     int (*fn)(void *ctx, const struct pk_thread *t), void *ctx);
/* The same for @t's maps, lowest address first. */
PK_API int pk_symbols_foreach_map(struct pk_symbols *s, const struct pk_thread *t,
				  int (*fn)(void *ctx, const struct pk_map *m), void *ctx);

/* The GNU build-id of ELF file @path into @bid (at most @max bytes). Its size, or -errno. */
PK_API int pk_build_id_of_elf(const char *path, uint8_t *bid, size_t max);
/* The same from a file of raw ELF notes (/sys/kernel/notes, /sys/module/M/notes/...). */
PK_API int pk_build_id_of_notes(const char *path, uint8_t *bid, size_t max);
/* The same for the running kernel's [vdso] (this process's image). */
PK_API int pk_build_id_of_vdso(uint8_t *bid, size_t max);

/* How many distinct (DSO, address) lookups hit the symbol tables (for tests of the cache). */
PK_API uint64_t pk_symbols_nr_lookups(const struct pk_symbols *s);

/* Demangle a C++ or Rust symbol; returns a malloc'd string or NULL if @name is not mangled. */
PK_API char *pk_demangle(const char *name);

#ifdef __cplusplus
}
#endif
#endif
