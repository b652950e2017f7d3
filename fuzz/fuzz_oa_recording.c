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
#include "fuzz_oa_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_oa_recording *rec = NULL;
	struct pk_diag d;
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
	fuzz_oa_exercise(rec);
	pk_oa_recording_free(rec);
	return 0;
}
