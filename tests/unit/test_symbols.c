/*
 * Unit tests for lib/symbols: address spaces from synthetic MMAP/COMM/FORK
 * records (overlaps, threads sharing maps, fork copies), ELF symbols of PIE,
 * non-PIE, shared-library and C++ binaries built here with cc/g++ (addresses
 * from nm), debug files found by build-id and .gnu_debuglink, the perf-map and
 * kallsyms parsers on text written here, demangling checked against c++filt
 * and perf 6.1, srcline and inline frames against addr2line, the lookup
 * cache, and, as the oracle, Linux perf's own `perf script` resolution of
 * every sample of workloads recorded here.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/symbols.h>
#include "symbols/internal.h"
#include "../shared_data.h"
#include "../tap.h"

static char tmp[256];

static int sh(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int have(const char *tool)
{
	return sh("command -v %s >/dev/null 2>&1", tool) == 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* st_value of @name from `nm` (defined symbols), 0 if absent. */
static uint64_t nm_addr(const char *bin, const char *name)
{
	char cmd[1024], line[1024];
	uint64_t v = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s 2>/dev/null", bin);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char t, n[512];

		if (sscanf(line, "%llx %c %511s", &a, &t, n) == 3 && !strcmp(n, name))
			v = a;
	}
	pclose(p);
	return v;
}

/* The executable PT_LOAD of @bin: file offset, vaddr and size. */
static int text_load(const char *bin, uint64_t *off, uint64_t *vaddr, uint64_t *size)
{
	int fd = open(bin, O_RDONLY), r = -1;
	Elf *e;
	size_t n, i;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_getphdrnum(e, &n) == 0) {
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
				*off = ph.p_offset;
				*vaddr = ph.p_vaddr;
				*size = ph.p_memsz;
				r = 0;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return r;
}

/* Map @bin's text for @pid at @base (0 for non-PIE) as a MMAP2 would. */
static void map_text(struct pk_symbols *s, int pid, const char *bin, uint64_t base)
{
	uint64_t off, va, sz;

	if (text_load(bin, &off, &va, &sz))
		return;
	pk_symbols_mmap(s, pid, pid, base + (va & ~0xfffull), ((sz + (va & 0xfff)) + 0xfff) & ~0xfffull,
			off & ~0xfffull, bin, 2, NULL, 0, PROT_READ | PROT_EXEC, 2);
}

static const char *resolve_name(struct pk_symbols *s, int pid, uint64_t ip, struct pk_location *loc)
{
	struct pk_thread *t = pk_symbols_thread(s, pid, pid);

	pk_symbols_resolve(s, t, 2, ip, loc);
	return loc->sym ? loc->sym->name : NULL;
}

static const char prog_c[] =
	"volatile long x;\n"
	"__attribute__((noinline)) void hot_a(long n){ for(long i=0;i<n;i++) x+=i; }\n"
	"__attribute__((noinline)) static void hot_b(long n){ for(long i=0;i<n;i++) x^=i; }\n"
	"__attribute__((noinline)) void hot_c(long n){ for(long i=0;i<n;i++) x-=i; }\n"
	"int main(int c, char **v){ long n = c > 1 ? 40000000 : 1; for(int k=0;k<3;k++){hot_a(n);hot_b(n);hot_c(n);} return 0; }\n";

static void test_elf_pie_nonpie(void)
{
	char pie[512], npie[512];
	struct pk_symbols *s;
	struct pk_location loc;
	uint64_t a, b;
	const uint64_t base = 0x555555554000ull;
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp };

	snprintf(pie, sizeof(pie), "%s/pie", tmp);
	snprintf(npie, sizeof(npie), "%s/npie", tmp);
	if (sh("cd %s && cc -O1 -g -fPIE -pie -o pie prog.c && cc -O1 -g -fno-pie -no-pie -o npie prog.c", tmp)) {
		ok(0, "cc builds the test programs");
		return;
	}
	s = pk_symbols_new(&o);
	map_text(s, 100, pie, base);
	map_text(s, 200, npie, 0);
	pk_symbols_comm(s, 100, 100, "pie", 1);

	a = nm_addr(pie, "hot_a");
	b = nm_addr(pie, "hot_b");
	is_str(resolve_name(s, 100, base + a + 3, &loc), "hot_a", "PIE: global function by address");
	is_int(loc.symoff, 3, "PIE: symoff");
	is_str(loc.dso ? loc.dso->short_name : NULL, "pie", "PIE: dso short name is the basename");
	is_str(loc.dso ? loc.dso->name : NULL, pie, "PIE: dso long name is the path");
	is_str(resolve_name(s, 100, base + b, &loc), "hot_b", "PIE: static function from .symtab");
	is_int(loc.symoff, 0, "PIE: symoff 0 at function start");

	a = nm_addr(npie, "hot_c");
	is_str(resolve_name(s, 200, a + 5, &loc), "hot_c", "non-PIE: function at its link address");
	is_int(loc.symoff, 5, "non-PIE: symoff");
	{
		uint64_t off, va, sz;

		text_load(npie, &off, &va, &sz);
		/* perf's map_ip: the file offset, which is what perf report prints for [unknown] */
		is_int(loc.addr, a + 5 - va + off, "non-PIE: loc->addr is the file offset (perf's al->addr)");
	}
	ok(resolve_name(s, 200, 0x10, &loc) == NULL && loc.map == NULL, "address outside any map: no map");
	is_str(pk_symbols_thread(s, 100, 100)->comm, "pie", "comm recorded");
	is_str(pk_symbols_thread(s, 0, 0)->comm, "swapper", "idle thread is swapper");
	pk_symbols_free(s);
}

