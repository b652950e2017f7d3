/*
 * libFuzzer target for pk_read_format_decode(): arbitrary bytes as the
 * buffer read(2) returned. The first byte picks read_format (its low five
 * bits; bit 7 drops the ids array), the second the room the caller has
 * (0..63 counts); the rest is the buffer. The decoder must never read past
 * the buffer nor write past the room, and must report at most that many.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/counter.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_counts *out;
	uint64_t *ids, fmt;
	size_t nr;
	void *buf;
	int n;

	if (size < 2)
		return 0;
	fmt = data[0] & 0x1f;
	nr = data[1] & 0x3f;
	/* Exact-size heap copies (malloc(0) included) so ASan catches any overrun. */
	buf = malloc(size - 2);
	out = malloc(nr * sizeof(*out));
	ids = malloc(nr * sizeof(*ids));
	if ((buf || size == 2) && ((out && ids) || !nr)) {
		if (size > 2)
			memcpy(buf, data + 2, size - 2);
		n = pk_read_format_decode(fmt, buf, size - 2, out,
					  (data[0] & 0x80) ? NULL : ids, nr);
		if (n > (int)nr || (n < 0 && n != -EBADMSG && n != -EINVAL))
			abort();
	}
	free(buf);
	free(out);
	free(ids);
	return 0;
}
