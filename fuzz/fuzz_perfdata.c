/*
 * libFuzzer target for the perf.data reader: the input is written to a
 * memfd (so it is mmapped like a real file) and opened through
 * pk_perfdata_open_fd(), then walked once with time ordering and once
 * without; a third run reads it through a pipe (the streaming path).
 * Every record's fields are touched so ASan sees any pointer that escapes
 * the input. Errors are expected; crashes, hangs and leaks are not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <perfkit/perfdata.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int touch(void *ctx, const struct pk_record *r)
{
	uint64_t *acc = ctx;
	const uint8_t *b = (const uint8_t *)r->hdr;

	/* read the first and last byte of the record and payload */
	*acc += b[0] + b[r->hdr->size - 1] + r->sample.time + r->sample.callchain_nr;
	if (r->sample.callchain_nr)
		*acc += r->sample.callchain[r->sample.callchain_nr - 1];
	if (r->payload && r->payload_size)
		*acc += ((const uint8_t *)r->payload)[r->payload_size - 1];
	if (r->evsel && r->evsel->name)
		*acc += (uint8_t)r->evsel->name[0];
	return 0;
}

/* A descriptor to read @data from: a memfd (mapped like a file) or a pipe (streamed). */
static int input_fd(const uint8_t *data, size_t size, int use_pipe)
{
	int fd, fds[2];

	if (!use_pipe) {
		fd = memfd_create("fuzz", MFD_CLOEXEC);
		if (fd < 0)
			return -1;
		if (size && write(fd, data, size) != (ssize_t)size) {
			close(fd);
			return -1;
		}
		lseek(fd, 0, SEEK_SET);
		return fd;
	}
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	/* the whole input must fit in the pipe: there is no second thread */
	if (fcntl(fds[1], F_SETPIPE_SZ, 1 << 20) < (int)size ||
	    (size && write(fds[1], data, size) != (ssize_t)size)) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	close(fds[1]);
	return fds[0];
}

static void run(const uint8_t *data, size_t size, int ordered, int use_pipe)
{
	struct pk_perfdata_opts o = { .sz = sizeof(o), .ordered = ordered,
				      .deliver_header_records = !ordered };
	struct pk_perfdata *p;
	struct pk_diag d;
	uint64_t acc = 0;
	int fd = input_fd(data, size, use_pipe);

	if (fd < 0)
		return;
	pk_diag_init(&d);
	if (pk_perfdata_open_fd(fd, "fuzz", &o, &p, &d))
		return;
	for (size_t i = 0; i < pk_perfdata_nr_evsels(p); i++)
		acc += pk_perfdata_evsel(p, i)->nr_ids;
	pk_perfdata_foreach(p, touch, &acc, &d);
	pk_perfdata_close(p);
	if (acc == 42)
		(void)acc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run(data, size, 1, 0);
	run(data, size, 0, 0);
	run(data, size, 1, 1);
	return 0;
}
