/*
 * perfkit report against perf report on a written file whose call chains
 * hold context markers where broken or foreign chains put them: a marker
 * perf does not know (0xffff...ffff at the far end of a frame-pointer chain
 * that ran into garbage, a GUEST marker among user frames) above, below and
 * between the kept entries, repeated markers, address 0, kernel-only
 * chains. perf discards a chain when it meets such a marker, and which
 * markers it meets depends on the order it walks the chain and where
 * --max-stack stops it: from the leaf with --no-children and -g callee, from
 * the far end with Children's default caller order. The oracle is perf
 * itself, on the same file, with --max-stack 1 to 6 in each order. Kernel
 * frames are real functions of the running kernel (from /proc/kallsyms),
 * user frames are this program's functions behind an MMAP record. The same
 * file without the kernel MMAP (what kptr_restrict leaves) has no kernel
 * map in perf, whose kernel frames stay unresolved, and perf warns. Skips
 * without a usable perf or readable kernel symbol addresses.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfkit/perfdata.h>
#include "../tap.h"
#include "perfdata_write.h"
#include "report_vs_perf.h"

#define PID 4343
#define PROG_BASE 0x560000000000ull
#define K ((uint64_t)PERF_CONTEXT_KERNEL)
#define U ((uint64_t)PERF_CONTEXT_USER)
#define BAD 0xffffffffffffffffull                       /* no context perf knows */
#define GUEST ((uint64_t)PERF_CONTEXT_GUEST_KERNEL)
#define END 0x1ull                                      /* end of a chain in the table below */

/* Placeholders in the chains, replaced by real addresses: kernel k0..k3, user u0..u3. */
enum { K0 = 0x100, K1, K2, K3, U0 = 0x200, U1, U2, U3 };

static const uint64_t chains[][12] = {
	{ K, K0, K1, K2, K3, U, U0, BAD, END },         /* garbage at the far end (CI's recording) */
	{ BAD, K0, U, U0, U1, U2, END },                /* below the marker that sets the kept cpumode */
	{ K, K0, BAD, K1, U, U0, U1, END },             /* between kernel frames */
	{ K, K0, K1, U, U0, U1, U2, U3, END },          /* clean */
	{ K, K0, U, U0, 0, END },                       /* address 0 at the far end */
	{ K, K0, K1, U, U, U0, K, K2, U1, END },        /* repeated and odd markers */
	{ U, U0, U1, GUEST, U2, U3, END },              /* a guest marker among user frames */
	{ K, K1, K2, K3, END },                         /* kernel only */
	{ U1, U2, U3, END },                            /* no marker at all */
};
#define NR_CHAINS (sizeof(chains) / sizeof(chains[0]))

static uint64_t kernel_addr[4], user_addr[4], kernel_text, kernel_end;

/*
 * Kernel functions every x86-64 and arm64 kernel has, and the kernel's _text
 * and _etext, from /proc/kallsyms; 0 or -1.
 */
static int kernel_functions(void)
{
	static const char *const names[4] = { "schedule", "vfs_read", "do_sys_poll", "kthread" };
	char line[512], name[256], type;
	unsigned long long addr;
	unsigned found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || strchr(line, '[') || !addr)
			continue;
		if (!strcmp(name, "_text"))
			kernel_text = addr;
		else if (!strcmp(name, "_etext"))
			kernel_end = addr;
		for (unsigned i = 0; i < 4; i++)
				if (!kernel_addr[i] && addr && !strcmp(name, names[i])) {
					kernel_addr[i] = addr + 4;
					found++;
				}
	}
	fclose(f);
	return found == 4 && kernel_text && kernel_end > kernel_text ? 0 : -1;
}

static uint64_t address(uint64_t v)
{
	if (v >= K0 && v <= K3)
		return kernel_addr[v - K0];
	if (v >= U0 && v <= U3)
		return user_addr[v - U0];
	return v;
}

/* Sample of chain @c: IP (the first address entry), TID, TIME, PERIOD, CALLCHAIN. */
static size_t sample_record(uint64_t *buf, unsigned c, unsigned k)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	size_t w = 1, n = 0, ip_at = 0;

	while (chains[c][n] != END)
		n++;
	while (chains[c][ip_at] >= (uint64_t)PERF_CONTEXT_MAX)
		ip_at++;
	buf[w++] = address(chains[c][ip_at]);
	buf[w++] = (uint64_t)PID << 32 | PID;
	buf[w++] = 1000000 + 1000 * (uint64_t)k;
	buf[w++] = 1000 * (c + 1);                  /* a chain's rows have their own percentages */
	buf[w++] = n;
	for (size_t i = 0; i < n; i++)
		buf[w++] = address(chains[c][i]);
	h->type = PERF_RECORD_SAMPLE;
	h->misc = buf[1] >> 63 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(w * 8);
	return w * 8;
}

