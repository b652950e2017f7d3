/*
 * Private declarations of the script module: per-event-type field sets, the
 * printer's state shared by samples and side-band records, and the
 * tracing-data (libtraceevent) glue; its output buffer is core's
 * (core/obuf.h).
 */
#ifndef PK_SCRIPT_INTERNAL_H
#define PK_SCRIPT_INTERNAL_H

#include <stdio.h>
#include <sys/utsname.h>
#include <string.h>
#include <trace-seq.h>
#include <perfkit/script.h>
#include "core/obuf.h"

struct pk_session;
struct pk_perfdata;
struct pk_symbols;
struct pk_thread;
struct tep_handle;

/* ---- field sets (fields.c) ---- */

/* perf's output types: PERF_TYPE_HARDWARE..BREAKPOINT, then everything else. */
enum { PK_OT_OTHER = 6, PK_OT_MAX = 7 };

struct pk_field_set {
	uint32_t fields;             /* what is printed */
	uint32_t user_set_fields;    /* named by the user: missing sample bits are errors */
	uint32_t user_unset_fields;  /* removed with -field */
	int user_set;                /* -F touched this type */
	int wildcard_set;            /* set by an -F without a type prefix */
};

static inline int pk_output_type(uint32_t attr_type)
{
	return attr_type < PK_OT_OTHER ? (int)attr_type : PK_OT_OTHER;
}

void pk_script_default_fields(struct pk_field_set set[PK_OT_MAX]);
/* Apply one -F argument to @set. 0 or -EINVAL. */
int pk_script_apply_fields(struct pk_field_set set[PK_OT_MAX], const char *spec, struct pk_diag *d);
/*
 * Check @set against the first event of each type in @data, dropping default
 * fields the events cannot give and failing on requested ones, as perf's
 * evsel__check_attr(). Sets *use_callchain. 0 or -EINVAL with @d set.
 */
int pk_script_check_fields(struct pk_field_set set[PK_OT_MAX], struct pk_perfdata *data,
			   int no_callchain, int *use_callchain, struct pk_diag *d);

/* ---- the printer (script.c; side-band records in sideband.c) ---- */

struct pk_script {
	struct pk_session *ss;
	struct pk_perfdata *data;
	struct pk_symbols *syms;
	struct pk_obuf out;
	struct pk_obuf *o;           /* where the record being printed goes: out, or its event's dump */
	const char *arch;            /* the recording machine's (HEADER_ARCH, else this one's): register names */
	struct pk_srccode *srccode;  /* -F srccode's source files and threads' last lines (made on first use) */
	struct utsname uts;          /* this machine's, when the file names none */
	/* --per-event-dump: a file per event, its name and samples written (pk_script_per_event_dump) */
	struct pk_event_dump {
		struct pk_obuf out;
		char *path;
		uint64_t samples;
	} *dumps;
	size_t nr_dumps;
	struct pk_field_set set[PK_OT_MAX];
	int use_callchain;
	int name_width;
	struct pk_script_opts opts;  /* the show_*_events choices */
	int time_ns, time_mode;      /* --ns; 0, PK_SCRIPT_RELTIME or PK_SCRIPT_DELTATIME */
	uint64_t first_time, last_time;
	size_t nr_evsels_seen;
	struct tep_handle *tep;
	const void *tep_blob;        /* the blob @tep was built from */
	struct trace_seq seq;
	int seq_init;
	int seq_failed;              /* libtraceevent ran out of memory in seq: warned */
	uint8_t *scratch;
	int data_src_maxlen;
	struct pk_diag err;          /* failure found inside a callback */
};

/* The file has perf's CLOCK_DATA (version 1): wall-clock times for -F tod. */
static inline int pk_script_has_clock_data(const struct pk_features *f)
{
	return f && pk_features_has(f, PK_FEAT_CLOCK_DATA) && f->clock_data_version == 1;
}

/*
 * -F srccode (srccode.c): after a sample, the source line at @loc as
 * "|LINE     text", unless thread @t printed that line last or the source
 * cannot be read. *@sc is made on first use. 0 or -ENOMEM.
 */
struct pk_srccode;
int pk_srccode_print(struct pk_srccode **sc, struct pk_symbols *syms, const struct pk_thread *t,
		     const struct pk_location *loc, struct pk_obuf *o);
void pk_srccode_free(struct pk_srccode *sc);

/*
 * perf_sample__fprintf_start(): comm, pid/tid, cpu, misc (of record type
 * @type with header misc @misc), time of fields @f (script.c).
 */
void pk_script_put_start(struct pk_script *sc, uint32_t f, int comm_plain, const struct pk_thread *t,
			 int32_t pid, int32_t tid, int32_t cpu, uint32_t type, uint16_t misc,
			 uint64_t time);

/*
 * The tep handle for the file's tracing data (from @blob, a TRACING_DATA
 * record's, or with NULL the feature section's), built on first use (script.c).
 */
struct tep_handle *pk_script_tracing(struct pk_script *sc, const void *blob, size_t len);

#include "script/tracing.h"

#endif
