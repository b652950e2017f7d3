/*
 * perfkit report -D and --stats: every record with its file offset in
 * perf report -D's layout ("0x<off>@<file> [0x<size>]: event: <type>", the
 * raw bytes as a hex dump, then the decoded line perf prints for the common
 * types), and the record counts per type in perf report --stats' layout.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <perfkit/session.h>
#include "report_dump.h"

static void dump_hex(const uint8_t *p, size_t n)
{
	printf(".\n. ... raw event: size %zu bytes\n", n);
	for (size_t i = 0; i < n; i += 16) {
		size_t m = n - i < 16 ? n - i : 16;

		printf(".  %04zx: ", i);
		for (size_t j = 0; j < 16; j++) {
			if (j < m)
				printf(" %02x", p[i + j]);
			else
				printf("   ");
		}
		printf("  ");
		for (size_t j = 0; j < m; j++)
			putchar(p[i + j] >= 0x20 && p[i + j] < 0x7f ? p[i + j] : '.');
		for (size_t j = m; j < 16; j++)
			putchar(' ');
		putchar('\n');
	}
}

static void dump_tstamp(const struct pk_record *r)
{
	const struct pk_evsel *ev = r->evsel;
	uint32_t type = r->hdr->type;

	if (type >= 64) {
		printf("0 ");
		return;
	}
	if (type != PERF_RECORD_SAMPLE && (!ev || !ev->layout.sample_id_all)) {
		printf("-1 -1 ");
		return;
	}
	if (r->sample.present & PERF_SAMPLE_CPU)
		printf("%u ", r->sample.cpu);
	if (r->sample.present & PERF_SAMPLE_TIME)
		printf("%" PRIu64 " ", r->sample.time);
}

static void dump_sample(struct dump_ctx *c, const struct pk_record *r)
{
	const struct pk_sample *s = &r->sample;
	struct pk_symbols *syms = pk_session_symbols(c->ss);
	struct pk_thread *t;
	struct pk_location loc;

	printf("PERF_RECORD_SAMPLE(IP, 0x%x): %u/%u: %#" PRIx64 " period: %" PRIu64 " addr: %#" PRIx64 "\n",
	       r->hdr->misc, s->pid, s->tid, s->ip, s->period, s->addr);
	if (s->present & PERF_SAMPLE_CALLCHAIN) {
		printf("... FP chain: nr:%" PRIu64 "\n", s->callchain_nr);
		for (uint64_t i = 0; i < s->callchain_nr; i++) {
			uint64_t v;

			memcpy(&v, &s->callchain[i], sizeof(v));
			printf(".....  %2" PRIu64 ": %016" PRIx64 "\n", i, v);
		}
	}
	if (!syms)
		return;
	t = pk_symbols_thread(syms, (int32_t)s->pid, (int32_t)s->tid);
	memset(&loc, 0, sizeof(loc));
	pk_symbols_resolve(syms, t, r->hdr->misc & PERF_RECORD_MISC_CPUMODE_MASK, s->ip, &loc);
	printf(" ... thread: %s:%d\n", t && t->comm ? t->comm : "", t ? t->tid : (int)s->tid);
	printf(" ...... dso: %s\n", loc.dso ? loc.dso->name : "<not found>");
}

int dump_record(void *ctx, const struct pk_record *r)
{
	struct dump_ctx *c = ctx;
	uint32_t type = r->hdr->type, size = r->hdr->size;
	const char *name = pk_rec_type_name(type);
	union pk_rec u;
	struct pk_diag d;
	uint32_t trailer = r->evsel && type < 64 ? r->evsel->layout.id_trailer_size : 0;

	if (c->pipe)
		printf("\n%#" PRIx64 " [%#x]: event: %u\n", r->file_offset, size, type);
	else
		printf("\n%#" PRIx64 "@%s [%#x]: event: %u\n", r->file_offset, c->path, size, type);
	dump_hex((const uint8_t *)r->hdr, size);
	putchar('\n');
	dump_tstamp(r);
	printf("%#" PRIx64 " [%#x]: ", r->file_offset, size);
	pk_diag_init(&d);
	if (type == PERF_RECORD_SAMPLE) {
		dump_sample(c, r);
		return 0;
	}
	if (pk_rec_decode(r->hdr, size, trailer, &u, r->file_offset, &d)) {
		printf("PERF_RECORD_%s\n", name ? name : "UNKNOWN");
		return 0;
	}
	switch (type) {
	case PERF_RECORD_MMAP:
		printf("PERF_RECORD_MMAP %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 "]: %c %s\n",
		       (int)u.mmap.pid, (int)u.mmap.tid, u.mmap.start, u.mmap.len, u.mmap.pgoff,
		       (r->hdr->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x', u.mmap.filename);
		break;
	case PERF_RECORD_MMAP2:
		printf("PERF_RECORD_MMAP2 %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64
		       " %02x:%02x %" PRIu64 " %" PRIu64 "]: %c%c%c%c %s\n",
		       (int)u.mmap.pid, (int)u.mmap.tid, u.mmap.start, u.mmap.len, u.mmap.pgoff,
		       u.mmap.maj, u.mmap.min, u.mmap.ino, u.mmap.ino_generation,
		       (u.mmap.prot & 1) ? 'r' : '-', (u.mmap.prot & 2) ? 'w' : '-',
		       (u.mmap.prot & 4) ? 'x' : '-', (u.mmap.flags & 1) ? 's' : 'p', u.mmap.filename);
		break;
	case PERF_RECORD_COMM:
		printf("PERF_RECORD_COMM%s: %s:%d/%d\n", u.comm.exec ? " exec" : "", u.comm.comm,
		       (int)u.comm.pid, (int)u.comm.tid);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		printf("PERF_RECORD_%s(%d:%d):(%d:%d)\n", type == PERF_RECORD_FORK ? "FORK" : "EXIT",
		       (int)u.task.pid, (int)u.task.tid, (int)u.task.ppid, (int)u.task.ptid);
		break;
	case PERF_RECORD_LOST:
		printf("PERF_RECORD_LOST lost %" PRIu64 "\n", u.lost.lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		printf("PERF_RECORD_LOST_SAMPLES lost %" PRIu64 "\n", u.lost_samples);
		break;
	default:
		printf("PERF_RECORD_%s\n", name ? name : "UNKNOWN");
		break;
	}
	return 0;
}

void dump_stats(struct pk_session *ss)
{
	struct pk_perfdata *p = pk_session_data(ss);
	const struct pk_perfdata_stats *st = pk_perfdata_stats(p);
	uint64_t total = 0;

	for (int i = 1; i < PK_RECORD_USER_MAX; i++)
		total += st->nr_records[i];
	printf("\nAggregated stats:\n");
	printf("%16s events: %10" PRIu64 "\n", "TOTAL", total);
	for (int i = 1; i < PK_RECORD_USER_MAX; i++) {
		const char *name = pk_rec_type_name((uint32_t)i);

		if (!name || !st->nr_records[i])
			continue;
		printf("%16s events: %10" PRIu64 "  (%4.1f%%)\n", name, st->nr_records[i],
		       total ? (double)st->nr_records[i] * 100.0 / (double)total : 0.0);
	}
	for (size_t i = 0; i < pk_perfdata_nr_evsels(p); i++) {
		const struct pk_evsel *ev = pk_perfdata_evsel(p, i);
		const struct pk_session_counts *sc = pk_session_counts(ss, i);

		if (!ev || !sc || (!sc->nr_samples && !sc->nr_lost_samples))
			continue;
		printf("%s stats:\n", ev->name ? ev->name : "event");
		if (sc->nr_samples)
			printf("%16s events: %10" PRIu64 "\n", "SAMPLE", sc->nr_samples);
		if (sc->nr_lost_samples)
			printf("%16s events: %10" PRIu64 "\n", "LOST_SAMPLES", sc->nr_lost_samples);
	}
}
