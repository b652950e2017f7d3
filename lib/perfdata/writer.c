/*
 * The perf.data writer: file mode (header, id arrays, attrs, data, feature
 * sections, header rewritten at close) and pipe mode (pipe header and
 * HEADER_ATTR / HEADER_FEATURE / HEADER_TRACING_DATA / HEADER_BUILD_ID
 * records up front), optionally with the records zstd-compressed into
 * PERF_RECORD_COMPRESSED records, as Linux perf 6.1 writes and reads them.
 *
 * This file holds the output path (buffer, compression, records) and
 * open/close; the header, the feature block and the pipe-mode header
 * records are in writer_header.c.
 *
 * Output goes through one buffer that is written out when full and at every
 * round (pk_writer_round), so the offset after the last complete round is
 * known on disk. Every write checks for errors and short writes; the first
 * failure sticks, and pk_writer_close() then cuts a regular file back to the
 * last complete round.
 *
 * Compression: one ZSTD_CCtx for the whole file. Records are fed with
 * ZSTD_e_continue; the stream is flushed (ZSTD_e_flush) at each round and
 * whenever ZSEG raw bytes were fed since the last flush, and the output of
 * one flush goes out as one COMPRESSED record. ZSEG is chosen so that the
 * worst-case output of a flush fits in one record (header.size is a u16),
 * and so that every COMPRESSED record decodes to at least one byte and to at
 * most the COMPRESSED feature's mmap_len (perf 6.1 sizes its decompression
 * buffer by it and gives up on a record that decodes to nothing).
 *
 * Layouts: ../shared/reference/perf-data.md §1 (file layout, header), §8
 * (pipe mode), §9 (compression).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "perfdata/writer_int.h"

int pk_wr_fail(struct pk_perfdata_writer *w, int err, struct pk_diag *d, const char *fmt, ...)
{
	va_list ap;

	if (!w->err) {
		pk_diag_init(&w->errd);
		w->errd.err = err;
		pk_diag_subject(&w->errd, w->name);
		va_start(ap, fmt);
		vsnprintf(w->errd.msg, sizeof(w->errd.msg), fmt, ap);
		va_end(ap);
		w->err = err;
	}
	if (d)
		*d = w->errd;
	return w->err;
}

int pk_wr_sticky(struct pk_perfdata_writer *w, struct pk_diag *d)
{
	if (d)
		*d = w->errd;
	return w->err;
}

/* Write @n bytes at file offset @off (pwrite in file mode, write in pipe mode). */
int pk_wr_raw(struct pk_perfdata_writer *w, const void *p, size_t n, uint64_t off,
		  struct pk_diag *d)
{
	const uint8_t *s = p;
	size_t done = 0;

	while (done < n) {
		ssize_t r = w->pipe ? write(w->fd, s + done, n - done)
				    : pwrite(w->fd, s + done, n - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;

			pk_wr_fail(w, -e, d, "write failed at offset %llu: %s",
				(unsigned long long)(off + done), strerror(e));
			if (e == ESPIPE)
				pk_diag_hint(&w->errd, "a pipe needs pipe mode");
			if (d)
				*d = w->errd;
			return -e;
		}
		done += (size_t)r;
	}
	return 0;
}

int pk_wr_flush(struct pk_perfdata_writer *w, struct pk_diag *d)
{
	int err;

	if (w->err)
		return pk_wr_sticky(w, d);
	if (!w->blen)
		return 0;
	err = pk_wr_raw(w, w->buf, w->blen, w->wpos, d);
	if (err)
		return err;
	w->wpos += w->blen;
	w->blen = 0;
	return 0;
}

/* Append @n bytes to the output. */
int pk_wr_put(struct pk_perfdata_writer *w, const void *p, size_t n, struct pk_diag *d)
{
	int err;

	if (w->err)
		return pk_wr_sticky(w, d);
	if (w->blen + n > OUT_CAP) {
		err = pk_wr_flush(w, d);
		if (err)
			return err;
		if (n > OUT_CAP) {
			err = pk_wr_raw(w, p, n, w->wpos, d);
			if (!err)
				w->wpos += n;
			return err;
		}
	}
	memcpy(w->buf + w->blen, p, n);
	w->blen += n;
	return 0;
}

