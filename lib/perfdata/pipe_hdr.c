/*
 * Pipe mode at open time: after the 16-byte pipe header
 * { u64 magic; u64 size = 16 } (../shared/reference/perf-data.md §8) come
 * the records that carry what file mode keeps in its header: HEADER_ATTR,
 * HEADER_EVENT_TYPE, HEADER_FEATURE (padded or not, ended by an empty one),
 * HEADER_TRACING_DATA with its blob, HEADER_BUILD_ID, ID_INDEX,
 * EVENT_UPDATE. They are read ahead here without being consumed, so that
 * evsels and features are known when pk_perfdata_open() returns; the walk
 * later delivers them (for -D) without applying them twice. The read-ahead
 * stops at the first other record, at anything malformed (the walk reports
 * it) or after PK_PD_MAX_HEADER_SCAN bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/internal.h"

int pk_perfdata_pipe_read_header(struct pk_perfdata *p, struct pk_diag *d);

static int is_leading(uint32_t type)
{
	switch (type) {
	case PK_RECORD_HEADER_ATTR:
	case PK_RECORD_HEADER_EVENT_TYPE:
	case PK_RECORD_HEADER_TRACING_DATA:
	case PK_RECORD_HEADER_BUILD_ID:
	case PK_RECORD_HEADER_FEATURE:
	case PK_RECORD_ID_INDEX:
	case PK_RECORD_EVENT_UPDATE:
		return 1;
	default:
		return 0;
	}
}

int pk_perfdata_pipe_read_header(struct pk_perfdata *p, struct pk_diag *d)
{
	uint64_t rel = 0;
	uint64_t *copy = NULL;
	size_t copy_words = 0;
	int r = 0;

	for (;;) {
		const uint8_t *ptr;
		uint64_t avail, extra;
		struct perf_event_header h;

		r = pk_perfdata_in_peek(p, rel, 8, &ptr, &avail);
		if (r) {
			r = pk_diag_fail(d, r, "cannot read: %s", strerror(-r));
			break;
		}
		if (avail < 8)
			break;
		memcpy(&h, ptr, 8);
		if (p->swapped) {
			h.type = __builtin_bswap32(h.type);
			h.misc = pk_pd_bswap16(h.misc);
			h.size = pk_pd_bswap16(h.size);
		}
		if (h.size < 8 || !is_leading(h.type))
			break;
		r = pk_perfdata_in_peek(p, rel, h.size, &ptr, &avail);
		if (r || avail < h.size) {
			r = 0;             /* the walk reports it */
			break;
		}
		extra = pk_perfdata_record_extra(p, h.type, ptr, h.size);
		if (extra > PK_PD_MAX_HEADER_SCAN || rel + h.size + extra > PK_PD_MAX_HEADER_SCAN)
			break;
		if (extra) {
			r = pk_perfdata_in_peek(p, rel, h.size + extra, &ptr, &avail);
			if (r || avail < h.size + extra) {
				r = 0;
				break;
			}
		}
		if ((size_t)(h.size + 7) / 8 > copy_words) {
			copy_words = 65536 / 8;
			copy = copy ? copy : malloc(65536);
			if (!copy) {
				r = pk_diag_fail(d, -ENOMEM, "out of memory");
				break;
			}
		}
		memcpy(copy, ptr, h.size);
		memcpy(copy, &h, 8);
		r = pk_perfdata_user_record(p, (const uint8_t *)copy, h.size, p->in.pos + rel,
					    extra ? ptr + h.size : NULL, extra, d);
		if (r)
			break;
		rel += h.size + extra;
	}
	free(copy);
	p->pipe_hdr_end = p->in.pos + rel;
	return r;
}