static void test_maps_threads(void)
{
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp };
	struct pk_symbols *s = pk_symbols_new(&o);
	struct pk_location loc;
	struct pk_thread *t;

	/* [0x1000,0x9000) a.so pgoff 0, then b.so over [0x3000,0x5000) */
	pk_symbols_mmap(s, 10, 10, 0x1000, 0x8000, 0, "/nonexistent/a.so", 2, NULL, 0, PROT_EXEC, 2);
	pk_symbols_mmap(s, 10, 10, 0x3000, 0x2000, 0x7000, "/nonexistent/b.so", 2, NULL, 0, PROT_EXEC, 2);
	t = pk_symbols_thread(s, 10, 10);
	pk_symbols_resolve(s, t, 2, 0x2000, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "a.so", "part before the overlap keeps the old map");
	is_int(loc.addr, 0x1000, "before part: map_ip unchanged");
	pk_symbols_resolve(s, t, 2, 0x3800, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "b.so", "overlapping part goes to the new map");
	is_int(loc.addr, 0x7800, "new map: ip - start + pgoff");
	pk_symbols_resolve(s, t, 2, 0x6000, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "a.so", "part after the overlap keeps the old dso");
	is_int(loc.addr, 0x5000, "after part: pgoff advanced so map_ip is unchanged");
	ok(loc.map && loc.map->start == 0x5000 && loc.map->pgoff == 0x4000, "after part starts at the new end");

	/* a thread of pid 10 shares its maps */
	t = pk_symbols_thread(s, 10, 11);
	pk_symbols_resolve(s, t, 2, 0x3800, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "b.so", "thread shares its process's maps");
	pk_symbols_mmap(s, 10, 11, 0x20000, 0x1000, 0, "/nonexistent/c.so", 2, NULL, 0, PROT_EXEC, 2);
	pk_symbols_resolve(s, pk_symbols_thread(s, 10, 10), 2, 0x20010, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "c.so", "a map added by a thread is seen by the leader");

	/* fork of a new process copies; later maps of the child do not leak back */
	pk_symbols_comm(s, 10, 10, "parent", 0);
	pk_symbols_fork(s, 20, 10, 20, 10, 0);
	t = pk_symbols_thread(s, 20, 20);
	is_str(t->comm, "parent", "fork inherits comm");
	pk_symbols_resolve(s, t, 2, 0x3800, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "b.so", "forked child has the parent's maps");
	pk_symbols_mmap(s, 20, 20, 0x3000, 0x1000, 0, "/nonexistent/d.so", 2, NULL, 0, PROT_EXEC, 2);
	pk_symbols_resolve(s, pk_symbols_thread(s, 10, 10), 2, 0x3800, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "b.so", "child's new map does not change the parent");
	pk_symbols_resolve(s, t, 2, 0x3800, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "d.so", "child's own map");
	pk_symbols_exit(s, 20, 20);
	pk_symbols_resolve(s, t, 2, 0x3800, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "d.so", "exit keeps the thread (perf marks it dead only)");

	/* a thread fork (same pid) shares maps */
	pk_symbols_fork(s, 10, 10, 12, 10, 0);
	pk_symbols_resolve(s, pk_symbols_thread(s, 10, 12), 2, 0x20010, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "c.so", "new thread of the process shares maps");

	/* anon, heap, vdso, JIT naming as perf 6.1 */
	pk_symbols_mmap(s, 30, 30, 0x7000000, 0x1000, 0x7000000, "//anon", 2, NULL, 0,
			PROT_READ | PROT_WRITE | PROT_EXEC, 0x22);
	pk_symbols_mmap(s, 30, 30, 0x8000000, 0x1000, 0, "//anon", 2, NULL, 0, PROT_READ, 0x22);
	pk_symbols_mmap(s, 30, 30, 0x9000000, 0x2000, 0x1234, "[vdso]", 2, NULL, 0, PROT_EXEC, 0);
	pk_symbols_mmap(s, 30, 30, 0xa000000, 0x2000, 0, "[heap]", 2, NULL, 0, PROT_READ, 0);
	t = pk_symbols_thread(s, 30, 30);
	pk_symbols_resolve(s, t, 2, 0x7000010, &loc);
	is_str(loc.dso ? loc.dso->name : NULL, "/tmp/perf-30.map", "exec anon memory is the JIT map perf-PID.map");
	is_str(loc.dso ? loc.dso->short_name : NULL, "[JIT] tid 30", "JIT short name as perf 6.1");
	is_int(loc.addr, 0x7000010, "anon: identity map_ip");
	pk_symbols_resolve(s, t, 2, 0x8000010, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "//anon", "non-exec anon keeps //anon");
	pk_symbols_resolve(s, t, 2, 0x9000010, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "[vdso]", "vdso name");
	is_int(loc.addr, 0x10, "vdso: pgoff forced to 0");
	pk_symbols_resolve(s, t, 2, 0xa000010, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "[heap]", "heap name");
	is_int(loc.addr, 0xa000010, "heap: identity map_ip");
	pk_symbols_free(s);
}

static void test_shlib_cxx_cache(void)
{
	char lib[512], cxx[512];
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp };
	struct pk_symbols *s;
	struct pk_location loc;
	uint64_t a, n0;

	snprintf(lib, sizeof(lib), "%s/libt.so", tmp);
	snprintf(cxx, sizeof(cxx), "%s/cxx", tmp);
	write_file(lib, "");
	sh("cd %s && printf 'int lib_fn(int x){ return x*3+1; }\\nint lib_other(int x){ return x-1; }\\n' > lib.c && "
	   "cc -O1 -fPIC -shared -o libt.so lib.c", tmp);
	s = pk_symbols_new(&o);
	map_text(s, 40, lib, 0x7f0000000000ull);
	a = nm_addr(lib, "lib_other");
	is_str(resolve_name(s, 40, 0x7f0000000000ull + a + 1, &loc), "lib_other", "shared library symbol");
	is_int(loc.symoff, 1, "shared library symoff");
	is_str(loc.dso ? loc.dso->short_name : NULL, "libt.so", "shared library short name");

	n0 = pk_symbols_nr_lookups(s);
	resolve_name(s, 40, 0x7f0000000000ull + a + 1, &loc);
	is_int(pk_symbols_nr_lookups(s), n0, "second lookup of the same address is a cache hit");
	resolve_name(s, 40, 0x7f0000000000ull + a + 2, &loc);
	is_int(pk_symbols_nr_lookups(s), n0 + 1, "a new address is a real lookup");

	if (have("g++") &&
	    sh("cd %s && printf 'namespace ns { template<typename T> struct W { __attribute__((noinline)) static T spin(T n){ volatile T x=0; for(T i=0;i<n;i++) x+=i; return x;} }; }\\n"
	       "int main(){ return (int)ns::W<long>::spin(10); }\\n' > c.cc && g++ -O1 -o cxx c.cc", tmp) == 0) {
		a = nm_addr(cxx, "_ZN2ns1WIlE4spinEl");
		map_text(s, 41, cxx, 0x560000000000ull);
		/* perf 6.1 prints C++ names without parameters (demangling without DMGL_PARAMS) */
		is_str(resolve_name(s, 41, 0x560000000000ull + a + 4, &loc), "ns::W<long>::spin",
		       "C++ template method demangled as perf shows it");
	} else {
		ok(1, "# SKIP g++ not available");
	}
	pk_symbols_free(s);
}

