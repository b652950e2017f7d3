/* perfkit report -D (raw record dump) and --stats printers. */
#ifndef PERFKIT_CLI_REPORT_DUMP_H
#define PERFKIT_CLI_REPORT_DUMP_H

#include <perfkit/session.h>

struct dump_ctx {
	struct pk_session *ss;
	const char *path;
	int pipe;
};

/* pk_record_fn printing one record as perf report -D does. */
int dump_record(void *ctx, const struct pk_record *r);
/* perf report --stats: counts per record type, then per event. */
void dump_stats(struct pk_session *ss);

#endif
