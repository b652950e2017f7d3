/*
 * Private to the perf.data writer (writer.c: buffered output, compression,
 * records, open/close; writer_header.c: the file header, the feature block
 * and the pipe-mode header records): the writer's body and the output
 * helpers both halves use.
 *
 * Layouts: ../shared/reference/perf-data.md §1, §8, §9.
 */
#ifndef PERFKIT_LIB_PERFDATA_WRITER_INT_H
#define PERFKIT_LIB_PERFDATA_WRITER_INT_H

#include <stdint.h>
#include <zstd.h>
#include "perfdata/internal.h"

#define PERF_MAGIC2 0x32454c4946524550ULL   /* "PERFILE2" read as a little-endian u64 */
#define OUT_CAP (256u * 1024)
#define MAX_REC 65535u
#define ZSEG (60u * 1024)                   /* raw bytes per zstd flush */
#define COMP_MMAP_LEN 528384u               /* perf's default (128 + 1) * 4096 */
#define PERF61_LAST_FEATURE 32              /* perf 6.1's HEADER_LAST_FEATURE (terminator id) */

struct wr_evsel {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	uint32_t nr_ids;
	uint64_t ids_off;
};

struct pk_perfdata_writer {
	int fd;
	char *name;
	int pipe, level;
	int err;                    /* sticky -errno after the first failure */
	struct pk_diag errd;        /* its message */
	uint64_t wpos;              /* file offset of buf[0] */
	uint8_t *buf;
	size_t blen;
	uint64_t data_off;          /* start of the data section (pipe: after header records) */
	uint64_t attrs_off;
	uint64_t round_end;         /* offset after the last complete round on disk */
	uint64_t raw_bytes;
	uint64_t zin, zout;         /* bytes fed to zstd, bytes of COMPRESSED records */
	ZSTD_CCtx *cctx;
	uint8_t *zbuf;
	size_t zlen, zcap, seg;
	struct wr_evsel *evs;
	size_t nr;
};

static inline uint64_t pk_wr_pos(const struct pk_perfdata_writer *w)
{
	return w->wpos + w->blen;
}

/* Record the first failure (sticky: later ones keep it) and copy it to @d. */
int pk_wr_fail(struct pk_perfdata_writer *w, int err, struct pk_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The sticky failure, copied to @d. */
int pk_wr_sticky(struct pk_perfdata_writer *w, struct pk_diag *d);
/* Write @n bytes at file offset @off now (pwrite; write in pipe mode), all or fail. */
int pk_wr_raw(struct pk_perfdata_writer *w, const void *p, size_t n, uint64_t off,
	      struct pk_diag *d);
/* Append to the output buffer / write the buffer out. */
int pk_wr_put(struct pk_perfdata_writer *w, const void *p, size_t n, struct pk_diag *d);
int pk_wr_flush(struct pk_perfdata_writer *w, struct pk_diag *d);
/* Append a perf_event_header { type, misc 0, size }. */
int pk_wr_header(struct pk_perfdata_writer *w, uint32_t type, uint32_t size, struct pk_diag *d);

/* writer_header.c */
int pk_wr_file_header(struct pk_perfdata_writer *w, uint64_t data_size, const uint64_t feats[4],
		      struct pk_diag *d);
int pk_wr_features(struct pk_perfdata_writer *w, const struct pk_features *f, uint64_t at,
		   int only_comp, uint64_t bits[4], uint64_t *endp, struct pk_diag *d);
int pk_wr_open_file(struct pk_perfdata_writer *w, struct pk_diag *d);
int pk_wr_open_pipe(struct pk_perfdata_writer *w, const struct pk_features *pf, struct pk_diag *d);

#endif