static void test_debug_files(void)
{
	char path[512], bid[64], cmd[512], dir[600];
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp };
	struct pk_symbols *s;
	struct pk_location loc;
	uint64_t a;
	FILE *p;

	if (!have("objcopy") || !have("strip")) {
		ok(1, "# SKIP objcopy/strip not available");
		return;
	}
	/* build-id cache: stripped binary, its debug file at ~/.debug/.build-id/xx/rest/debug */
	if (sh("cd %s && cc -O1 -g -Wl,--build-id -o bid prog.c && objcopy --only-keep-debug bid bid.debug && strip bid", tmp)) {
		ok(0, "stripping a binary");
		return;
	}
	snprintf(cmd, sizeof(cmd), "readelf -n %s/bid | awk '/Build ID/ {print $3}'", tmp);
	p = popen(cmd, "r");
	bid[0] = '\0';
	if (p) {
		if (!fgets(bid, sizeof(bid), p))
			bid[0] = '\0';
		pclose(p);
	}
	bid[strcspn(bid, "\n")] = '\0';
	ok(strlen(bid) == 40, "binary has a 20-byte build-id");
	snprintf(dir, sizeof(dir), "%s/.debug/.build-id/%.2s/%s", tmp, bid, bid + 2);
	sh("mkdir -p %s && cp %s/bid.debug %s/debug", dir, tmp, dir);
	snprintf(path, sizeof(path), "%s/bid", tmp);
	a = nm_addr(path, "hot_b");
	ok(a == 0, "stripped binary has no static symbols of its own");
	a = nm_addr(dir, "hot_b");
	{
		char dbg[700];

		snprintf(dbg, sizeof(dbg), "%s/debug", dir);
		a = nm_addr(dbg, "hot_b");
	}
	s = pk_symbols_new(&o);
	map_text(s, 50, path, 0x555500000000ull);
	is_str(resolve_name(s, 50, 0x555500000000ull + a + 2, &loc), "hot_b",
	       "static function found through the build-id cache debug file");
	ok(loc.dso && loc.dso->symsrc && strstr(loc.dso->symsrc, ".build-id"), "symsrc is the build-id file");
	ok(loc.dso && loc.dso->build_id_size == 20, "dso build-id read from the binary");
	pk_symbols_free(s);

	/* .gnu_debuglink next to the binary, in .debug/ */
	if (sh("cd %s && cc -O1 -g -o dl prog.c && objcopy --only-keep-debug dl dl.dbg && strip dl && "
	       "objcopy --add-gnu-debuglink=dl.dbg dl && mkdir -p .debug && mv dl.dbg .debug/", tmp)) {
		ok(0, "objcopy --add-gnu-debuglink");
		return;
	}
	snprintf(path, sizeof(path), "%s/.debug/dl.dbg", tmp);
	a = nm_addr(path, "hot_b");
	snprintf(path, sizeof(path), "%s/dl", tmp);
	{
		char link[256];

		ok(sym_read_debuglink(path, link, sizeof(link)) == 0 && !strcmp(link, "dl.dbg"),
		   ".gnu_debuglink section read");
	}
	s = pk_symbols_new(&o);
	map_text(s, 51, path, 0x555600000000ull);
	is_str(resolve_name(s, 51, 0x555600000000ull + a + 1, &loc), "hot_b",
	       "static function found through .gnu_debuglink in .debug/");
	ok(loc.dso && loc.dso->symsrc && strstr(loc.dso->symsrc, "/.debug/dl.dbg"), "symsrc is the debuglink file");
	pk_symbols_free(s);
}

struct pm_ent {
	uint64_t start, size;
	char name[64];
};

struct pm_col {
	int n;
	struct pm_ent e[16];
};

static int pm_collect(void *arg, uint64_t start, uint64_t size, const char *name, size_t n)
{
	struct pm_col *c = arg;

	if (c->n < 16) {
		c->e[c->n].start = start;
		c->e[c->n].size = size;
		snprintf(c->e[c->n].name, sizeof(c->e[0].name), "%.*s", (int)n, name);
		c->n++;
	}
	return 0;
}

static void test_perfmap(void)
{
	static const char text[] =
		"7f0000001000 20 jit_one\n"
		"0x7f0000001020 0x10 Ljava/lang/Object;toString\n"
		"garbage\n"
		"7f0000002000 8 a\n"          /* name too short for perf: skipped */
		"7f0000003000 0 zero size\n"
		"7f0000004000 40 last_no_newline";
	struct pm_col c = { 0 };
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp, .tmp_dir = tmp };
	struct pk_symbols *s;
	struct pk_location loc;
	char path[512];
	int n = sym_perfmap_parse(text, sizeof(text) - 1, pm_collect, &c);

	is_int(n, 5, "perf map: 5 entries parsed, the line too short for a name skipped");
	ok(c.e[0].start == 0x7f0000001000ull && c.e[0].size == 0x20 && !strcmp(c.e[0].name, "jit_one"),
	   "perf map: hex start, size, name");
	ok(c.e[1].start == 0x7f0000001020ull && c.e[1].size == 0x10, "perf map: 0x prefixes accepted");
	/* perf's hex2u64 on "garbage": start 0 (no digit), size 0xa (the 'a'), name "bage" */
	ok(c.e[2].start == 0 && c.e[2].size == 0xa && !strcmp(c.e[2].name, "bage"),
	   "perf map: a garbage line parses as perf's strtoull-based reader does");
	is_str(c.e[3].name, "zero size", "perf map: names keep spaces");
	is_str(c.e[4].name, "last_no_newlin", "perf map: perf drops the last character of an unterminated line");

	snprintf(path, sizeof(path), "%s/perf-77.map", tmp);
	write_file(path, text);
	s = pk_symbols_new(&o);
	pk_symbols_mmap(s, 77, 77, 0x7f0000000000ull, 0x10000, 0x7f0000000000ull, "//anon", 2, NULL, 0,
			PROT_READ | PROT_EXEC, 0x22);
	is_str(resolve_name(s, 77, 0x7f0000001024ull, &loc), "Ljava/lang/Object;toString",
	       "JIT symbol from perf-PID.map (not demangled)");
	is_int(loc.symoff, 4, "JIT symoff");
	is_str(resolve_name(s, 77, 0x7f0000003000ull, &loc), "zero size", "zero-size JIT symbol matches its start");
	ok(resolve_name(s, 77, 0x7f0000003001ull, &loc) == NULL, "zero-size JIT symbol has no extent");
	pk_symbols_free(s);
}

struct ks_col {
	int n;
	char names[8][600];
	char types[8];
	uint64_t starts[8];
};

static int ks_collect(void *arg, const char *name, char type, uint64_t start)
{
	struct ks_col *c = arg;

	if (c->n < 8) {
		snprintf(c->names[c->n], sizeof(c->names[0]), "%s", name);
		c->types[c->n] = type;
		c->starts[c->n] = start;
		c->n++;
	}
	return 0;
}

