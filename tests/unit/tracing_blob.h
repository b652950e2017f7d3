/*
 * A TRACING_DATA blob (../shared/reference/perf-data.md §7, feature 1) for
 * the tests and the fuzz target of lib/script/tracing.c: version 0.6,
 * little-endian, 8-byte longs, 4 KiB pages, a header_page, no ftrace
 * formats, one system @sys with the formats given, no kallsyms, a printk
 * section, no saved command lines.
 */
#ifndef PK_TESTS_TRACING_BLOB_H
#define PK_TESTS_TRACING_BLOB_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <perfkit/core.h>

struct tracing_blob_format {
	const void *text;
	size_t len;
};

static inline int tracing_blob_u32(struct pk_buf *b, uint32_t v) { return pk_buf_append(b, &v, 4); }
static inline int tracing_blob_u64(struct pk_buf *b, uint64_t v) { return pk_buf_append(b, &v, 8); }

/* The blob into @b (emptied first): 0, or -ENOMEM. */
static inline int tracing_blob(struct pk_buf *b, const char *sys, const struct tracing_blob_format *formats,
			       size_t n, const void *printk, size_t printk_len)
{
	static const char page[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
	int err = 0;

	b->len = 0;
	err |= pk_buf_append(b, "\x17\x08\x44tracing", 10);
	err |= pk_buf_append(b, "0.6", 4);
	err |= pk_buf_append(b, "\0\x08", 2);
	err |= tracing_blob_u32(b, 4096);
	err |= pk_buf_append(b, "header_page", 12);
	err |= tracing_blob_u64(b, sizeof(page) - 1);
	err |= pk_buf_append(b, page, sizeof(page) - 1);
	err |= pk_buf_append(b, "header_event", 13);
	err |= tracing_blob_u64(b, 0);
	err |= tracing_blob_u32(b, 0);           /* ftrace formats */
	err |= tracing_blob_u32(b, 1);           /* systems */
	err |= pk_buf_append(b, sys, strlen(sys) + 1);
	err |= tracing_blob_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		err |= tracing_blob_u64(b, formats[i].len);
		err |= pk_buf_append(b, formats[i].text, formats[i].len);
	}
	err |= tracing_blob_u32(b, 0);           /* kallsyms */
	err |= tracing_blob_u32(b, (uint32_t)printk_len);
	err |= pk_buf_append(b, printk, printk_len);
	err |= tracing_blob_u64(b, 0);           /* saved command lines */
	return err ? -ENOMEM : 0;
}

#endif
