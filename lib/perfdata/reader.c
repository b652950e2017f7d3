/*
 * Opening a perf.data input: the magic (either byte order, PERFILE2 or the
 * old PERFFILE), file mode (header, attrs section with per-attr id arrays,
 * feature sections) or pipe mode (pipe_hdr.c reads the leading header
 * records), then the accessors and pk_perfdata_close(). A regular file is
 * mmapped whole; a pipe carrying a file-mode perf.data is read into memory
 * (file mode needs random access to its sections).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "perfdata/internal.h"

#define MAGIC2 0x32454c4946524550ull      /* "PERFILE2" little-endian */
#define MAGIC2_SWAPPED 0x50455246494c4532ull
#define MAGIC1 0x454c494646524550ull      /* "PERFFILE" */

int pk_perfdata_pipe_read_header(struct pk_perfdata *p, struct pk_diag *d);

int pk_perfdata_once_warn(uint32_t *list, size_t *n, size_t max, uint32_t v)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (list[i] == v)
			return 1;
	if (*n < max)
		list[(*n)++] = v;
	return 0;
}

void *pk_perfdata_own(struct pk_perfdata *p, const void *src, uint64_t size)
{
	struct pk_pd_owned *o;

	if (size > SIZE_MAX - sizeof(*o) - 8)
		return NULL;
	o = malloc(sizeof(*o) + (size_t)size + 8);
	if (!o)
		return NULL;
	o->size = size;
	memcpy(o->data, src, (size_t)size);
	memset((uint8_t *)o->data + size, 0, 8);
	o->next = p->owned;
	p->owned = o;
	return o->data;
}

/*
 * perf_file_header (file mode), ../shared/reference/perf-data.md §1.1:
 *   off  0 u64 magic ("PERFILE2"; "2ELIFREP" = other byte order; "PERFFILE" = v1)
 *        8 u64 size (104; 72 = no feature bitmap)
 *       16 u64 attr_size (one attrs entry: the attr + a perf_file_section for its ids)
 *       24 perf_file_section attrs {u64 offset, size}
 *       40 perf_file_section data
 *       56 perf_file_section event_types (legacy, ignored)
 *       72 u64 adds_features[4] (feature bitmap)
 */
static int file_header(struct pk_perfdata *p, struct pk_diag *d)
{
	const uint8_t *m = p->in.mem;
	uint64_t fsz = p->file_size;
	int sw = p->swapped, i;

	if (fsz < PK_PD_OLD_HDR_SIZE)
		return PK_CORRUPT(d, 0, "file too short for a perf.data header (%llu bytes)",
				  (unsigned long long)fsz);
	p->header_size = pk_pd_u64(m + 8, sw);
	if (p->header_size != PK_PD_FILE_HDR_SIZE && p->header_size != PK_PD_OLD_HDR_SIZE)
		return PK_CORRUPT(d, 8, "unsupported header size %llu",
				  (unsigned long long)p->header_size);
	if (p->header_size > fsz)
		return PK_CORRUPT(d, 8, "file too short for its %llu-byte header",
				  (unsigned long long)p->header_size);
	p->attr_size = pk_pd_u64(m + 16, sw);
	p->attrs_off = pk_pd_u64(m + 24, sw);
	p->attrs_size = pk_pd_u64(m + 32, sw);
	p->data_off = pk_pd_u64(m + 40, sw);
	p->data_size = pk_pd_u64(m + 48, sw);
	if (p->header_size == PK_PD_FILE_HDR_SIZE)
		for (i = 0; i < 4; i++)
			p->adds_features[i] = pk_pd_u64(m + 72 + 8 * i, sw);
	if (p->attr_size < 64 + 16 || p->attr_size > 16 + 4096)
		return PK_CORRUPT(d, 16, "bad attr entry size %llu",
				  (unsigned long long)p->attr_size);
	if (!pk_range_ok(p->attrs_off, p->attrs_size, fsz))
		return PK_CORRUPT(d, 24, "attrs section (offset %llu, size %llu) is outside the "
				  "file (%llu bytes)", (unsigned long long)p->attrs_off,
				  (unsigned long long)p->attrs_size, (unsigned long long)fsz);
	if (!pk_range_ok(p->data_off, p->data_size, fsz))
		return PK_CORRUPT(d, 40, "data section (offset %llu, size %llu) is outside the "
				  "file (%llu bytes)", (unsigned long long)p->data_off,
				  (unsigned long long)p->data_size, (unsigned long long)fsz);
	p->feat_off = p->data_off + p->data_size;
	return 0;
}

