/*
 * Shared declarations of the perfkit command: the subcommand entry points
 * and the few helpers every cmd_<verb>.c uses to report errors the same way.
 */
#ifndef PERFKIT_CLI_H
#define PERFKIT_CLI_H

#include <stdint.h>
#include <perfkit/core.h>

int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_top(int argc, char **argv);

/*
 * A whole number in [@min, @max] from option @opt's argument @arg (decimal,
 * 0x hex or 0 octal); otherwise "perfkit: invalid value 'ARG' for OPT" and -EINVAL.
 */
int cli_parse_u64(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out);
/* A positive number of seconds (fractions allowed) for @opt, or the same message and -EINVAL. */
int cli_parse_seconds(const char *opt, const char *arg, double *out);

/* "perfkit: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A library failure: "perfkit: 'subject': msg at offset N" and "hint: ..." lines. */
void cli_diag(const struct pk_diag *d);
/* An event-spec failure, with the spec echoed and a caret under the offending character. */
void cli_spec_error(const char *spec, const struct pk_diag *d);
/* Install the library log callback that prints "perfkit: warning: ..." (verbosity 0..2). */
void cli_log_init(int verbose);

#endif
