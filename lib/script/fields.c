/*
 * perf script's -F fields: the names, perf 6.1's default set per event
 * type, the "type:" prefix and +/- forms, and the check of the chosen
 * fields against each event type's sample_type (a default field the event
 * cannot give is dropped silently; a requested one is an error), mirroring
 * builtin-script.c's parse_output_fields() and evsel__check_attr().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perfkit/perfdata.h>
#include "script/internal.h"

static const struct {
	const char *name;
	uint32_t field;
} field_names[] = {
	{ "comm", PK_SF_COMM }, { "tid", PK_SF_TID }, { "pid", PK_SF_PID },
	{ "time", PK_SF_TIME }, { "cpu", PK_SF_CPU }, { "event", PK_SF_EVENT },
	{ "trace", PK_SF_TRACE }, { "ip", PK_SF_IP }, { "sym", PK_SF_SYM },
	{ "symoff", PK_SF_SYMOFF }, { "dso", PK_SF_DSO }, { "addr", PK_SF_ADDR },
	{ "period", PK_SF_PERIOD }, { "data_src", PK_SF_DATA_SRC }, { "weight", PK_SF_WEIGHT },
	{ "phys_addr", PK_SF_PHYS_ADDR }, { "ins_lat", PK_SF_INS_LAT }, { "srcline", PK_SF_SRCLINE },
	{ "brstack", PK_SF_BRSTACK }, { "brstacksym", PK_SF_BRSTACKSYM }, { "misc", PK_SF_MISC },
	{ "data_page_size", PK_SF_DATA_PAGE_SIZE }, { "code_page_size", PK_SF_CODE_PAGE_SIZE },
	{ "iregs", PK_SF_IREGS }, { "uregs", PK_SF_UREGS }, { "srccode", PK_SF_SRCCODE },
	{ "tod", PK_SF_TOD }, { "flags", PK_SF_FLAGS }, { "callindent", PK_SF_CALLINDENT },
	{ "brstackoff", PK_SF_BRSTACKOFF },
};

static const struct {
	const char *name;
	int type;
} type_names[] = {
	{ "hw", PERF_TYPE_HARDWARE }, { "sw", PERF_TYPE_SOFTWARE }, { "trace", PERF_TYPE_TRACEPOINT },
	{ "raw", PERF_TYPE_RAW }, { "break", PERF_TYPE_BREAKPOINT },
};

#define SAMPLE_DEFAULT (PK_SF_COMM | PK_SF_TID | PK_SF_CPU | PK_SF_TIME | PK_SF_EVENT | PK_SF_IP | \
			PK_SF_SYM | PK_SF_SYMOFF | PK_SF_DSO | PK_SF_PERIOD)

/* Fields perf refuses per type (invalid_fields). */
static uint32_t invalid_fields(int ot)
{
	return ot == PERF_TYPE_TRACEPOINT ? 0 : PK_SF_TRACE;
}

void pk_script_default_fields(struct pk_field_set set[PK_OT_MAX])
{
	memset(set, 0, sizeof(*set) * PK_OT_MAX);
	for (int i = 0; i < PK_OT_MAX; i++)
		set[i].fields = SAMPLE_DEFAULT;
	set[PERF_TYPE_TRACEPOINT].fields = PK_SF_COMM | PK_SF_TID | PK_SF_CPU | PK_SF_TIME |
					   PK_SF_EVENT | PK_SF_TRACE;
	set[PERF_TYPE_RAW].fields = SAMPLE_DEFAULT | PK_SF_ADDR | PK_SF_DATA_SRC | PK_SF_WEIGHT |
				    PK_SF_INS_LAT | PK_SF_PHYS_ADDR;
}

int pk_script_parse_fields(const char *spec, int *type, uint32_t *fields, int *mode,
			   struct pk_diag *d)
{
	const char *p = spec, *colon = strchr(spec, ':');

