/*
 * Bounded reader over untrusted bytes. Every read checks the remaining
 * length first and fails through PK_CORRUPT with the offset of the short
 * read, so parsers built on it cannot read past their input.
 */
#include <byteswap.h>
#include <errno.h>
#include <string.h>
#include <perfkit/core.h>

void pk_reader_init(struct pk_reader *r, const void *data, size_t len, struct pk_diag *diag)
{
	r->data = data;
	r->len = len;
	r->off = 0;
	r->swap = 0;
	r->diag = diag;
}

size_t pk_reader_left(const struct pk_reader *r)
{
	return r->len - r->off;
}

int pk_reader_skip(struct pk_reader *r, size_t n)
{
	if (n > pk_reader_left(r))
		return PK_CORRUPT(r->diag, r->off, "truncated: need %zu bytes, %zu left", n,
				  pk_reader_left(r));
	r->off += n;
	return 0;
}

int pk_reader_bytes(struct pk_reader *r, void *out, size_t n)
{
	const uint8_t *src = r->data + r->off;
	int err = pk_reader_skip(r, n);

	if (err)
		return err;
	if (n)
		memcpy(out, src, n);
	return 0;
}

int pk_reader_u8(struct pk_reader *r, uint8_t *v)
{
	return pk_reader_bytes(r, v, 1);
}

int pk_reader_u16(struct pk_reader *r, uint16_t *v)
{
	int err = pk_reader_bytes(r, v, sizeof(*v));

	if (!err && r->swap)
		*v = bswap_16(*v);
	return err;
}

int pk_reader_u32(struct pk_reader *r, uint32_t *v)
{
	int err = pk_reader_bytes(r, v, sizeof(*v));

	if (!err && r->swap)
		*v = bswap_32(*v);
	return err;
}

int pk_reader_u64(struct pk_reader *r, uint64_t *v)
{
	int err = pk_reader_bytes(r, v, sizeof(*v));

	if (!err && r->swap)
		*v = bswap_64(*v);
	return err;
}
