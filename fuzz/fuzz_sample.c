/*
 * libFuzzer target for the sample module. The first 41 bytes are the attr
 * (u64 sample_type, read_format, branch_sample_type, sample_regs_user,
 * sample_regs_intr, then a flag byte: bit 0 sample_id_all, bit 1 swap the
 * attr import); the rest is one record. It runs pk_sample_parse,
 * pk_sample_id_parse, pk_rec_decode, pk_sample_swapped_id and, on a copy,
 * pk_record_swap followed by another parse, plus pk_attr_import on the
 * record bytes and the data_src printers. Records are exact-size heap
 * copies so ASan catches any read past them; decoded pointers must lie
 * inside the record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/sample.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ATTR_BYTES 41

static int inside(const void *p, uint64_t n, const uint8_t *rec, size_t len)
{
	const uint8_t *b = p;

	return !p || (b >= rec && (uint64_t)(b - rec) <= len && n <= len - (size_t)(b - rec));
}

static void check_sample(const struct pk_sample *s, const struct pk_sample_layout *l,
			 const uint8_t *rec, size_t len)
{
	struct pk_read_value v;
	char buf[128];

	if (!inside(s->callchain, s->callchain_nr * 8, rec, len) ||
	    !inside(s->raw, s->raw_size, rec, len) ||
	    !inside(s->branch, s->branch_nr * sizeof(struct perf_branch_entry), rec, len) ||
	    !inside(s->branch_counters, s->branch_nr * 8, rec, len) ||
	    !inside(s->stack_user, s->stack_user_size, rec, len) ||
	    !inside(s->aux, s->aux_size, rec, len) ||
	    !inside(s->read.entries, s->read.nr * s->read.entry_words * 8, rec, len))
		abort();
	for (uint64_t i = 0; i < s->read.nr && i < 64; i++)
		pk_sample_read_value(&s->read, l->read_format, i, &v);
	pk_mem_data_src_str(s->data_src, buf, sizeof(buf));
	pk_mem_lvl_str(s->data_src, buf, 16);
	pk_mem_snoop_str(s->data_src, buf, sizeof(buf));
	pk_mem_tlb_str(s->data_src, buf, sizeof(buf));
	pk_mem_lock_str(s->data_src, buf, sizeof(buf));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_attr attr;
	struct pk_sample_layout l;
	struct pk_sample s;
	struct pk_attr pa;
	struct pk_diag d;
	union pk_rec r;
	uint8_t *rec, *copy;
	size_t len;
	uint64_t id;
	uint32_t type = 0;
	int err;

	if (size < ATTR_BYTES)
		return 0;
	memset(&attr, 0, sizeof(attr));
	memcpy(&attr.sample_type, data, 8);
	memcpy(&attr.read_format, data + 8, 8);
	memcpy(&attr.branch_sample_type, data + 16, 8);
	memcpy(&attr.sample_regs_user, data + 24, 8);
	memcpy(&attr.sample_regs_intr, data + 32, 8);
	attr.sample_id_all = data[40] & 1;
	pk_sample_layout_init(&l, &attr);

	len = size - ATTR_BYTES;
	rec = malloc(len ? len : 1);
	copy = malloc(len ? len : 1);
	if (!rec || !copy)
		goto out;
	memcpy(rec, data + ATTR_BYTES, len);
	if (len >= 4)
		memcpy(&type, rec, 4);

	pk_diag_init(&d);
	err = pk_sample_parse(&l, rec, len, &s, 0, &d);
	if (err == 0)
		check_sample(&s, &l, rec, len);
	else if (err != -EBADMSG || d.offset > len)
		abort();
	err = pk_sample_id_parse(&l, rec, len, &s, 0, &d);
	if (err && err != -EBADMSG)
		abort();
	err = pk_rec_decode(rec, len, type < 64 ? l.id_trailer_size : 0, &r, 0, &d);
	if (err && err != -EBADMSG && err != -ENOENT)
		abort();
	if (!err && type == PERF_RECORD_NAMESPACES) {     /* every pair inside the record */
		for (uint64_t i = 0; i < r.namespaces.nr; i++) {
			uint64_t dev, ino;

			pk_rec_namespace_link(&r.namespaces, i, &dev, &ino);
			id += dev ^ ino;
		}
	}
	if (!err && type == PERF_RECORD_CGROUP && strlen(r.cgroup.path) >= len)
		abort();
	pk_sample_swapped_id(rec, len, &l, &id);
	pk_rec_type_name(type);

	memcpy(copy, rec, len);
	err = pk_record_swap(copy, len, &l, 0, &d);
	if (err == 0 && type == PERF_RECORD_SAMPLE) {
		if (pk_sample_parse(&l, copy, len, &s, 0, &d) == 0)
			check_sample(&s, &l, copy, len);
	}
	memcpy(copy, rec, len);
	pk_record_swap(copy, len, NULL, 0, &d);

	if (len >= 64)
		pk_attr_import(&pa, rec, len < 160 ? len : 160, (data[40] >> 1) & 1, 0, &d);
out:
	free(rec);
	free(copy);
	return 0;
}
