/*
 * Private declarations of the session module: the call-chain builder and the
 * sample filters, shared by session.c, callchain.c and filter.c.
 */
#ifndef PK_SESSION_INTERNAL_H
#define PK_SESSION_INTERNAL_H

#include <regex.h>
#include <perfkit/session.h>

/* perf script/report's default --max-stack (PERF_MAX_STACK_DEPTH). */
#define PK_SESSION_MAX_STACK 127

/* A growable array of frames, reused from one sample to the next. */
struct pk_frames {
	struct pk_location *v;
	uint32_t nr, cap;
};

/*
 * Build the frame list of @s the way perf's thread__resolve_callchain()
 * does (callee order): markers switch the cpumode and are dropped, a marker
 * perf does not know discards the whole chain, at most @max_stack address
 * entries are kept (the innermost; the outermost with @keep_callers, whose
 * walk from the far end meets the markers above them, not below;
 * PK_SESSION_NO_STACK: none). An LBR call stack (@lbr_callstack with a
 * branch stack) replaces the user part, as perf does. 0 or -ENOMEM.
 */
int pk_callchain_build(struct pk_symbols *syms, const struct pk_thread *t,
		       const struct pk_sample *s, int lbr_callstack, uint32_t max_stack,
		       int keep_callers, struct pk_frames *out);
void pk_frames_release(struct pk_frames *f);
/*
 * perf report --ignore-callees: the last frame, in the chain's order (from
 * the outermost with @callers_first), whose symbol matches @re becomes *@self
 * and the frames before it in that order go. 1 if one matched, else 0.
 */
int pk_frames_ignore_callees(struct pk_frames *f, const regex_t *re, int callers_first,
			     struct pk_location *self);
/* Remove the frames without a symbol, keeping the others' order (perf report -U). */
void pk_frames_drop_unresolved(struct pk_frames *f);
/* Room for @n frames in @f. 0 or -ENOMEM. */
int pk_frames_reserve(struct pk_frames *f, uint64_t n);

/* Inline frames (inline.c): synthesized inline symbols and the expanded frame list. */
struct pk_inline;
struct pk_inline *pk_inline_new(void);
void pk_inline_free(struct pk_inline *in);
/*
 * Replace rs->frames by the frames with their inline chains (innermost
 * first, then the frame itself) and set rs->inlined, when some frame has
 * inline functions; otherwise leave @rs as it is (rs->inlined NULL).
 * 0 or -ENOMEM.
 */
int pk_inline_expand(struct pk_inline *in, struct pk_symbols *syms, struct pk_rsample *rs);

/*
 * DWARF-mode user frames (unwind_user.c): when @s has REGS_USER and a
 * non-empty STACK_USER, append the frames unwound from the stack copy to
 * @out (*@uwp is created on first use, freed with pk_unwind_free()).
 * 0 or -ENOMEM.
 */
struct pk_unwind;
int pk_session_unwind_user(struct pk_unwind **uwp, struct pk_perfdata *data, const char *symfs,
			   struct pk_symbols *syms, const struct pk_thread *t,
			   const struct pk_evsel *ev, const struct pk_sample *s, uint32_t max_stack,
			   struct pk_frames *out);

/* perf's PERF_SAMPLE_READ delivery (sample_read.c): each id's previous value. */
struct pk_read_state {
	uint64_t *last;              /* by the id's number (pk_perfdata_id_owner); 0 at first */
	size_t cap;
};
void pk_read_state_release(struct pk_read_state *st);
/*
 * Call @deliver once per read value of rs->s whose id an attr of @data owns
 * and whose value grew since that id's last one, with rs->evsel set to the
 * owner and rs->period to the increase; values of ids no attr owns add to
 * *@nr_unknown. 0, -ENOMEM, or what @deliver returned.
 */
int pk_read_deliver(struct pk_read_state *st, const struct pk_perfdata *data,
		    struct pk_rsample *rs, int (*deliver)(void *ctx, struct pk_rsample *rs),
		    void *ctx, uint64_t *nr_unknown);

/* Parsed filters. */
struct pk_str_list {
	uint32_t nr;
	char **v;
};

struct pk_int_list {
	uint32_t nr;
	int64_t *v;
};

struct pk_filter {
	int active;
	struct pk_str_list comms, dsos, symbols;
	struct pk_int_list pids, tids;
	uint8_t *cpus;               /* bitmap, NULL = all */
	int max_cpu;
	uint64_t time_start, time_end;   /* 0 = open */
	int need_symbols;            /* dso or symbol filters: the sample must be resolved first */
	int hide_unresolved;         /* -U: samples whose ip has no symbol are left out */
};

int pk_filter_parse(struct pk_filter *f, const struct pk_session_filter *in, struct pk_diag *d);

/* evswitch.c: --switch-on / --switch-off */
struct pk_evswitch {
	const char *on_name, *off_name;
	const struct pk_evsel *on, *off;    /* NULL until known (a pipe's attrs come later) */
	int discarding;
	int show_on_off;             /* --show-on-off-events: the switching samples are kept */
	int late;                    /* after the other filters (perf script), else before them */
};
/* Set up from @in for the file @p: -EINVAL (said in @d) when it has no event of a name given. */
int pk_evswitch_init(struct pk_evswitch *w, const struct pk_session_filter *in, struct pk_perfdata *p,
		     struct pk_diag *d);
/* 1: drop this sample of @ev (and move the switch). */
int pk_evswitch_discard(struct pk_evswitch *w, const struct pk_evsel *ev);
void pk_filter_release(struct pk_filter *f);
/* Parse perf's --time "START,END" (seconds.fraction) into nanoseconds; 0 or -EINVAL. */
int pk_filter_parse_time(const char *s, uint64_t *start, uint64_t *end);
/*
 * 1 if the sample lies inside the --time range and on a --cpu CPU. perf
 * report drops the others before its histograms, uncounted.
 */
int pk_filter_in_range(const struct pk_filter *f, const struct pk_sample *s);
/*
 * 1 if the sample's thread passes --pid, --tid and --comm. perf report
 * counts the others in its totals (filtered entries), as it does those of
 * --dso and --symbols.
 */
int pk_filter_match_thread(const struct pk_filter *f, const struct pk_thread *t);
/* 1 if the resolved sampled ip passes the dso/symbol filters. */
int pk_filter_match_loc(const struct pk_filter *f, const struct pk_location *loc);

#endif
