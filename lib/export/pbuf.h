/*
 * Protocol-buffers field writers (varint and length-delimited wire types)
 * and a gzip stream writer, enough for pprof's profile.proto.
 */
#ifndef PERFKIT_EXPORT_PBUF_H
#define PERFKIT_EXPORT_PBUF_H

#include <stdint.h>
#include <stdio.h>
#include <perfkit/core.h>

enum { PK_PB_VARINT = 0, PK_PB_LEN = 2 };

int pk_pb_varint(struct pk_buf *b, uint64_t v);
/* Field @field as a varint; 0 is left out (proto3 default). */
int pk_pb_uint(struct pk_buf *b, uint32_t field, uint64_t v);
/* Field @field as length-delimited bytes (strings, nested messages). */
int pk_pb_bytes(struct pk_buf *b, uint32_t field, const void *p, size_t n);
/* Packed repeated varints; @scratch is a work buffer. Nothing for n == 0. */
int pk_pb_packed(struct pk_buf *b, uint32_t field, const uint64_t *v, size_t n, struct pk_buf *scratch);
/* gzip (RFC 1952) @len bytes at @data to @out. 0 or -errno. */
int pk_gzip_write(const void *data, size_t len, FILE *out);

#endif
