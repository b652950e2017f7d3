/*
 * perfkit script: printing a session's samples and, on request, its side
 * band in `perf script`'s (Linux perf 6.1) text layout:
 *
 *   sample:  [comm] [pid/tid] [[cpu]] [time:] [period] [event:] [trace] [addr]
 *            [data_src] [weight] (' ' ip [sym[+0x off]] [(dso)] | '\n' call chain) [phys_addr] '\n'
 *   frame:   '\t' %16lx [' ' sym[+0xoff]] [' (' dso ')'] ['\n  ' srcline] '\n'   (user frames print the
 *            DSO-relative address, kernel and unmapped frames the raw one, like perf;
 *            an inline frame (--inline) prints " (inlined)" in place of the DSO)
 *   side band (sideband.c): the sample start fields, then "PERF_RECORD_<TYPE>...".
 *
 * Everything goes through the 1 MiB pk_obuf; the per-sample path formats
 * numbers by hand and allocates nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <linux/perf_event.h>
#include <trace-seq.h>
#include <perfkit/perfdata.h>
#include <perfkit/sample.h>
#include <perfkit/unwind.h>
#include "script/internal.h"

static void name_width_update(struct pk_script *sc)
{
	size_t n = pk_perfdata_nr_evsels(sc->data);

	for (size_t i = sc->nr_evsels_seen; i < n; i++) {
		const struct pk_evsel *ev = pk_perfdata_evsel(sc->data, i);
		int len = ev && ev->name ? (int)strlen(ev->name) : 9;

		if (len > sc->name_width)
			sc->name_width = len;
	}
	sc->nr_evsels_seen = n;
}

/* Every -F argument of @fields (several are joined by spaces, one per event type) onto @set. */
static int apply_field_list(struct pk_field_set set[PK_OT_MAX], const char *fields, struct pk_diag *d)
{
	char *copy = strdup(fields), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	for (tok = strtok_r(copy, " ", &save); tok && ret >= 0; tok = strtok_r(NULL, " ", &save))
		ret = pk_script_apply_fields(set, tok, d);
	free(copy);
	return ret;
}

int pk_script_fields_need_srcline(const char *fields)
{
	struct pk_field_set set[PK_OT_MAX];
	struct pk_diag d;

	pk_diag_init(&d);
	pk_script_default_fields(set);
	if (!fields || apply_field_list(set, fields, &d) < 0)
		return 0;
	for (int t = 0; t < PK_OT_MAX; t++)
		if (set[t].fields & (PK_SF_SRCLINE | PK_SF_SRCCODE))
			return 1;
	return 0;
}

int pk_script_new(struct pk_session *ss, const struct pk_script_opts *opts_in, FILE *out,
		  struct pk_script **scp, struct pk_diag *d)
{
	struct pk_script_opts opts = { .sz = sizeof(opts) };
	struct pk_script *sc;
	int ret;

	*scp = NULL;
	if (opts_in)
		memcpy(&opts, opts_in, opts_in->sz && opts_in->sz < sizeof(opts) ? opts_in->sz : sizeof(opts));
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	sc->ss = ss;
	sc->data = pk_session_data(ss);
	sc->syms = pk_session_symbols(ss);
	sc->arch = pk_perfdata_features(sc->data) ? pk_perfdata_features(sc->data)->arch : NULL;
	if (!sc->arch && uname(&sc->uts) == 0)
		sc->arch = sc->uts.machine;     /* perf's perf_env__arch() without HEADER_ARCH */
	sc->opts = opts;
	sc->opts.fields = NULL;         /* not kept */
	sc->time_ns = opts.time_ns;
	sc->time_mode = opts.time_mode;
	pk_diag_init(&sc->err);
	ret = pk_obuf_init(&sc->out, out);
	sc->o = &sc->out;
	if (ret < 0) {
		pk_script_free(sc);
		return pk_diag_fail(d, ret, "out of memory");
	}
	pk_script_default_fields(sc->set);
	if (opts.fields && (ret = apply_field_list(sc->set, opts.fields, d)) < 0) {
		pk_script_free(sc);
		return ret;
	}
	ret = pk_script_check_fields(sc->set, sc->data, opts.no_callchain, &sc->use_callchain, d);
	if (ret < 0) {
		pk_script_free(sc);
		return ret;
	}
	name_width_update(sc);
	*scp = sc;
	return 0;
}

