/*
 * libFuzzer target for the report: the input's first byte picks report
 * options (sort keys, -F columns, children, call-graph mode, value, limit
 * and key, a symbol filter, -t, the Samples, Period, sys and usr columns),
 * the rest is a perf.data file (a
 * memfd opened by its /proc path) that goes through the session into the
 * histogram, which is then printed to /dev/null as
 * perfkit report --stdio prints it, and the threads as --mmaps prints
 * them. Binaries and kallsyms are looked up under paths that do not
 * exist, so only the input is read. Errors are expected; crashes, hangs
 * and leaks are not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <perfkit/report.h>
#include <perfkit/session.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NOWHERE "/nonexistent/perfkit-fuzz"

static const char *const sorts[8] = {
	NULL, "sym", "dso,sym", "comm,pid,cpu,cgroup,cgroup_id", "srcline,sym", "time,dso_size,trace", "parent,sym",
	"symoff,srcfile,dso_from,symbol_to,cycles",
};
static const enum pk_callgraph_mode modes[4] = { PK_CG_DEFAULT, PK_CG_FLAT, PK_CG_FOLDED, PK_CG_FRACTAL };

static int add(void *ctx, const struct pk_rsample *rs)
{
	return pk_report_add(ctx, rs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct pk_session_opts so = {
		.sz = sizeof(so), .ordered = 1, .unwind_dwarf = -1, .deliver_filtered = 1,
		.symbols = { .sz = sizeof(so.symbols), .kallsyms = NOWHERE, .symfs = NOWHERE,
			     .tmp_dir = NOWHERE, .home = NOWHERE },
	};
	struct pk_report_opts ro = { .sz = sizeof(ro), .cg_threshold = 0.5, .add_filtered = 1 };
	struct pk_session *ss = NULL;
	struct pk_report *r = NULL;
	struct pk_diag d;
	char path[64];
	uint8_t pick;
	int fd;

	if (size < 1)
		return 0;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		return 0;
	pick = data[0];
	ro.sort = sorts[pick & 7];
	ro.children = (pick & 8) ? 0 : -1;
	ro.cg_mode = modes[(pick >> 4) & 3];
	ro.cg_value = (enum pk_callgraph_value)(pick % 3);        /* percent, period, count */
	ro.cg_print_limit = (pick & 2) ? 2 : 0;
	ro.cg_by_address = (pick >> 2) & 1;
	ro.symbol_filter = (pick & 32) ? "a" : NULL;
	ro.fields = (pick & 64) ? "sym,overhead,sample,overhead_children" : NULL;
	ro.field_sep = (pick & 128) ? "," : NULL;
	ro.hierarchy = (pick & 0x44) == 0x04;                    /* never with -F, as the command */
	ro.raw_trace = (pick & 0x44) == 0x44;                    /* the trace key's fields */
	ro.show_nr_samples = ro.show_total_period = ro.show_cpu_utilization = pick & 1;
	ro.threads = 1;
	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size > 1 && write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	pk_diag_init(&d);
	if (pk_session_open(path, &so, &ss, &d) == 0 && pk_report_new(&ro, &r, &d) == 0) {
		pk_report_setup(r, ss);
		if (pk_session_run(ss, add, NULL, r, &d) != -ENOMEM) {
			pk_report_print(r, ss, devnull);
			pk_report_print_tasks(ss, 1, devnull);   /* --mmaps on the threads the run made */
		}
	}
	pk_report_free(r);
	pk_session_close(ss);
	close(fd);
	return 0;
}
