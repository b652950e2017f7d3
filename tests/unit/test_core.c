/*
 * Unit tests for lib/core: diagnostics formatting, the growable buffer, the
 * bounded reader on truncated input, CPU-list parsing (valid and hostile),
 * small-file reads, whole files mapped or read, pages prefaulted, the workload launcher (exec success and failure) and
 * pk_format_fixed6 against the C library's printf("%f").
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfkit/core.h>
#include "core/obuf.h"
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
	fd = open(path, O_WRONLY | O_TRUNC);
	ok(fd >= 0 && write(fd, "a line longer than the buffer\nnext\n", 35) == 35,
	   "temp file rewritten with a long first line");
	close(fd);
	ok(!pk_file_read_line(path, line, sizeof(line)) && !strcmp(line, "a line longer t"),
	   "a first line longer than the buffer is cut to it");
	ok(!pk_file_read_line(path, line, 2) && !strcmp(line, "a"), "a buffer of 2 holds one byte");
	is_int(pk_file_read_line(path, line, 0), -EINVAL, "a buffer of 0 is -EINVAL");
	fd = open(path, O_WRONLY | O_TRUNC);
	ok(fd >= 0 && write(fd, "no newline", 10) == 10, "temp file rewritten without a newline");
	close(fd);
	ok(!pk_file_read_line(path, line, sizeof(line)) && !strcmp(line, "no newline"),
	   "a last line without its newline is read");
	fd = open(path, O_WRONLY | O_TRUNC);
	close(fd);
	ok(!pk_file_read_line(path, line, sizeof(line)) && !strcmp(line, ""), "an empty file is an empty line");
	ok(!pk_file_read_line("/proc/self/stat", line, sizeof(line)) && strchr(line, '(') &&
	   !strchr(line, '\n'), "procfs file of reported size 0: its first bytes");
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

/* @format (pk_format_fixed6, pk_format_g17) against the C library's own @fmt, which it must equal. */
static int printed_differs(double v, const char *fmt, size_t (*format)(double, char *), const char *name)
{
	char want[PK_FIXED6_MAX + 8], got[PK_FIXED6_MAX];
	size_t n = format(v, got);

	snprintf(want, sizeof(want), fmt, v);
	if (n == strlen(want) && strcmp(got, want) == 0)
		return 0;
	diag("%a: printf '%s', %s '%s' (%zu)", v, want, name, got, n);
	return 1;
}

static int fixed6_differs(double v)
{
	return printed_differs(v, "%f", pk_format_fixed6, "pk_format_fixed6");
}

static int g17_differs(double v)
{
	return printed_differs(v, "%.17g", pk_format_g17, "pk_format_g17");
}

/* How many of the @n values @v each @differs finds printed wrong. */
static int values_differ(const double *v, size_t n, int (*differs)(double))
{
	int bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += differs(v[i]);
	return bad;
}

static double random_double(uint64_t *state, int lo_exp, int hi_exp)
{
	uint64_t r = pk_hash_mix64(++*state);
	double mant = (double)(r >> 11) / 9007199254740992.0;     /* [0, 1) */
	int e = lo_exp + (int)(pk_hash_mix64(r) % (uint64_t)(hi_exp - lo_exp + 1));

	return ldexp(1.0 + mant, e) * ((r & 1) ? -1 : 1);
}

/* How many of @n random doubles of exponents [@lo_exp, @hi_exp] @differs finds printed wrong (stops at 5). */
static int random_differ(uint64_t *state, int n, int lo_exp, int hi_exp, int (*differs)(double))
{
	int bad = 0;

	for (int k = 0; k < n && bad < 5; k++)
		bad += differs(random_double(state, lo_exp, hi_exp));
	return bad;
}

