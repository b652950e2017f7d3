/*
 * What the OA fuzz targets (fuzz_oa_recording.c, fuzz_oa_stream.c) do with
 * an input that parsed: build the timelines (segment bounds checked, and
 * counters against their report pairs accumulated one by one), decode
 * every report, write the recording and read it back (same report
 * count and format). Any violation aborts.
 */
#ifndef PERFKIT_FUZZ_OA_COMMON_H
#define PERFKIT_FUZZ_OA_COMMON_H

#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>

static void fuzz_oa_exercise(struct pk_oa_recording *rec)
{
	struct pk_oa_recording *back = NULL;
	struct pk_oa_timeline tl;
	struct pk_oa_report r;
	struct pk_diag d;
	struct pk_buf b;

	pk_diag_init(&d);
	if (pk_oa_timeline_build(rec, &tl, &d) == 0) {
		if (pk_oa_recording_is_stream(rec) && tl.cpu_valid)
			abort();
		for (size_t i = 0; i < tl.n_segments; i++) {
			uint64_t got[PK_OA_MAX_VALUES], want[PK_OA_MAX_VALUES] = { 0 };

			if (tl.segments[i].end >= tl.n_reports || tl.segments[i].first > tl.segments[i].end)
				abort();
			/* kept or summed when asked, a segment's counters are its pairs',
			 * added one pair at a time (not through the run loop it uses) */
			for (size_t k = tl.segments[i].first; k < tl.segments[i].end; k++)
				pk_oa_accumulate(pk_oa_recording_decoder(rec),
						 pk_oa_recording_report(rec, k),
						 pk_oa_recording_report(rec, k + 1), want);
			if (pk_oa_timeline_deltas(&tl, rec, i, got) || memcmp(got, want, sizeof(got)))
				abort();
		}
		pk_oa_timeline_release(&tl);
	}
	for (size_t i = 0; i < pk_oa_recording_n_reports(rec); i++)
		pk_oa_report_decode(pk_oa_recording_decoder(rec), pk_oa_recording_report(rec, i), &r);
	pk_buf_init(&b);
	if (pk_oa_recording_write(rec, &b) == 0) {
		if (pk_oa_recording_read_mem(b.data, b.len, "again", &back, &d) != 0)
			abort();
		if (pk_oa_recording_n_reports(back) != pk_oa_recording_n_reports(rec) ||
		    pk_oa_recording_device(back)->oa_format != pk_oa_recording_device(rec)->oa_format)
			abort();
		pk_oa_recording_free(back);
	}
	pk_buf_release(&b);
}

#endif
