/*
 * Test helper: write a perf.data file from records made by the test, with
 * perfkit's writer (lib/perfdata, checked against perf in test_writer.c):
 * the events' attrs and ids, then the records in the order given, no
 * features; and the COMM and MMAP records such files start with (no
 * sample_id). Failures are reported as TAP diagnostics (tap.h first).
 */
#ifndef PERFKIT_TESTS_PERFDATA_WRITE_H
#define PERFKIT_TESTS_PERFDATA_WRITE_H

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfkit/perfdata.h>

/* Write @nr_ev events and @n records (record i: @recs[i], @lens[i] bytes) to @path; 0 or -1. */
static int write_perfdata(const char *path, const struct pk_writer_evsel *ev, size_t nr_ev,
			  uint64_t (*recs)[64], const size_t *lens, size_t n)
{
	struct pk_writer_opts o = { .sz = sizeof(o) };
	struct pk_perfdata_writer *w;
	struct pk_diag d;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), err;

	pk_diag_init(&d);
	if (fd < 0) {
		diag("cannot create %s", path);
		return -1;
	}
	err = pk_writer_open(&w, fd, path, ev, nr_ev, &o, &d);
	for (size_t i = 0; !err && i < n; i++)
		err = pk_writer_write(w, recs[i], lens[i], &d);
	if (!err)
		err = pk_writer_close(w, NULL, &d);
	if (err)
		diag("writing %s: %s", path, d.msg);
	close(fd);
	return err ? -1 : 0;
}

/* A cpu-clock event every 1000 ns with @sample_type, no sample_id_all. */
static inline void cpu_clock_attr(struct perf_event_attr *attr, uint64_t sample_type)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_CPU_CLOCK;
	attr->sample_period = 1000;
	attr->sample_type = sample_type;
}

/* A FORK record: @pid/@tid made by @ppid/@ptid. */
static inline size_t fork_record(uint64_t *buf, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	uint32_t *v = (uint32_t *)(buf + 1);

	memset(buf, 0, 32);
	v[0] = pid;
	v[1] = ppid;
	v[2] = tid;
	v[3] = ptid;
	h->type = PERF_RECORD_FORK;
	h->size = 32;
	return 32;
}

/* A COMM record naming process @pid (thread @pid) @comm, at most 15 bytes. */
static inline size_t comm_record(uint64_t *buf, uint32_t pid, const char *comm)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	uint32_t *ids = (uint32_t *)(buf + 1);

	memset(buf, 0, 32);
	ids[0] = ids[1] = pid;
	strncpy((char *)(buf + 2), comm, 15);
	h->type = PERF_RECORD_COMM;
	h->size = 32;
	return 32;
}

/*
 * An MMAP record: @len bytes at @addr of @path, file offset @pgoff, for
 * @pid/@tid; pid -1 makes it a kernel map, as perf record writes the kernel's.
 */
static inline size_t mmap_record(uint64_t *buf, uint32_t pid, uint32_t tid, uint64_t addr, uint64_t len,
				 uint64_t pgoff, const char *path)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	uint32_t *ids = (uint32_t *)(buf + 1);
	size_t name = strlen(path) + 1, size = 8 + 8 + 24 + ((name + 7) & ~(size_t)7);

	memset(buf, 0, size);
	ids[0] = pid;
	ids[1] = tid;
	buf[2] = addr;
	buf[3] = len;
	buf[4] = pgoff;
	memcpy(buf + 5, path, name);
	h->type = PERF_RECORD_MMAP;
	h->misc = pid == UINT32_MAX ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	h->size = (uint16_t)size;
	return size;
}

#endif