	*type = -1;
	*fields = 0;
	*mode = 0;
	if (colon) {
		size_t n = (size_t)(colon - spec);
		size_t i;

		for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
			if (strlen(type_names[i].name) == n && !strncmp(type_names[i].name, spec, n))
				break;
		if (i == sizeof(type_names) / sizeof(type_names[0]))
			return pk_diag_fail(d, -EINVAL, "invalid event type in field string: '%.*s'",
					    (int)n, spec);
		*type = type_names[i].type;
		p = colon + 1;
	}
	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int m = 0;
		size_t i;

		if (n && (*p == '+' || *p == '-')) {
			m = *p;
			p++;
			n--;
		}
		if (*fields && m != *mode)
			return pk_diag_fail(d, -EINVAL,
					    "cannot mix +field, -field and plain fields in '%s'", spec);
		*mode = m;
		for (i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
			if (strlen(field_names[i].name) == n && !strncmp(field_names[i].name, p, n))
				break;
		if (i == sizeof(field_names) / sizeof(field_names[0]))
			return pk_diag_fail(d, -EINVAL, "invalid field requested: '%.*s'", (int)n, p);
		*fields |= field_names[i].field;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

static void apply_one(struct pk_field_set *s, int ot, uint32_t fields, int mode, int wildcard)
{
	uint32_t ok = fields & ~invalid_fields(ot);

	if (!wildcard)
		ok = fields;
	if (mode == '+') {
		s->fields |= ok;
		s->user_set_fields |= ok;
	} else if (mode == '-') {
		s->fields &= ~ok;
		s->user_set_fields &= ~ok;
		s->user_unset_fields |= ok;
	} else {
		s->fields = ok;
		s->user_set_fields = ok;
		s->user_set = 1;
		s->wildcard_set = wildcard;
	}
}

static int apply_list(struct pk_field_set set[PK_OT_MAX], const char *spec, struct pk_diag *d);

int pk_script_apply_fields(struct pk_field_set set[PK_OT_MAX], const char *spec, struct pk_diag *d)
{
	const char *colon = strchr(spec, ':');
	const char *list = colon ? colon + 1 : spec;
	size_t plen = (size_t)(list - spec);

	/* "+a,-b": perf applies each signed field in turn; do the same one at a time */
	if (*list == '+' || *list == '-') {
		const char *p = list;

		while (*p) {
			const char *e = strchr(p, ',');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			char one[128];
			int ret;

			if (*p != '+' && *p != '-')
				return pk_diag_fail(d, -EINVAL,
						    "cannot mix +field/-field and plain fields in '%s'", spec);
			if (plen + n + 1 > sizeof(one))
				return pk_diag_fail(d, -EINVAL, "invalid field list '%s'", spec);
			memcpy(one, spec, plen);
			memcpy(one + plen, p, n);
			one[plen + n] = 0;
			ret = apply_list(set, one, d);
			if (ret < 0)
				return ret;
			p += n;
			if (*p == ',')
				p++;
		}
		return 0;
	}
	return apply_list(set, spec, d);
}

static int apply_list(struct pk_field_set set[PK_OT_MAX], const char *spec, struct pk_diag *d)
{
	uint32_t fields;
	int type, mode, ret;

	ret = pk_script_parse_fields(spec, &type, &fields, &mode, d);
	if (ret < 0)
		return ret;
	if (type >= 0) {
		if (fields & invalid_fields(type))
			return pk_diag_fail(d, -EINVAL, "'trace' not valid for this event type");
		apply_one(&set[type], type, fields, mode, 0);
		return 0;
	}
	for (int i = 0; i < PK_OT_MAX; i++)
		apply_one(&set[i], i, fields, mode, 1);
	return 0;
}

/* perf's evsel__do_check_stype(): 0 if fine or dropped, -EINVAL if requested. */
/* @allow: perf lets a requested field go unchecked in a file with AUXTRACE (its allow_user_set) */
static int check_stype(struct pk_field_set *s, const struct pk_evsel *ev, uint64_t bits,
		       const char *msg, uint32_t field, const char *fname, int allow, struct pk_diag *d)
{
	if (ev->attr.attr.sample_type & bits)
		return 0;
	if ((s->user_set_fields & field) && allow)
		return 0;
	if (s->user_set_fields & field)
		return pk_diag_fail(d, -EINVAL,
				    "samples for '%s' event do not have %s attribute set, cannot print '%s' field",
				    ev->name ? ev->name : "?", msg, fname);
	s->fields &= ~field;
	return 0;
}

static int check_attr(struct pk_field_set *s, const struct pk_evsel *ev, int allow, struct pk_diag *d)
{
	uint64_t st = ev->attr.attr.sample_type;
	int ret = 0;

#define F(x) (s->fields & (x))
	if (F(PK_SF_IP))
		ret = check_stype(s, ev, PERF_SAMPLE_IP, "IP", PK_SF_IP, "ip", allow, d);
	if (!ret && F(PK_SF_ADDR))
		ret = check_stype(s, ev, PERF_SAMPLE_ADDR, "ADDR", PK_SF_ADDR, "addr", allow, d);
	if (!ret && F(PK_SF_DATA_SRC))
		ret = check_stype(s, ev, PERF_SAMPLE_DATA_SRC, "DATA_SRC", PK_SF_DATA_SRC, "data_src", allow, d);
	if (!ret && F(PK_SF_WEIGHT))
		ret = check_stype(s, ev, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT",
				  PK_SF_WEIGHT, "weight", allow, d);
	if (!ret && F(PK_SF_INS_LAT))
		ret = check_stype(s, ev, PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT", PK_SF_INS_LAT,
				  "ins_lat", allow, d);
	if (!ret && F(PK_SF_IREGS))
		ret = check_stype(s, ev, PERF_SAMPLE_REGS_INTR, "IREGS", PK_SF_IREGS, "iregs", allow, d);
	if (!ret && F(PK_SF_UREGS))
		ret = check_stype(s, ev, PERF_SAMPLE_REGS_USER, "UREGS", PK_SF_UREGS, "uregs", allow, d);
	if (!ret && F(PK_SF_BRSTACK | PK_SF_BRSTACKSYM | PK_SF_BRSTACKOFF))
		ret = check_stype(s, ev, PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK",
				  PK_SF_BRSTACK | PK_SF_BRSTACKSYM | PK_SF_BRSTACKOFF,
				  F(PK_SF_BRSTACK) ? "brstack" : F(PK_SF_BRSTACKSYM) ? "brstacksym" : "brstackoff",
				  allow, d);
	if (ret)
		return ret;
	if (F(PK_SF_SYM) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR)))
		return pk_diag_fail(d, -EINVAL, "display of symbols requested but neither sample IP "
				    "nor sample address available");
	if (F(PK_SF_SYMOFF) && !F(PK_SF_SYM))
		return pk_diag_fail(d, -EINVAL, "display of offsets requested but symbol is not selected");
	if (F(PK_SF_DSO) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR)))
		return pk_diag_fail(d, -EINVAL, "display of DSO requested but no address to convert");
	if (F(PK_SF_PID | PK_SF_TID))
		ret = check_stype(s, ev, PERF_SAMPLE_TID, "TID", PK_SF_TID | PK_SF_PID, "tid", allow, d);
	if (!ret && F(PK_SF_TIME))
		ret = check_stype(s, ev, PERF_SAMPLE_TIME, "TIME", PK_SF_TIME, "time", allow, d);
	if (!ret && F(PK_SF_CPU))
		ret = check_stype(s, ev, PERF_SAMPLE_CPU, "CPU", PK_SF_CPU, "cpu", allow, d);
	if (!ret && F(PK_SF_PHYS_ADDR))
		ret = check_stype(s, ev, PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR", PK_SF_PHYS_ADDR,
				  "phys_addr", allow, d);
	if (!ret && F(PK_SF_DATA_PAGE_SIZE))
		ret = check_stype(s, ev, PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE", PK_SF_DATA_PAGE_SIZE,
				  "data_page_size", allow, d);
	if (!ret && F(PK_SF_CODE_PAGE_SIZE))
		ret = check_stype(s, ev, PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE", PK_SF_CODE_PAGE_SIZE,
				  "code_page_size", allow, d);
