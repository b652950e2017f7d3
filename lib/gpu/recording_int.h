/*
 * Private pieces of the gpu recording shared by its writer (recording.c),
 * its reader (recording_read.c) and their text codecs (recording_codec.c):
 * the format's constants and limits, UTF-8 checks and base64.
 */
#ifndef PERFKIT_GPU_RECORDING_INT_H
#define PERFKIT_GPU_RECORDING_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include <perfkit/core.h>

#define REC_FORMAT "perfkit-gpu-recording"
#define REC_VERSION 1
#define REC_LINE_MAX ((size_t)64 << 20)    /* bytes in one line */
#define REC_VALUES_MAX ((size_t)1 << 20)   /* JSON values in one line */
#define REC_DEVICES_MAX 1024
#define REC_STR_MAX 256                    /* comm, hostname, version string */
#define REC_JSON_DEPTH 32
#define REC_FILE_BUF ((size_t)1 << 20)

#define REC_JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Length of the valid UTF-8 sequence at @s (RFC 3629), or 0. */
size_t utf8_seq(const unsigned char *s, size_t n);
/* @text of @n bytes is valid UTF-8 without NUL. */
bool utf8_valid(const char *text, size_t n);
/* @s as a base64 JSON string (NULL without memory). */
json_object *b64_json(const unsigned char *s, size_t n);
/* Decode base64 @s into @out. 0, or -EINVAL on a bad character or length, -ENOMEM. */
int b64_decode(const char *s, size_t n, struct pk_buf *out);

#endif