static void test_fixed6(void)
{
	static const double fixed[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, 1e-7, -1e-7, 4e-7, 5e-7, 6e-7, 4.9999999e-7, 5.0000001e-7,
		1.0 / 128, 3.0 / 128, 5.0 / 128, 0.0000015, 0.0000025, 0.1, 0.7, 123.4567895,
		999999.9999995, 9999999999999.99, 9999999999999.9999995, 1e13, -1e13, 1e15, 1e300, -1e300,
		4.9e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 75.0, 0.004417, 800000000.0,
		0.9999995, 0.99999951, 99.9999996, 0x1p-11, 0x1.fffffffffffffp-12, 0x1.0000000000001p-11,
	};
	uint64_t state = 42;
	int bad = values_differ(fixed, sizeof(fixed) / sizeof(fixed[0]), fixed6_differs);
	ok(bad == 0, "fixed6: %zu chosen values print as printf's %%f", sizeof(fixed) / sizeof(fixed[0]));
	bad = fixed6_differs(INFINITY) + fixed6_differs(-INFINITY) + fixed6_differs(NAN);
	ok(bad == 0, "fixed6: inf, -inf, nan as printf spells them");
	/* every tie at six decimals that a double can hold exactly: k / 2^7 */
	bad = 0;
	for (int k = 0; k < 100000 && bad < 5; k++)
		bad += fixed6_differs(k / 128.0) + fixed6_differs(k / 64.0 + 1.0 / 128);
	ok(bad == 0, "fixed6: 200,000 exact ties round half to even");
	/* each side of the rounding point of 100,000 six-decimal values */
	bad = 0;
	for (int k = 0; k < 100000 && bad < 5; k++) {
		double x = (k + 0.5) / 1e6;

		bad += fixed6_differs(x) + fixed6_differs(nextafter(x, 0)) + fixed6_differs(nextafter(x, 1));
	}
	ok(bad == 0, "fixed6: 300,000 values at and beside the half-way points");
	bad = random_differ(&state, 1000000, -40, 44, fixed6_differs);
	ok(bad == 0, "fixed6: 1,000,000 random doubles from 2^-40 to 2^45, both signs");
	bad = random_differ(&state, 200000, -1074, 1023, fixed6_differs);
	ok(bad == 0, "fixed6: 200,000 random doubles over the whole exponent range");
}

/* g17_differs of @t and the two doubles each side of it, both signs. */
static int g17_neighbours_differ(double t)
{
	int bad = 0;

	for (int d = -2; d <= 2; d++) {
		double x = t;

		for (int j = 0; j < abs(d); j++)
			x = nextafter(x, d < 0 ? 0 : INFINITY);
		bad += g17_differs(x) + g17_differs(-x);
	}
	return bad;
}

static void test_g17(void)
{
	static const double chosen[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.7, 75.0, 100.0, 1e-4, 1e-5, 1e-6, 1e-7, 9.9999999999999995e-5,
		0.00010000000000000001, 1e16, 1e17, -1e17, 9.9999999999999998e16, 99999999999999999.0,
		123456789012345678.0, 4503599627370496.5, 9007199254740993.0, 1e35, 1e36, 9.99e36, 1e37,
		1e38, 3.4028236692093846e38, 1e300, 4.9e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
		0.004417, 800000000.0, 1.0 / 3, 2.0 / 3, 12345.678901234567,
	};
	uint64_t state = 99;
	int bad = values_differ(chosen, sizeof(chosen) / sizeof(chosen[0]), g17_differs);
	ok(bad == 0, "g17: %zu chosen values print as printf's %%.17g", sizeof(chosen) / sizeof(chosen[0]));
	bad = g17_differs(INFINITY) + g17_differs(-INFINITY) + g17_differs(NAN);
	ok(bad == 0, "g17: inf, -inf, nan as printf spells them");
	/* powers of ten and of two in and around the fast path's range */
	bad = 0;
	for (int k = -40; k <= 40 && bad < 5; k++)
		bad += g17_neighbours_differ(pow(10, k));
	for (int k = -80; k <= 140 && bad < 5; k++)
		bad += g17_neighbours_differ(ldexp(1, k));
	ok(bad == 0, "g17: powers of ten and two and their neighbours");
	/*
	 * exact ties at 17 digits: a / 2^10 = a * 5^10 / 10^10 has 18 significant
	 * digits, the last a 5, for odd a around 10^11; and a / 2^j for other j
	 */
	bad = 0;
	for (uint64_t a = 100000000001ull; a < 100000000001ull + 200000 && bad < 5; a += 2)
		bad += g17_differs(a / 1024.0);
	for (int j = 1; j < 60 && bad < 5; j++)
		for (uint64_t a = 1; a < 20000; a += 2)
			bad += g17_differs(ldexp((double)(pk_hash_mix64(a * 64 + (uint64_t)j) >> 11 | 1), -j));
	ok(bad == 0, "g17: 100,000 exact ties and 590,000 odd multiples of 2^-j round half to even");
	bad = random_differ(&state, 1000000, -30, 130, g17_differs);
	ok(bad == 0, "g17: 1,000,000 random doubles from 2^-30 to 2^131, both signs");
	bad = random_differ(&state, 200000, -1074, 1023, g17_differs);
	ok(bad == 0, "g17: 200,000 random doubles over the whole exponent range");
	bad = 0;
	for (int k = 0; k < 200000 && bad < 5; k++) {
		uint64_t r = pk_hash_mix64(++state);

		bad += g17_differs((double)(r >> (r % 64)) / (double)(1 + pk_hash_mix64(r) % 1000000));
	}
	ok(bad == 0, "g17: 200,000 ratios of integers, as metric equations make them");
}

