/*
 * Small-file helpers for procfs and sysfs: files that report size 0, must be
 * read in a loop, and hold one line or one number. Also CPU-list parsing
 * ("0-3,8") shared by sysfs readers and the -C option, the clock, and
 * paths formatted with truncation reported.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/core.h>

int pk_file_read_all(const char *path, struct pk_buf *b, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	err = pk_fd_read_all(fd, b, max);
	close(fd);
	return err;
}

int pk_fd_read_all(int fd, struct pk_buf *b, size_t max)
{
	int err = 0;

	b->len = 0;
	for (;;) {
		ssize_t n;

		if (b->len >= max) {
			char probe;

			n = read(fd, &probe, 1);
			err = n > 0 ? -EFBIG : (n < 0 ? -errno : 0);
			break;
		}
		err = pk_buf_reserve(b, 4096);
		if (err)
			break;
		n = read(fd, b->data + b->len, b->cap - b->len - 1 < max - b->len ?
			 b->cap - b->len - 1 : max - b->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
	}
	if (b->data)
		b->data[b->len] = '\0';
	return err;
}

/* Read straight into @buf: no allocation, so reading a sysfs number cannot run out of memory. */
int pk_file_read_line(const char *path, char *buf, size_t sz)
{
	size_t len = 0;
	char *nl;
	int fd;

	if (!sz)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < sz - 1 && !memchr(buf, '\n', len)) {
		ssize_t n = read(fd, buf + len, sz - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

/* The first line of @path as an integer in @base (0: decimal or 0x hex). */
static int read_int(const char *path, int is_signed, int base, uint64_t *v)
{
	char line[64], *end;
	int err = pk_file_read_line(path, line, sizeof(line));

	if (err)
		return err;
	errno = 0;
	*v = is_signed ? (uint64_t)strtoll(line, &end, base) : strtoull(line, &end, base);
	if (errno || end == line)
		return -EINVAL;
	return 0;
}

int pk_file_read_u64(const char *path, uint64_t *v)
{
	return read_int(path, 0, 0, v);
}

int pk_file_read_s64(const char *path, int64_t *v)
{
	uint64_t u;
	int err = read_int(path, 1, 10, &u);

	if (!err)
		*v = (int64_t)u;
	return err;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Largest CPU number accepted, so a hostile list cannot make us allocate without bound. */
#define PK_MAX_CPU 65535

int pk_cpulist_parse(const char *s, int **cpus, struct pk_diag *diag)
{
	size_t n = 0, cap = 0, i, out;
	const char *p = s;
	int *v = NULL;

	*cpus = NULL;
	while (*p && *p != '\n') {
		long lo, hi;
		char *end;

		if (!isdigit((unsigned char)*p))
			goto bad;
		lo = strtol(p, &end, 10);
		p = end;
		hi = lo;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			hi = strtol(p, &end, 10);
			p = end;
		}
		if (lo > hi || hi > PK_MAX_CPU) {
			free(v);
			return pk_diag_fail_at(diag, -EINVAL, (uint64_t)(p - s),
					       "invalid CPU range %ld-%ld", lo, hi);
		}
		for (long c = lo; c <= hi; c++) {
			if (n == cap) {
				int *nv;

				cap = cap ? cap * 2 : 16;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[n++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto bad;
	}
	if (n == 0) {
		free(v);
		return pk_diag_fail_at(diag, -EINVAL, 0, "empty CPU list");
	}
	qsort(v, n, sizeof(*v), cmp_int);
	for (i = 1, out = 1; i < n; i++)
		if (v[i] != v[out - 1])
			v[out++] = v[i];
	*cpus = v;
	return (int)out;
bad:
	free(v);
	return pk_diag_fail_at(diag, -EINVAL, (uint64_t)(p - s),
			       "unexpected character in CPU list");
}

uint64_t pk_clock_ns(int clock)
{
	struct timespec ts;

	clock_gettime((clockid_t)clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t pk_now_ns(void)
{
	return pk_clock_ns(CLOCK_MONOTONIC);
}

int pk_path_fmt(char *buf, size_t sz, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sz, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= sz ? -ENAMETOOLONG : 0;
}
