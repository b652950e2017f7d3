/*
 * perfkit report's sort keys that come from sample values and side-band
 * records, against perf report on written files:
 *  - cgroup and cgroup_id: samples with PERF_SAMPLE_CGROUP ids that CGROUP
 *    records name (one id named twice: the first path stays), an id no
 *    record names ("unknown") and id 0 ("N/A"); threads whose NAMESPACES
 *    records give different cgroup namespaces, one given twice (the latest
 *    counts for the samples after it) and one thread without any ("0/0x0");
 *  - code_page_size: none, 4K and 2M in tied rows;
 *  - weight, local_weight, ins_lat, local_ins_lat: WEIGHT_STRUCT samples
 *    whose rows hold one or several samples (weight is the row's sum), and
 *    a PERF_SAMPLE_WEIGHT file (64-bit weights, no instruction latency);
 *  - comm: threads sampled before their first COMM, whose ":TID" rows perf
 *    renames to it (with call graphs and Children, merged into the rows the
 *    name has), an exec COMM, a thread never named, and a tid replaced by a
 *    FORK between its samples.
 * Every sample has the same period, so rows tie and their order is the
 * keys' own. The oracle is perf itself: both print the same rows. Skips
 * without a usable perf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfkit/perfdata.h>
#include "../tap.h"
#include "perfdata_write.h"
#include "report_vs_perf.h"

#define NR_NS 7         /* net, uts, ipc, pid, user, mnt, cgroup */

static size_t cgroup_record(uint64_t *buf, uint64_t id, const char *path)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	size_t name = strlen(path) + 1, size = 8 + 8 + ((name + 7) & ~(size_t)7);

	memset(buf, 0, size);
	buf[1] = id;
	memcpy(buf + 2, path, name);
	h->type = PERF_RECORD_CGROUP;
	h->size = (uint16_t)size;
	return size;
}

/* NAMESPACES of @pid/@tid whose cgroup namespace is @dev/@ino (the others made up). */
static size_t namespaces_record(uint64_t *buf, uint32_t pid, uint32_t tid, uint64_t dev, uint64_t ino)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	uint32_t *ids = (uint32_t *)(buf + 1);
	size_t size = 8 + 8 + 8 + 16 * NR_NS;

	memset(buf, 0, size);
	ids[0] = pid;
	ids[1] = tid;
	buf[2] = NR_NS;
	for (unsigned i = 0; i < NR_NS; i++) {
		buf[3 + 2 * i] = 4;
		buf[4 + 2 * i] = 0xf0000000u + i;
	}
	buf[3 + 2 * 6] = dev;
	buf[4 + 2 * 6] = ino;
	h->type = PERF_RECORD_NAMESPACES;
	h->size = (uint16_t)size;
	return size;
}

/* A sample: IP, TID, PERIOD (all equal), CGROUP. */
static size_t sample_record(uint64_t *buf, uint32_t pid, uint64_t cgroup, unsigned k)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;

	buf[1] = 0x401000 + 0x10 * (k % 5);
	buf[2] = (uint64_t)pid << 32 | pid;
	buf[3] = 1000;
	buf[4] = cgroup;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = 5 * 8;
	return 5 * 8;
}

static int write_file(const char *path)
{
	static uint64_t recs[64][64];
	static const uint64_t ids[] = { 1 };
	static const uint64_t cgroups[] = { 0x3000, 0x10, 0x2000, 0, 0x999, 0x10, 0x3000, 0x2000 };
	static const uint32_t pids[] = { 101, 102, 103, 101, 102, 104 };
	struct perf_event_attr attr = { 0 };
	struct pk_writer_evsel ev = { .attr = &attr, .name = "cpu-clock", .ids = ids, .nr_ids = 1 };
	size_t lens[64], r = 0;

	cpu_clock_attr(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CGROUP);
	lens[r] = cgroup_record(recs[r], 0x10, "/");
	r++;
	lens[r] = cgroup_record(recs[r], 0x3000, "/system.slice/cron.service");
	r++;
	lens[r] = cgroup_record(recs[r], 0x2000, "/user.slice");
	r++;
	lens[r] = cgroup_record(recs[r], 0x2000, "/renamed");          /* the first path stays */
	r++;
	for (uint32_t p = 101; p <= 104; p++) {
		lens[r] = comm_record(recs[r], p, p == 104 ? "nons" : "task");
		r++;
	}
	lens[r] = namespaces_record(recs[r], 101, 101, 4, 0xeffffffb);
	r++;
	lens[r] = namespaces_record(recs[r], 102, 102, 4, 0xf0000a01);
	r++;
	lens[r] = namespaces_record(recs[r], 103, 103, 3, 0xf0000a01);
	r++;
	for (unsigned k = 0; k < 24; k++) {
		if (k == 12) {          /* 101 moves to another namespace */
			lens[r] = namespaces_record(recs[r], 101, 101, 5, 0x100);
			r++;
		}
		lens[r] = sample_record(recs[r], pids[k % 6], cgroups[k % 8], k);
		r++;
	}
	return write_perfdata(path, &ev, 1, recs, lens, r);
}