/* pk_fmt_bytes_hex against "%02x" per byte: every byte value, and no bytes at all. */
static void test_fmt_bytes_hex(void)
{
	uint8_t all[256];
	char got[2 * 256 + 1], want[2 * 256 + 1];

	for (int i = 0; i < 256; i++) {
		all[i] = (uint8_t)(255 - i);
		snprintf(want + 2 * i, 3, "%02x", all[i]);
	}
	pk_fmt_bytes_hex(got, all, sizeof(all));
	is_str(got, want, "pk_fmt_bytes_hex: the 256 byte values as %%02x gives them");
	memset(got, 'x', sizeof(got));
	pk_fmt_bytes_hex(got, NULL, 0);
	is_str(got, "", "pk_fmt_bytes_hex: no bytes is the empty string");
}

/* pk_fmt_uint against "%" PRIu64: every length, each side of every power of ten, random values. */
static void test_fmt_uint(void)
{
	uint64_t state = 7, p10 = 1;
	int bad = 0, checked = 0;

	for (int e = 0; e < 20; e++, p10 *= 10)
		for (int64_t d = -2; d <= 2; d++) {
			uint64_t v = p10 + (uint64_t)d;
			char want[32], got[32];
			size_t n = pk_fmt_uint(got, v);

			snprintf(want, sizeof(want), "%" PRIu64, v);
			got[n] = '\0';
			bad += strcmp(got, want) != 0;
			checked++;
		}
	for (int k = 0; k < 200000; k++) {
		uint64_t r = pk_hash_mix64(++state);
		uint64_t v = r >> (r % 64);    /* every magnitude */
		char want[32], got[32];
		size_t n = pk_fmt_uint(got, v);

		snprintf(want, sizeof(want), "%" PRIu64, v);
		got[n] = '\0';
		if (strcmp(got, want) != 0 && bad++ < 5)
			diag("%s: pk_fmt_uint '%s'", want, got);
		checked++;
	}
	{
		char got[32];
		size_t n = pk_fmt_uint(got, UINT64_MAX);

		got[n] = '\0';
		bad += strcmp(got, "18446744073709551615") != 0;
		n = pk_fmt_uint(got, 0);
		got[n] = '\0';
		bad += strcmp(got, "0") != 0;
	}
	ok(bad == 0, "pk_fmt_uint: %d values print as %%" PRIu64 " does, 0 and UINT64_MAX too", checked + 2);
}

/* The output buffer: 3 MiB through a FILE (flushed a megabyte at a time) and in memory (grown). */
/*
 * pk_format_page_size against values worked out by hand from perf's
 * unit_number__scnprintf(): divide by 1024 while the quotient is above 1,
 * so 2047 bytes stay "2047B" and 2 MB less a byte is "2047K".
 */
static void test_page_size(void)
{
	static const struct { uint64_t size; const char *text; } cases[] = {
		{ 0, "N/A" }, { 512, "512B" }, { 2047, "2047B" }, { 2048, "2K" }, { 4096, "4K" },
		{ 65536, "64K" }, { 2097151, "2047K" }, { 2097152, "2M" }, { 1073741824, "1024M" },
		{ 2147483648ull, "2G" }, { 1ull << 50, "1048576G" },
	};
	char got[PK_PAGE_SIZE_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = pk_format_page_size(cases[i].size, got);

		ok(n == strlen(cases[i].text) && !strcmp(got, cases[i].text),
		   "pk_format_page_size(%" PRIu64 ") is '%s' (got '%s')", cases[i].size, cases[i].text, got);
	}
}

