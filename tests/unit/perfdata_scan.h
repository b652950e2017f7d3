/*
 * Test helpers for test_perfdata.c, written independently of lib/perfdata:
 *  - scan_file(): a minimal record counter (native byte order only) that
 *    walks a perf.data file or pipe stream by header.size, skips AUXTRACE
 *    and tracing-data payloads, and inflates COMPRESSED/COMPRESSED2 with one
 *    zstd stream, counting records per type. It is the oracle for files
 *    Linux perf 6.1 cannot read (attr size 136, COMPRESSED2, simpleperf types).
 *  - swap_file(): rewrites a little-endian perf.data recorded with
 *    `perf record -e cpu-clock` (sample_type IP|TID|TIME|PERIOD,
 *    sample_id_all) into the other byte order by the known layouts
 *    (../shared/reference/perf-data.md §1, §2, §4-§6), as a big-endian
 *    perf would have written it. Records it has no layout for are dropped and
 *    the feature bitmap is cleared.
 */
#ifndef PERFKIT_TESTS_PERFDATA_SCAN_H
#define PERFKIT_TESTS_PERFDATA_SCAN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

struct scan_res {
	uint64_t nr[65536];
	uint64_t total;
	uint64_t trailing;
	int ok;
};

static uint64_t sc_u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t sc_u32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t sc_u16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

struct scan_z {
	ZSTD_DCtx *dctx;
	uint8_t *buf;
	size_t len, cap;
};

static void scan_records(struct scan_res *s, struct scan_z *z, const uint8_t *b, size_t n,
			 size_t *used, int inner);