/*
 * A sample of @pid with weight @w (WEIGHT_STRUCT: var1_dw @w, var2_w @lat;
 * WEIGHT: the u64), or any other one-word field after PERIOD (CODE_PAGE_SIZE).
 */
static size_t weight_sample(uint64_t *buf, uint32_t pid, uint64_t w, uint16_t lat, int wstruct)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;

	buf[1] = 0x401000;
	buf[2] = (uint64_t)pid << 32 | pid;
	buf[3] = 1000;
	buf[4] = wstruct ? (w & 0xffffffffu) | (uint64_t)lat << 32 | (uint64_t)7 << 48 : w;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = 5 * 8;
	return 5 * 8;
}

static int write_weights(const char *path, int wstruct)
{
	static uint64_t recs[40][64];
	static const uint64_t ids[] = { 1 };
	static const uint64_t weights[] = { 100, 250, 100, 7, 100, 5000000000ull, 250, 7 };
	static const uint16_t lats[] = { 3, 0, 3, 9, 40, 1, 0, 9 };
	struct perf_event_attr attr = { 0 };
	struct pk_writer_evsel ev = { .attr = &attr, .name = "cpu-clock", .ids = ids, .nr_ids = 1 };
	size_t lens[40], r = 0;

	cpu_clock_attr(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD |
		       (wstruct ? PERF_SAMPLE_WEIGHT_STRUCT : PERF_SAMPLE_WEIGHT));
	lens[r] = comm_record(recs[r], 11, "loads");
	r++;
	lens[r] = comm_record(recs[r], 12, "stores");
	r++;
	for (unsigned k = 0; k < 24; k++, r++)
		lens[r] = weight_sample(recs[r], 11 + k % 3 / 2, wstruct || weights[k % 8] < 1u << 31 ?
					weights[k % 8] : weights[k % 8] * 3, lats[k % 8], wstruct);
	return write_perfdata(path, &ev, 1, recs, lens, r);
}

/* A sample of @pid/@tid at @ip with a user call chain (@ip, then 0x402000 + 0x100 * @k % 3). */
static size_t comm_sample(uint64_t *buf, uint32_t pid, uint32_t tid, uint64_t ip, unsigned k)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;

	buf[1] = ip;
	buf[2] = (uint64_t)tid << 32 | pid;
	buf[3] = 1000;
	buf[4] = 3;
	buf[5] = (uint64_t)PERF_CONTEXT_USER;
	buf[6] = ip;
	buf[7] = 0x402000 + 0x100 * (k % 3);
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = 8 * 8;
	return 8 * 8;
}

/*
 * Threads sampled before their first COMM: 500 (then "late", then "later"),
 * 501 (then an exec COMM "x"), 502 never named, and tid 503 sampled, then
 * replaced by a FORK (a new thread, named "child" by its parent) and sampled
 * again. "late" also has samples of another thread (510) from the start.
 */
static int write_comms(const char *path)
{
	static uint64_t recs[48][64];
	static const uint64_t ids[] = { 1 };
	struct perf_event_attr attr = { 0 };
	struct pk_writer_evsel ev = { .attr = &attr, .name = "cpu-clock", .ids = ids, .nr_ids = 1 };
	size_t lens[48], r = 0;
	unsigned k = 0;

	cpu_clock_attr(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN);
	lens[r] = comm_record(recs[r], 510, "late");
	r++;
	lens[r] = comm_record(recs[r], 520, "child");
	r++;
	for (int rep = 0; rep < 3; rep++) {
		lens[r] = comm_sample(recs[r], 500, 500, 0x401000, k++);
		r++;
		lens[r] = comm_sample(recs[r], 510, 510, 0x401000, k++);
		r++;
		lens[r] = comm_sample(recs[r], 501, 501, 0x401100, k++);
		r++;
		lens[r] = comm_sample(recs[r], 502, 502, 0x401200, k++);
		r++;
		lens[r] = comm_sample(recs[r], 503, 503, 0x401300, k++);
		r++;
	}
	lens[r] = comm_record(recs[r], 500, "late");
	r++;
	lens[r] = comm_record(recs[r], 501, "x");
	{
		struct perf_event_header *h = (struct perf_event_header *)(void *)recs[r];

		h->misc |= PERF_RECORD_MISC_COMM_EXEC;
	}
	r++;
	lens[r] = fork_record(recs[r], 503, 520, 503, 520);        /* a new 503, named "child" */
	r++;
	lens[r] = comm_sample(recs[r], 500, 500, 0x401000, k++);
	r++;
	lens[r] = comm_record(recs[r], 500, "later");
	r++;
	for (int rep = 0; rep < 2; rep++) {
		lens[r] = comm_sample(recs[r], 500, 500, 0x401000, k++);
		r++;
		lens[r] = comm_sample(recs[r], 503, 503, 0x401300, k++);
		r++;
		lens[r] = comm_sample(recs[r], 501, 501, 0x401100, k++);
		r++;
	}
	return write_perfdata(path, &ev, 1, recs, lens, r);
}

