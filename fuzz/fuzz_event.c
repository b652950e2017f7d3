/*
 * libFuzzer target for the event-spec parser: the input, NUL-terminated, is
 * parsed as an -e argument against the fixture sysfs and tracefs trees
 * (tests/fixtures, or under $PK_SRCDIR), so PMU terms, aliases and
 * tracepoint globs are exercised without touching the machine's own trees
 * or mounting anything. Every list is released, so leaks show up too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/event.h>

/* Longest spec tried: globs over the fixtures stay cheap, the input bounded. */
#define MAX_SPEC 4096

static char sysfs_dir[4096], tracefs_dir[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *src = getenv("PK_SRCDIR");

	snprintf(sysfs_dir, sizeof(sysfs_dir), "%s%stests/fixtures/sysfs", src ? src : "",
		 src ? "/" : "");
	snprintf(tracefs_dir, sizeof(tracefs_dir), "%s%stests/fixtures/tracefs", src ? src : "",
		 src ? "/" : "");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	PK_OPTS(pk_event_opts, opts, .sysfs_root = sysfs_dir, .tracefs_root = tracefs_dir);
	struct pk_event_list l;
	struct pk_diag d;
	char *spec;

	if (size > MAX_SPEC)
		return 0;
	spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	pk_event_list_init(&l);
	if (pk_event_parse(&l, spec, &opts, &d) == 0) {
		/* what a caller relies on: a name for each event, leaders in range */
		for (size_t i = 0; i < l.n; i++)
			if (!l.ev[i].name || l.ev[i].leader < 0 || (size_t)l.ev[i].leader > i)
				abort();
	} else if (d.offset != PK_NO_OFFSET && d.offset > size) {
		abort();
	}
	pk_event_list_release(&l);
	free(spec);
	return 0;
}