/* The file; without @kernel_mmap it has no kernel map, as under kptr_restrict. */
static int write_file(const char *path, int kernel_mmap)
{
	enum { REPEAT = 3, NR_RECS = 3 + REPEAT * NR_CHAINS };
	static uint64_t recs[NR_RECS][64];
	static const uint64_t ids[] = { 1 };
	const void *funcs[4] = { (const void *)write_file, (const void *)sample_record,
				 (const void *)address, (const void *)kernel_functions };
	struct perf_event_attr attr = { 0 };
	struct pk_writer_evsel ev = { .attr = &attr, .name = "cpu-clock", .ids = ids, .nr_ids = 1 };
	size_t lens[NR_RECS], r = 0;
	char self[PATH_MAX];
	Dl_info di;

	if (!realpath("/proc/self/exe", self) || !dladdr((const void *)write_file, &di) || !di.dli_fbase)
		return -1;
	for (unsigned i = 0; i < 4; i++)
		user_addr[i] = PROG_BASE + (uint64_t)((const char *)funcs[i] - (const char *)di.dli_fbase) + 1;
	cpu_clock_attr(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_CALLCHAIN);
	lens[r] = comm_record(recs[r], PID, "chains");
	r++;
	if (kernel_mmap) {
		lens[r] = mmap_record(recs[r], UINT32_MAX, 0, kernel_text, kernel_end - kernel_text,
				      kernel_text, "[kernel.kallsyms]_text");   /* as perf record writes it */
		r++;
	}
	lens[r] = mmap_record(recs[r], PID, PID, PROG_BASE, 0x1000000, 0, self);
	r++;
	for (unsigned k = 0; k < REPEAT * NR_CHAINS; k++, r++)
		lens[r] = sample_record(recs[r], k % NR_CHAINS, k);
	return write_perfdata(path, &ev, 1, recs, lens, r);
}

int main(void)
{
	static const char *const forms[] = {
		"",                                     /* Children, caller order: from the far end */
		"--no-children",                        /* callee order: from the leaf */
		"--no-children -g caller",
		"-g callee",
		"--no-children -g folded",
	};
	const char *perfkit;
	char dir[] = "/tmp/pk-report-chains.XXXXXX", file[600], cmd[2400], args[200];

	if (kernel_functions() < 0)
		skip_all("no kernel symbol addresses in /proc/kallsyms");
	perfkit = vs_perf_start(dir);
	if (!perfkit)
		return done_testing();
	snprintf(file, sizeof(file), "%s/chains.data", dir);
	if (ok(!write_file(file, 1), "file with markers in odd places written"))
		for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++)
			for (int max = 0; max <= 6; max++) {
				if (max)
					snprintf(args, sizeof(args), "%s --max-stack %d", forms[f], max);
				else
					snprintf(args, sizeof(args), "%s", forms[f]);
				same_rows(perfkit, file, "chains.data", args);
			}
	/* no kernel MMAP: perf makes no kernel map, its frames stay unresolved, and it warns */
	snprintf(file, sizeof(file), "%s/nokernel.data", dir);
	if (ok(!write_file(file, 0), "the same file without the kernel MMAP written")) {
		same_rows(perfkit, file, "nokernel.data", "--no-children");
		same_rows(perfkit, file, "nokernel.data", "--max-stack 3");
		snprintf(cmd, sizeof(cmd), "'%s' report --stdio -i '%s' 2>&1 >/dev/null | "
			 "grep -q \"'%s': the recording has no kernel map\"", perfkit, file, file);
		ok(system(cmd) == 0, "nokernel.data: perfkit warns that kernel samples are not resolved");
		snprintf(cmd, sizeof(cmd), "perf report --stdio -i '%s' 2>&1 >/dev/null | "
			 "grep -q 'kernel samples$'", file);
		ok(system(cmd) == 0, "nokernel.data: as perf does (\"kernel samples can't be resolved\")");
		snprintf(cmd, sizeof(cmd), "'%s' report --stdio -q -i '%s' 2>&1 >/dev/null | grep -q 'kernel map'",
			 perfkit, file);
		ok(system(cmd) != 0, "nokernel.data: no warning with -q");
	}
	snprintf(file, sizeof(file), "%s/chains.data", dir);
	snprintf(cmd, sizeof(cmd), "'%s' report --stdio -i '%s' 2>&1 >/dev/null | grep -q 'kernel map'",
		 perfkit, file);
	ok(system(cmd) != 0, "chains.data: no kernel-map warning with the kernel MMAP");
	rm_tree(dir);
	return done_testing();
}
