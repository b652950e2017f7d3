/*
 * libFuzzer target for pk_features_parse(): one header-feature section.
 * The first byte picks the feature (low six bits, modulo 35, so 0 and
 * unknown ids are tried too), bit 6 pretends an NRCPUS feature with four
 * CPUs came first (so CPU_TOPOLOGY reads its tails) and bit 7 the writer's
 * other byte order; the rest is the section. The parser must never read
 * past it, must return 0, -EBADMSG, -ENOENT (bad ids only) or -ENOMEM, and
 * must leave nothing behind after pk_features_release(). What parses is
 * printed (an EVENT_DESC's attrs, the topology features as -I prints them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/perfdata.h>
#include "perfdata/features_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_features f;
	struct pk_diag d;
	unsigned feat;
	int swap, err;
	void *buf;

	if (size < 1)
		return 0;
	feat = (data[0] & 0x3f) % PK_FEAT_LAST;
	swap = data[0] >> 7;
	/* exact-size heap copy (malloc(0) included) so ASan catches any overread */
	buf = malloc(size - 1);
	if (!buf && size > 1)
		return 0;
	if (size > 1)
		memcpy(buf, data + 1, size - 1);
	memset(&f, 0, sizeof(f));
	if (data[0] & 0x40)
		f.nr_cpus_avail = 4;
	pk_diag_init(&d);
	err = pk_features_parse(&f, feat, buf, size - 1, swap, 4096, &d);
	if (err && err != -EBADMSG && err != -ENOMEM && !(err == -ENOENT && feat == 0))
		abort();
	if (err == -EBADMSG && (d.offset < 4096 || d.offset > 4096 + (size - 1)))
		abort();
	if (!err) {             /* and print what was read: attrs, the topology as -I does */
		struct pk_buf out;

		pk_buf_init(&out);
		for (uint32_t i = 0; feat == PK_FEAT_EVENT_DESC && i < f.nr_event_desc; i++)
			pk_attr_print(&f.event_desc[i].attr, &out);
		pk_header_print_full_only(&f, feat, &out);
		pk_buf_release(&out);
	}
	pk_features_release(&f);
	free(buf);
	return 0;
}