static void test_obuf(void)
{
	char *want = malloc(3u << 20), *text = NULL;
	size_t len = 0, off = 0;
	FILE *m = open_memstream(&text, &len);
	struct pk_obuf to_file, in_mem;
	int bad = 0;

	for (size_t i = 0; i < (3u << 20); i++)
		want[i] = (char)('a' + i % 23);
	ok(m && pk_obuf_init(&to_file, m) == 0 && pk_obuf_init(&in_mem, NULL) == 0, "obuf: both kinds set up");
	/* pieces of every size up to 9,999 bytes, half written in place after pk_obuf_room */
	for (size_t k = 0; off < (3u << 20); k++) {
		size_t n = (k * 7919) % 10000;
		char *p;

		if (n > (3u << 20) - off)
			n = (3u << 20) - off;
		if (k % 2) {
			pk_obuf_write(&to_file, want + off, n);
			pk_obuf_write(&in_mem, want + off, n);
		} else {
			if ((p = pk_obuf_room(&to_file, n)))
				pk_obuf_wrote(&to_file, (char *)memcpy(p, want + off, n) + n);
			else
				bad++;
			if ((p = pk_obuf_room(&in_mem, n)))
				pk_obuf_wrote(&in_mem, (char *)memcpy(p, want + off, n) + n);
			else
				bad++;
		}
		off += n;
	}
	bad += pk_obuf_flush(&to_file) != 0 || !m || fflush(m) != 0;
	ok(!bad && len == (3u << 20) && memcmp(text, want, len) == 0,
	   "obuf: 3 MiB written to a FILE in order (%zu bytes)", len);
	ok(pk_obuf_flush(&in_mem) == 0 && in_mem.len == (3u << 20) && memcmp(in_mem.buf, want, in_mem.len) == 0,
	   "obuf: 3 MiB kept in memory, the buffer grown (%zu bytes)", in_mem.len);
	ok(pk_obuf_room(&to_file, PK_OBUF_SIZE + 1) == NULL, "obuf: more than a buffer at once is refused with a FILE");
	pk_obuf_release(&to_file);
	pk_obuf_release(&in_mem);
	if (m)
		fclose(m);
	free(text);
	free(want);
}

/* pk_cpus_usable: the affinity mask, which taskset and cgroups narrow, not the CPUs online. */
static void test_cpus_usable(void)
{
	cpu_set_t all, one;
	int cpu;

	if (sched_getaffinity(0, sizeof(all), &all)) {
		ok(pk_cpus_usable() >= 1, "cpus usable: at least one (no affinity mask readable)");
		return;
	}
	is_int(pk_cpus_usable(), CPU_COUNT(&all), "cpus usable: as many as the affinity mask holds");
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &all); cpu++)
		;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) == 0) {
		is_int(pk_cpus_usable(), 1, "cpus usable: 1 when pinned to CPU %d", cpu);
		sched_setaffinity(0, sizeof(all), &all);
	}
	is_int(pk_cpus_usable(), CPU_COUNT(&all), "cpus usable: back to %d with the mask restored",
	       CPU_COUNT(&all));
}

/* pk_file_data_load: a regular file mapped, anything else read, each with its bounds. */
static void test_file_data(void)
{
	char path[] = "/tmp/pk-core-map-XXXXXX";
	struct pk_file_data f;
	int fd = mkstemp(path), pipe_fds[2];

	ok(fd >= 0 && write(fd, "<metrics>\n", 10) == 10, "temp file written");
	close(fd);
	ok(!pk_file_data_load(path, 1 << 20, &f) && f.map && f.len == 10 &&
	   !memcmp(f.data, "<metrics>\n", 10), "a regular file is mapped, its bytes all there");
	pk_file_data_release(&f);
	ok(!f.data && !f.len && !f.map, "released: nothing left");
	is_int(pk_file_data_load(path, 9, &f), -EFBIG, "a regular file longer than max is -EFBIG");
	pk_file_data_release(&f);
	ok(!pk_file_data_load(path, 10, &f) && f.len == 10, "one exactly max bytes long is read");
	pk_file_data_release(&f);
	ok(!pk_file_data_load("/proc/self/status", 1 << 20, &f) && !f.map && f.len > 5 &&
	   !memcmp(f.data, "Name:", 5), "a procfs file of reported size 0 is read, not mapped");
	pk_file_data_release(&f);
	is_int(pk_file_data_load("/proc/self/status", 4, &f), -EFBIG,
	       "a procfs file longer than max is -EFBIG");
	pk_file_data_release(&f);
	ok(pipe(pipe_fds) == 0 && write(pipe_fds[1], "through a pipe", 14) == 14, "pipe written");
	close(pipe_fds[1]);
	{
		char name[64];

		snprintf(name, sizeof(name), "/proc/self/fd/%d", pipe_fds[0]);
		ok(!pk_file_data_load(name, 1 << 20, &f) && !f.map && f.len == 14 &&
		   !memcmp(f.data, "through a pipe", 14), "a pipe is read whole");
		pk_file_data_release(&f);
	}
	close(pipe_fds[0]);
	fd = open(path, O_WRONLY | O_TRUNC);
	close(fd);
	ok(!pk_file_data_load(path, 1 << 20, &f) && !f.len && !f.map, "an empty file: no bytes");
	pk_file_data_release(&f);
	is_int(pk_file_data_load("/nonexistent/file", 1 << 20, &f), -ENOENT, "a missing file is -ENOENT");
	pk_file_data_release(&f);
	unlink(path);
}

