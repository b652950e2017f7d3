/*
 * Test helper: write a perf.data file from records made by the test, with
 * perfkit's writer (lib/perfdata, checked against perf in test_writer.c):
 * the events' attrs and ids, then the records in the order given, no
 * features. Failures are reported as TAP diagnostics (tap.h first).
 */
#ifndef PERFKIT_TESTS_PERFDATA_WRITE_H
#define PERFKIT_TESTS_PERFDATA_WRITE_H

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
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

#endif
