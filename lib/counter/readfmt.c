/*
 * Decoding what read(2) returns from a perf event fd. The layout depends on
 * the attr's read_format, so every length is computed from it first and
 * checked against the bytes we were given; the group count nr that the
 * buffer carries is never trusted beyond the room the caller has.
 */
#include <errno.h>
#include <string.h>
#include <perfkit/counter.h>

/*
 * Layout (include/uapi/linux/perf_event.h, all fields u64, native order):
 *
 *   !PERF_FORMAT_GROUP                 PERF_FORMAT_GROUP
 *   OFFSET  FIELD          WHEN        OFFSET  FIELD          WHEN
 *   0       value          always      0       nr             always
 *   +8      time_enabled   TE          +8      time_enabled   TE
 *   +8      time_running   TR          +8      time_running   TR
 *   +8      id             ID          then nr times:
 *   +8      lost           LOST          +0    value          always
 *                                        +8    id             ID
 *                                        +8    lost           LOST
 *
 * TE = TOTAL_TIME_ENABLED, TR = TOTAL_TIME_RUNNING. Absent times read as 0.
 */

#define PK_FORMAT_KNOWN (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | \
			 PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST)

static uint64_t get_u64(const unsigned char *p, size_t idx)
{
	uint64_t v;

	memcpy(&v, p + idx * sizeof(v), sizeof(v));
	return v;
}

int pk_read_format_decode(uint64_t read_format, const void *buf, size_t len,
			  struct pk_counts *out, uint64_t *ids, size_t nr)
{
	const unsigned char *p = buf;
	bool group = read_format & PERF_FORMAT_GROUP;
	bool has_id = read_format & PERF_FORMAT_ID;
	bool has_lost = read_format & PERF_FORMAT_LOST;
	size_t words = len / sizeof(uint64_t);
	size_t head = 0, per, got, i, w;
	uint64_t ena = 0, run = 0;

	if (read_format & ~(uint64_t)PK_FORMAT_KNOWN)
		return -EINVAL;
	if (!buf || !out || (!group && nr == 0))
		return -EINVAL;

	/* Words before the per-counter records: nr (GROUP only) and the times. */
	if (group)
		head++;
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		head++;
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		head++;
	per = 1 + has_id + has_lost;

	/* Both layouts: word 0 is value (or nr), the times follow it. */
	if (words < head + (group ? 0 : per))
		return -EBADMSG;
	w = 1;
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		ena = get_u64(p, w++);
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		run = get_u64(p, w++);
	if (!group) {
		out[0].val = get_u64(p, 0);
		out[0].ena = ena;
		out[0].run = run;
		out[0].lost = has_lost ? get_u64(p, w + has_id) : 0;
		if (ids && has_id)
			ids[0] = get_u64(p, w);
		return 1;
	}

	got = get_u64(p, 0);
	/* Compared by division: a hostile nr cannot overflow a multiplication. */
	if (got > nr || got > (words - head) / per || got > INT32_MAX)
		return -EBADMSG;
	for (i = 0; i < got; i++, w += per) {
		out[i].val = get_u64(p, w);
		out[i].ena = ena;
		out[i].run = run;
		out[i].lost = has_lost ? get_u64(p, w + 1 + has_id) : 0;
		if (ids && has_id)
			ids[i] = get_u64(p, w + 1);
	}
	return (int)got;
}
