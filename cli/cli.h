/*
 * Shared declarations of the perfkit command: the subcommand entry points
 * and the few helpers every cmd_<verb>.c uses to report errors the same way.
 */
#ifndef PERFKIT_CLI_H
#define PERFKIT_CLI_H

#include <stdint.h>
#include <sys/types.h>
#include <perfkit/core.h>

int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_top(int argc, char **argv);
/* perfkit gpu [top|record|report|serve] (cmd_gpu.c dispatches) */
int cmd_gpu(int argc, char **argv);
int cmd_gpu_record(int argc, char **argv);
int cmd_gpu_report(int argc, char **argv);
/* perfkit oa [list|record|report] (cmd_oa.c dispatches) */
int cmd_oa(int argc, char **argv);

/*
 * A whole number in [@min, @max] from option @opt's argument @arg (decimal,
 * 0x hex or 0 octal); otherwise "perfkit: invalid value 'ARG' for OPT" and -EINVAL.
 */
int cli_parse_u64(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out);
/* A positive number of seconds (fractions allowed) for @opt, or the same message and -EINVAL. */
int cli_parse_seconds(const char *opt, const char *arg, double *out);
/* A count (1 .. LONG_MAX: -n iterations) for @opt, or the same message and -EINVAL. */
int cli_parse_count(const char *opt, const char *arg, long *out);
/* A process id (1 .. INT32_MAX) for @opt, or the same message and -EINVAL. */
int cli_parse_pid(const char *opt, const char *arg, pid_t *out);
/*
 * The message after getopt_long() returned '?': "option '-x' requires a
 * value" for the short options in @short_with_value and long options,
 * else "unknown option 'ARG'".
 */
void cli_bad_option(char **argv, const char *short_with_value);

/* A subcommand of a noun (perfkit gpu top, perfkit oa report). */
struct cli_verb {
	const char *name;
	int (*run)(int argc, char **argv);
};
/*
 * The verb named @arg, or the one it is a unique prefix of; otherwise
 * "perfkit: unknown (or ambiguous) NOUN command 'ARG'" and NULL.
 */
const struct cli_verb *cli_find_verb(const struct cli_verb *verbs, size_t n, const char *noun,
				     const char *arg);
/* Reap the command *@pid if it has ended: 1 (status in *@status, *@pid = -1), else 0. */
int cli_reap_child(pid_t *pid, int *status);

/* "perfkit: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A library call that failed with @err (a negative errno): "perfkit:
 * 'subject': msg at offset N" and "hint: ..." lines, with @err's text for
 * the message where the library gave none (an allocation deep inside that
 * only returned -ENOMEM).
 */
void cli_diag(const struct pk_diag *d, int err);
/*
 * The exit status of a command that failed with @err (a negative errno): 1
 * when it ran out of memory (a run-time error), else 2 (a usage error, or
 * input that cannot be read).
 */
int cli_status_of(int err);
/*
 * "perfkit: warning: 'FILE': the kernel dropped N samples (P% of ...)" when
 * the recording says samples were lost (LOST or LOST_SAMPLES records), as
 * perf report and perf script warn; nothing otherwise.
 */
struct pk_perfdata;
void cli_warn_lost(const char *path, const struct pk_perfdata *p);
struct pk_symbols;
/* perf report's warning about a kernel map missing or without _text (@kernel_hit: samples in it). */
void cli_warn_kernel_map(const char *path, const struct pk_perfdata *p, const struct pk_symbols *syms,
			 int kernel_hit);
/* An event-spec failure, with the spec echoed and a caret under the offending character. */
void cli_spec_error(const char *spec, const struct pk_diag *d);
/* Install the library log callback that prints "perfkit: warning: ..." (verbosity 0..2). */
void cli_log_init(int verbose);

#endif
