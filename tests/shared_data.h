/*
 * Where the C tests find the optional third-party data (../shared/README.md):
 * $PK_SHARED when set, ../shared otherwise, and whether a file or folder
 * under it is there. That data may be missing from a checkout or a tarball,
 * so a test that needs it asks first and skips with the reason when absent.
 */
#ifndef PERFKIT_TESTS_SHARED_DATA_H
#define PERFKIT_TESTS_SHARED_DATA_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline const char *shared_dir(void)
{
	const char *s = getenv("PK_SHARED");

	return s && *s ? s : "../shared";
}

/* Whether @rel (relative to the shared folder, "data/intel-oa/oa-bdw.xml") can be read. */
static inline bool shared_has(const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", shared_dir(), rel);
	return access(path, R_OK) == 0;
}

#endif