static void test_kallsyms(void)
{
	static const char text[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t local_fn\n"
		"bad line\n"
		"ffffffff81000200 W weak_fn\n"
		"ffffffff81000300 A abs_sym\n"
		"ffffffff81000400 T __x64_sys_read\n"
		"ffffffff81000400 T sys_read_alias\n"
		"ffffffffc0001000 t mod_fn\t[mymod]\n"
		"ffffffffc0001100 t other_mod_fn\t[nomap]\n";
	struct ks_col c = { 0 };
	char path[512];
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp, .kallsyms = path };
	struct pk_symbols *s;
	struct pk_location loc;

	sym_kallsyms_parse(text, sizeof(text) - 1, ks_collect, &c);
	is_int(c.n, 8, "kallsyms: 9 well-formed lines, the first 8 collected, bad line skipped");
	is_str(c.names[2], "local_fn", "kallsyms: name");
	ok(c.types[2] == 't' && c.starts[2] == 0xffffffff81000100ull, "kallsyms: type and address");

	snprintf(path, sizeof(path), "%s/kallsyms", tmp);
	write_file(path, text);
	s = pk_symbols_new(&o);
	pk_symbols_mmap(s, -1, 0, 0xffffffff81000000ull, 0x1000, 0xffffffff81000000ull,
			"[kernel.kallsyms]_text", 1, NULL, 0, 0, 0);
	pk_symbols_mmap(s, -1, 0, 0xffffffffc0001000ull, 0x1000, 0, "/lib/modules/x/mymod.ko", 1, NULL, 0, 0, 0);
	pk_symbols_resolve(s, pk_symbols_thread(s, 5, 5), 1, 0xffffffff81000110ull, &loc);
	is_str(loc.sym ? loc.sym->name : NULL, "local_fn", "kernel symbol from kallsyms");
	is_int(loc.symoff, 0x10, "kernel symoff");
	is_int(loc.addr, 0xffffffff81000110ull, "kernel addr is the ip");
	is_str(loc.dso ? loc.dso->short_name : NULL, "[kernel.kallsyms]", "kernel dso name");
	ok(loc.dso && loc.dso->kernel, "kernel dso flagged");
	pk_symbols_resolve(s, NULL, 1, 0xffffffff81000410ull, &loc);
	is_str(loc.sym ? loc.sym->name : NULL, "sys_read_alias",
	       "duplicates: perf keeps the one with fewer leading underscores");
	pk_symbols_resolve(s, NULL, 1, 0xffffffff81000300ull, &loc);
	is_str(loc.sym ? loc.sym->name : NULL, "weak_fn", "type A symbols are not loaded");
	pk_symbols_resolve(s, NULL, 1, 0xffffffffc0001010ull, &loc);
	is_str(loc.sym ? loc.sym->name : NULL, "mod_fn", "module symbol goes to the module map");
	is_str(loc.dso ? loc.dso->short_name : NULL, "[mymod]", "module dso named [mod]");
	is_int(loc.symoff, 0x10, "module symoff");
	pk_symbols_free(s);

	/* kptr_restrict: all zero addresses resolve nothing */
	write_file(path, "0000000000000000 T _text\n0000000000000000 T foo\n");
	s = pk_symbols_new(&o);
	pk_symbols_mmap(s, -1, 0, 0xffffffff81000000ull, 0x1000, 0xffffffff81000000ull,
			"[kernel.kallsyms]_text", 1, NULL, 0, 0, 0);
	ok(pk_symbols_resolve(s, NULL, 1, 0xffffffff81000010ull, &loc) == 0 && loc.dso,
	   "kptr_restrict kallsyms: kernel map but no symbol");
	pk_symbols_free(s);

	/* another kernel release (with its build-id): kallsyms of this machine is not used */
	o.kallsyms = NULL;
	o.osrelease = "0.0.0-not-this-kernel";
	s = pk_symbols_new(&o);
	pk_symbols_build_id(s, -1, "[kernel.kallsyms]", (const uint8_t *)"0123456789abcdefghij", 20);
	pk_symbols_mmap(s, -1, 0, 0xffffffff81000000ull, 0x1000000, 0xffffffff81000000ull,
			"[kernel.kallsyms]_text", 1, NULL, 0, 0, 0);
	ok(pk_symbols_resolve(s, NULL, 1, 0xffffffff81000010ull, &loc) == 0 && loc.dso,
	   "other osrelease: kernel addresses stay unresolved");
	pk_symbols_free(s);
}

static void test_demangle(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		/* expected strings verified with perf 6.1 report on symbols with these names */
		{ "_ZN3foo3BarIiE3bazEv", "foo::Bar<int>::baz" },
		{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
		{ "_RNvCs1234_7mycrate3foo", "mycrate::foo" },
		{ "_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0123456789abcdefE",
		  "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>" },
		{ "camlStdlib__List__map_123", "Stdlib.List.map_123" },
	};
	size_t i;
	char *d;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		d = pk_demangle(cases[i].in);
		is_str(d, cases[i].want, "demangle %s", cases[i].in);
		free(d);
	}
	ok(pk_demangle("main") == NULL, "plain C name is not mangled");
	if (have("c++filt")) {
		char line[256] = "";
		FILE *p = popen("echo _ZN2ns4workEid | c++filt -p", "r");

		if (p) {
			if (!fgets(line, sizeof(line), p))
				line[0] = '\0';
			pclose(p);
		}
		line[strcspn(line, "\n")] = '\0';
		d = pk_demangle("_ZN2ns4workEid");
		is_str(d, line, "matches c++filt -p (no parameters)");
		free(d);
	}
}

/* addr2line -i -f for one address: functions and "basename:line" per level. */
static int a2l(const char *bin, uint64_t addr, char fn[][128], char pos[][256], int max)
{
	char cmd[1024], l1[512], l2[512];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "addr2line -i -f -e %s 0x%llx", bin, (unsigned long long)addr);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (n < max && fgets(l1, sizeof(l1), p) && fgets(l2, sizeof(l2), p)) {
		char *b, *sp;

		l1[strcspn(l1, "\n")] = '\0';
		l2[strcspn(l2, "\n")] = '\0';
		sp = strstr(l2, " (discriminator");
		if (sp)
			*sp = '\0';
		b = strrchr(l2, '/');
		snprintf(fn[n], 128, "%.127s", l1);
		snprintf(pos[n], 256, "%.255s", b ? b + 1 : l2);
		n++;
	}
	pclose(p);
	return n;
}

static void test_srcline(void)
{
	char bin[512];
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp, .want_srcline = 1 };
	struct pk_symbols *s;
	struct pk_location loc;
	uint64_t mainaddr, a, base = 0x555500000000ull;
	int checked = 0, inl = 0, agree = 0;

	if (!have("addr2line")) {
		ok(1, "# SKIP addr2line not available");
		return;
	}
	snprintf(bin, sizeof(bin), "%s/inl", tmp);
	write_file("/dev/null", "");
	if (sh("cd %s && printf '%%s\\n' 'volatile long x;' "
	       "'static inline __attribute__((always_inline)) long inner(long n){ long r=0; for(long i=0;i<n;i++) r+=x*i; return r; }' "
	       "'static inline __attribute__((always_inline)) long outer(long n){ return inner(n)+inner(n/2); }' "
	       "'int main(int c, char **v){ (void)v; x = outer(c * 1000); return (int)x; }' > inl.c && "
	       "cc -O2 -g -fPIE -pie -o inl inl.c", tmp)) {
		ok(0, "build the inline test program");
		return;
	}
	mainaddr = nm_addr(bin, "main");
	s = pk_symbols_new(&o);
	map_text(s, 60, bin, base);
	for (a = mainaddr; a < mainaddr + 0x60; a += 3) {
		struct pk_srcline sl[8];
		char fn[8][128], pos[8][256], got[300];
		int n, m, i, same;

		resolve_name(s, 60, base + a, &loc);
		if (!loc.sym || strcmp(loc.sym->name, "main"))
			continue;
		n = pk_symbols_srcline(s, &loc, sl, 8);
		m = a2l(bin, a, fn, pos, 8);
		if (m == 0 || strstr(pos[0], "?"))
			continue;
		checked++;
		same = n == m;
		for (i = 0; same && i < n; i++) {
			const char *f = sl[i].file ? strrchr(sl[i].file, '/') : NULL;

			snprintf(got, sizeof(got), "%s:%u", f ? f + 1 : (sl[i].file ? sl[i].file : "??"), sl[i].line);
			if (strcmp(got, pos[i]))
				same = 0;
			if (i > 0 && (!sl[i].func || strcmp(sl[i].func, fn[i - 1])))
				same = 0;
		}
		if (!same)
			diag("0x%llx: %d frames vs addr2line %d (%s)", (unsigned long long)a, n, m, pos[0]);
		agree += same;
		if (n > 1)
			inl++;
	}
	ok(checked >= 5, "srcline: %d addresses in main checked", checked);
	is_int(agree, checked, "srcline and inline chain agree with addr2line -i -f");
	ok(inl > 0, "inline frames found (%d addresses)", inl);
	{
		uint64_t n0 = pk_symbols_nr_lookups(s);
		struct pk_srcline sl[4];

		resolve_name(s, 60, base + mainaddr, &loc);
		ok(pk_symbols_srcline(s, &loc, sl, 4) >= 1 && pk_symbols_nr_lookups(s) == n0,
		   "repeated srcline and lookup are cached");
	}
	pk_symbols_free(s);
}