/*
 * Samples of one thread with code page sizes none (0), 4K and 2M, as many
 * of each, so that the rows tie and the key orders them.
 */
static int write_code_pages(const char *path)
{
	static uint64_t recs[16][64];
	static const uint64_t ids[] = { 1 };
	static const uint64_t sizes[] = { 4096, 0, 2097152 };
	struct perf_event_attr attr = { 0 };
	struct pk_writer_evsel ev = { .attr = &attr, .name = "cpu-clock", .ids = ids, .nr_ids = 1 };
	size_t lens[16], r = 0;

	cpu_clock_attr(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CODE_PAGE_SIZE);
	lens[r] = comm_record(recs[r], 11, "pages");
	r++;
	for (unsigned k = 0; k < 9; k++, r++)
		lens[r] = weight_sample(recs[r], 11, sizes[k % 3], 0, 0);
	return write_perfdata(path, &ev, 1, recs, lens, r);
}

int main(void)
{
	static const char *const args[] = {
		"--sort cgroup", "--sort cgroup_id", "--sort cgroup,cgroup_id", "--sort cgroup_id,cgroup -n",
		"--sort comm,cgroup", "--sort cgroup_id,pid",
	};
	const char *perfkit;
	char dir[] = "/tmp/pk-report-keys.XXXXXX", file[600];

	perfkit = vs_perf_start(dir);
	if (!perfkit)
		return done_testing();
	snprintf(file, sizeof(file), "%s/cgroups.data", dir);
	if (ok(!write_file(file), "file with cgroups and namespaces written"))
		for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++)
			same_rows(perfkit, file, "cgroups.data", args[i]);
	/* code_page_size: perf's right - left puts the smallest first, N/A (0) before 4K */
	snprintf(file, sizeof(file), "%s/pages.data", dir);
	if (ok(!write_code_pages(file), "file with code page sizes written")) {
		same_rows(perfkit, file, "pages.data", "--sort code_page_size");
		same_rows(perfkit, file, "pages.data", "--sort comm,code_page_size -n");
	}
	for (int wstruct = 1; wstruct >= 0; wstruct--) {
		static const char *const wargs[] = {
			"--sort weight", "--sort local_weight,comm", "--sort comm,weight,local_weight -n",
			"--sort ins_lat,local_ins_lat", "--sort local_ins_lat,weight,comm",
		};
		const char *label = wstruct ? "weight_struct.data" : "weight.data";

		snprintf(file, sizeof(file), "%s/%s", dir, label);
		if (ok(!write_weights(file, wstruct), "%s written", label))
			for (size_t i = 0; i < sizeof(wargs) / sizeof(wargs[0]); i++)
				same_rows(perfkit, file, label, wargs[i]);
	}
	snprintf(file, sizeof(file), "%s/comms.data", dir);
	if (ok(!write_comms(file), "comms.data (samples before a thread's first COMM) written")) {
		static const char *const cargs[] = {
			"--sort comm -n", "--no-children --sort comm -n -g none", "--no-children --sort comm,sym",
			"--sort comm,sym -g caller", "--no-children --sort comm,sym -g folded", "--sort sym,comm -n",
		};
		char cmd[1400], *one, *two;

		for (size_t i = 0; i < sizeof(cargs) / sizeof(cargs[0]); i++)
			same_rows(perfkit, file, "comms.data", cargs[i]);
		/* the same rows when one thread adds the samples as when two do (pipeline.c) */
		snprintf(cmd, sizeof(cmd), "'%s' report --stdio --sort comm,sym --threads 1 -i '%s' 2>/dev/null", perfkit, file);
		one = rows_of(cmd);
		snprintf(cmd, sizeof(cmd), "'%s' report --stdio --sort comm,sym --threads 2 -i '%s' 2>/dev/null", perfkit, file);
		two = rows_of(cmd);
		ok(one && two && !strcmp(one, two), "comms.data: the same rows with --threads 1 and 2");
		free(one);
		free(two);
	}
	rm_tree(dir);
	return done_testing();
}
