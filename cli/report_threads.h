/*
 * perf report -T: the counts PERF_RECORD_READ records carry (perf record -s
 * writes one per event when an inherited thread exits), a row per thread
 * and a column per event, printed after the report as perf's table.
 */
#ifndef PK_CLI_REPORT_THREADS_H
#define PK_CLI_REPORT_THREADS_H

#include <stdio.h>
#include <perfkit/perfdata.h>

struct report_threads;

struct report_threads *report_threads_new(void);
void report_threads_free(struct report_threads *t);
/* Add @r's count if it is a READ record (others are ignored). 0 or -ENOMEM. */
int report_threads_add(struct report_threads *t, const struct pk_record *r);
/* "# PID  TID  event..." and a row per thread, in the order they were first read. */
void report_threads_print(const struct report_threads *t, FILE *out);

#endif
