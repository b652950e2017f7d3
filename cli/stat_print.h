/*
 * Rendering of perfkit stat results in perf stat's three forms: the aligned
 * text table, CSV with -x SEP, and JSON lines with -j. Rows are events within
 * aggregation units (the whole run, a CPU, a core, a socket).
 */
#ifndef PERFKIT_CLI_STAT_PRINT_H
#define PERFKIT_CLI_STAT_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include <perfkit/counter.h>

enum stat_aggr { AGGR_GLOBAL, AGGR_CPU, AGGR_CORE, AGGR_SOCKET };
enum stat_format { FMT_PLAIN, FMT_CSV, FMT_JSON };

/* One aggregation unit: a CPU, a (socket, die, core), a socket, or everything. */
struct stat_unit {
	int cpu;
	int socket;
	int die;
	int core;
	int nr_cpus;
};

struct stat_printer {
	FILE *out;
	enum stat_format fmt;
	const char *sep;       /* CSV separator */
	bool big_num;          /* thousands grouping from the locale */
	enum stat_aggr aggr;
};

/* A set of values to print: one report, or one interval. */
struct stat_view {
	size_t nr_events;
	const struct pk_event *const *events;
	const bool *supported;
	size_t nr_units;
	const struct stat_unit *units;
	const struct pk_counts *counts;  /* [unit * nr_events + ev] */
	const struct pk_stats *noise;    /* [unit * nr_events + ev] over -r runs, or NULL */
	double wall_ns;                  /* elapsed time the counts cover */
	bool interval;
	uint64_t interval_ns;            /* timestamp since start, for -I */
};

/* All rows of @v. */
void stat_print_counters(const struct stat_printer *p, const struct stat_view *v);
/* The "# time ... counts unit events" line printed before the first interval. */
void stat_print_interval_header(const struct stat_printer *p);
/* " Performance counter stats for 'X' (N runs):" and its blank lines (text only). */
void stat_print_title(const struct stat_printer *p, const char *target, int runs);
/* The elapsed (with noise over runs) and user/sys time lines (text only). */
void stat_print_footer(const struct stat_printer *p, const struct pk_stats *wall_s,
		       int runs, double user_s, double sys_s, bool show_rusage);

#endif