#undef F
	return ret;
}

int pk_script_check_fields(struct pk_field_set set[PK_OT_MAX], struct pk_perfdata *data,
			   int no_callchain, int *use_callchain, struct pk_diag *d)
{
	size_t n = pk_perfdata_nr_evsels(data);
	const struct pk_features *feat = pk_perfdata_features(data);

	*use_callchain = 0;
	for (int t = 0; t < PK_OT_MAX; t++)
		if ((set[t].fields & PK_SF_TOD) && !pk_script_has_clock_data(feat))
			return pk_diag_fail(d, -EINVAL, "cannot provide 'tod' time, the file has no clock data "
					    "(record with -k/--clockid)");
	if (feat && pk_features_has(feat, PK_FEAT_STAT))
		return 0;
	for (int t = 0; t < PERF_TYPE_MAX && t < PK_OT_OTHER; t++) {
		const struct pk_evsel *first = NULL;
		int ret;

		for (size_t i = 0; i < n && !first; i++) {
			const struct pk_evsel *ev = pk_perfdata_evsel(data, i);

			if (ev && ev->attr.attr.type == (uint32_t)t)
				first = ev;
		}
		if (!first || !set[t].fields)
			continue;
		/* perf's evsel__check_attr() leaves a dummy event's fields as they are */
		if (first->attr.attr.type == PERF_TYPE_SOFTWARE && first->attr.attr.config == PERF_COUNT_SW_DUMMY)
			continue;
		ret = check_attr(&set[t], first, feat && pk_features_has(feat, PK_FEAT_AUXTRACE), d);
		if (ret < 0)
			return ret;
	}
	if (!no_callchain)
		for (size_t i = 0; i < n; i++) {
			const struct pk_evsel *ev = pk_perfdata_evsel(data, i);

			if (ev && (ev->attr.attr.sample_type & PERF_SAMPLE_CALLCHAIN))
				*use_callchain = 1;
		}
	/*
	 * Pipe mode: perf's process_attr() turns ip and sym on for every event
	 * type when the events have call chains, branch stacks or user stacks,
	 * unless the user removed them with -F -ip / -sym.
	 */
	if (*use_callchain && pk_perfdata_is_pipe(data)) {
		uint64_t st = 0;

		for (size_t i = 0; i < n; i++) {
			const struct pk_evsel *ev = pk_perfdata_evsel(data, i);

			if (ev)
				st |= ev->attr.attr.sample_type;
		}
		if ((st & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK)) ||
		    ((st & PERF_SAMPLE_REGS_USER) && (st & PERF_SAMPLE_STACK_USER)))
			for (size_t i = 0; i < n; i++) {
				const struct pk_evsel *ev = pk_perfdata_evsel(data, i);
				int t = ev ? pk_output_type(ev->attr.attr.type) : PK_OT_OTHER;

				if (t == PK_OT_OTHER)
					continue;
				set[t].fields |= (PK_SF_IP | PK_SF_SYM) & ~set[t].user_unset_fields;
			}
	}
	/* tracepoints print ip/sym/dso by default when they have call chains */
	if (*use_callchain && !set[PERF_TYPE_TRACEPOINT].user_set)
		for (size_t i = 0; i < n; i++) {
			const struct pk_evsel *ev = pk_perfdata_evsel(data, i);

			if (ev && ev->attr.attr.type == PERF_TYPE_TRACEPOINT &&
			    (ev->attr.attr.sample_type & PERF_SAMPLE_CALLCHAIN)) {
				set[PERF_TYPE_TRACEPOINT].fields |= PK_SF_IP | PK_SF_SYM |
								    PK_SF_SYMOFF | PK_SF_DSO;
				break;
			}
		}
	return 0;
}
