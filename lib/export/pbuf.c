/*
 * A minimal protocol-buffers writer for pprof's profile.proto, and a gzip
 * writer (zlib, windowBits 31) for the finished message.
 *
 * Wire format (protobuf encoding documentation): every field is a key
 * varint (field_number << 3 | wire_type) then the value: wire type 0 is a
 * base-128 varint (low groups first, high bit = more follows), wire type 2
 * is a varint length then that many bytes (strings, bytes, nested messages
 * and packed repeated scalars). Negative int64 values are 10-byte varints.
 */
#include <errno.h>
#include <string.h>
#include <zlib.h>
#include "export/pbuf.h"

int pk_pb_varint(struct pk_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	return pk_buf_append(b, tmp, n);
}

int pk_pb_uint(struct pk_buf *b, uint32_t field, uint64_t v)
{
	int err;

	if (!v)
		return 0;   /* proto3: zero is the default and is left out */
	if ((err = pk_pb_varint(b, (uint64_t)field << 3 | PK_PB_VARINT)))
		return err;
	return pk_pb_varint(b, v);
}

int pk_pb_bytes(struct pk_buf *b, uint32_t field, const void *p, size_t n)
{
	int err;

	if ((err = pk_pb_varint(b, (uint64_t)field << 3 | PK_PB_LEN)) ||
	    (err = pk_pb_varint(b, n)))
		return err;
	return pk_buf_append(b, p, n);
}

int pk_pb_packed(struct pk_buf *b, uint32_t field, const uint64_t *v, size_t n, struct pk_buf *scratch)
{
	scratch->len = 0;
	for (size_t i = 0; i < n; i++) {
		int err = pk_pb_varint(scratch, v[i]);

		if (err)
			return err;
	}
	if (!n)
		return 0;
	return pk_pb_bytes(b, field, scratch->data, scratch->len);
}

int pk_gzip_write(const void *data, size_t len, FILE *out)
{
	z_stream z;
	unsigned char obuf[65536];
	int zr;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)(uintptr_t)data;
	do {
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;

		z.avail_in = (uInt)chunk;
		len -= chunk;
		do {
			z.next_out = obuf;
			z.avail_out = sizeof(obuf);
			zr = deflate(&z, len ? Z_NO_FLUSH : Z_FINISH);
			if (zr == Z_STREAM_ERROR) {
				deflateEnd(&z);
				return -EIO;
			}
			if (fwrite(obuf, 1, sizeof(obuf) - z.avail_out, out) != sizeof(obuf) - z.avail_out) {
				deflateEnd(&z);
				return -EIO;
			}
		} while (z.avail_out == 0);
	} while (len);
	deflateEnd(&z);
	return zr == Z_STREAM_END ? 0 : -EIO;
}
