/*
 * libFuzzer target for the session: the input, as a perf.data file (a
 * memfd opened by its /proc path), goes through side band, thread and
 * symbol bookkeeping, call-chain building, filters and the delivery of
 * PERF_SAMPLE_READ values, as perfkit report and script drive them. Binaries
 * and kallsyms are looked up under paths that do not exist, so only the
 * input is read. Errors are expected; crashes, hangs and leaks are not.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <perfkit/session.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NOWHERE "/nonexistent/perfkit-fuzz"

static int touch(void *ctx, const struct pk_rsample *rs)
{
	uint64_t *acc = ctx;

	*acc += rs->period + rs->cpumode + (uint64_t)rs->evsel->idx + rs->nr_frames;
	if (rs->nr_frames)
		*acc += rs->frames[rs->nr_frames - 1].addr;
	if (rs->evsel->name)
		*acc += (uint8_t)rs->evsel->name[0];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_session_opts o = {
		.sz = sizeof(o), .ordered = 1, .unwind_dwarf = -1,
		.symbols = { .sz = sizeof(o.symbols), .kallsyms = NOWHERE, .symfs = NOWHERE,
			     .tmp_dir = NOWHERE, .home = NOWHERE },
	};
	struct pk_session *ss;
	struct pk_diag d;
	uint64_t acc = 0;
	char path[64];
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	pk_diag_init(&d);
	if (pk_session_open(path, &o, &ss, &d) == 0) {
		pk_session_run(ss, touch, NULL, &acc, &d);
		pk_session_close(ss);
	}
	close(fd);
	if (acc == 42)
		(void)acc;
	return 0;
}
