/*
 * Unit tests for lib/core: diagnostics formatting, the growable buffer, the
 * bounded reader on truncated input, CPU-list parsing (valid and hostile),
 * small-file reads and the workload launcher (exec success and failure).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfkit/core.h>
#include "../tap.h"

static void test_diag(void)
{
	struct pk_diag d;
	char buf[256];

	pk_diag_init(&d);
	ok(d.err == 0 && d.offset == PK_NO_OFFSET, "diag starts clean");
	is_int(PK_CORRUPT(&d, 4096, "truncated record (size %d)", 88), -EBADMSG,
	       "PK_CORRUPT returns -EBADMSG");
	pk_diag_subject(&d, "x.data");
	is_str(pk_diag_str(&d, buf, sizeof(buf)), "'x.data': truncated record (size 88) at offset 4096",
	       "diag string names file, reason and offset");
	pk_diag_init(&d);
	pk_diag_fail(&d, -ENOENT, "no such thing");
	is_str(pk_diag_str(&d, buf, sizeof(buf)), "no such thing", "diag without subject or offset");
	pk_diag_hint(&d, "try %s", "this");
	is_str(d.hint, "try this", "hint is recorded");
	is_int(pk_diag_fail(NULL, -EIO, "x"), -EIO, "NULL diag is allowed");
}

static void test_buf(void)
{
	struct pk_buf b;

	pk_buf_init(&b);
	for (int i = 0; i < 1000; i++)
		pk_buf_printf(&b, "%d,", i);
	ok(b.len == strlen(b.data), "printf keeps NUL termination");
	ok(!strncmp(b.data, "0,1,2,", 6) && !strcmp(b.data + b.len - 4, "999,"), "appended in order");
	pk_buf_append(&b, "xy", 2);
	is_str(b.data + b.len - 3, ",xy", "append raw bytes");
	is_int(pk_buf_reserve(&b, SIZE_MAX), -ENOMEM, "absurd reservation is refused");
	pk_buf_release(&b);
	ok(b.data == NULL && b.len == 0, "release empties");
}

static void test_reader(void)
{
	static const uint8_t bytes[] = { 1, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 9 };
	struct pk_reader r;
	struct pk_diag d;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	pk_diag_init(&d);
	pk_reader_init(&r, bytes, sizeof(bytes), &d);
	ok(!pk_reader_u16(&r, &u16) && u16 == 1, "u16");
	ok(!pk_reader_u32(&r, &u32) && u32 == 2, "u32");
	ok(!pk_reader_u64(&r, &u64) && u64 == 3, "u64");
	is_int(pk_reader_left(&r), 1, "one byte left");
	is_int(pk_reader_u32(&r, &u32), -EBADMSG, "reading past the end fails");
	is_int(d.offset, 14, "at the offset of the short read");
	is_int(pk_reader_left(&r), 1, "a failed read consumes nothing");
	r.off = 0;
	r.swap = 1;
	ok(!pk_reader_u16(&r, &u16) && u16 == 0x100, "byte-swapped u16");
	is_int(pk_reader_skip(&r, SIZE_MAX), -EBADMSG, "huge skip refused");
	ok(pk_range_ok(10, 5, 15) && !pk_range_ok(10, 6, 15) && !pk_range_ok(UINT64_MAX, 2, 15),
	   "pk_range_ok with overflow");
}

static void test_cpulist(void)
{
	struct pk_diag d;
	int *cpus = NULL;
	int n;

	pk_diag_init(&d);
	n = pk_cpulist_parse("0-3,8,10-11\n", &cpus, &d);
	is_int(n, 7, "0-3,8,10-11 has 7 CPUs");
	ok(n == 7 && cpus[0] == 0 && cpus[3] == 3 && cpus[4] == 8 && cpus[6] == 11, "in order");
	free(cpus);
	n = pk_cpulist_parse("3,1,3,2-3", &cpus, &d);
	is_int(n, 3, "duplicates removed");
	ok(n == 3 && cpus[0] == 1 && cpus[2] == 3, "sorted");
	free(cpus);
	is_int(pk_cpulist_parse("0-x", &cpus, &d), -EINVAL, "0-x rejected");
	is_int(d.offset, 2, "at the bad character");
	is_int(pk_cpulist_parse("5-2", &cpus, &d), -EINVAL, "reversed range rejected");
	is_int(pk_cpulist_parse("0-99999999", &cpus, &d), -EINVAL, "huge range rejected");
	is_int(pk_cpulist_parse("", &cpus, &d), -EINVAL, "empty list rejected");
	is_int(pk_cpulist_parse("1,,2", &cpus, &d), -EINVAL, "empty element rejected");
	ok(cpus == NULL, "nothing allocated on failure");
}

static void test_files(void)
{
	char path[] = "/tmp/pk-core-XXXXXX", line[16];
	struct pk_buf b;
	uint64_t v;
	int64_t sv;
	int fd = mkstemp(path);

	ok(fd >= 0 && write(fd, "0x1f\nsecond line\n", 17) == 17, "temp file written");
	close(fd);
	ok(!pk_file_read_u64(path, &v) && v == 31, "hex number read");
	ok(!pk_file_read_line(path, line, sizeof(line)) && !strcmp(line, "0x1f"), "first line read");
	pk_buf_init(&b);
	is_int(pk_file_read_all(path, &b, 8), -EFBIG, "longer than max is -EFBIG");
	ok(!pk_file_read_all("/proc/self/status", &b, 1 << 20) && strstr(b.data, "Name:"),
	   "procfs file of reported size 0 read whole");
	pk_buf_release(&b);
	is_int(pk_file_read_u64("/nonexistent/file", &v), -ENOENT, "missing file is -ENOENT");
	fd = open(path, O_WRONLY | O_TRUNC);
	ok(fd >= 0 && write(fd, "-1\n", 3) == 3, "temp file rewritten with -1");
	close(fd);
	ok(!pk_file_read_s64(path, &sv) && sv == -1, "signed -1 read (sysfs ids)");
	fd = open(path, O_WRONLY | O_TRUNC);
	ok(fd >= 0 && write(fd, "abc\n", 4) == 4, "temp file rewritten with text");
	close(fd);
	is_int(pk_file_read_s64(path, &sv), -EINVAL, "text is not a signed number");
	is_int(pk_file_read_s64("/nonexistent/file", &sv), -ENOENT, "missing file is -ENOENT (signed)");
	unlink(path);
}

static void test_workload(void)
{
	char *good[] = { "sh", "-c", "exit 3", NULL };
	char *bad[] = { "/nonexistent/prog", NULL };
	struct pk_workload w;
	struct pk_diag d;
	int status = 0;

	pk_diag_init(&d);
	ok(!pk_workload_prepare(&w, good, &d) && w.pid > 0, "workload prepared");
	ok(!pk_workload_start(&w, &d), "workload started");
	ok(waitpid(w.pid, &status, 0) == w.pid && WIFEXITED(status) && WEXITSTATUS(status) == 3,
	   "its exit status is the command's");
	ok(!pk_workload_prepare(&w, bad, &d), "missing command prepared");
	is_int(pk_workload_start(&w, &d), -ENOENT, "exec failure comes back as -ENOENT");
	is_str(d.msg, "command not found", "and says so");
	ok(!pk_workload_prepare(&w, good, &d), "prepared again");
	pk_workload_abort(&w);
	ok(w.pid == -1, "an unstarted workload can be aborted");
	is_int(pk_workload_prepare(&w, (char *[]){ NULL }, &d), -EINVAL, "empty argv refused");
}

int main(void)
{
	test_diag();
	test_buf();
	test_reader();
	test_cpulist();
	test_files();
	test_workload();
	return done_testing();
}