/*
 * One attrs-section entry (attr_size bytes):
 *   off 0               perf_event_attr (attr.size bytes, attr.size at off 4; 0 = 64)
 *       attr_size - 16  perf_file_section ids {u64 offset, size}: u64 id[size / 8]
 * The attr is sized by its own attr.size (simpleperf writes attr_size 144 with
 * attr.size 120); the ids section is always the entry's last 16 bytes.
 */
static int file_attrs(struct pk_perfdata *p, struct pk_diag *d)
{
	const uint8_t *m = p->in.mem;
	uint64_t i, n = p->attrs_size / p->attr_size;

	for (i = 0; i < n; i++) {
		uint64_t eoff = p->attrs_off + i * p->attr_size, ids_off, ids_size, j;
		const uint8_t *e = m + eoff;
		struct pk_attr a;
		struct pk_evsel *ev;
		uint32_t asz = pk_pd_u32(e + 4, p->swapped);
		int r;

		if (!asz)
			asz = 64;
		if (asz < 64 || asz > p->attr_size - 16)
			return PK_CORRUPT(d, eoff + 4, "attr size %u does not fit the %llu-byte "
					  "attr entry", asz, (unsigned long long)p->attr_size);
		r = pk_attr_import(&a, e, asz, p->swapped, eoff, d);
		if (r)
			return r;
		ev = pk_perfdata_evsel_add(p, &a, d);
		if (!ev)
			return -ENOMEM;
		ids_off = pk_pd_u64(e + p->attr_size - 16, p->swapped);
		ids_size = pk_pd_u64(e + p->attr_size - 8, p->swapped);
		if (!pk_range_ok(ids_off, ids_size, p->file_size))
			return PK_CORRUPT(d, eoff + p->attr_size - 16, "id array of attr %llu "
					  "(offset %llu, size %llu) is outside the file",
					  (unsigned long long)i, (unsigned long long)ids_off,
					  (unsigned long long)ids_size);
		ids_size /= 8;
		if (ids_size) {
			ev->ids = malloc((size_t)ids_size * sizeof(*ev->ids));
			if (!ev->ids)
				return pk_diag_fail(d, -ENOMEM, "out of memory");
		}
		for (j = 0; j < ids_size; j++) {
			uint64_t id = pk_pd_u64(m + ids_off + j * 8, p->swapped);

			ev->ids[ev->nr_ids++] = id;
			if (pk_perfdata_id_add(p, ev, id, 0))
				return pk_diag_fail(d, -ENOMEM, "out of memory");
		}
	}
	return 0;
}

/*
 * Feature table at data.offset + data.size: one perf_file_section
 * {u64 offset, size} per bit set in adds_features, in ascending bit order.
 * A section outside the file is reported and skipped, not fatal.
 */
static void file_features(struct pk_perfdata *p)
{
	const uint8_t *m = p->in.mem;
	uint64_t at = p->feat_off;
	unsigned bit;

	for (bit = 1; bit < 256; bit++) {
		uint64_t off, size;

		if (!((p->adds_features[bit / 64] >> (bit % 64)) & 1))
			continue;
		if (!pk_range_ok(at, 16, p->file_size)) {
			pk_log(PK_LOG_WARN, "'%s': feature table at offset %llu is truncated",
			       p->path, (unsigned long long)at);
			return;
		}
		off = pk_pd_u64(m + at, p->swapped);
		size = pk_pd_u64(m + at + 8, p->swapped);
		if (!pk_range_ok(off, size, p->file_size)) {
			pk_log(PK_LOG_WARN, "'%s': section of feature %u (offset %llu, size %llu) "
			       "is outside the file", p->path, bit, (unsigned long long)off,
			       (unsigned long long)size);
		} else {
			pk_perfdata_feature(p, bit, m + off, size, off);
		}
		at += 16;
	}
}

static int map_file(struct pk_perfdata *p, struct pk_diag *d)
{
	struct stat st;
	void *m;

	if (fstat(p->in.fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 16)
		return 1;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, p->in.fd, 0);
	if (m == MAP_FAILED)
		return 1;
	madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	p->in.mem = m;
	p->in.mem_len = (size_t)st.st_size;
	p->in.mem_mapped = 1;
	p->in.stream = 0;
	p->in.limit = (uint64_t)st.st_size;
	return 0;
}

int pk_perfdata_open_fd(int fd, const char *name, const struct pk_perfdata_opts *opts,
			struct pk_perfdata **out, struct pk_diag *d)
{
	struct pk_perfdata *p;
	const uint8_t *ptr;
	uint64_t avail, magic, hsz;
	int r;

