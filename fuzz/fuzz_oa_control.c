/*
 * libFuzzer target for the pieces of perfkit oa record's circular-buffer
 * mode. An even first byte: the rest is what writers put into the command
 * fifo, arriving in pieces of 1 to 64 bytes (the second byte picks the
 * size), accumulated and parsed as cli/oa_fifo.c does with
 * pk_oa_control_parse; every command taken must lie within what arrived,
 * a DUMP's path must be a non-empty string, and an error must carry a
 * message and an offset within the command (at its end for a DUMP
 * without a path). An odd first byte: the rest, two bytes a record (a type
 * and a size), is appended to a record ring of 1 KiB in chunks; after each
 * append the ring must hold the newest whole records within its limit,
 * byte for byte, and count its reports right.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>
#include "oa/ring_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_commands(const uint8_t *data, size_t size)
{
	static uint8_t buf[PK_OA_CONTROL_MAX];
	static struct pk_oa_control_msg msg;
	size_t len = 0, piece;

	if (size < 1)
		return;
	piece = 1 + data[0] % 64;
	data++;
	size--;
	while (size) {
		size_t n = size < piece ? size : piece, off = 0;
		struct pk_diag d;
		int used;

		if (n > sizeof(buf) - len)
			n = sizeof(buf) - len;
		memcpy(buf + len, data, n);
		len += n;
		data += n;
		size -= n;
		pk_diag_init(&d);
		while ((used = pk_oa_control_parse(buf + off, len - off, &msg, &d)) > 0) {
			if ((size_t)used > len - off || used < 8)
				abort();
			if (msg.command == PK_OA_CONTROL_DUMP &&
			    (!msg.path[0] || strnlen(msg.path, sizeof(msg.path)) >= sizeof(msg.path)))
				abort();
			off += (size_t)used;
		}
		if (used < 0) {
			if (used != -EBADMSG || !d.msg[0] || d.offset > len - off)
				abort();
			off = len;
		}
		memmove(buf, buf + off, len - off);
		len -= off;
		if (len == sizeof(buf))        /* a whole buffer is always a command or an error */
			abort();
	}
}

static void fuzz_ring(const uint8_t *data, size_t size)
{
	static uint8_t chunk[64 * 512], all[1 << 16];
	static size_t starts[1 << 12];
	static const uint32_t types[] = { PK_OA_RECORD_SAMPLE, PK_OA_RECORD_REPORT_LOST,
					  PK_OA_RECORD_BUFFER_LOST, PK_OA_RECORD_CORRELATION };
	struct oa_ring r;
	size_t n_all = 0, n_rec = 0;

	if (oa_ring_init(&r, 1024, 264))
		abort();
	while (size >= 2 && n_rec < sizeof(starts) / sizeof(starts[0])) {
		size_t len = 0, k = 1 + data[0] % 8;

		for (size_t i = 0; i < k && size >= 2; i++, data += 2, size -= 2) {
			uint32_t type = types[data[0] % 4];
			uint16_t sz = type == PK_OA_RECORD_CORRELATION ? 24 :
				      type == PK_OA_RECORD_SAMPLE ? (uint16_t)(8 + 8 * (1 + data[1] % 32)) : 8;
			uint16_t pad = 0;

			if (n_all + sz > sizeof(all) || n_rec + 1 >= sizeof(starts) / sizeof(starts[0]))
				break;
			memcpy(chunk + len, &type, 4);
			memcpy(chunk + len + 4, &pad, 2);
			memcpy(chunk + len + 6, &sz, 2);
			memset(chunk + len + 8, data[1], sz - 8u);
			starts[n_rec++] = n_all;
			memcpy(all + n_all, chunk + len, sz);
			n_all += sz;
			len += sz;
		}
		if (!len)
			break;
		oa_ring_append(&r, chunk, len);
		{
			/* the newest records within the limit, whole */
			size_t first = n_rec;
			uint64_t reports = 0;

			while (first > 0 && n_all - starts[first - 1] <= 1024)
				first--;
			if (r.len != n_all - (first < n_rec ? starts[first] : n_all) ||
			    memcmp(r.data + r.start, all + n_all - r.len, r.len) || r.start + r.len > 2048)
				abort();
			for (size_t i = first; i < n_rec; i++) {
				uint32_t t;

				memcpy(&t, all + starts[i], 4);
				reports += t == PK_OA_RECORD_SAMPLE;
			}
			if (r.reports != reports)
				abort();
		}
	}
	oa_ring_release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_ring(data + 1, size - 1);
	else
		fuzz_commands(data + 1, size - 1);
	return 0;
}
