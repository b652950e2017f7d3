/*
 * Tests of the pieces of perfkit oa record's circular-buffer mode:
 *
 *  1. pk_oa_control_parse on the commands IGT's i915-perf-control writes
 *     (DUMP with a path, QUIT), one at a time, split, back to back, and on
 *     bytes that are not commands (sizes out of bounds, a DUMP without a
 *     path or without its NUL), each with the offset where it went wrong;
 *     when intel-gpu-tools is installed, on what i915-perf-control itself
 *     wrote;
 *  2. the record ring (lib/oa/ring.c): it keeps the newest whole records
 *     within its limit, byte for byte, across many moves back to the start
 *     of its buffer, counts the reports it holds and dropped, and keeps the
 *     newest correlation point it dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/oa.h>
#include "oa/ring_int.h"
#include "../tap.h"

/* ---- 1. commands ------------------------------------------------------------------- */

static size_t put_cmd(uint8_t *p, uint32_t command, uint32_t size, const char *path, size_t path_bytes)
{
	memcpy(p, &command, 4);
	memcpy(p + 4, &size, 4);
	if (path_bytes)
		memcpy(p + 8, path, path_bytes);
	return 8 + path_bytes;
}

static void test_parse(void)
{
	static uint8_t b[2 * PK_OA_CONTROL_MAX];
	static struct pk_oa_control_msg m;
	char long_path[PK_OA_CONTROL_PATH_MAX];
	struct pk_diag d;
	size_t n;

	pk_diag_init(&d);
	is_int(pk_oa_control_parse(b, 0, &m, &d), 0, "nothing yet: 0");
	n = put_cmd(b, PK_OA_CONTROL_QUIT, 8, NULL, 0);
	is_int(pk_oa_control_parse(b, 7, &m, &d), 0, "7 bytes of a QUIT: not whole yet");
	is_int(pk_oa_control_parse(b, n, &m, &d), 8, "QUIT takes its 8 bytes");
	is_int(m.command, PK_OA_CONTROL_QUIT, "QUIT");

	n = put_cmd(b, PK_OA_CONTROL_DUMP, 8 + 12, "/tmp/a.rec\0\0", 12);
	is_int(pk_oa_control_parse(b, 10, &m, &d), 0, "a DUMP cut in its path: not whole yet");
	is_int(pk_oa_control_parse(b, n, &m, &d), 20, "DUMP takes its 20 bytes");
	ok(m.command == PK_OA_CONTROL_DUMP && !strcmp(m.path, "/tmp/a.rec"), "DUMP to /tmp/a.rec (%s)", m.path);

	n += put_cmd(b + n, PK_OA_CONTROL_QUIT, 8, NULL, 0);
	is_int(pk_oa_control_parse(b + 20, n - 20, &m, &d), 8, "the QUIT after it, from its own start");
	is_int(m.command, PK_OA_CONTROL_QUIT, "back to back: QUIT");

	n = put_cmd(b, 7, 8 + 4, "abcd", 4);
	is_int(pk_oa_control_parse(b, n, &m, &d), 12, "an unknown command is skipped whole");
	is_int(m.command, 7, "and returned with its number");

	memset(long_path, 'x', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = 0;
	n = put_cmd(b, PK_OA_CONTROL_DUMP, PK_OA_CONTROL_MAX, long_path, sizeof(long_path));
	is_int(pk_oa_control_parse(b, n, &m, &d), PK_OA_CONTROL_MAX, "the longest DUMP: a path of 4095 bytes");
	is_int(strlen(m.path), 4095, "its path whole");

	/* not commands */
	n = put_cmd(b, PK_OA_CONTROL_QUIT, 7, NULL, 0);
	pk_diag_init(&d);
	is_int(pk_oa_control_parse(b, 64, &m, &d), -EBADMSG, "size 7: -EBADMSG");
	ok(d.offset == 4 && strstr(d.msg, "size of 7 bytes (8 to 4104)"), "at offset 4: %s", d.msg);
	put_cmd(b, PK_OA_CONTROL_DUMP, PK_OA_CONTROL_MAX + 1, NULL, 0);
	pk_diag_init(&d);
	is_int(pk_oa_control_parse(b, 8, &m, &d), -EBADMSG,
	       "a size above 4104 fails at once, before its bytes arrive");
	ok(strstr(d.msg, "size of 4105 bytes") != NULL, "message: %s", d.msg);
	put_cmd(b, 0xffffffffu, 0xffffffffu, NULL, 0);
	pk_diag_init(&d);
	is_int(pk_oa_control_parse(b, 8, &m, &d), -EBADMSG, "size 2^32 - 1: -EBADMSG");
	n = put_cmd(b, PK_OA_CONTROL_DUMP, 8, NULL, 0);
	pk_diag_init(&d);
	is_int(pk_oa_control_parse(b, n, &m, &d), -EBADMSG, "DUMP of 8 bytes: -EBADMSG");
	ok(d.offset == 8 && strstr(d.msg, "without a path"), "at offset 8: %s", d.msg);
	n = put_cmd(b, PK_OA_CONTROL_DUMP, 9, "", 1);
	pk_diag_init(&d);
	is_int(pk_oa_control_parse(b, n, &m, &d), -EBADMSG, "DUMP of an empty path: -EBADMSG");
	ok(strstr(d.msg, "without a path") != NULL, "message: %s", d.msg);
	n = put_cmd(b, PK_OA_CONTROL_DUMP, 8 + 5, "/tmp/", 5);
	pk_diag_init(&d);
	is_int(pk_oa_control_parse(b, n, &m, &d), -EBADMSG, "a path without its NUL: -EBADMSG");
	ok(d.offset == 12 && strstr(d.msg, "no terminating NUL within its 13 bytes"), "at offset 12: %s",
	   d.msg);
}

/* What i915-perf-control writes, parsed back (its fifo is a plain file here). */
static void test_igt_control(void)
{
	char dir[] = "/tmp/pk-oa-control-XXXXXX", fifo[64], cmd[256], want[PATH_MAX + 16];
	static uint8_t b[4 * PK_OA_CONTROL_MAX];
	static struct pk_oa_control_msg m;
	struct pk_diag d;
	ssize_t len;
	int fd, n, off = 0;

	if (system("command -v i915-perf-control >/dev/null 2>&1") != 0) {
		ok(1, "# SKIP i915-perf-control not installed (intel-gpu-tools)");
		return;
	}
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	close(open(fifo, O_CREAT | O_WRONLY, 0600));
	snprintf(cmd, sizeof(cmd), "cd %s && i915-perf-control -f %s -d snap.rec -q", dir, fifo);
	is_int(system(cmd), 0, "i915-perf-control -d snap.rec -q");
	fd = open(fifo, O_RDONLY);
	len = fd >= 0 ? read(fd, b, sizeof(b)) : -1;
	if (fd >= 0)
		close(fd);
	pk_diag_init(&d);
	n = pk_oa_control_parse(b, len > 0 ? (size_t)len : 0, &m, &d);
	snprintf(want, sizeof(want), "%s/snap.rec", dir);
	ok(n > 0 && m.command == PK_OA_CONTROL_DUMP && !strcmp(m.path, want),
	   "its DUMP: to %s, made absolute (%s)", want, m.path);
	off = n > 0 ? n : 0;
	n = pk_oa_control_parse(b + off, len > off ? (size_t)(len - off) : 0, &m, &d);
	ok(n == 8 && m.command == PK_OA_CONTROL_QUIT, "then its QUIT");
	is_int(off + n, len, "and nothing else (%zd bytes)", len);
	unlink(fifo);
	rmdir(dir);
}

/* ---- 2. the ring -------------------------------------------------------------------- */

#define REC_SAMPLE 40
#define REC_CORR 24

/* Record number @i: every fifth a CORRELATION, else a SAMPLE, bytes from @i. */
static size_t make_record(uint8_t *p, uint32_t i)
{
	uint32_t type = i % 5 == 4 ? PK_OA_RECORD_CORRELATION : PK_OA_RECORD_SAMPLE;
	uint16_t size = type == PK_OA_RECORD_SAMPLE ? REC_SAMPLE : REC_CORR, pad = 0;

	memcpy(p, &type, 4);
	memcpy(p + 4, &pad, 2);
	memcpy(p + 6, &size, 2);
	for (uint16_t k = 8; k < size; k += 4)
		memcpy(p + k, &i, 4);
	return size;
}

static void test_ring(void)
{
	struct oa_ring r;
	uint8_t chunk[16 * REC_SAMPLE], want[2000];
	uint32_t next = 0, moves = 0;
	int bad = 0;

	is_int(oa_ring_init(&r, 30, REC_SAMPLE), -EINVAL, "a limit below one record: -EINVAL");
	is_int(oa_ring_init(&r, 1000, REC_SAMPLE), 0, "a ring of 1000 bytes");
	for (int round = 0; round < 400; round++) {
		size_t len = 0, held = 0;
		uint64_t samples = 0, dropped;
		uint32_t first, last_corr = UINT32_MAX;
		size_t before = r.start;

		for (int k = 0; k < 1 + round % 7; k++)
			len += make_record(chunk + len, next++);
		oa_ring_append(&r, chunk, len);
		moves += r.start < before;
		/* the newest records that fit in 1000 bytes */
		for (first = next; first > 0; first--) {
			size_t sz = (first - 1) % 5 == 4 ? REC_CORR : REC_SAMPLE;

			if (held + sz > 1000)
				break;
			held += sz;
		}
		for (uint32_t i = first, o = 0; i < next; i++)
			o += make_record(want + o, i);
		for (uint32_t i = first; i < next; i++)
			samples += i % 5 != 4;
		dropped = 0;
		for (uint32_t i = 0; i < first; i++) {
			dropped += i % 5 != 4;
			if (i % 5 == 4)
				last_corr = i;
		}
		if (r.len != held || memcmp(r.data + r.start, want, held) || r.reports != samples ||
		    r.reports_dropped != dropped || r.have_dropped_corr != (last_corr != UINT32_MAX))
			bad++;
		if (last_corr != UINT32_MAX) {
			make_record(want, last_corr);
			bad += memcmp(r.dropped_corr, want, REC_CORR) != 0;
		}
	}
	is_int(bad, 0, "after each of 400 appends: the newest records within 1000 bytes, byte for byte, the reports held and dropped, the newest correlation dropped");
	ok(moves > 10, "the records were moved back to the start of the buffer %u times", moves);
	ok(r.start + r.len <= 2000, "within twice the limit");
	oa_ring_release(&r);
}

int main(void)
{
	test_parse();
	test_igt_control();
	test_ring();
	return done_testing();
}
