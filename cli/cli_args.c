/*
 * Option values the commands share: whole numbers with bounds and seconds,
 * each rejected with one "perfkit: invalid value ..." line naming the option.
 */
#include <errno.h>
#include <stdlib.h>
#include "cli.h"

int cli_parse_u64(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-' || v < min || v > max) {
		cli_error("invalid value '%s' for %s", arg, opt);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int cli_parse_seconds(const char *opt, const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 1e9) {
		cli_error("invalid value '%s' for %s: give seconds", arg, opt);
		return -EINVAL;
	}
	*out = v;
	return 0;
}