void pk_script_free(struct pk_script *sc)
{
	if (!sc)
		return;
	pk_srccode_free(sc->srccode);
	pk_obuf_flush(&sc->out);
	pk_obuf_release(&sc->out);
	for (size_t i = 0; i < sc->nr_dumps; i++) {
		pk_obuf_flush(&sc->dumps[i].out);
		pk_obuf_release(&sc->dumps[i].out);
		if (sc->dumps[i].out.f)
			fclose(sc->dumps[i].out.f);
		free(sc->dumps[i].path);
	}
	free(sc->dumps);
	pk_tracing_free(sc->tep);
	if (sc->seq_init)
		trace_seq_destroy(&sc->seq);
	free(sc->scratch);
	free(sc);
}

int pk_script_flush(struct pk_script *sc)
{
	int ret = pk_obuf_flush(&sc->out);

	if (!ret && fflush(sc->out.f))
		ret = -errno;
	for (size_t i = 0; !ret && i < sc->nr_dumps; i++)
		if (!(ret = pk_obuf_flush(&sc->dumps[i].out)) && fflush(sc->dumps[i].out.f))
			ret = -errno;
	return ret;
}

int pk_script_per_event_dump(struct pk_script *sc, const char *input, struct pk_diag *d)
{
	size_t n = pk_perfdata_nr_evsels(sc->data);

	sc->dumps = calloc(n ? n : 1, sizeof(*sc->dumps));
	if (!sc->dumps)
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct pk_event_dump *e = &sc->dumps[i];
		FILE *f;

		if (asprintf(&e->path, "%s.%s.dump", input, pk_perfdata_evsel(sc->data, i)->name) < 0) {
			e->path = NULL;
			return pk_diag_fail(d, -ENOMEM, "out of memory");
		}
		sc->nr_dumps = i + 1;
		f = fopen(e->path, "w");
		if (!f)
			return pk_diag_fail(d, -errno, "cannot create %s: %s", e->path, strerror(errno));
		if (pk_obuf_init(&e->out, f) < 0) {
			fclose(f);
			return pk_diag_fail(d, -ENOMEM, "out of memory");
		}
	}
	return 0;
}