static void scan_inflate(struct scan_res *s, struct scan_z *z, const uint8_t *src, size_t n)
{
	ZSTD_inBuffer in = { src, n, 0 };
	size_t used = 0;

	if (!z->dctx)
		z->dctx = ZSTD_createDCtx();
	for (;;) {
		ZSTD_outBuffer out;

		if (z->cap - z->len < 131072) {
			z->cap = z->cap ? z->cap * 2 : 1 << 20;
			z->buf = realloc(z->buf, z->cap);
		}
		out.dst = z->buf;
		out.size = z->cap;
		out.pos = z->len;
		if (ZSTD_isError(ZSTD_decompressStream(z->dctx, &out, &in))) {
			s->ok = 0;
			return;
		}
		z->len = out.pos;
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	scan_records(s, z, z->buf, z->len, &used, 1);
	memmove(z->buf, z->buf + used, z->len - used);
	z->len -= used;
}

static void scan_records(struct scan_res *s, struct scan_z *z, const uint8_t *b, size_t n,
			 size_t *used, int inner)
{
	size_t pos = 0;

	while (n - pos >= 8) {
		uint32_t type = sc_u32(b + pos);
		uint16_t size = sc_u16(b + pos + 6);
		uint64_t extra = 0;

		if (size < 8)
			break;
		if (size > n - pos)
			break;
		if (type == 71 && size >= 16)
			extra = sc_u64(b + pos + 8);
		if (type == 66 && size >= 12)
			extra = (sc_u32(b + pos + 8) + 7ull) & ~7ull;
		if (extra > n - pos - size)
			break;
		if (type < 65536)
			s->nr[type]++;
		s->total++;
		if (type == 81 && !inner)
			scan_inflate(s, z, b + pos + 8, size - 8u);
		if (type == 83 && !inner && size >= 16)
			scan_inflate(s, z, b + pos + 16, sc_u64(b + pos + 8));
		pos += size + extra;
	}
	*used = pos;
}

/* Count the records of the @n bytes at @b; 0 if it is not a native perf.data. */
static int scan_file(const uint8_t *b, size_t n, struct scan_res *s)
{
	struct scan_z z = { 0 };
	size_t used = 0, start, end;

	memset(s, 0, sizeof(*s));
	s->ok = 1;
	if (n < 16 || (memcmp(b, "PERFILE2", 8) && memcmp(b, "PERFFILE", 8)))
		return 0;
	if (sc_u64(b + 8) == 16) {
		start = 16;
		end = n;
	} else {
		if (n < 56)
			return 0;
		start = sc_u64(b + 40);
		end = start + sc_u64(b + 48);
		if (end > n || start > end)
			return 0;
	}
	scan_records(s, &z, b + start, end - start, &used, 0);
	s->trailing = end - start - used;
	ZSTD_freeDCtx(z.dctx);
	free(z.buf);
	return s->ok;
}

/* ---- the byte swapper ---------------------------------------------------- */

static void sw16(uint8_t *p) { uint16_t v = sc_u16(p); v = __builtin_bswap16(v); memcpy(p, &v, 2); }
static void sw32(uint8_t *p) { uint32_t v = sc_u32(p); v = __builtin_bswap32(v); memcpy(p, &v, 4); }
static void sw64(uint8_t *p) { uint64_t v = sc_u64(p); v = __builtin_bswap64(v); memcpy(p, &v, 8); }

static uint8_t rev8(uint8_t b)
{
	uint8_t r = 0;

	for (int i = 0; i < 8; i++)
		if (b & (1u << i))
			r |= (uint8_t)(0x80u >> i);
	return r;
}

/*
 * An attr of @size bytes. Integer fields are byte-swapped; the flag word at
 * 40 is a bitfield: a big-endian compiler allocates it from the most
 * significant bit, so its stored bytes are the little-endian bytes with the
 * bits of each byte reversed (all 1-bit fields; precise_ip must be 0).
 */
static void swap_attr(uint8_t *a, uint32_t size)
{
	static const uint8_t f[][2] = {
		{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 8 }, { 32, 8 }, { 48, 4 },
		{ 52, 4 }, { 56, 8 }, { 64, 8 }, { 72, 8 }, { 80, 8 }, { 88, 4 }, { 92, 4 },
		{ 96, 8 }, { 104, 4 }, { 108, 2 }, { 110, 2 }, { 112, 4 }, { 116, 4 },
		{ 120, 8 }, { 128, 8 },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if ((uint32_t)f[i][0] + f[i][1] > size)
			break;
		if (f[i][1] == 2)
			sw16(a + f[i][0]);
		else if (f[i][1] == 4)
			sw32(a + f[i][0]);
		else
			sw64(a + f[i][0]);
	}
	for (int i = 40; i < 48; i++)
		a[i] = rev8(a[i]);
}

/* sample_id trailer of IP|TID|TIME|PERIOD: u32 pid, tid; u64 time. */
static void swap_trailer(uint8_t *r, size_t size)
{
	sw32(r + size - 16);
	sw32(r + size - 12);
	sw64(r + size - 8);
}

/* Swap one record of @size bytes at @r in place; 0 if its layout is unknown. */
static int swap_record(uint8_t *r, size_t size)
{
	uint32_t type = sc_u32(r);

	switch (type) {
	case 9:        /* SAMPLE: u64 ip; u32 pid, tid; u64 time; u64 period */
		if (size != 40)
			return 0;
		sw64(r + 8); sw32(r + 16); sw32(r + 20); sw64(r + 24); sw64(r + 32);
		break;
	case 1:        /* MMAP: u32 pid, tid; u64 start, len, pgoff; filename; trailer */
		sw32(r + 8); sw32(r + 12); sw64(r + 16); sw64(r + 24); sw64(r + 32);
		swap_trailer(r, size);
		break;
	case 10:       /* MMAP2: ... u32 maj, min; u64 ino, ino_gen; u32 prot, flags; name */
		if (sc_u16(r + 4) & (1u << 14))
			return 0;
		sw32(r + 8); sw32(r + 12); sw64(r + 16); sw64(r + 24); sw64(r + 32);
		sw32(r + 40); sw32(r + 44); sw64(r + 48); sw64(r + 56); sw32(r + 64); sw32(r + 68);
		swap_trailer(r, size);
		break;
	case 3:        /* COMM: u32 pid, tid; comm; trailer */
		sw32(r + 8); sw32(r + 12);
		swap_trailer(r, size);
		break;
	case 4: case 7: /* EXIT/FORK: u32 pid, ppid, tid, ptid; u64 time; trailer */
		sw32(r + 8); sw32(r + 12); sw32(r + 16); sw32(r + 20); sw64(r + 24);
		swap_trailer(r, size);
		break;
	case 68: case 82:  /* FINISHED_ROUND, FINISHED_INIT: empty */
		break;
	default:
		return 0;
	}
	sw32(r);
	sw16(r + 4);
	sw16(r + 6);
	return 1;
}

/*
 * Write the swapped form of the file-mode perf.data @b (@n bytes) to a new
 * malloc'd buffer: header, one attrs section with its ids, the data section
 * (known records only), no features. Returns the size, 0 on failure.
 */
static size_t swap_file(const uint8_t *b, size_t n, uint8_t **out, size_t *nr_dropped)
{
	uint64_t attr_size = sc_u64(b + 16), attrs_off = sc_u64(b + 24);
	uint64_t attrs_size = sc_u64(b + 32), data_off = sc_u64(b + 40), data_size = sc_u64(b + 48);
	uint64_t nattrs, i, pos = 0, ids_total = 0, w;
	uint8_t *o;

	*nr_dropped = 0;
	if (n < 104 || sc_u64(b + 8) != 104 || attr_size < 80 || data_off + data_size > n)
		return 0;
	nattrs = attrs_size / attr_size;
	for (i = 0; i < nattrs; i++)
		ids_total += sc_u64(b + attrs_off + i * attr_size + attr_size - 8);
	o = calloc(1, 104 + attrs_size + ids_total + data_size);
	if (!o)
		return 0;
	/* attrs section at 104, id arrays after it, then the data */
	memcpy(o + 104, b + attrs_off, attrs_size);
	w = 104 + attrs_size;
	for (i = 0; i < nattrs; i++) {
		uint8_t *e = o + 104 + i * attr_size;
		uint64_t ioff = sc_u64(e + attr_size - 16), isz = sc_u64(e + attr_size - 8), k;

		memcpy(o + w, b + ioff, isz);
		for (k = 0; k < isz; k += 8)
			sw64(o + w + k);
		memcpy(e + attr_size - 16, &w, 8);
		sw64(e + attr_size - 16);
		sw64(e + attr_size - 8);
		swap_attr(e, sc_u32(e + 4));
		w += isz;
	}
	data_off = w;
	while (pos + 8 <= data_size) {
		const uint8_t *r = b + sc_u64(b + 40) + pos;
		uint16_t size = sc_u16(r + 6);

		if (size < 8 || pos + size > data_size)
			break;
		memcpy(o + w, r, size);
		if (swap_record(o + w, size))
			w += size;
		else
			(*nr_dropped)++;
		pos += size;
	}
	memcpy(o, "2ELIFREP", 8);       /* "PERFILE2" as a big-endian u64 */
	{
		uint64_t hdr[6] = { 104, attr_size, 104, attrs_size, data_off, w - data_off };

		for (i = 0; i < 6; i++) {
			memcpy(o + 8 + i * 8, &hdr[i], 8);
			sw64(o + 8 + i * 8);
		}
	}
	*out = o;
	return w;
}

#endif