/* ---- the oracle: perf script's resolution of recorded samples ------------- */

static int perf_usable(void)
{
	return have("perf") && sh("perf record -e cpu-clock -o %s/probe.data -q -- true >/dev/null 2>&1", tmp) == 0;
}

/*
 * Record @prog with perf, then feed perf script's MMAP events to a session
 * and compare each sample's "sym+off (dso)" with perf's own.
 */
static int oracle_freq(const char *name, const char *prog, const char *args, int freq);

static void oracle(const char *name, const char *prog, const char *args)
{
	oracle_freq(name, prog, args, 2000);
}

/* Returns how many samples perf resolved to a symbol in [vdso] and perfkit agreed on. */
static int oracle_freq(const char *name, const char *prog, const char *args, int freq)
{
	char cmd[2048], line[4096];
	struct pk_symbols_opts o = { .sz = sizeof(o) };
	struct pk_symbols *s;
	FILE *p;
	int samples = 0, same = 0, shown = 0, user = 0, vdso = 0;

	if (sh("cd %s && perf record -N -q -e cpu-clock -F %d -o %s.data -- %s %s >/dev/null 2>&1",
	       tmp, freq, name, prog, args)) {
		ok(0, "perf record %s", name);
		return 0;
	}
	snprintf(cmd, sizeof(cmd),
		 "cd %s && perf script -i %s.data -F pid,tid,ip,sym,symoff,dso --show-mmap-events "
		 "--show-task-events 2>/dev/null", tmp, name);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	s = pk_symbols_new(&o);
	while (fgets(line, sizeof(line), p)) {
		char *m, fname[2048], prot[8], want[4200], got[4200], wdso[2048];
		unsigned long long start, len, pgoff, ip;
		int pid, tid, ppid, ptid;

		line[strcspn(line, "\n")] = '\0';
		if ((m = strstr(line, "PERF_RECORD_MMAP2 "))) {
			if (sscanf(m, "PERF_RECORD_MMAP2 %d/%d: [0x%llx(0x%llx) @ %llx %*s %*s %*[^]]]: %7s %2047[^\n]",
				   &pid, &tid, &start, &len, &pgoff, prot, fname) == 7)
				pk_symbols_mmap(s, pid, tid, start, len, pgoff, fname, 2, NULL, 0,
						(prot[0] == 'r' ? PROT_READ : 0) | (prot[1] == 'w' ? PROT_WRITE : 0) |
						(prot[2] == 'x' ? PROT_EXEC : 0), 0);
			continue;
		}
		if ((m = strstr(line, "PERF_RECORD_MMAP "))) {
			if (sscanf(m, "PERF_RECORD_MMAP %d/%d: [0x%llx(0x%llx) @ 0x%llx]: %7s %2047[^\n]",
				   &pid, &tid, &start, &len, &pgoff, prot, fname) == 7)
				pk_symbols_mmap(s, pid, tid, start, len, pgoff, fname,
						pid == -1 ? 1 : 2, NULL, 0, PROT_EXEC, 0);
			continue;
		}
		if ((m = strstr(line, "PERF_RECORD_COMM"))) {
			char comm[64];

			if (sscanf(m, "PERF_RECORD_COMM%*[^:]: %63[^:]:%d/%d", comm, &pid, &tid) == 3)
				pk_symbols_comm(s, pid, tid, comm, strstr(m, "exec") != NULL);
			continue;
		}
		if ((m = strstr(line, "PERF_RECORD_FORK"))) {
			if (sscanf(m, "PERF_RECORD_FORK(%d:%d):(%d:%d)", &pid, &tid, &ppid, &ptid) == 4)
				pk_symbols_fork(s, pid, ppid, tid, ptid, 0);
			continue;
		}
		if (strstr(line, "PERF_RECORD_"))
			continue;
		/* sample: "PID/TID  IP SYM[+OFF] (DSO)" */
		{
			char symtok[2048];
			struct pk_location loc;
			struct pk_thread *t;
			char *lp = strrchr(line, '(');

			if (!lp || sscanf(line, "%d/%d %llx", &pid, &tid, &ip) != 3)
				continue;
			snprintf(wdso, sizeof(wdso), "%.*s", (int)(strlen(lp) - 2), lp + 1);
			/* the symbol is everything between the ip and " (" */
			{
				char *q = strstr(line, "/");
				char *after;

				q = strchr(q, ' ');
				while (*q == ' ')
					q++;
				after = strchr(q, ' ');
				if (!after)
					continue;
				while (*after == ' ')
					after++;
				snprintf(symtok, sizeof(symtok), "%.*s", (int)(lp - after - 1 > 0 ? lp - after - 1 : 0), after);
			}
			snprintf(want, sizeof(want), "%s (%s)", symtok, wdso);
			t = pk_symbols_thread(s, pid, tid);
			pk_symbols_resolve(s, t, ip >= 0xffff800000000000ull ? 1 : 2, ip, &loc);
			if (loc.sym)
				snprintf(got, sizeof(got), "%s+0x%llx (%s)", loc.sym->name,
					 (unsigned long long)loc.symoff, loc.dso->name);
			else
				snprintf(got, sizeof(got), "[unknown] (%s)", loc.dso ? loc.dso->name : "[unknown]");
			samples++;
			user += ip < 0xffff800000000000ull;
			if (!strcmp(want, got)) {
				same++;
				vdso += loc.sym && !strcmp(wdso, "[vdso]");
			} else if (shown++ < 5)
				diag("%s ip %llx: perf '%s', perfkit '%s'", name, ip, want, got);
		}
	}
	pclose(p);
	pk_symbols_free(s);
	ok(samples > 20 && user > 10, "%s: perf recorded %d samples (%d user)", name, samples, user);
	is_int(same, samples, "%s: every sample resolves like perf script (sym+off, dso)", name);
	return vdso;
}

