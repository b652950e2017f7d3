/*
 * The header features that describe events and binaries: EVENT_DESC (the
 * attrs with their names and sample ids, which perf's "# event :" lines
 * print) and BUILD_ID (one build-id record per DSO that had samples).
 */
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/features_int.h"

/*
 * BUILD_ID feature (perf-data.md §6.2 and §7): records back to back until
 * the end of the section, each in the layout of HEADER_BUILD_ID:
 *
 *   OFFSET  SIZE  FIELD
 *   0       4     header.type   (0 in the feature)
 *   4       2     header.misc   (bit 15 BUILD_ID_SIZE: byte 32 gives the size)
 *   6       2     header.size   (whole entry, >= 36)
 *   8       4     pid           (s32, -1 for the kernel)
 *   12      20    build_id
 *   32      1     size          (valid with misc bit 15, at most 20)
 *   33      3     reserved
 *   36      ...   filename      (NUL-padded to header.size)
 */
#define BID_HDR 36
#define BID_MISC_SIZE 0x8000

static int read_bid(struct pk_fcur *c, struct pk_feat_build_id *out)
{
	uint64_t at = pk_fcur_pos(c);
	uint16_t misc, size;
	uint32_t type, pid;
	const uint8_t *p;
	const char *name, *nul;
	size_t nlen;
	int err;

	err = pk_fcur_u32(c, &type);
	if (!err)
		err = pk_fcur_u16(c, &misc);
	if (!err)
		err = pk_fcur_u16(c, &size);
	if (err)
		return err;
	if (size < BID_HDR)
		return PK_CORRUPT(c->d, at, "build_id feature: entry size %u below %u", size, BID_HDR);
	if ((size_t)size - 8 > pk_fcur_left(c))
		return PK_CORRUPT(c->d, at, "build_id feature: entry of %u bytes runs past the section "
				  "(%zu bytes left)", size, pk_fcur_left(c) + 8);
	err = pk_fcur_u32(c, &pid);
	if (err)
		return err;
	p = c->p + c->off;
	name = (const char *)p + 24;
	nlen = (size_t)size - BID_HDR;
	nul = nlen ? memchr(name, '\0', nlen) : name;
	if (nlen && !nul)
		return PK_CORRUPT(c->d, at + BID_HDR, "build_id feature: file name is not NUL-terminated");
	if (!out) {
		c->off += (size_t)size - 12;
		return 0;
	}
	out->pid = (int32_t)pid;
	out->misc = misc;
	memcpy(out->build_id, p, 20);
	out->size = 20;
	if (misc & BID_MISC_SIZE) {
		if (p[20] > 20)
			return PK_CORRUPT(c->d, at + 32, "build_id feature: build-id size %u above 20",
					  p[20]);
		out->size = p[20];
	}
	out->filename = strndup(name, (size_t)(nul - name));
	if (!out->filename)
		return -ENOMEM;
	c->off += (size_t)size - 12;
	return 0;
}

int pk_feat_parse_build_id(struct pk_features *f, struct pk_fcur *c)
{
	struct pk_fcur scan = *c;
	uint32_t n = 0;
	int err;

	/* First pass: check every entry and count them (each is at least 36 bytes). */
	while (pk_fcur_left(&scan)) {
		err = read_bid(&scan, NULL);
		if (err)
			return err;
		n++;
	}
	if (n && !(f->build_ids = calloc(n, sizeof(*f->build_ids))))
		return -ENOMEM;
	while (pk_fcur_left(c) && f->nr_build_ids < n) {
		err = read_bid(c, &f->build_ids[f->nr_build_ids]);
		f->nr_build_ids++;   /* count it even on failure so its name is freed */
		if (err)
			return err;
	}
	return 0;
}

/*
 * EVENT_DESC (perf-data.md §7):
 *
 *   OFFSET  SIZE       FIELD
 *   0       4          nr
 *   4       4          attr_size        (bytes of each stored attr)
 *   8       ...        nr times:
 *           attr_size    perf_event_attr (attr.size says which fields exist)
 *           4            nr_ids
 *           4+len        perf_header_string name
 *           8*nr_ids     u64 ids
 */
int pk_feat_parse_event_desc(struct pk_features *f, struct pk_fcur *c)
{
	uint32_t nr, attr_size;
	uint64_t at;
	int err;

	err = pk_fcur_u32(c, &nr);
	if (!err)
		err = pk_fcur_u32(c, &attr_size);
	if (err)
		return err;
	at = c->base + 4;
	if (attr_size < 8)
		return PK_CORRUPT(c->d, at, "event_desc feature: attr size %u too small", attr_size);
	if (nr > pk_fcur_left(c) / ((uint64_t)attr_size + 8))
		return PK_CORRUPT(c->d, c->base, "event_desc feature: %u events do not fit in the "
				  "%zu bytes left", nr, pk_fcur_left(c));
	if (nr && !(f->event_desc = calloc(nr, sizeof(*f->event_desc))))
		return -ENOMEM;
	f->nr_event_desc = nr;
	for (uint32_t i = 0; i < nr; i++) {
		struct pk_feat_event_desc *e = &f->event_desc[i];
		const uint8_t *attr = c->p + c->off;
		uint32_t asz;

		at = pk_fcur_pos(c);
		err = pk_fcur_skip(c, attr_size);
		if (err)
			return err;
		/* Import as many bytes as the attr says it has, within the stored entry. */
		memcpy(&asz, attr + 4, 4);
		if (c->swap)
			asz = bswap_32(asz);
		if (asz == 0)
			asz = 64;
		if (asz > attr_size)
			asz = attr_size;
		err = pk_attr_import(&e->attr, attr, asz, c->swap, at, c->d);
		if (err)
			return err;
		err = pk_fcur_u32(c, &e->nr_ids);
		if (err)
			return err;
		err = pk_fcur_string(c, &e->name);
		if (err)
			return err;
		if (e->nr_ids > pk_fcur_left(c) / 8) {
			uint32_t bad = e->nr_ids;

			e->nr_ids = 0;
			return PK_CORRUPT(c->d, pk_fcur_pos(c), "event_desc feature: %u ids do not fit "
					  "in the %zu bytes left", bad, pk_fcur_left(c));
		}
		if (e->nr_ids && !(e->ids = malloc((size_t)e->nr_ids * 8)))
			return -ENOMEM;
		for (uint32_t j = 0; j < e->nr_ids; j++)
			pk_fcur_u64(c, &e->ids[j]);   /* cannot fail: checked above */
	}
	return 0;
}
