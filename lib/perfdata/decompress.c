/*
 * zstd-compressed records (perf record -z). One streaming ZSTD_DCtx lives
 * across all COMPRESSED (81) / COMPRESSED2 (83) records of an input: only the
 * first record carries the frame magic, the others continue the same frame
 * (../shared/reference/perf-data.md §9). Each chunk is decompressed whole
 * into one output buffer, after the undecoded tail of the previous chunk
 * (a record may span two chunks); then every complete record in it is
 * processed as if it had been read from the file, reporting the compressed
 * record's file offset. The output is bounded by PK_PD_ZSTD_MAX_OUT; the
 * COMPRESSED feature's mmap_len is only a hint for the first allocation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "perfdata/internal.h"

static int out_grow(struct pk_pd_zstd *z, size_t want, uint64_t off, struct pk_diag *d)
{
	size_t cap = z->cap;
	uint8_t *nb;

	if (want <= cap)
		return 0;
	if (want > PK_PD_ZSTD_MAX_OUT)
		return PK_CORRUPT(d, off, "compressed record expands beyond %u MiB",
				  PK_PD_ZSTD_MAX_OUT >> 20);
	while (cap < want)
		cap *= 2;
	if (cap > PK_PD_ZSTD_MAX_OUT)
		cap = PK_PD_ZSTD_MAX_OUT;
	nb = realloc(z->out, cap);
	if (!nb)
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	z->out = nb;
	z->cap = cap;
	return 0;
}

static int zstd_init(struct pk_perfdata *p, struct pk_diag *d)
{
	struct pk_pd_zstd *z = &p->zstd;
	size_t cap = 1u << 20;

	if (z->dctx)
		return 0;
	z->dctx = ZSTD_createDCtx();
	if (!z->dctx)
		return pk_diag_fail(d, -ENOMEM, "cannot create a zstd decompression context");
	/* mmap_len: perf's ring-buffer size, a hint for one chunk's output */
	if (p->feat.comp_mmap_len > cap && p->feat.comp_mmap_len <= (16u << 20))
		cap = p->feat.comp_mmap_len;
	z->out = malloc(cap);
	if (!z->out)
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	z->cap = cap;
	z->len = 0;
	return 0;
}

int pk_perfdata_decompress(struct pk_perfdata *p, const uint8_t *src, size_t n, uint64_t off,
			   struct pk_diag *d)
{
	struct pk_pd_zstd *z = &p->zstd;
	ZSTD_inBuffer in = { src, n, 0 };
	size_t pos = 0;
	int r;

	r = zstd_init(p, d);
	if (r)
		return r;
	for (;;) {
		ZSTD_outBuffer out;
		size_t ret;

		if (z->cap - z->len < ZSTD_DStreamOutSize()) {
			r = out_grow(z, z->len + ZSTD_DStreamOutSize(), off, d);
			if (r)
				return r;
		}
		out.dst = z->out;
		out.size = z->cap;
		out.pos = z->len;
		ret = ZSTD_decompressStream(z->dctx, &out, &in);
		if (ZSTD_isError(ret))
			return PK_CORRUPT(d, off, "zstd: %s", ZSTD_getErrorName(ret));
		z->len = out.pos;
		/* done when all input is used and the output was not filled up */
		if (in.pos == in.size && out.pos < out.size)
			break;
	}

	/* process the complete records; keep a partial one for the next chunk */
	p->in_compressed = 1;
	while (z->len - pos >= 8) {
		const uint8_t *rec = z->out + pos;
		uint32_t type = pk_pd_u32(rec, p->swapped);
		uint16_t size;
		uint64_t extra;

		memcpy(&size, rec + 6, 2);
		if (p->swapped)
			size = pk_pd_bswap16(size);
		if (size < 8) {
			p->in_compressed = 0;
			return PK_CORRUPT(d, off, "bad record header size %u in compressed data "
					  "(type %u)", size, type);
		}
		if (z->len - pos < size)
			break;
		extra = pk_perfdata_record_extra(p, type, rec, size);
		if (extra > z->len - pos - size)
			break;
		r = pk_perfdata_process(p, rec, size, off, extra ? rec + size : NULL, extra, 0, d);
		if (r) {
			p->in_compressed = 0;
			return r;
		}
		pos += size + extra;
	}
	p->in_compressed = 0;
	memmove(z->out, z->out + pos, z->len - pos);
	z->len -= pos;
	return 0;
}

size_t pk_perfdata_zstd_pending(const struct pk_perfdata *p)
{
	return p->zstd.len;
}

void pk_perfdata_zstd_release(struct pk_pd_zstd *z)
{
	if (z->dctx)
		ZSTD_freeDCtx(z->dctx);
	free(z->out);
	memset(z, 0, sizeof(*z));
}