/* perf's closing lines of --per-event-dump: each file's size and samples. */
static void dump_summary(struct pk_script *sc)
{
	char line[PATH_MAX + 128];

	for (size_t i = 0; i < sc->nr_dumps; i++) {
		struct stat st;
		int n;

		if (fstat(fileno(sc->dumps[i].out.f), &st))
			st.st_size = 0;
		n = snprintf(line, sizeof(line), "[ perf script: Wrote %.3f MB %s (%" PRIu64 " samples) ]\n",
			     (double)st.st_size / 1024.0 / 1024.0, sc->dumps[i].path, sc->dumps[i].samples);
		if (n > 0)
			pk_obuf_write(&sc->out, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	}
}

struct tep_handle *pk_script_tracing(struct pk_script *sc, const void *blob, size_t len)
{
	if (!blob) {
		const struct pk_features *f = pk_perfdata_features(sc->data);

		if (f && f->tracing_data) {
			blob = f->tracing_data;
			len = (size_t)f->tracing_data_size;
		}
	}
	if (blob && blob != sc->tep_blob) {
		pk_tracing_free(sc->tep);
		sc->tep = pk_tracing_parse(blob, len);
		sc->tep_blob = blob;
		if (!sc->seq_init) {
			trace_seq_init(&sc->seq);
			sc->seq_init = 1;
		}
		if (!sc->scratch && !(sc->scratch = calloc(1, PK_TRACE_SCRATCH)))
			pk_log(PK_LOG_WARN, "out of memory: tracepoint fields will not be printed");
	}
	return sc->scratch ? sc->tep : NULL;
}

/* ---- pieces of a line ---- */

static void put_comm(struct pk_obuf *o, const struct pk_thread *t, int plain)
{
	char tmp[24];
	const char *c;
	size_t n;

	if (t && t->comm && t->comm[0]) {
		c = t->comm;
		n = strlen(c);
	} else {
		/* no comm known: perf prints ":<tid>" (":-1" without a thread) */
		int64_t tid = t ? t->tid : -1;

		tmp[0] = ':';
		n = 1;
		if (tid < 0) {
			tmp[n++] = '-';
			n += pk_fmt_uint(tmp + n, (uint64_t)(-tid));
		} else {
			n += pk_fmt_uint(tmp + n, (uint64_t)tid);
		}
		c = tmp;
	}
	pk_obuf_pad(o, c, n, plain ? 0 : 16);
	pk_obuf_putc(o, ' ');
}

/*
 * The time as perf script prints it: "%12s: " of "%lu.%06lu" (seconds,
 * microseconds truncated), or "%5lu.%09llu: " with --ns; since the first
 * time printed (--reltime) or the previous one (--deltatime).
 */
static void put_time(struct pk_script *sc, uint64_t t)
{
	char tmp[32];
	int digits = sc->time_ns ? 9 : 6;
	uint64_t shown = t, frac;
	size_t n;

	if (sc->time_mode == PK_SCRIPT_RELTIME) {
		if (!sc->first_time)
			sc->first_time = t;
		shown = t - sc->first_time;
	} else if (sc->time_mode == PK_SCRIPT_DELTATIME) {
		shown = sc->last_time ? t - sc->last_time : 0;
		sc->last_time = t;
	}
	frac = shown % 1000000000ull;
	if (!sc->time_ns)
		frac /= 1000;
	n = pk_fmt_uint(tmp, shown / 1000000000ull);
	tmp[n++] = '.';
	for (int i = digits - 1; i >= 0; i--) {
		tmp[n + (size_t)i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	n += (size_t)digits;
	pk_obuf_pad(sc->o, tmp, n, sc->time_ns ? 15 : 12);
	pk_obuf_write(sc->o, ": ", 2);
}

/*
 * perf's misc field: a letter per cpumode whose bits are all in @misc (so
 * the hypervisor's 3 prints "KUH", as perf tests them), then the record's
 * own flag (M: MMAP of data, E: COMM of an exec, S: SWITCH out, p:
 * preempted), padded to 6 and followed by a blank.
 */
static void put_misc(struct pk_obuf *o, uint32_t type, uint16_t misc)
{
	static const struct { uint16_t mode; char c; } modes[] = {
		{ PERF_RECORD_MISC_KERNEL, 'K' }, { PERF_RECORD_MISC_USER, 'U' },
		{ PERF_RECORD_MISC_HYPERVISOR, 'H' }, { PERF_RECORD_MISC_GUEST_KERNEL, 'G' },
		{ PERF_RECORD_MISC_GUEST_USER, 'g' },
	};
	char s[8];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if ((misc & modes[i].mode) == modes[i].mode)
			s[n++] = modes[i].c;
	if ((type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2) && (misc & PERF_RECORD_MISC_MMAP_DATA))
		s[n++] = 'M';
	else if (type == PERF_RECORD_COMM && (misc & PERF_RECORD_MISC_COMM_EXEC))
		s[n++] = 'E';
	else if ((type == PERF_RECORD_SWITCH || type == PERF_RECORD_SWITCH_CPU_WIDE) &&
		 (misc & PERF_RECORD_MISC_SWITCH_OUT)) {
		s[n++] = 'S';
		if (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
			s[n++] = 'p';
	}
	pk_obuf_write(o, s, n);
	/* perf's "%*s" of " " in 6 - n columns: a blank at least */
	pk_obuf_pad(o, " ", 1, n < 5 ? (int)(6 - n) : 1);
}

/*
 * perf's tod: @time moved onto the wall clock by the file's CLOCK_DATA
 * reference pair, as local time "%Y-%m-%d %H:%M:%S" with six decimals
 * (nine with --ns), then a blank.
 */
static void put_tod(struct pk_script *sc, uint64_t time)
{
	const struct pk_features *feat = pk_perfdata_features(sc->data);
	uint64_t ns = feat->clock_wall_ns;
	char date[64], tmp[96];
	struct tm tm;
	time_t sec;
	int n;

	if (time > feat->clock_clockid_ns)
		ns += time - feat->clock_clockid_ns;
	else
		ns -= feat->clock_clockid_ns - time;
	sec = (time_t)(ns / 1000000000u);
	if (!localtime_r(&sec, &tm)) {
		n = snprintf(tmp, sizeof(tmp), "failed");
	} else {
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
		n = sc->time_ns ? snprintf(tmp, sizeof(tmp), "%s.%09lu", date, (unsigned long)(ns % 1000000000u))
				: snprintf(tmp, sizeof(tmp), "%s.%06lu", date, (unsigned long)(ns % 1000000000u / 1000u));
	}
	pk_obuf_write(sc->o, tmp, n > 0 && (size_t)n < sizeof(tmp) ? (size_t)n : 0);
	pk_obuf_putc(sc->o, ' ');
}

void pk_script_put_start(struct pk_script *sc, uint32_t f, int comm_plain, const struct pk_thread *t,
		      int32_t pid, int32_t tid, int32_t cpu, uint32_t type, uint16_t misc, uint64_t time)
{
	struct pk_obuf *o = sc->o;

	if (f & PK_SF_COMM)
		put_comm(o, t, comm_plain);
	if ((f & PK_SF_PID) && (f & PK_SF_TID)) {
		pk_obuf_int(o, pid, 5);
		pk_obuf_putc(o, '/');
		pk_obuf_int(o, tid, -5);
		pk_obuf_putc(o, ' ');
	} else if (f & PK_SF_PID) {
		pk_obuf_int(o, pid, 5);
		pk_obuf_putc(o, ' ');
	} else if (f & PK_SF_TID) {
		pk_obuf_int(o, tid, 5);
		pk_obuf_putc(o, ' ');
	}
	if (f & PK_SF_CPU) {
		char tmp[16];
		size_t n = 0;

		if (cpu < 0) {
			tmp[n++] = '-';
			n += pk_fmt_uint(tmp + n, (uint64_t)0 - (uint64_t)(int64_t)cpu);
		} else {
			n = pk_fmt_uint(tmp, (uint64_t)cpu);
		}
		pk_obuf_putc(o, '[');
		if (n < 3 && cpu >= 0)
			pk_obuf_write(o, "00", 3 - n);
		pk_obuf_write(o, tmp, n);
		pk_obuf_write(o, "] ", 2);
	}
	if (f & PK_SF_MISC)
		put_misc(o, type, misc);
	if (f & PK_SF_TOD)
		put_tod(sc, time);
	if (f & PK_SF_TIME)
		put_time(sc, time);
}

/* Symbol name [+0xoff], or [unknown]. */
static void put_sym(struct pk_obuf *o, const struct pk_location *loc, int symoff)
{
	if (!loc->sym) {
		pk_obuf_write(o, "[unknown]", 9);
		return;
	}
	pk_obuf_puts(o, loc->sym->name);
	if (symoff) {
		pk_obuf_write(o, "+0x", 3);
		pk_obuf_hex(o, pk_location_shown_symoff(loc), 0);
	}
}

static void put_dso(struct pk_obuf *o, const struct pk_location *loc)
{
	pk_obuf_write(o, " (", 2);
	if (loc->map && loc->dso && loc->dso->name)
		pk_obuf_puts(o, loc->dso->name);
	else
		pk_obuf_write(o, "[unknown]", 9);
	pk_obuf_putc(o, ')');
}

/*
 * perf's map__fprintf_srcline(): "\n  file.c:12" (the file's base name, or
 * its whole path with --full-source-path), or
 * "\n  dso[addr]" without line information; nothing without a map, or
 * where addr2line answers "??" (perf leaves out what starts "??:0").
 */
static void put_srcline(struct pk_script *sc, const struct pk_location *loc)
{
	struct pk_obuf *o = sc->o;
	struct pk_srcline sl[8];

	int n;

	if (!loc->map || !loc->dso)
		return;
	n = pk_symbols_srcline(sc->syms, loc, sl, 8);
	if (n > 0 && sl[0].file && !strcmp(sl[0].file, "??") && !sl[0].line)
		return;
	pk_obuf_write(o, "\n  ", 3);
	if (n > 0 && sl[0].file) {
		pk_obuf_puts(o, pk_srcline_shown_file(sl[0].file, sc->opts.full_source_path));
		pk_obuf_putc(o, ':');
		pk_obuf_uint(o, sl[0].line, 0);
	} else {
		pk_obuf_puts(o, loc->dso->short_name ? loc->dso->short_name : loc->dso->name);
		pk_obuf_putc(o, '[');
		pk_obuf_hex(o, loc->addr, 0);
		pk_obuf_putc(o, ']');
	}
}

static void put_callchain(struct pk_script *sc, uint32_t f, const struct pk_rsample *rs)
{
	struct pk_obuf *o = sc->o;

	for (uint32_t i = 0; i < rs->nr_frames; i++) {
		const struct pk_location *fr = &rs->frames[i];

		if (f & PK_SF_IP) {
			uint64_t a = fr->ip;

			/* perf shows the binary offset for user-space frames */
			if (fr->map && fr->dso && !fr->dso->kernel)
				a = fr->addr;
			pk_obuf_putc(o, '\t');
			pk_obuf_hex(o, a, 16);
		}
		int inl = rs->inlined && rs->inlined[i];

		if (f & PK_SF_SYM) {
			pk_obuf_putc(o, ' ');
			put_sym(o, fr, f & PK_SF_SYMOFF);
		}
		/* perf prints inline frames (--inline) without the DSO, marked instead */
		if ((f & PK_SF_DSO) && !inl)
			put_dso(o, fr);
		if (inl)
			pk_obuf_write(o, " (inlined)", 10);
		if (f & PK_SF_SRCLINE)
			put_srcline(sc, fr);
		pk_obuf_putc(o, '\n');
	}
}

/*
 * perf's register dump: " ABI:N " then "%5s:0x%x " per register of @mask
 * (the attr's), named for the recording's architecture; nothing when the
 * sample has none (ABI 0: a kernel thread's user registers).
 */
static void put_regs(struct pk_script *sc, uint64_t abi, const uint64_t *regs, uint64_t mask)
{
	struct pk_obuf *o = sc->o;
	unsigned i = 0;

	if (!abi || !regs)
		return;
	pk_obuf_write(o, " ABI:", 5);
	pk_obuf_uint(o, abi, 0);
	pk_obuf_putc(o, ' ');
	for (unsigned bit = 0; bit < 64; bit++) {
		const char *name;
		uint64_t v;

		if (!(mask >> bit & 1))
			continue;
		/* the record's words may be unaligned */
		memcpy(&v, (const unsigned char *)regs + 8 * i++, sizeof(v));
		name = pk_perf_reg_name(sc->arch, bit);
		pk_obuf_pad(o, name, strlen(name), 5);
		pk_obuf_write(o, ":0x", 3);
		pk_obuf_hex(o, v, 0);
		pk_obuf_putc(o, ' ');
	}
}

/* perf's branch type names (PERF_BR_*); unknown (0) and types past them print nothing */
static const char *const br_type_names[] = {
	"", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL", "SYSRET", "COND_CALL",
	"COND_RET", "ERET", "IRQ",
};

/* The map (and symbol) of a branch address: the sample's cpumode, else the address's (perf's _fb). */
static void branch_resolve(struct pk_script *sc, const struct pk_rsample *rs, uint64_t addr,
			   struct pk_location *loc)
{
	uint8_t mode = pk_symbols_addr_cpumode(addr);

	memset(loc, 0, sizeof(*loc));
	pk_symbols_resolve(sc->syms, rs->thread, rs->cpumode, addr, loc);
	if (!loc->map && mode != rs->cpumode) {
		memset(loc, 0, sizeof(*loc));
		pk_symbols_resolve(sc->syms, rs->thread, mode, addr, loc);
	}
}

/* One end of a branch: "0x<addr>" (brstack) or "sym+0xoff" (brstacksym), then "(dso)" with -F dso. */
/*
 * brstackoff's address: where @addr falls in its map, as perf's map__map_ip()
 * gives it: from the start of a kernel map (perf takes no pgoff for those),
 * the DSO offset in a user one; @addr itself without a map.
 */
static uint64_t branch_offset(const struct pk_location *loc, uint64_t addr)
{
	if (!loc->map)
		return addr;
	return loc->dso && loc->dso->kernel ? addr - loc->map->start : loc->addr;
}

static void put_branch_end(struct pk_script *sc, uint32_t f, const struct pk_rsample *rs, uint64_t addr)
{
	struct pk_obuf *o = sc->o;
	struct pk_location loc = { 0 };

	if (f & (PK_SF_DSO | PK_SF_BRSTACKSYM | PK_SF_BRSTACKOFF))
		branch_resolve(sc, rs, addr, &loc);
	if (f & (PK_SF_BRSTACK | PK_SF_BRSTACKOFF)) {
		pk_obuf_write(o, "0x", 2);
		pk_obuf_hex(o, (f & PK_SF_BRSTACK) ? addr : branch_offset(&loc, addr), 0);
	} else {
		put_sym(o, &loc, 1);
	}
	if (f & PK_SF_DSO) {
		pk_obuf_putc(o, '(');
		if (loc.map && loc.dso && loc.dso->name)
			pk_obuf_puts(o, loc.dso->name);
		else
			pk_obuf_write(o, "[unknown]", 9);
		pk_obuf_putc(o, ')');
	}
}

/*
 * perf's brstack / brstacksym: per branch " 0xFROM/0xTO" (or "FROM_SYM/TO_SYM"
 * without the blank) and "/P|M|-/X|-/A|-/CYCLES/TYPE ".
 */
static void put_brstack(struct pk_script *sc, uint32_t f, const struct pk_rsample *rs)
{
	struct pk_obuf *o = sc->o;
	const struct pk_sample *s = rs->s;

	for (uint64_t i = 0; s->branch && i < s->branch_nr; i++) {
		struct perf_branch_entry be;
		char flags[4];

		memcpy(&be, &s->branch[i], sizeof(be));
		if (f & (PK_SF_BRSTACK | PK_SF_BRSTACKOFF))
			pk_obuf_putc(o, ' ');
		put_branch_end(sc, f, rs, be.from);
		pk_obuf_putc(o, '/');
		put_branch_end(sc, f, rs, be.to);
		flags[0] = be.predicted ? 'P' : be.mispred ? 'M' : '-';
		flags[1] = be.in_tx ? 'X' : '-';
		flags[2] = be.abort ? 'A' : '-';
		flags[3] = '\0';
		pk_obuf_printf(o, "/%c/%c/%c/%u/%s ", flags[0], flags[1], flags[2], (unsigned)be.cycles,
			       be.type < sizeof(br_type_names) / sizeof(br_type_names[0]) ? br_type_names[be.type] : "");
	}
}

/* Page-fault software events carry a data address worth resolving. */
static int addr_correlates_sym(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_PAGE_FAULTS || a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

/* A sample's output: its event's dump with --per-event-dump, else the main one (sc->o). */
static struct pk_obuf *select_output(struct pk_script *sc, const struct pk_evsel *ev)
{
	sc->o = &sc->out;
	if (sc->nr_dumps && ev && (size_t)ev->idx < sc->nr_dumps) {
		sc->o = &sc->dumps[ev->idx].out;
		sc->dumps[ev->idx].samples++;
	}
	return sc->o;
}

int pk_script_sample(void *ctx, const struct pk_rsample *rs)
{
	struct pk_script *sc = ctx;
	struct pk_obuf *o = select_output(sc, rs->evsel);
	const struct pk_sample *s = rs->s;
	const struct perf_event_attr *attr = &rs->evsel->attr.attr;
	int type = pk_output_type(attr->type);
	uint32_t f = sc->set[type].fields;
	int has_cc = sc->use_callchain && (attr->sample_type & PERF_SAMPLE_CALLCHAIN);
	int32_t pid = -1, tid = -1, cpu = -1;

	if (!f)
		return 0;
	if (sc->nr_evsels_seen < pk_perfdata_nr_evsels(sc->data))
		name_width_update(sc);
	if (s->present & PERF_SAMPLE_TID) {
		pid = (int32_t)s->pid;
		tid = (int32_t)s->tid;
	}
	if (s->present & PERF_SAMPLE_CPU)
		cpu = (int32_t)s->cpu;
	pk_script_put_start(sc, f, (f & PK_SF_IP) && has_cc, rs->thread, pid, tid, cpu,
			    PERF_RECORD_SAMPLE, s->misc, s->time);
	if (f & PK_SF_PERIOD) {
		/*
		 * the session's period (a PERF_SAMPLE_READ value's increase); without
		 * PERIOD in the sample perf prints attr.sample_period (the freq in -F mode)
		 */
		int own = (s->present & PERF_SAMPLE_PERIOD) || (attr->sample_type & PERF_SAMPLE_READ);

		pk_obuf_uint(o, own ? rs->period : attr->sample_period, 10);
		pk_obuf_putc(o, ' ');
	}
	if (f & PK_SF_EVENT) {
		const char *name = rs->evsel->name ? rs->evsel->name : "[unknown]";

		pk_obuf_pad(o, name, strlen(name), sc->name_width);
		pk_obuf_write(o, ": ", 2);
	}
	if (f & PK_SF_FLAGS)
		pk_obuf_spaces(o, 2 + 21 + 1);  /* perf's "  %-21s " of a recorded sample's no flags */
	if ((f & PK_SF_TRACE) && s->raw) {
		struct tep_handle *tep = pk_script_tracing(sc, NULL, 0);

		if (tep && pk_tracing_print(tep, &sc->seq, sc->scratch, attr->config, cpu, s->raw,
					    s->raw_size, 0, o) == -ENOMEM && !sc->seq_failed) {
			sc->seq_failed = 1;
			pk_log(PK_LOG_WARN, "out of memory printing tracepoint fields: they are left out "
			       "or cut short from here on");
		}
	}
	if (f & PK_SF_ADDR) {
		pk_obuf_hex(o, s->addr, 16);
		if (addr_correlates_sym(attr)) {
			struct pk_location al;

			pk_symbols_resolve(sc->syms, rs->thread, rs->cpumode, s->addr, &al);
			if (f & PK_SF_SYM) {
				pk_obuf_putc(o, ' ');
				put_sym(o, &al, f & PK_SF_SYMOFF);
			}
			if (f & PK_SF_DSO)
				put_dso(o, &al);
		}
	}
	if (f & PK_SF_DATA_SRC) {
		char dec[128], line[160];
		size_t n, k;

		/* "%16lx %s", padded to the longest seen so far (perf keeps a running max) */
		n = pk_fmt_hex(dec, s->data_src);
		k = n < 16 ? 16 - n : 0;
		memset(line, ' ', k);
		memcpy(line + k, dec, n);
		k += n;
		line[k++] = ' ';
		n = pk_mem_data_src_str(s->data_src, dec, sizeof(dec));
		if (n > sizeof(line) - k)
			n = sizeof(line) - k;
		memcpy(line + k, dec, n);
		k += n;
		if ((int)k > sc->data_src_maxlen)
			sc->data_src_maxlen = (int)k;
		pk_obuf_pad(o, line, k, -sc->data_src_maxlen);
	}
	if (f & PK_SF_WEIGHT)
		pk_obuf_uint(o, s->weight, 16);
	if (f & PK_SF_INS_LAT)
		pk_obuf_uint(o, s->ins_lat, 16);
	if (f & PK_SF_IP) {
		if (has_cc && (s->present & PERF_SAMPLE_CALLCHAIN)) {
			pk_obuf_putc(o, '\n');
			put_callchain(sc, f, rs);
		} else {
			pk_obuf_putc(o, ' ');
			pk_obuf_hex(o, s->ip, 16);
			if (f & PK_SF_SYM) {
				pk_obuf_putc(o, ' ');
				put_sym(o, &rs->self, f & PK_SF_SYMOFF);
			}
			if (f & PK_SF_DSO)
				put_dso(o, &rs->self);
			if (f & PK_SF_SRCLINE)
				put_srcline(sc, &rs->self);
		}
	}
	if ((f & PK_SF_IREGS) && (s->present & PERF_SAMPLE_REGS_INTR))
		put_regs(sc, s->regs_intr_abi, s->regs_intr, attr->sample_regs_intr);
	if ((f & PK_SF_UREGS) && (s->present & PERF_SAMPLE_REGS_USER))
		put_regs(sc, s->regs_user_abi, s->regs_user, attr->sample_regs_user);
	/* perf prints one of them: brstack first, then brstacksym, then brstackoff */
	if (f & PK_SF_BRSTACK)
		put_brstack(sc, f & ~(PK_SF_BRSTACKSYM | PK_SF_BRSTACKOFF), rs);
	else if (f & PK_SF_BRSTACKSYM)
		put_brstack(sc, f & ~PK_SF_BRSTACKOFF, rs);
	else if (f & PK_SF_BRSTACKOFF)
		put_brstack(sc, f, rs);
	if (f & PK_SF_PHYS_ADDR)
		pk_obuf_hex(o, s->phys_addr, 16);
	if (f & (PK_SF_DATA_PAGE_SIZE | PK_SF_CODE_PAGE_SIZE)) {
		char ps[PK_PAGE_SIZE_MAX];

		if (f & PK_SF_DATA_PAGE_SIZE) {
			pk_obuf_putc(o, ' ');
			pk_obuf_write(o, ps, pk_format_page_size(s->data_page_size, ps));
		}
		if (f & PK_SF_CODE_PAGE_SIZE) {
			pk_obuf_putc(o, ' ');
			pk_obuf_write(o, ps, pk_format_page_size(s->code_page_size, ps));
		}
	}
	pk_obuf_putc(o, '\n');
	/* perf prints it on standard output, even when the sample went to an --per-event-dump file */
	if ((f & PK_SF_SRCCODE) && pk_srccode_print(&sc->srccode, sc->syms, rs->thread, &rs->self, &sc->out))
		return -ENOMEM;
	return o->err;
}

static int run_sample(void *ctx, const struct pk_rsample *rs)
{
	return pk_script_sample(ctx, rs);
}

int pk_script_run(struct pk_script *sc, struct pk_diag *d)
{
	int ret = pk_session_run(sc->ss, run_sample, pk_script_record, sc, d);
	int fret = pk_script_flush(sc);

	if (!ret && !fret && sc->nr_dumps) {
		dump_summary(sc);
		fret = pk_script_flush(sc);
	}

	if (ret > 0 || (ret < 0 && !d->err))
		ret = pk_diag_fail(d, ret > 0 ? -EIO : ret, "cannot write the output: %s",
				   strerror(ret > 0 ? EIO : -ret));
	if (!ret && fret < 0)
		ret = pk_diag_fail(d, fret, "cannot write the output: %s", strerror(-fret));
	return ret;
}