static void test_oracle(void)
{
	if (!perf_usable()) {
		ok(1, "# SKIP perf record is not usable here");
		return;
	}
	oracle("pie", "./pie", "x");
	oracle("npie", "./npie", "x");
	if (sh("cd %s && printf '%%s\\n' '#include <string.h>' '#include <stdlib.h>' "
	       "'static int cmp(const void *a, const void *b){ return *(const int*)a - *(const int*)b; }' "
	       "'int main(void){ static int v[1<<20]; static char buf[1<<20]; long t=0; "
	       "for(int k=0;k<40;k++){ for(int i=0;i<(1<<20);i++) v[i]=(i*2654435761u)>>7; qsort(v,1<<20,sizeof(int),cmp); "
	       "memset(buf,k+1,sizeof buf-1); t+=strlen(buf);} return (int)(t&1); }' > libcw.c && cc -O1 -o libcw libcw.c", tmp) == 0)
		oracle("libc", "./libcw", "");
	if (sh("cd %s && printf '%%s\\n' 'volatile long x;' "
	       "'__attribute__((noinline)) void f1(void) __asm__(\"_ZN4core3fmt5write17h0123456789abcdefE\");' "
	       "'void f1(void){ for(long i=0;i<30000000;i++) x+=i; }' "
	       "'__attribute__((noinline)) void f2(void) __asm__(\"_RNvCs1234_7mycrate3foo\");' "
	       "'void f2(void){ for(long i=0;i<30000000;i++) x+=i; }' "
	       "'__attribute__((noinline)) void f3(void) __asm__(\"_ZN3foo3BarIiE3bazEv\");' "
	       "'void f3(void){ for(long i=0;i<30000000;i++) x+=i; }' "
	       "'int main(void){ f1(); f2(); f3(); return 0; }' > mangled.c && cc -O1 -o mangled mangled.c", tmp) == 0)
		oracle("mangled", "./mangled", "");
	if (sh("cd %s && printf '%%s\\n' '#include <sys/mman.h>' '#include <string.h>' '#include <stdio.h>' '#include <unistd.h>' "
	       "'int main(void){ unsigned char code[]={0x48,0xc7,0xc0,0,0,0,0,0x48,0xff,0xc0,0x48,0x3d,0x00,0xe1,0xf5,0x05,0x75,0xf5,0xc3};' "
	       "' unsigned char *p=mmap(0,4096,PROT_READ|PROT_WRITE|PROT_EXEC,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); memcpy(p,code,sizeof code);' "
	       "' char fn[64]; snprintf(fn,64,\"/tmp/perf-%%d.map\",getpid()); FILE *f=fopen(fn,\"w\"); fprintf(f,\"%%lx 13 jitted_loop\\n\",(unsigned long)p); fclose(f);' "
	       "' for(int i=0;i<4;i++) ((void(*)(void))p)(); return 0; }' > jit.c && cc -O1 -o jit jit.c", tmp) == 0) {
		oracle("jit", "./jit", "");
		sh("rm -f $(cd %s && perf script -i jit.data --show-task-events 2>/dev/null | "
		   "awk '/PERF_RECORD_COMM/ {split($NF,a,\"/\"); print \"/tmp/perf-\" a[1] \".map\"}' | sort -u | grep '^/tmp/perf-[0-9]*.map$')", tmp);
	}
}

/* ---- [vdso], kernel modules, FORK_EXEC, another kernel's map --------------- */

/* st_value of @want in this process's vdso .dynsym, read here with libelf; 0 if absent. */
static uint64_t own_vdso_sym(const char *want)
{
	void *img;
	size_t size;
	Elf *e;
	Elf_Scn *scn = NULL;
	uint64_t v = 0;

	if (sym_vdso_image(&img, &size))
		return 0;
	elf_version(EV_CURRENT);
	e = elf_memory(img, size);
	while (e && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(d, (int)i, &sym) && (n = elf_strptr(e, sh.sh_link, sym.st_name)) &&
			    !strcmp(n, want))
				v = sym.st_value;
		}
	}
	if (e)
		elf_end(e);
	free(img);
	return v;
}

static void test_vdso(void)
{
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp };
	uint64_t fn = own_vdso_sym("__vdso_clock_gettime"), base = 0x7f0000100000ull;
	struct pk_location loc;
	struct pk_symbols *s;
	struct utsname u;
	int vdso;

	if (!fn || uname(&u)) {
		ok(1, "# SKIP no vdso with __vdso_clock_gettime in this process");
	} else {
		/* pgoff as recorded is ignored: perf's [vdso] map uses pgoff 0 */
		o.osrelease = u.release;
		s = pk_symbols_new(&o);
		pk_symbols_mmap(s, 40, 40, base, 0x2000, 0x1234, "[vdso]", 2, NULL, 0,
				PROT_READ | PROT_EXEC, 0);
		pk_symbols_resolve(s, pk_symbols_thread(s, 40, 40), 2, base + fn + 3, &loc);
		is_str(loc.sym ? loc.sym->name : NULL, "__vdso_clock_gettime",
		       "[vdso] of this kernel: symbols from this process's vdso image");
		is_int(loc.symoff, 3, "[vdso] symoff");
		is_str(loc.dso ? loc.dso->name : NULL, "[vdso]", "[vdso] dso name");
		pk_symbols_free(s);

		o.osrelease = "0.0.0-not-this-kernel";
		s = pk_symbols_new(&o);
		pk_symbols_mmap(s, 40, 40, base, 0x2000, 0, "[vdso]", 2, NULL, 0,
				PROT_READ | PROT_EXEC, 0);
		pk_symbols_resolve(s, pk_symbols_thread(s, 40, 40), 2, base + fn + 3, &loc);
		ok(!loc.sym && loc.dso, "[vdso] of another kernel: not resolved from this one's image");
		pk_symbols_free(s);

		o.osrelease = NULL;
		s = pk_symbols_new(&o);
		pk_symbols_build_id(s, 40, "[vdso]", (const uint8_t *)"0123456789abcdefghij", 20);
		pk_symbols_mmap(s, 40, 40, base, 0x2000, 0, "[vdso]", 2, NULL, 0,
				PROT_READ | PROT_EXEC, 0);
		pk_symbols_resolve(s, pk_symbols_thread(s, 40, 40), 2, base + fn + 3, &loc);
		ok(!loc.sym, "[vdso] with another build-id: this image is not used");
		pk_symbols_free(s);
	}

	/*
	 * The oracle: perf script on a clock_gettime loop recorded here. Built
	 * with -fno-plt: a sample in a PLT stub, which overlaps _init's fixed-up
	 * end, resolves to whichever of the two perf's rb-tree walk meets first.
	 */
	if (!perf_usable()) {
		ok(1, "# SKIP perf record is not usable here");
		return;
	}
	if (sh("cd %s && printf '%%s\\n' '#include <time.h>' "
	       "'int main(void){ struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);' "
	       "' do clock_gettime(CLOCK_MONOTONIC, &b); while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 300000000L);' "
	       "' return 0; }' > cgt.c && cc -O1 -fno-plt -o cgt cgt.c", tmp)) {
		ok(0, "build the clock_gettime loop");
		return;
	}
	vdso = oracle_freq("vdso", "./cgt", "", 9999);
	ok(vdso > 100, "vdso: %d samples resolved in [vdso] like perf (> 100)", vdso);
}