/* Minor page faults taken writing a byte per page of [@m, @m + @len). */
static long faults_writing(char *m, size_t len)
{
	struct rusage before, after;

	getrusage(RUSAGE_SELF, &before);
	for (size_t i = 0; i < len; i += 4096)
		m[i] = 1;
	getrusage(RUSAGE_SELF, &after);
	return after.ru_minflt - before.ru_minflt;
}

/*
 * pk_prefault_write: a fresh range is then written with far fewer page
 * faults than a fresh range without it (a sanitizer's shadow memory faults
 * in both); contents stay.
 */
static void test_prefault(void)
{
	size_t len = 1u << 20;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *plain = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long with, without;

	ok(m != MAP_FAILED && plain != MAP_FAILED, "2 x 1 MB mapped");
	if (m == MAP_FAILED || plain == MAP_FAILED)
		return;
	m[100] = 'x';                          /* in the first page, before the range */
	pk_prefault_write(m + 200, len - 400);
	ok(m[100] == 'x' && m[200] == 0 && m[len - 1] == 0, "contents unchanged, inside and around");
	with = faults_writing(m, len);
	without = faults_writing(plain, len);
	if (madvise(m, 4096, 23 /* MADV_POPULATE_WRITE */) != 0)
		ok(1, "# SKIP kernel without MADV_POPULATE_WRITE (before 5.14): the pages fault as before");
	else
		ok(without - with >= 200, "256 pages written: %ld page faults after the prefault, %ld without",
		   with, without);
	munmap(m, len);
	munmap(plain, len);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pk_prefault_write(m, 60 << 10);        /* under 64 KB: left to the faults */
	with = faults_writing(m, 60 << 10);
	ok(with >= 15, "a range under 64 KB is not prefaulted (%ld faults)", with);
	munmap(m, len);
}

/* Transparent huge pages are given on request here ("always" or "madvise" in sysfs). */
static bool huge_pages_on_request(void)
{
	char mode[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (f) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = 0;
		fclose(f);
	}
	return strstr(mode, "[always]") || strstr(mode, "[madvise]");
}

/*
 * pk_realloc_huge: small sizes are plain realloc; from 2 MB on the block is
 * aligned to a huge page, keeps the contents it had, and (where the kernel
 * gives huge pages on request) is filled with a page fault per 2 MB, not
 * per 4 KB (a sanitizer's shadow memory, an eighth, faults in 4 KB pages).
 */
static void test_realloc_huge(void)
{
	size_t small = 1000, big = 8u << 20;
	unsigned char *p = pk_realloc_huge(NULL, 0, small), *q;
	bool kept = true;
	long faults;

	ok(p != NULL, "1,000 bytes allocated");
	if (!p)
		return;
	for (size_t i = 0; i < small; i++)
		p[i] = (unsigned char)(i * 7);
	q = pk_realloc_huge(p, small, big);
	ok(q != NULL && (uintptr_t)q % (2u << 20) == 0, "grown to 8 MB, aligned to a huge page");
	if (!q) {
		free(p);
		return;
	}
	for (size_t i = 0; i < small; i++)
		kept = kept && q[i] == (unsigned char)(i * 7);
	ok(kept, "the first 1,000 bytes kept");
	faults = faults_writing((char *)q + (2u << 20), big - (2u << 20));
	if (!huge_pages_on_request())
		ok(1, "# SKIP transparent huge pages are not given on request here");
	else
		ok(faults < 1024, "6 MB written in huge pages: %ld page faults (1,536 in 4 KB pages)",
		   faults);
	free(q);
}

int main(void)
{
	test_diag();
	test_buf();
	test_reader();
	test_cpulist();
	test_files();
	test_file_data();
	test_prefault();
	test_realloc_huge();
	test_workload();
	test_fixed6();
	test_g17();
	test_fmt_uint();
	test_fmt_bytes_hex();
	test_page_size();
	test_obuf();
	test_cpus_usable();
	return done_testing();
}