int pk_wr_header(struct pk_perfdata_writer *w, uint32_t type, uint32_t size, struct pk_diag *d)
{
	struct perf_event_header h = { .type = type, .misc = 0, .size = (uint16_t)size };

	return pk_wr_put(w, &h, sizeof(h), d);
}

/* ---- compression --------------------------------------------------------- */

static int z_grow(struct pk_perfdata_writer *w, struct pk_diag *d)
{
	size_t cap = w->zcap ? w->zcap * 2 : ZSTD_compressBound(ZSEG) + 1024;
	uint8_t *nb = realloc(w->zbuf, cap);

	if (!nb)
		return pk_wr_fail(w, -ENOMEM, d, "out of memory");
	w->zbuf = nb;
	w->zcap = cap;
	return 0;
}

/*
 * End the current zstd block (ZSTD_e_flush) and write everything the stream
 * produced since the last flush as COMPRESSED (81) records:
 *   0 perf_event_header { type 81, misc 0, size 8 + n }; 8 u8 data[n], unpadded
 * (perf-data.md §9). One record unless the output exceeds a record's room.
 */
static int z_flush(struct pk_perfdata_writer *w, struct pk_diag *d)
{
	size_t rem, off;
	int err;

	if (!w->cctx || (!w->seg && !w->zlen))
		return w->err ? pk_wr_sticky(w, d) : 0;
	do {
		ZSTD_inBuffer in = { NULL, 0, 0 };
		ZSTD_outBuffer out;

		if (w->zcap - w->zlen < 64 && (err = z_grow(w, d)))
			return err;
		out = (ZSTD_outBuffer){ w->zbuf, w->zcap, w->zlen };
		rem = ZSTD_compressStream2(w->cctx, &out, &in, ZSTD_e_flush);
		if (ZSTD_isError(rem))
			return pk_wr_fail(w, -EIO, d, "zstd: %s", ZSTD_getErrorName(rem));
		w->zlen = out.pos;
		if (rem && (err = z_grow(w, d)))
			return err;
	} while (rem);
	for (off = 0; off < w->zlen;) {
		size_t n = w->zlen - off;

		if (n > MAX_REC - 8)
			n = MAX_REC - 8;
		err = pk_wr_header(w, PK_RECORD_COMPRESSED, (uint32_t)(8 + n), d);
		if (!err)
			err = pk_wr_put(w, w->zbuf + off, n, d);
		if (err)
			return err;
		w->zout += 8 + n;
		off += n;
	}
	w->zlen = 0;
	w->seg = 0;
	return 0;
}

static int z_feed(struct pk_perfdata_writer *w, const uint8_t *p, size_t n, struct pk_diag *d)
{
	int err;

	while (n) {
		size_t take = ZSEG - w->seg < n ? ZSEG - w->seg : n;
		ZSTD_inBuffer in = { p, take, 0 };

		while (in.pos < in.size) {
			ZSTD_outBuffer out;
			size_t r;

			if (w->zcap - w->zlen < 64 && (err = z_grow(w, d)))
				return err;
			out = (ZSTD_outBuffer){ w->zbuf, w->zcap, w->zlen };
			r = ZSTD_compressStream2(w->cctx, &out, &in, ZSTD_e_continue);
			if (ZSTD_isError(r))
				return pk_wr_fail(w, -EIO, d, "zstd: %s", ZSTD_getErrorName(r));
			w->zlen = out.pos;
		}
		w->seg += take;
		w->zin += take;
		p += take;
		n -= take;
		if (w->seg >= ZSEG && (err = z_flush(w, d)))
			return err;
	}
	return 0;
}

/* ---- records ------------------------------------------------------------- */

int pk_writer_writev(struct pk_perfdata_writer *w, const struct iovec *iov, int n,
		     struct pk_diag *d)
{
	int err = 0;