static void test_modules(void)
{
	static const char pata[] = "/lib/modules/3.13.0-76-generic/kernel/drivers/ata/pata_acpi.ko";
	static const char usbnet[] = "/lib/modules/3.8.11/kernel/drivers/net/usb/usbnet.ko";
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp, .osrelease = "0.0.0-not-this-kernel" };
	struct pk_symbols *s = pk_symbols_new(&o);
	struct pk_location loc;

	/* as in simpleperf/perf.data: the build-id table lists the module by path */
	pk_symbols_build_id(s, -1, pata, (const uint8_t *)"0123456789abcdefghij", 20);
	pk_symbols_build_id(s, -1, "[kernel.kallsyms]", (const uint8_t *)"abcdefghij0123456789", 20);
	pk_symbols_mmap(s, -1, 0, 0xffffffff81000000ull, 0x1000000, 0xffffffff81000000ull,
			"[kernel.kallsyms]_text", 1, NULL, 0, 0, 0);
	pk_symbols_mmap(s, -1, 0, 0xffffffffc0000000ull, 0x5000, 0, pata, 1, NULL, 0, 0, 0);
	pk_symbols_mmap(s, -1, 0, 0xffffffffc0010000ull, 0x5000, 0, usbnet, 1, NULL, 0, 0, 0);
	pk_symbols_mmap(s, -1, 0, 0xffffffffc0020000ull, 0x5000, 0,
			"/lib/modules/6.1/kernel/net/netfilter/nf-nat.ko.xz", 1, NULL, 0, 0, 0);
	pk_symbols_resolve(s, NULL, 1, 0xffffffffc0000010ull, &loc);
	is_str(loc.dso ? loc.dso->name : NULL, pata, "module with a build-id entry: dso named by its path");
	is_str(loc.dso ? loc.dso->short_name : NULL, "[pata_acpi]", "module short name [pata_acpi]");
	ok(loc.dso && loc.dso->kernel && loc.dso->build_id_size == 20, "module dso: kernel, build-id kept");
	pk_symbols_resolve(s, NULL, 1, 0xffffffffc0010010ull, &loc);
	is_str(loc.dso ? loc.dso->name : NULL, "[usbnet]", "module without a build-id entry: dso named [usbnet]");
	is_str(loc.dso ? loc.dso->short_name : NULL, "[usbnet]", "its short name");
	pk_symbols_resolve(s, NULL, 1, 0xffffffffc0020010ull, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "[nf_nat]", "nf-nat.ko.xz: short name [nf_nat]");
	pk_symbols_free(s);

	/*
	 * The entry's misc decides, as in simpleperf/generated_by_linux_perf.data:
	 * honeevent.ko listed with misc USER (2) stays "[honeevent]" in perf
	 * script; with misc KERNEL (1) it would be its path.
	 */
	s = pk_symbols_new(&o);
	pk_symbols_build_id_misc(s, -1, 2, "/lib/modules/3.13.0-93-generic/updates/dkms/honeevent.ko",
				 (const uint8_t *)"0123456789abcdefghij", 20);
	pk_symbols_build_id_misc(s, -1, 1, pata, (const uint8_t *)"abcdefghij0123456789", 20);
	pk_symbols_mmap(s, -1, 0, 0xffffffffa063d000ull, 0xa67000, 0,
			"/lib/modules/3.13.0-93-generic/updates/dkms/honeevent.ko", 1, NULL, 0, 0, 0);
	pk_symbols_mmap(s, -1, 0, 0xffffffffc0000000ull, 0x5000, 0, pata, 1, NULL, 0, 0, 0);
	pk_symbols_resolve(s, NULL, 1, 0xffffffffa063dbd0ull, &loc);
	is_str(loc.dso ? loc.dso->name : NULL, "[honeevent]", "module with a user-space build-id entry: [honeevent]");
	pk_symbols_resolve(s, NULL, 1, 0xffffffffc0000010ull, &loc);
	is_str(loc.dso ? loc.dso->name : NULL, pata, "module with a kernel build-id entry (misc 1): its path");
	pk_symbols_free(s);
}

/* pk_symbols_on_dso_change: called before a DSO handed out changes its names, and only then. */
struct dso_watch {
	const struct pk_dso *dso;   /* the DSO a reader holds */
	int calls;
	char short_then[64];        /* its short name when called */
};

static void on_dso_change(void *ctx)
{
	struct dso_watch *w = ctx;

	w->calls++;
	snprintf(w->short_then, sizeof(w->short_then), "%s", w->dso ? w->dso->short_name : "");
}

static void test_dso_change_hook(void)
{
	static const char ko[] = "/lib/modules/6.1/extra/foo.ko";
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp, .osrelease = "0.0.0-not-this-kernel" };
	struct pk_symbols *s = pk_symbols_new(&o);
	struct dso_watch w = { 0 };
	struct pk_location loc;

	is_int(pk_symbols_on_dso_change(s, on_dso_change, &w), 0, "dso change hook: set");
	is_int(pk_symbols_on_dso_change(s, on_dso_change, &w), -EBUSY, "dso change hook: one at a time");
	pk_symbols_mmap(s, -1, 0, 0xffffffff81000000ull, 0x1000000, 0xffffffff81000000ull,
			"[kernel.kallsyms]_text", 1, NULL, 0, 0, 0);
	pk_symbols_mmap(s, -1, 0, 0xffffffffc0010000ull, 0x5000, 0,
			"/lib/modules/6.1/kernel/drivers/net/usb/usbnet.ko", 1, NULL, 0, 0, 0);
	pk_symbols_mmap(s, 100, 100, 0x400000, 0x1000, 0, "/usr/bin/prog", 2, NULL, 0, 5, 0);
	/* a .ko mapped by a process is a user DSO, "foo.ko" */
	pk_symbols_mmap(s, 100, 100, 0x500000, 0x1000, 0, ko, 2, NULL, 0, 5, 0);
	pk_symbols_resolve(s, pk_symbols_thread(s, 100, 100), 2, 0x500010, &loc);
	w.dso = loc.dso;
	is_int(w.calls, 0, "dso change hook: not called for new DSOs (kernel, module, user)");
	is_str(loc.dso ? loc.dso->short_name : NULL, "foo.ko", "dso change hook: the user DSO is foo.ko");
	/* a kernel build-id entry for the same path makes that DSO the module [foo] */
	pk_symbols_build_id_misc(s, -1, 1, ko, (const uint8_t *)"0123456789abcdefghij", 20);
	is_int(w.calls, 1, "dso change hook: called once when a DSO handed out becomes a module");
	is_str(w.short_then, "foo.ko", "dso change hook: called before the change");
	is_str(loc.dso ? loc.dso->short_name : NULL, "[foo]", "dso change hook: then renamed [foo]");
	pk_symbols_build_id_misc(s, -1, 1, ko, (const uint8_t *)"0123456789abcdefghij", 20);
	is_int(w.calls, 1, "dso change hook: not called when nothing changes");
	pk_symbols_on_dso_change(s, NULL, NULL);
	pk_symbols_build_id_misc(s, -1, 1, "/lib/modules/6.1/extra/bar.ko", (const uint8_t *)"0123456789abcdefghij", 20);
	is_int(w.calls, 1, "dso change hook: removed with NULL");
	pk_symbols_free(s);
}

static void test_fork_exec(void)
{
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp };
	struct pk_symbols *s = pk_symbols_new(&o);
	struct pk_location loc;
	struct pk_thread *t;

	pk_symbols_comm(s, 50, 50, "sh", 0);
	pk_symbols_mmap(s, 50, 50, 0x400000, 0x1000, 0, "/nonexistent/sh", 2, NULL, 0, PROT_EXEC, 2);
	/* a FORK perf synthesized for an exec: misc PERF_RECORD_MISC_FORK_EXEC (1 << 13) */
	pk_symbols_fork(s, 51, 50, 51, 50, 1u << 13);
	t = pk_symbols_thread(s, 51, 51);
	is_str(t->comm, "sh", "FORK_EXEC child inherits the comm");
	pk_symbols_resolve(s, t, 2, 0x400010, &loc);
	ok(!loc.map && !loc.dso, "FORK_EXEC child does not get the parent's maps");
	/* a plain FORK copies them */
	pk_symbols_fork(s, 52, 50, 52, 50, 0);
	pk_symbols_resolve(s, pk_symbols_thread(s, 52, 52), 2, 0x400010, &loc);
	is_str(loc.dso ? loc.dso->short_name : NULL, "sh", "plain FORK child gets the parent's maps");
	pk_symbols_free(s);
}

