/*
 * How the command reports problems: one "perfkit: ..." line on stderr in
 * lowercase without a full stop, then a "hint: ..." line when the library
 * knows the fix; event specs are echoed with a caret under the offending
 * character. Library warnings arrive through the log callback installed here.
 * A recording that lost samples, or whose kernel samples cannot be
 * resolved, is warned about once its walk is done.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <inttypes.h>
#include <perfkit/perfdata.h>
#include <perfkit/symbols.h>
#include "cli.h"

static int log_verbosity;

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("perfkit: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_diag(const struct pk_diag *d, int err)
{
	struct pk_diag worded;
	char buf[1024];

	if (!d->msg[0] && !d->err && err < 0) {
		worded = *d;
		worded.err = err;
		d = &worded;
	}
	cli_error("%s", pk_diag_str(d, buf, sizeof(buf)));
	if (d->hint[0])
		fprintf(stderr, "hint: %s\n", d->hint);
}

int cli_status_of(int err)
{
	return err == -ENOMEM ? 1 : 2;
}

void cli_spec_error(const char *spec, const struct pk_diag *d)
{
	cli_error("%s", d->msg[0] ? d->msg : strerror(-d->err));
	fprintf(stderr, "  %s\n", spec);
	if (d->offset != PK_NO_OFFSET && d->offset <= strlen(spec))
		fprintf(stderr, "  %*s^\n", (int)d->offset, "");
	if (d->hint[0])
		fprintf(stderr, "hint: %s\n", d->hint);
}

static void cli_log(enum pk_log_level level, const char *fmt, va_list ap)
{
	if ((int)level > log_verbosity)
		return;
	fputs(level == PK_LOG_WARN ? "perfkit: warning: " : "perfkit: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_log_init(int verbose)
{
	log_verbosity = verbose;
	pk_log_set_callback(cli_log);
}

void cli_warn_lost(const char *path, const struct pk_perfdata *p)
{
	const struct pk_perfdata_stats *st = pk_perfdata_stats(p);
	uint64_t chunks, lost, taken;

	if (!st)
		return;
	chunks = st->nr_records[PERF_RECORD_LOST];
	/* the kernel's per-event count where the file has it: LOST records miss the last drops */
	lost = st->nr_lost_samples > st->nr_lost_events ? st->nr_lost_samples : st->nr_lost_events;
	if (!lost)
		return;
	taken = st->nr_records[PERF_RECORD_SAMPLE] + lost;
	fprintf(stderr, "perfkit: warning: '%s': the kernel dropped %" PRIu64 " samples "
		"(%.2f%% of %" PRIu64 ")", path, lost, 100.0 * (double)lost / (double)taken, taken);
	if (chunks)   /* a LOST record means a full ring; LOST_SAMPLES alone may be the PMU's */
		fprintf(stderr, " in %" PRIu64 " chunk%s: the ring buffers were full (record with "
			"a larger -m or a lower -F)", chunks, chunks == 1 ? "" : "s");
	fputc('\n', stderr);
}

/*
 * perf report's kernel warnings: kernel symbols were looked for but the
 * recorded kernel's (by build-id) are nowhere; and the kptr_restrict one, a
 * recording whose events do not all exclude the kernel but that has no
 * kernel map (no kernel MMAP: kernel samples stay unresolved), or whose
 * kernel map gave no _text address while samples fell in it (symbols may sit
 * elsewhere if the kernel was relocated).
 */
void cli_warn_kernel_map(const char *path, const struct pk_perfdata *p, const struct pk_symbols *syms,
			 int kernel_hit)
{
	uint64_t ref;
	int symbols_read;
	const struct pk_dso *k = pk_symbols_kernel_dso(syms, &ref, &symbols_read);
	size_t i, n = pk_perfdata_nr_evsels(p);
	char bid[41];

	/* perf's dso__load_kernel_sym(): the recorded kernel's symbols are nowhere here */
	if (k && k->loaded && !symbols_read && k->build_id_size) {
		pk_fmt_bytes_hex(bid, k->build_id, k->build_id_size > 20 ? 20 : k->build_id_size);
		fprintf(stderr, "perfkit: warning: '%s': no kallsyms or vmlinux with build-id %s (the recorded "
			"kernel) here or in ~/.debug: kernel samples are not resolved\n", path, bid);
	}
	for (i = 0; i < n; i++)
		if (!pk_perfdata_evsel(p, i)->attr.attr.exclude_kernel)
			break;
	if (i == n)
		return;
	if (!k)
		fprintf(stderr, "perfkit: warning: '%s': the recording has no kernel map (kernel "
			"addresses were hidden, kptr_restrict?): kernel samples are not resolved\n", path);
	else if (kernel_hit && !ref)
		fprintf(stderr, "perfkit: warning: '%s': the recording's kernel map has no _text address "
			"(kptr_restrict?): %s\n", path, symbols_read ?
			"if the kernel was relocated (kexec), kernel symbols may be wrong" :
			"kernel samples are not resolved");
}