	if (w->err)
		return pk_wr_sticky(w, d);
	for (int i = 0; i < n && !err; i++) {
		if (!iov[i].iov_len)
			continue;
		err = w->cctx ? z_feed(w, iov[i].iov_base, iov[i].iov_len, d)
			      : pk_wr_put(w, iov[i].iov_base, iov[i].iov_len, d);
		if (!err)
			w->raw_bytes += iov[i].iov_len;
	}
	return err;
}

int pk_writer_write(struct pk_perfdata_writer *w, const void *buf, size_t len, struct pk_diag *d)
{
	struct iovec v = { (void *)buf, len };

	return pk_writer_writev(w, &v, 1, d);
}

/* FINISHED_ROUND (68): an empty record, never compressed (perf-data.md §6.2). */
int pk_writer_round(struct pk_perfdata_writer *w, struct pk_diag *d)
{
	int err;

	if (w->err)
		return pk_wr_sticky(w, d);
	err = z_flush(w, d);
	if (!err)
		err = pk_wr_header(w, PK_RECORD_FINISHED_ROUND, 8, d);
	if (!err)
		err = pk_wr_flush(w, d);
	if (err)
		return err;
	w->raw_bytes += 8;
	w->round_end = pk_wr_pos(w);
	return 0;
}

uint64_t pk_writer_data_bytes(const struct pk_perfdata_writer *w)
{
	return pk_wr_pos(w) - w->data_off;
}

uint64_t pk_writer_raw_bytes(const struct pk_perfdata_writer *w)
{
	return w->raw_bytes;
}

/* ---- open / close ---------------------------------------------------------- */

static void wr_free(struct pk_perfdata_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nr; i++) {
		free(w->evs[i].name);
		free(w->evs[i].ids);
	}
	free(w->evs);
	if (w->cctx)
		ZSTD_freeCCtx(w->cctx);
	free(w->zbuf);
	free(w->buf);
	free(w->name);
	free(w);
}

static int copy_evsels(struct pk_perfdata_writer *w, const struct pk_writer_evsel *evs, size_t nr)
{
	w->evs = calloc(nr ? nr : 1, sizeof(*w->evs));
	if (!w->evs)
		return -ENOMEM;
	w->nr = nr;
	for (size_t i = 0; i < nr; i++) {
		struct wr_evsel *e = &w->evs[i];
		char name[256];

		if (!evs[i].attr)
			return -EINVAL;
		e->attr = *evs[i].attr;
		e->attr.size = sizeof(struct perf_event_attr);
		if (!evs[i].name)
			pk_perfdata_attr_name(&e->attr, name, sizeof(name));
		e->name = strdup(evs[i].name ? evs[i].name : name);
		e->nr_ids = evs[i].ids ? evs[i].nr_ids : 0;
		e->ids = malloc(((size_t)e->nr_ids + 1) * 8);
		if (!e->name || !e->ids)
			return -ENOMEM;
		if (e->nr_ids)
			memcpy(e->ids, evs[i].ids, (size_t)e->nr_ids * 8);
	}
	return 0;
}