/*
 * A file from another kernel with no kernel build-id: perf 6.1 bounds the
 * kernel map by this machine's kallsyms (map__fixup_start/end), so
 * addresses outside this kernel's range have no map.
 */
static void test_other_kernel_extent(void)
{
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp, .osrelease = "0.0.0-not-this-kernel" };
	uint64_t text = 0, lowest = UINT64_MAX, a;
	struct pk_symbols *s;
	struct pk_location loc;
	char line[1024], type, name[512];
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (strchr(line, '[') || sscanf(line, "%llx %c %511s", &v, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			text = v;
		if (strchr("TtWwDdBb", type) && v < lowest)
			lowest = v;
	}
	if (f)
		fclose(f);
	if (!text || lowest < 0x2000) {
		ok(1, "# SKIP /proc/kallsyms unreadable or restricted");
		return;
	}
	/* as in simpleperf/perf_with_jit_symbol.data: kernel MMAP [0, ~0), no kernel build-id */
	s = pk_symbols_new(&o);
	pk_symbols_mmap(s, -1, 0, 0, UINT64_MAX, 0, "[kernel.kallsyms]", 1, NULL, 0, 0, 0);
	a = lowest - 0x1000;
	pk_symbols_resolve(s, NULL, 1, a, &loc);
	/* perf's thread__find_map(): the lookup that loads kallsyms still uses the old map */
	is_str(loc.dso ? loc.dso->name : NULL, "[kernel.kallsyms]",
	       "other kernel, no build-id: the first kernel lookup uses the recorded map, as perf");
	pk_symbols_resolve(s, NULL, 1, a, &loc);
	ok(!loc.map && !loc.dso, "... then the map is bounded: %llx below this kernel has no map",
	   (unsigned long long)a);
	pk_symbols_resolve(s, NULL, 1, text + 0x10, &loc);
	is_str(loc.dso ? loc.dso->name : NULL, "[kernel.kallsyms]", "... _text+0x10 is in the kernel map");
	ok(!loc.sym, "... but resolves to no symbol (another kernel)");
	pk_symbols_free(s);

	/* with the kernel's build-id perf finds no kallsyms: the map stays as recorded */
	s = pk_symbols_new(&o);
	pk_symbols_build_id(s, -1, "[kernel.kallsyms]", (const uint8_t *)"abcdefghij0123456789", 20);
	pk_symbols_mmap(s, -1, 0, 0, UINT64_MAX, 0, "[kernel.kallsyms]", 1, NULL, 0, 0, 0);
	pk_symbols_resolve(s, NULL, 1, a, &loc);
	is_str(loc.dso ? loc.dso->name : NULL, "[kernel.kallsyms]",
	       "other kernel with its build-id: the recorded map is kept");
	pk_symbols_free(s);
}

/* The dso column of `perfkit script` and `perfkit report --sort dso` against perf on corpus files. */
static void test_corpus_dso(void)
{
	static const char *const files[] = {
		"simpleperf/perf.data", "quipper/perf.data.callgraph_and_branch-3.8",
		"simpleperf/perf_with_jit_symbol.data",
	};
	const char *build = getenv("PK_BUILD") ? getenv("PK_BUILD") : "build";
	char path[1024], pk[1024];
	size_t i;

	snprintf(pk, sizeof(pk), "%s/perfkit", build);
	if (access(pk, X_OK) || !have("perf")) {
		ok(1, "# SKIP %s or perf missing: no corpus dso comparison", pk);
		return;
	}
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/data/perf.data/%s", shared_dir(), files[i]);
		if (access(path, R_OK)) {
			ok(1, "# SKIP %s not found", path);
			continue;
		}
		/* only the dso column: other machines' kernel symbols differ by design */
		sh("perf script -i %s -F ip,sym,dso 2>/dev/null | grep -o '([^()]*)$' > %s/dso.perf", path, tmp);
		sh("%s script -i %s -F ip,sym,dso 2>/dev/null | grep -o '([^()]*)$' > %s/dso.pk", pk, path, tmp);
		ok(sh("test -s %s/dso.perf && cmp -s %s/dso.perf %s/dso.pk", tmp, tmp, tmp) == 0,
		   "%s: perfkit script dso column like perf script", files[i]);
		sh("perf report -i %s --stdio --no-children --sort dso 2>/dev/null | grep -v '^#' | grep . > %s/rep.perf",
		   path, tmp);
		sh("%s report -i %s --stdio --no-children --sort dso 2>/dev/null | grep -v '^#' | grep . > %s/rep.pk",
		   pk, path, tmp);
		ok(sh("test -s %s/rep.perf && cmp -s %s/rep.perf %s/rep.pk", tmp, tmp, tmp) == 0,
		   "%s: report --sort dso like perf", files[i]);
	}
}

static void test_load_speed(void)
{
	const char *libs[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6" };
	struct pk_symbols_opts o = { .sz = sizeof(o), .home = tmp };
	size_t i;

	for (i = 0; i < 2; i++) {
		struct pk_symbols *s;
		struct pk_location loc;
		struct timespec t0, t1;
		uint64_t off, va, sz;
		double ms;

		if (access(libs[i], R_OK) || text_load(libs[i], &off, &va, &sz))
			continue;
		s = pk_symbols_new(&o);
		map_text(s, 90, libs[i], 0x7f0000000000ull);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		resolve_name(s, 90, 0x7f0000000000ull + va + 0x100, &loc);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
		ok(loc.dso && loc.dso->has_symbols, "libc symbols loaded");
		ok(ms < 50, "libc symbol load took %.2f ms (< 50 ms)", ms);
		pk_symbols_free(s);
		return;
	}
	ok(1, "# SKIP no libc.so.6 found");
}

int main(void)
{
	char prog[512];

	if (!have("cc") || !have("nm")) {
		skip_all("cc and nm are needed to build test binaries");
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "/tmp/pk-symbols-XXXXXX");
	if (!mkdtemp(tmp)) {
		skip_all("cannot create a temporary directory");
		return 0;
	}
	snprintf(prog, sizeof(prog), "%s/prog.c", tmp);
	write_file(prog, prog_c);

	test_elf_pie_nonpie();
	test_maps_threads();
	test_shlib_cxx_cache();
	test_debug_files();
	test_perfmap();
	test_kallsyms();
	test_demangle();
	test_srcline();
	test_load_speed();
	test_modules();
	test_dso_change_hook();
	test_fork_exec();
	test_other_kernel_extent();
	test_corpus_dso();
	test_oracle();
	test_vdso();

	if (!getenv("PK_KEEP_TMP"))
		sh("rm -rf %s", tmp);
	return done_testing();
}
