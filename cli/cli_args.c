/*
 * Option values the commands share: whole numbers with bounds and seconds,
 * each rejected with one "perfkit: invalid value ..." line naming the option.
 */
#include <errno.h>
#include <limits.h>
#include <sys/wait.h>
#include <sys/types.h>
#include <string.h>
#include <getopt.h>
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

int cli_parse_pid(const char *opt, const char *arg, pid_t *out)
{
	uint64_t v;

	if (cli_parse_u64(opt, arg, 1, INT32_MAX, &v))
		return -EINVAL;
	*out = (pid_t)v;
	return 0;
}

void cli_bad_option(char **argv, const char *short_with_value)
{
	if (optopt && optopt < 256 && strchr(short_with_value, optopt))
		cli_error("option '-%c' requires a value", optopt);
	else if (optopt >= 256)
		cli_error("option '%s' requires a value", argv[optind - 1]);
	else
		cli_error("unknown option '%s'", argv[optind - 1]);
}

const struct cli_verb *cli_find_verb(const struct cli_verb *verbs, size_t n, const char *noun,
				     const char *arg)
{
	const struct cli_verb *match = NULL;
	size_t len = strlen(arg);

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(verbs[i].name, arg))
			return &verbs[i];
		if (!strncmp(verbs[i].name, arg, len)) {
			if (match) {
				cli_error("ambiguous %s command '%s'", noun, arg);
				return NULL;
			}
			match = &verbs[i];
		}
	}
	if (!match)
		cli_error("unknown %s command '%s'", noun, arg);
	return match;
}

int cli_reap_child(pid_t *pid, int *status)
{
	int st;
	pid_t p;

	if (*pid <= 0)
		return 0;
	do
		p = waitpid(*pid, &st, WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p == 0)
		return 0;
	*status = p > 0 ? st : 0;
	*pid = -1;
	return 1;
}

int cli_parse_count(const char *opt, const char *arg, long *out)
{
	uint64_t v;

	if (cli_parse_u64(opt, arg, 1, LONG_MAX, &v))
		return -EINVAL;
	*out = (long)v;
	return 0;
}
