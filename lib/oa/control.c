/*
 * The commands of IGT's i915-perf-control (DUMP the circular buffer to a
 * path, QUIT), as they arrive in a recorder's command fifo. The layout is
 * the table above pk_oa_control_parse in include/perfkit/oa.h. The bytes
 * come from whoever can write to the fifo, so the size is checked before
 * anything is read and nothing is allocated: a command is at most
 * PK_OA_CONTROL_MAX bytes.
 */
#include <errno.h>
#include <string.h>
#include <perfkit/oa.h>

#define CONTROL_HEADER_SIZE 8

int pk_oa_control_parse(const void *buf, size_t len, struct pk_oa_control_msg *msg,
			struct pk_diag *diag)
{
	const uint8_t *p = buf;
	uint32_t command, size;
	size_t path_len;

	if (len < CONTROL_HEADER_SIZE)
		return 0;
	memcpy(&command, p, 4);
	memcpy(&size, p + 4, 4);
	if (size < CONTROL_HEADER_SIZE || size > PK_OA_CONTROL_MAX)
		return PK_CORRUPT(diag, 4, "command %u has a size of %u bytes (%d to %d)", command, size,
				  CONTROL_HEADER_SIZE, PK_OA_CONTROL_MAX);
	if (len < size)
		return 0;
	memset(msg, 0, sizeof(*msg));
	msg->command = command;
	if (command != PK_OA_CONTROL_DUMP)
		return (int)size;
	if (size == CONTROL_HEADER_SIZE || !p[CONTROL_HEADER_SIZE])
		return PK_CORRUPT(diag, CONTROL_HEADER_SIZE, "DUMP command without a path");
	path_len = strnlen((const char *)p + CONTROL_HEADER_SIZE, size - CONTROL_HEADER_SIZE);
	if (path_len == size - CONTROL_HEADER_SIZE)
		return PK_CORRUPT(diag, size - 1, "DUMP command's path has no terminating NUL within its %u bytes",
				  size);
	memcpy(msg->path, p + CONTROL_HEADER_SIZE, path_len + 1);
	return (int)size;
}