	*out = NULL;
	pk_diag_subject(d, name);
	p = calloc(1, sizeof(*p));
	if (!p) {
		close(fd);
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	}
	p->in.fd = fd;
	p->path = strdup(name ? name : "-");
	if (opts) {
		size_t n = opts->sz && opts->sz < sizeof(p->opts) ? opts->sz : sizeof(p->opts);

		memcpy(&p->opts, opts, n);
	}
	p->opts.sz = sizeof(p->opts);
	if (!p->path) {
		r = pk_diag_fail(d, -ENOMEM, "out of memory");
		goto fail;
	}
	if (map_file(p, d))
		p->in.stream = 1;
	r = pk_perfdata_in_peek(p, 0, 16, &ptr, &avail);
	if (r) {
		r = pk_diag_fail(d, r, "cannot read: %s", strerror(-r));
		goto fail;
	}
	if (avail < 16) {
		r = PK_CORRUPT(d, 0, "not a perf.data file: only %llu bytes",
			       (unsigned long long)avail);
		goto fail;
	}
	magic = pk_pd_u64(ptr, 0);
	if (magic == MAGIC2_SWAPPED)
		p->swapped = 1;
	else if (magic == MAGIC1)
		p->version1 = 1;
	else if (magic != MAGIC2) {
		r = PK_CORRUPT(d, 0, "not a perf.data file (bad magic)");
		goto fail;
	}
	hsz = pk_pd_u64(ptr + 8, p->swapped);
	if (hsz == PK_PD_PIPE_HDR_SIZE) {
		p->pipe = 1;
		p->in.pos = 0;
		pk_perfdata_in_consume(p, 16);
		r = pk_perfdata_pipe_read_header(p, d);
		if (r)
			goto fail;
		*out = p;
		return 0;
	}
	if (p->in.stream) {
		r = pk_perfdata_in_slurp(p);
		if (r) {
			r = pk_diag_fail(d, r, "cannot read: %s", strerror(-r));
			goto fail;
		}
	}
	p->file_size = p->in.mem_len;
	r = file_header(p, d);
	if (!r)
		r = file_attrs(p, d);
	if (r)
		goto fail;
	file_features(p);
	pk_perfdata_names_refresh(p);
	*out = p;
	return 0;
fail:
	pk_perfdata_close(p);
	return r;
}

int pk_perfdata_open(const char *path, const struct pk_perfdata_opts *opts,
		     struct pk_perfdata **out, struct pk_diag *d)
{
	int fd;

	*out = NULL;
	pk_diag_subject(d, path);
	if (!strcmp(path, "-")) {
		fd = dup(0);
		if (fd < 0)
			return pk_diag_fail(d, -errno, "cannot read standard input");
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			int e = errno;

			return pk_diag_fail(d, -e, "cannot open: %s", strerror(e));
		}
	}
	return pk_perfdata_open_fd(fd, path, opts, out, d);
}

void pk_perfdata_close(struct pk_perfdata *p)
{
	struct pk_pd_owned *o, *next;

	if (!p)
		return;
	pk_perfdata_order_release(&p->order);
	pk_perfdata_zstd_release(&p->zstd);
	pk_features_release(&p->feat);
	pk_perfdata_evlist_release(p);
	for (o = p->owned; o; o = next) {
		next = o->next;
		free(o);
	}
	pk_perfdata_in_release(&p->in);
	free(p->scratch);
	free(p->path);
	free(p);
}

int pk_perfdata_is_pipe(const struct pk_perfdata *p)
{
	return p->pipe;
}

int pk_perfdata_is_swapped(const struct pk_perfdata *p)
{
	return p->swapped;
}

const char *pk_perfdata_path(const struct pk_perfdata *p)
{
	return p->path;
}

uint64_t pk_perfdata_size(const struct pk_perfdata *p)
{
	return p->pipe && p->in.stream ? p->in.total_read : p->in.mem_len;
}

uint64_t pk_perfdata_position(const struct pk_perfdata *p)
{
	return p->in.pos;
}

void pk_perfdata_data_section(const struct pk_perfdata *p, uint64_t *offset, uint64_t *size)
{
	*offset = p->pipe ? 0 : p->data_off;
	*size = p->pipe ? 0 : p->data_size;
}

size_t pk_perfdata_nr_evsels(const struct pk_perfdata *p)
{
	return p->nr_evsels;
}

const struct pk_evsel *pk_perfdata_evsel(const struct pk_perfdata *p, size_t idx)
{
	return idx < p->nr_evsels ? &p->evsels[idx]->ev : NULL;
}

const struct pk_features *pk_perfdata_features(const struct pk_perfdata *p)
{
	return &p->feat;
}

const struct pk_perfdata_stats *pk_perfdata_stats(const struct pk_perfdata *p)
{
	return &p->stats;
}
