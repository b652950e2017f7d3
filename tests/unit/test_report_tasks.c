/*
 * perfkit report --tasks and --mmaps against perf report on a written file
 * whose threads test the order and the tree: tids in different and the same
 * of perf's 256 thread tables (300 before 50: table 44 before 50; 7 before
 * 263: both table 7), threads FORKed from a thread and from a process, a new
 * process FORKed from a worker thread, an exited thread, a thread with no
 * COMM (":tid"), and maps from MMAP (no inode, PROT_EXEC only) and MMAP2
 * (prot, MAP_SHARED, inode), one file under two inodes and one MMAP of a
 * file an MMAP2 gave an inode. The oracle is perf itself: both print the
 * same text, also with a FORK from a thread the file never names (the FORK
 * makes it). Skips without a usable perf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfkit/perfdata.h>
#include "../tap.h"
#include "perfdata_write.h"
#include "report_vs_perf.h"

static size_t exit_record(uint64_t *buf, uint32_t pid, uint32_t tid)
{
	size_t n = fork_record(buf, pid, pid, tid, tid);

	((struct perf_event_header *)buf)->type = PERF_RECORD_EXIT;
	return n;
}

/* An MMAP2 record of @path with inode @ino, @prot and @flags. */
static size_t mmap2_record(uint64_t *buf, uint32_t pid, uint32_t tid, uint64_t addr, uint64_t len,
			   uint64_t ino, uint32_t prot, uint32_t flags, const char *path)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	uint32_t *ids = (uint32_t *)(buf + 1);
	size_t name = strlen(path) + 1, size = 8 + 8 + 24 + 8 + 16 + 8 + ((name + 7) & ~(size_t)7);
	uint32_t *w;

	memset(buf, 0, size);
	ids[0] = pid;
	ids[1] = tid;
	buf[2] = addr;
	buf[3] = len;
	buf[4] = 0x1000;                        /* pgoff */
	w = (uint32_t *)(buf + 5);
	w[0] = 8;                               /* maj, min */
	w[1] = 17;
	buf[6] = ino;
	buf[7] = 1;                             /* ino_generation */
	w = (uint32_t *)(buf + 8);
	w[0] = prot;
	w[1] = flags;
	memcpy(buf + 9, path, name);
	h->type = PERF_RECORD_MMAP2;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)size;
	return size;
}

static int write_file(const char *path, int orphan)
{
	static uint64_t recs[32][64];
	static const uint64_t ids[] = { 1 };
	struct perf_event_attr attr = { 0 };
	struct pk_writer_evsel ev = { .attr = &attr, .name = "cpu-clock", .ids = ids, .nr_ids = 1 };
	size_t lens[32], r = 0;

	cpu_clock_attr(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	lens[r] = comm_record(recs[r], 300, "server");
	r++;
	lens[r] = comm_record(recs[r], 50, "shell");
	r++;
	lens[r] = comm_record(recs[r], 7, "init");
	r++;
	lens[r] = comm_record(recs[r], 263, "daemon");
	r++;
	lens[r] = fork_record(recs[r], 300, 300, 301, 300);        /* a worker of 300 */
	r++;
	lens[r] = fork_record(recs[r], 300, 300, 302, 301);        /* a worker FORKed by a worker */
	r++;
	lens[r] = fork_record(recs[r], 600, 300, 600, 302);        /* a process FORKed by a worker */
	r++;
	lens[r] = fork_record(recs[r], 50, 50, 51, 50);
	r++;
	lens[r] = exit_record(recs[r], 50, 51);                    /* exited: perf 6.1 keeps it */
	r++;
	lens[r] = fork_record(recs[r], 1000, 7, 1000, 7);          /* no COMM after: inherits "init" */
	r++;
	lens[r] = mmap_record(recs[r], 300, 300, 0x400000, 0x2000, 0, "/usr/bin/server");
	r++;
	lens[r] = mmap2_record(recs[r], 300, 300, 0x7f0000000000ull, 0x10000, 4242, PROT_READ | PROT_EXEC,
			       MAP_PRIVATE, "/usr/lib/libx.so");
	r++;
	lens[r] = mmap2_record(recs[r], 300, 300, 0x7f0000100000ull, 0x1000, 77, PROT_READ | PROT_WRITE,
			       MAP_SHARED, "/dev/shm/ring");
	r++;
	lens[r] = mmap2_record(recs[r], 50, 50, 0x7f0000000000ull, 0x10000, 4343, PROT_READ | PROT_EXEC,
			       MAP_PRIVATE, "/usr/lib/libx.so");     /* the same file, another inode */
	r++;
	lens[r] = mmap_record(recs[r], 7, 7, 0x7f0000000000ull, 0x10000, 0, "/usr/lib/libx.so");
	r++;
	lens[r] = mmap_record(recs[r], 77, 77, 0x500000, 0x1000, 0, "/opt/nocomm");  /* no COMM: ":77" */
	r++;
	if (orphan) {
		lens[r] = fork_record(recs[r], 900, 888, 900, 888);   /* 888 is never named */
		r++;
	}
	return write_perfdata(path, &ev, 1, recs, lens, r);
}

int main(void)
{
	const char *perfkit;
	char dir[] = "/tmp/pk-report-tasks.XXXXXX", file[600], cmd[1400], *text;

	perfkit = vs_perf_start(dir);
	if (!perfkit)
		return done_testing();
	snprintf(file, sizeof(file), "%s/tasks.data", dir);
	if (ok(!write_file(file, 0), "file with threads, forks and maps written")) {
		same_rows(perfkit, file, "tasks.data", "--tasks");
		same_rows(perfkit, file, "tasks.data", "--mmaps");
		snprintf(cmd, sizeof(cmd), "'%s' report --tasks -i '%s'", perfkit, file);
		text = rows_of(cmd);
		ok(text && strstr(text, "|server\n") && strstr(text, "| server\n") &&
		   strstr(text, "|  server\n") && strstr(text, "|   server\n") && !strstr(text, "|:77\n"),
		   "tasks.data: four levels under 300; 77, named by an MMAP only, is not a task");
		free(text);
		snprintf(cmd, sizeof(cmd), "'%s' report --mmaps -i '%s'", perfkit, file);
		text = rows_of(cmd);
		ok(text && strstr(text, "|:77\n"), "tasks.data: --mmaps has it, named ':77' (no COMM)");
		free(text);
	}
	snprintf(file, sizeof(file), "%s/orphan.data", dir);
	if (ok(!write_file(file, 1), "file with a FORK from a thread it never names written")) {
		same_rows(perfkit, file, "orphan.data", "--tasks");   /* the FORK makes the parent too */
		snprintf(cmd, sizeof(cmd), "'%s' report --tasks -i '%s'", perfkit, file);
		text = rows_of(cmd);
		ok(text && strstr(text, "      888      888       -1 |:888\n") &&
		   strstr(text, "      900      900      888 | :900\n"),
		   "orphan.data: 888 is a root named ':888', 900 under it ':900' (no COMM to inherit)");
		free(text);
	}
	rm_tree(dir);
	return done_testing();
}