int pk_writer_open(struct pk_perfdata_writer **out, int fd, const char *name,
		   const struct pk_writer_evsel *evs, size_t nr,
		   const struct pk_writer_opts *opts, struct pk_diag *d)
{
	struct pk_perfdata_writer *w;
	int err;

	*out = NULL;
	pk_diag_subject(d, name);
	if (fd < 0 || (nr && !evs))
		return pk_diag_fail(d, -EINVAL, "bad arguments to pk_writer_open");
	if (!(opts && opts->pipe) && (fcntl(fd, F_GETFL) & O_APPEND))
		return pk_diag_fail(d, -EINVAL, "opened with O_APPEND: the header cannot be "
				    "rewritten in place");
	if (opts && (opts->compress_level < 0 || opts->compress_level > 22))
		return pk_diag_fail(d, -EINVAL, "compression level %d is not in 1..22",
				    opts->compress_level);
	w = calloc(1, sizeof(*w));
	if (!w)
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	w->fd = fd;
	w->name = strdup(name ? name : "perf.data");
	w->buf = malloc(OUT_CAP);
	w->pipe = opts ? opts->pipe : 0;
	w->level = opts ? opts->compress_level : 0;
	pk_diag_init(&w->errd);
	if (!w->name || !w->buf || copy_evsels(w, evs, nr)) {
		err = (w->name && w->buf && w->evs) ? -EINVAL : -ENOMEM;
		wr_free(w);
		return pk_diag_fail(d, err, err == -EINVAL ? "an event has no attr" : "out of memory");
	}
	if (w->level) {
		w->cctx = ZSTD_createCCtx();
		if (!w->cctx || ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx,
					     ZSTD_c_compressionLevel, w->level))) {
			wr_free(w);
			return pk_diag_fail(d, -ENOMEM, "cannot create a zstd compression context");
		}
		if (z_grow(w, d)) {
			wr_free(w);
			return -ENOMEM;
		}
	}
	err = w->pipe ? pk_wr_open_pipe(w, opts ? opts->pipe_features : NULL, d) : pk_wr_open_file(w, d);
	if (err) {
		if (d && !w->err)
			pk_diag_subject(d, w->name);
		wr_free(w);
		return err;
	}
	*out = w;
	return 0;
}

/* After a write error: cut back to the last complete round, header without features. */
static int close_after_error(struct pk_perfdata_writer *w, struct pk_diag *d)
{
	uint64_t bits[4] = { 0 }, none[4] = { 0 }, end;
	int saved = w->err;
	struct pk_diag ed = w->errd;

	w->blen = 0;
	if (ftruncate(w->fd, (off_t)w->round_end) != 0) {
		pk_log(PK_LOG_WARN, "'%s': cannot truncate to the last complete round: %s",
		       w->name, strerror(errno));
	} else {
		/* compressed records need the COMPRESSED feature for perf to decode them */
		w->err = 0;
		if (w->cctx && pk_wr_features(w, NULL, w->round_end, 1, bits, &end, NULL) != 0) {
			memset(bits, 0, sizeof(bits));
			if (ftruncate(w->fd, (off_t)w->round_end) != 0)
				pk_log(PK_LOG_WARN, "'%s': cannot truncate: %s", w->name,
				       strerror(errno));
		}
		w->err = 0;
		if (pk_wr_file_header(w, w->round_end - w->data_off, bits, NULL) != 0) {
			w->err = 0;
			pk_wr_file_header(w, w->round_end - w->data_off, none, NULL);
		}
	}
	if (d)
		*d = ed;
	return saved;
}

int pk_writer_close(struct pk_perfdata_writer *w, const struct pk_features *f, struct pk_diag *d)
{
	uint64_t bits[4], data_size, end;
	struct stat st;
	int err;

	if (!w)
		return 0;
	if (!w->err) {
		err = z_flush(w, d);
		if (!err)
			err = pk_wr_flush(w, d);
	}
	if (w->err) {
		err = w->pipe ? pk_wr_sticky(w, d) : close_after_error(w, d);
		wr_free(w);
		return err;
	}
	if (w->pipe) {
		wr_free(w);
		return 0;
	}
	data_size = pk_wr_pos(w) - w->data_off;
	w->round_end = pk_wr_pos(w);
	err = pk_wr_features(w, f, pk_wr_pos(w), 0, bits, &end, d);
	if (err) {
		err = close_after_error(w, d);
		wr_free(w);
		return err;
	}
	err = pk_wr_file_header(w, data_size, bits, d);
	/* a file that was longer before ends here */
	if (!err && fstat(w->fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > end &&
	    ftruncate(w->fd, (off_t)end) != 0)
		err = pk_wr_fail(w, -errno, d, "cannot truncate to %llu bytes: %s",
			      (unsigned long long)end, strerror(errno));
	wr_free(w);
	return err;
}
