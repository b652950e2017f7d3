/*
 * The bytes of a perf.data input. A regular file is mmapped whole (MAP_PRIVATE,
 * sequential advice) and records are decoded in place. Anything else (a pipe,
 * a socket, standard input) is streamed through one large buffer filled with
 * read(2): only the bytes between the consumed position and what a peek asked
 * for are held, so memory follows the largest record (plus its payload), not
 * the input. The walk peeks at records relative to the current position and
 * consumes them when done.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "perfdata/internal.h"

#define PK_PD_READ_CHUNK (1u << 20)

static int in_read_more(struct pk_pd_input *in, size_t want_end)
{
	while (in->end < want_end && !in->eof) {
		size_t room = in->cap - in->end;
		ssize_t n;

		if (room > PK_PD_READ_CHUNK * 4)
			room = PK_PD_READ_CHUNK * 4;
		n = read(in->fd, in->buf + in->end, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0) {
			in->eof = 1;
			break;
		}
		in->end += (size_t)n;
		in->total_read += (uint64_t)n;
	}
	return 0;
}

/* Room for @need bytes from buf[start]: compact, then grow (doubling, only as data arrives). */
static int in_make_room(struct pk_pd_input *in, size_t need)
{
	size_t want, cap;
	uint8_t *nb;

	if (in->start + need <= in->cap)
		return 0;
	if (in->start) {
		memmove(in->buf, in->buf + in->start, in->end - in->start);
		in->end -= in->start;
		in->start = 0;
	}
	if (need <= in->cap)
		return 0;
	want = need > PK_PD_READ_CHUNK ? need : PK_PD_READ_CHUNK;
	cap = in->cap ? in->cap : PK_PD_READ_CHUNK;
	while (cap < want)
		cap *= 2;
	nb = realloc(in->buf, cap);
	if (!nb)
		return -ENOMEM;
	in->buf = nb;
	in->cap = cap;
	return 0;
}

int pk_perfdata_in_peek(struct pk_perfdata *p, uint64_t rel, uint64_t need, const uint8_t **ptr,
			uint64_t *avail)
{
	struct pk_pd_input *in = &p->in;
	uint64_t total;

	if (!in->stream) {
		uint64_t at = in->pos + rel;

		if (at > in->limit || in->pos > in->limit) {
			*ptr = in->mem + in->limit;
			*avail = 0;
			return 0;
		}
		*ptr = in->mem + at;
		*avail = in->limit - at < need ? in->limit - at : need;
		return 0;
	}
	/* more than can exist: read to the end, the caller sees avail < need */
	if (rel > SIZE_MAX / 4)
		rel = SIZE_MAX / 4;
	if (need > SIZE_MAX / 4)
		need = SIZE_MAX / 4;
	total = rel + need;
	if (in->end - in->start < total && !in->eof) {
		/*
		 * Grow step by step as bytes actually arrive: ask for at most
		 * twice what is buffered (or a chunk) at a time, so a huge size
		 * read from the input allocates no more than the input holds.
		 */
		for (;;) {
			size_t have = in->end - in->start;
			size_t step = have * 2 > PK_PD_READ_CHUNK ? have * 2 : PK_PD_READ_CHUNK;
			size_t goal = total < step ? (size_t)total : step;
			int r;

			if (goal < have)
				goal = have;
			r = in_make_room(in, goal);
			if (r)
				return r;
			r = in_read_more(in, in->start + goal);
			if (r)
				return r;
			if (in->end - in->start >= total || in->eof)
				break;
		}
	}
	{
		size_t have = in->end - in->start;

		if (rel >= have) {
			*ptr = in->buf + in->end;
			*avail = 0;
			return 0;
		}
		*ptr = in->buf + in->start + rel;
		*avail = have - rel < need ? have - rel : need;
	}
	return 0;
}

void pk_perfdata_in_consume(struct pk_perfdata *p, uint64_t n)
{
	struct pk_pd_input *in = &p->in;

	in->pos += n;
	if (in->stream) {
		size_t have = in->end - in->start;

		if (n >= have) {
			in->start = in->end = 0;
		} else {
			in->start += n;
		}
	}
}

int pk_perfdata_in_slurp(struct pk_perfdata *p)
{
	struct pk_pd_input *in = &p->in;
	int r;

	if (!in->stream)
		return 0;
	while (!in->eof) {
		r = in_make_room(in, in->end - in->start + PK_PD_READ_CHUNK);
		if (r)
			return r;
		r = in_read_more(in, in->cap);
		if (r)
			return r;
	}
	if (in->start)
		memmove(in->buf, in->buf + in->start, in->end - in->start);
	in->end -= in->start;
	in->start = 0;
	in->mem = in->buf;
	in->mem_len = in->end;
	in->mem_mapped = 0;
	in->buf = NULL;
	in->cap = in->end = 0;
	in->stream = 0;
	/* called before anything was consumed: mem[0] is file offset 0 */
	in->pos = 0;
	in->limit = in->mem_len;
	return 0;
}

void pk_perfdata_in_release(struct pk_pd_input *in)
{
	if (in->mem) {
		if (in->mem_mapped)
			munmap((void *)in->mem, in->mem_len);
		else
			free((void *)in->mem);
	}
	free(in->buf);
	if (in->fd >= 0)
		close(in->fd);
	memset(in, 0, sizeof(*in));
	in->fd = -1;
}
