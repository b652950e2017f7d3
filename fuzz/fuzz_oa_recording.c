/*
 * libFuzzer target for the IGT recording reader (lib/oa/recording_read.c,
 * records.c), the timeline builder and the writer: arbitrary bytes are read
 * as a recording; when they parse, the timelines are built, every report is
 * decoded, and the recording is written and read back. Nothing may crash,
 * loop or allocate beyond a small multiple of the input; a corrupt-input
 * failure must carry a message and an offset inside the input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_oa_recording *rec = NULL, *back = NULL;
	struct pk_oa_timeline tl;
	struct pk_oa_report r;
	struct pk_diag d;
	struct pk_buf b;
	int err;

	pk_diag_init(&d);
	err = pk_oa_recording_read_mem(data, size, "fuzz", &rec, &d);
	if (err == -EBADMSG && (d.offset >= size || !d.msg[0]))
		abort();
	if (err && err != -EBADMSG && err != -ENOMEM && err != -ENODATA && err != -EPROTO &&
	    err != -ENOTSUP)
		abort();
	if (err)
		return 0;
	if (pk_oa_timeline_build(rec, &tl, &d) == 0) {
		for (size_t i = 0; i < tl.n_segments; i++)
			if (tl.segments[i].end >= tl.n_reports || tl.segments[i].first > tl.segments[i].end)
				abort();
		pk_oa_timeline_release(&tl);
	}
	for (size_t i = 0; i < pk_oa_recording_n_reports(rec); i++)
		pk_oa_report_decode(pk_oa_recording_decoder(rec), pk_oa_recording_report(rec, i), &r);
	pk_buf_init(&b);
	if (pk_oa_recording_write(rec, &b) == 0) {
		if (pk_oa_recording_read_mem(b.data, b.len, "again", &back, &d) != 0)
			abort();
		if (pk_oa_recording_n_reports(back) != pk_oa_recording_n_reports(rec))
			abort();
		pk_oa_recording_free(back);
	}
	pk_buf_release(&b);
	pk_oa_recording_free(rec);
	return 0;
}
