/*
 * Unit tests for lib/event: every generic event name and alias, the cache
 * matrix arithmetic, modifiers, groups and lists, raw events, tracepoints
 * (a fixture tracefs always, the real one when readable), sysfs PMU terms,
 * formats and aliases against tests/fixtures/sysfs, the catalogue, and
 * invalid specs with their messages, offsets and suggestions.
 *
 * Fixtures are found under tests/fixtures relative to the current directory
 * (make runs the tests from the repository root) or under $PK_SRCDIR.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/event.h>
#include "../tap.h"

static char sysfs_dir[4096], tracefs_dir[4096];
static struct pk_event_opts fx;   /* the fixture roots */

static void fixtures_init(void)
{
	const char *src = getenv("PK_SRCDIR");

	snprintf(sysfs_dir, sizeof(sysfs_dir), "%s%stests/fixtures/sysfs", src ? src : "",
		 src ? "/" : "");
	snprintf(tracefs_dir, sizeof(tracefs_dir), "%s%stests/fixtures/tracefs", src ? src : "",
		 src ? "/" : "");
	fx.sz = sizeof(fx);
	fx.sysfs_root = sysfs_dir;
	fx.tracefs_root = tracefs_dir;
}

/* Specs that give one lone event; name NULL: the spec itself. */
struct one_case {
	const char *spec;
	__u32 type;
	__u64 config;
	const char *name;
};

/* Specs that fail with err at offset, the message containing msg, the hint exactly hint. */
struct bad_case {
	const char *spec;
	int err;
	uint64_t offset;
	const char *msg;
	const char *hint;
};

/* Modifiers and the attr bits they must set. */
struct mods_case {
	const char *spec;
	int eu, ek, eh, ehost, eguest, idle, precise, pinned, read;
};

/* The list of the last P() call, its error and diagnostics. */
static struct pk_event_list cur;
static struct pk_diag d;
static int perr;

/* Parse @spec with the fixture roots into the shared list, dropping the last one. */
static const struct pk_event_list *P(const char *spec)
{
	pk_event_list_release(&cur);
	perr = pk_event_parse(&cur, spec, &fx, &d);
	return &cur;
}

/* A spec that must give exactly one lone event of @type/@config named @name. */
static void one(const char *spec, __u32 type, __u64 config, const char *name)
{
	const struct pk_event_list *l = P(spec);
	const struct pk_event *e = l->ev;

	if (!ok(!perr && l->n == 1 && e->attr.type == type && e->attr.config == config &&
		!strcmp(e->name, name) && e->attr.size == sizeof(struct perf_event_attr) &&
		e->leader == 0 && e->nr_members == 1,
		"'%s' -> type %u config %#llx name '%s'", spec, type, (unsigned long long)config,
		name))
		diag("error %d '%s' at %llu; n=%zu type %u config %#llx name '%s'", perr, d.msg,
		     (unsigned long long)d.offset, l->n, l->n ? e->attr.type : 0,
		     l->n ? (unsigned long long)e->attr.config : 0ull, l->n ? e->name : "");
}

/* A spec that must fail with @err at @offset, the message containing @msg and the hint @hint. */
static void bad(const char *spec, int err, uint64_t offset, const char *msg, const char *hint)
{
	const struct pk_event_list *l = P(spec);

	if (!ok(perr == err && d.err == err && d.offset == offset && strstr(d.msg, msg) &&
		l->n == 0 && !strncmp(d.subject, spec, sizeof(d.subject) - 1) &&
		(hint ? !strcmp(d.hint, hint) : !d.hint[0]),
		"'%.40s' fails: %s at %llu%s%s", spec, msg, (unsigned long long)offset,
		hint ? ", " : "", hint ? hint : ""))
		diag("got %d '%s' at %llu, hint '%s'", perr, d.msg, (unsigned long long)d.offset,
		     d.hint);
}

/* Parse a modifier case (one event) and check its privilege and precision bits. */
static void mods(const struct mods_case *c)
{
	const struct pk_event_list *l = P(c->spec);
	const struct perf_event_attr *a = l->n ? &l->ev[0].attr : NULL;

	ok(!perr && l->n == 1 && a->exclude_user == (unsigned)c->eu &&
	   a->exclude_kernel == (unsigned)c->ek && a->exclude_hv == (unsigned)c->eh &&
	   a->exclude_host == (unsigned)c->ehost && a->exclude_guest == (unsigned)c->eguest &&
	   a->exclude_idle == (unsigned)c->idle && a->precise_ip == (unsigned)c->precise &&
	   a->pinned == (unsigned)c->pinned && !!(a->sample_type & PERF_SAMPLE_READ) == c->read &&
	   !strcmp(l->ev[0].name, c->spec), "modifiers of '%s'", c->spec);
}

static const struct one_case one_cases[] = {
	/* generic hardware and software events, every name and alias */
	{ "cycles", 0, PERF_COUNT_HW_CPU_CYCLES, NULL },
	{ "cpu-cycles", 0, PERF_COUNT_HW_CPU_CYCLES, NULL },
	{ "instructions", 0, PERF_COUNT_HW_INSTRUCTIONS, NULL },
	{ "cache-references", 0, PERF_COUNT_HW_CACHE_REFERENCES, NULL },
	{ "cache-misses", 0, PERF_COUNT_HW_CACHE_MISSES, NULL },
	{ "branches", 0, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, NULL },
	{ "branch-instructions", 0, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, NULL },
	{ "branch-misses", 0, PERF_COUNT_HW_BRANCH_MISSES, NULL },
	{ "bus-cycles", 0, PERF_COUNT_HW_BUS_CYCLES, NULL },
	{ "stalled-cycles-frontend", 0, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, NULL },
	{ "idle-cycles-frontend", 0, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, NULL },
	{ "stalled-cycles-backend", 0, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, NULL },
	{ "idle-cycles-backend", 0, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, NULL },
	{ "ref-cycles", 0, PERF_COUNT_HW_REF_CPU_CYCLES, NULL },
	{ "cpu-clock", 1, 0, NULL },
	{ "task-clock", 1, 1, NULL },
	{ "page-faults", 1, 2, NULL },
	{ "faults", 1, 2, NULL },
	{ "context-switches", 1, 3, NULL },
	{ "cs", 1, 3, NULL },
	{ "cpu-migrations", 1, 4, NULL },
	{ "migrations", 1, 4, NULL },
	{ "minor-faults", 1, 5, NULL },
	{ "major-faults", 1, 6, NULL },
	{ "alignment-faults", 1, 7, NULL },
	{ "emulation-faults", 1, 8, NULL },
	{ "dummy", 1, 9, NULL },
	{ "bpf-output", 1, 10, NULL },
	{ "cgroup-switches", 1, 11, NULL },
	/* cache: config = cache | op << 8 | result << 16
	 * (L1D 0, L1I 1, LL 2, DTLB 3, ITLB 4, BPU 5, NODE 6; load 0 store 1 prefetch 2) */
	{ "L1-dcache-loads", 3, 0x00000, NULL },
	{ "L1-dcache-load-misses", 3, 0x10000, NULL },
	{ "L1-dcache-stores", 3, 0x00100, NULL },
	{ "L1-icache-prefetch-misses", 3, 0x10201, NULL },
	{ "LLC-loads", 3, 0x00002, NULL },
	{ "LLC-store-misses", 3, 0x10102, NULL },
	{ "dTLB-load-misses", 3, 0x10003, NULL },
	{ "iTLB-load-misses", 3, 0x10004, NULL },
	{ "branch-loads", 3, 0x00005, NULL },
	{ "branch-load-misses", 3, 0x10005, NULL },
	{ "node-prefetches", 3, 0x00206, NULL },
	{ "l1d-read-refs", 3, 0, NULL },
	{ "LLC-misses", 3, 0x10002, NULL },
	{ "LLC-misses-loads", 3, 0x10002, NULL },
	{ "Data-TLB-speculative-read-miss", 3, 0x10203, NULL },
	{ "L1-dcache", 3, 0, NULL },
	{ "L1-dcache-load-misses:u", 3, 0x10000, NULL },
	/* raw events */
	{ "r1a8", PERF_TYPE_RAW, 0x1a8, NULL },
	{ "r1A8:u", PERF_TYPE_RAW, 0x1a8, NULL },
	{ "rffffffffffffffff", PERF_TYPE_RAW, ~0ull, NULL },
	{ "r00000000000000000001", PERF_TYPE_RAW, 1, NULL },
	/* tracepoints, fixture tracefs */
	{ "sched:sched_switch", PERF_TYPE_TRACEPOINT, 316, NULL },
	{ "sched:sched_switch:u", PERF_TYPE_TRACEPOINT, 316, NULL },
	/* sysfs PMUs, fixture sysfs */
	{ "cpu/event=0x3c,umask=0x0/", 4, 0x3c, NULL },
	{ "cpu/event=0x3c,umask=0x1,edge,inv,cmask=2/", 4,
	  0x3c | 1 << 8 | 1 << 18 | 1u << 23 | 2u << 24, NULL },
	{ "cpu/ event=0x3c , any /", 4, 0x3c | 1 << 21, NULL },
	{ "cpu/cycles-t/", 4, 0x3c | 1ull << 32, NULL },
	{ "cpu/event=1,event=2/", 4, 2, NULL },
	{ "cpu/event/", 4, 1, NULL },
	{ "cpu//", 4, 0, NULL },
	{ "cpu/event=0x3c/u", 4, 0x3c, NULL },
	{ "cpu/event=0x3c/:u", 4, 0x3c, NULL },
	{ "software/config=3/", 1, 3, NULL },
	{ "msr/tsc/", 9, 0, NULL },
	{ "tsc", 9, 0, NULL },
	{ "aperf:u", 9, 1, NULL },
	{ "cpu/event=0x3c,name=mycycles/", 4, 0x3c, "mycycles" },
	{ "cpu/event=0x3c,name=mycycles/k", 4, 0x3c, "mycycles" },
};

static const struct bad_case bad_cases[] = {
	/* cache events */
	{ "branch-stores", -EINVAL, 7, "operation not available", NULL },
	{ "L1-icache-stores", -EINVAL, 10, "invalid cache event 'L1-icache-stores'", NULL },
	{ "LLC-load-store", -EINVAL, 9, "more than one operation", NULL },
	{ "LLC-miss-misses", -EINVAL, 9, "more than one result", NULL },
	/* modifiers */
	{ "cycles:uu", -EINVAL, 8, "repeated modifier 'u'", NULL },
	{ "cycles:pppp", -EINVAL, 10, "too many 'p' modifiers", NULL },
	{ "cycles:z", -EINVAL, 7, "unknown modifier 'z'", NULL },
	{ "cycles:u:k", -EINVAL, 8, "unknown modifier ':'", NULL },
	{ "cycles:W", -EINVAL, 7, "unknown modifier 'W'", NULL },
	/* groups */
	{ "{cycles,instructions}:uu", -EINVAL, 23, "repeated modifier 'u'", NULL },
	{ "{", -EINVAL, 0, "unterminated group", NULL },
	{ "{cycles,instructions", -EINVAL, 0, "unterminated group", NULL },
	{ "}", -EINVAL, 0, "unexpected '}'", NULL },
	{ "cycles}", -EINVAL, 6, "unexpected '}'", NULL },
	{ "{cycles,{instructions}}", -EINVAL, 8, "nested groups", NULL },
	{ "{}", -EINVAL, 1, "empty group", NULL },
	{ "{cycles,}", -EINVAL, 8, "empty event", NULL },
	{ "{cycles}x", -EINVAL, 8, "unexpected 'x'", NULL },
	/* raw events */
	{ "r10000000000000000", -EINVAL, 0, "does not fit in 64 bits", NULL },
	{ "r1ag", -EINVAL, 3, "'g' is not a hex digit", NULL },
	{ "rxyz", -EINVAL, 0, "unknown event 'rxyz'", NULL },
	/* tracepoints, fixture tracefs */
	{ "sched:sched_switc", -ENOENT, 6, "unknown tracepoint 'sched:sched_switc'",
	  "did you mean 'sched:sched_switch'?" },
	{ "schde:sched_switch", -ENOENT, 0, "unknown tracepoint system 'schde'",
	  "did you mean 'sched'?" },
	{ "sched:nosuch*", -ENOENT, 6, "unknown tracepoint", NULL },
	{ "ftrace:bprint", -ENOENT, 7, "unknown tracepoint", NULL },
	{ "sched:", -EINVAL, 6, "missing tracepoint name", NULL },
	{ "sched:.hidden", -EINVAL, 6, "invalid tracepoint name", NULL },
	{ "cyclez:u", -EINVAL, 0, "unknown event 'cyclez'", "did you mean 'cycles'?" },
	{ "sched:sched_switch:x", -EINVAL, 19, "unknown modifier 'x'", NULL },
	/* sysfs PMUs, fixture sysfs */
	{ "cpu/event=0x1ff/", -EINVAL, 10,
	  "value 0x1ff does not fit format term 'event' (config:0-7)", NULL },
	{ "cpu/cmask=256/", -EINVAL, 10, "does not fit format term 'cmask'", NULL },
	{ "cpu/nosuch=1/", -EINVAL, 4, "unknown term 'nosuch' for pmu 'cpu'", NULL },
	{ "cpu/evnt=1/", -EINVAL, 4, "unknown term 'evnt'", "did you mean 'event'?" },
	{ "cpu/event=zz/", -EINVAL, 10, "value 'zz' is not a number", NULL },
	{ "cpu/event=0x10000000000000000/", -EINVAL, 10, "does not fit in 64 bits", NULL },
	{ "cpu/event=0x3c", -EINVAL, 3, "unterminated term list", NULL },
	{ "cpu/event=1,,umask=1/", -EINVAL, 12, "empty term", NULL },
	{ "cpu/name/", -EINVAL, 4, "term 'name' needs a value", NULL },
	{ "cpu/mem-loads=1/", -EINVAL, 4, "alias 'mem-loads' takes no value", NULL },
	{ "cpux/event=1/", -ENOENT, 0, "unknown pmu 'cpux'", "did you mean 'cpu'?" },
	{ "nopmu/event=1/", -ENOENT, 0, "unknown pmu 'nopmu'", NULL },
	{ "/event=1/", -EINVAL, 0, "missing pmu name", NULL },
	{ "..x/event=1/", -EINVAL, 0, "invalid pmu name '..x'", NULL },
	{ "../cpu/event=1/", -EINVAL, 14, "unterminated term list", NULL },
	{ "broken/bad=1/", -EBADMSG, 7, "bad format file for term 'bad'", NULL },
	{ "broken/wide=1/", -EBADMSG, 7, "bad format file for term 'wide'", NULL },
	{ "bad-alias", -EINVAL, 0, "alias 'bad-alias': unknown term 'nosuch'", NULL },
	{ "broken/nested/", -EBADMSG, 7, "alias refers to alias 'tsc2'", NULL },
	{ "energy-pkgs", -EINVAL, 0, "unknown event 'energy-pkgs'", "did you mean 'energy-pkg'?" },
	{ "cpu/event=0x3c/z", -EINVAL, 15, "unknown modifier 'z'", NULL },
	/* syntax errors and unknown names */
	{ "", -EINVAL, 0, "empty event", NULL },
	{ "   ", -EINVAL, 3, "empty event", NULL },
	{ "cycles,", -EINVAL, 7, "empty event", NULL },
	{ ",cycles", -EINVAL, 0, "empty event", NULL },
	{ "cycles,,instructions", -EINVAL, 7, "empty event", NULL },
	{ "cyclez", -EINVAL, 0, "unknown event 'cyclez'", "did you mean 'cycles'?" },
	{ "cycles,cyclez", -EINVAL, 7, "unknown event 'cyclez'", "did you mean 'cycles'?" },
	{ "{cycles,instrucions}", -EINVAL, 8, "unknown event", "did you mean 'instructions'?" },
	{ "TASK-CLOCK", -EINVAL, 0, "unknown event 'TASK-CLOCK'", "did you mean 'task-clock'?" },
	{ "L1-dcache-load-mises", -EINVAL, 0, "unknown event",
	  "did you mean 'L1-dcache-load-misses'?" },
	{ "xyzzy", -EINVAL, 0, "unknown event 'xyzzy'", NULL },
	{ "cycles instructions", -EINVAL, 7, "unexpected 'i'", NULL },
	{ ":u", -EINVAL, 0, "missing event name", NULL },
	{ "cycles\x01", -EINVAL, 6, "unexpected byte 0x01", NULL },
	{ "cpu/event=1\x01/", -EINVAL, 11, "unexpected byte 0x01 in term list", NULL },
};

/* exclude_guest as perf 6.1 sets it: without modifiers, or with u or p and no G or H */
static const struct mods_case mods_cases[] = {
	/* spec            eu ek eh host guest idle p pin read */
	{ "cycles", 0, 0, 0, 0, 1, 0, 0, 0, 0 },
	{ "cycles:u", 0, 1, 1, 0, 1, 0, 0, 0, 0 },
	{ "cycles:k", 1, 0, 1, 0, 0, 0, 0, 0, 0 },
	{ "cycles:h", 1, 1, 0, 0, 0, 0, 0, 0, 0 },
	{ "cycles:uk", 0, 0, 1, 0, 1, 0, 0, 0, 0 },
	{ "cycles:ukh", 0, 0, 0, 0, 1, 0, 0, 0, 0 },
	{ "cycles:G", 0, 0, 0, 1, 0, 0, 0, 0, 0 },
	{ "cycles:H", 0, 0, 0, 0, 1, 0, 0, 0, 0 },
	{ "cycles:GH", 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "cycles:Gu", 0, 1, 1, 1, 0, 0, 0, 0, 0 },
	{ "cycles:uG", 0, 1, 1, 1, 0, 0, 0, 0, 0 },
	{ "cycles:pH", 0, 0, 0, 0, 1, 0, 1, 0, 0 },
	{ "cycles:I", 0, 0, 0, 0, 0, 1, 0, 0, 0 },
	{ "cycles:p", 0, 0, 0, 0, 1, 0, 1, 0, 0 },
	{ "cycles:pp", 0, 0, 0, 0, 1, 0, 2, 0, 0 },
	{ "cycles:ppp", 0, 0, 0, 0, 1, 0, 3, 0, 0 },
	{ "cycles:pup", 0, 1, 1, 0, 1, 0, 2, 0, 0 },
	{ "cycles:P", 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "cycles:D", 0, 0, 0, 0, 0, 0, 0, 1, 0 },
	{ "cycles:S", 0, 0, 0, 0, 0, 0, 0, 0, 1 },
	{ "task-clock:kI", 1, 0, 1, 0, 0, 1, 0, 0, 0 },
	{ "cycles:", 0, 0, 0, 0, 1, 0, 0, 0, 0 },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_tables(void)
{
	for (size_t i = 0; i < N(one_cases); i++)
		one(one_cases[i].spec, one_cases[i].type, one_cases[i].config,
		    one_cases[i].name ? one_cases[i].name : one_cases[i].spec);
	for (size_t i = 0; i < N(mods_cases); i++)
		mods(&mods_cases[i]);
	for (size_t i = 0; i < N(bad_cases); i++)
		bad(bad_cases[i].spec, bad_cases[i].err, bad_cases[i].offset, bad_cases[i].msg,
		    bad_cases[i].hint);
}

static void test_precise_max(void)
{
	const struct pk_event_list *l;

	/* P: the opener picks the level (record from 3 down, stat from the p's) */
	l = P("cycles:P");
	ok(l->n == 1 && l->ev[0].attr.precise_ip == 0 && l->ev[0].precise_max,
	   "P: precise 0, precise_max");
	l = P("cycles:pP");
	ok(l->n == 1 && l->ev[0].attr.precise_ip == 1 && l->ev[0].precise_max,
	   "pP: precise 1, precise_max");
	l = P("cycles:p");
	ok(l->n == 1 && !l->ev[0].precise_max, "p: not precise_max");
	/* group modifiers set P and S anew: a member's own are dropped, as perf 6.1 does */
	l = P("{cycles:PS,instructions:S}:u");
	ok(!perr && l->n == 2 && !l->ev[0].precise_max &&
	   !(l->ev[0].attr.sample_type & PERF_SAMPLE_READ) &&
	   !(l->ev[1].attr.sample_type & PERF_SAMPLE_READ), "group :u drops members' P and S");
	l = P("{cycles,instructions:u}:P");
	ok(!perr && l->n == 2 && l->ev[0].precise_max && l->ev[1].precise_max &&
	   l->ev[0].attr.precise_ip == 0, "group :P: every member precise_max");
}

/* The clocks count ns and display in msec (perf's unit); other generic events have no unit. */
static void test_display_units(void)
{
	const struct pk_event_list *l = P("task-clock,cpu-clock:u,cycles,page-faults");

	ok(l->n == 4, "four events");
	if (l->n != 4)
		return;
	ok(l->ev[0].scale == 1e-6 && l->ev[0].scale_unit && !strcmp(l->ev[0].scale_unit, "msec"),
	   "task-clock: scale 1e-6, unit msec");
	ok(l->ev[1].scale == 1e-6 && l->ev[1].scale_unit && !strcmp(l->ev[1].scale_unit, "msec"),
	   "cpu-clock:u: scale 1e-6, unit msec");
	ok(l->ev[2].scale == 1.0 && !l->ev[2].scale_unit, "cycles: scale 1, no unit");
	ok(l->ev[3].scale == 1.0 && !l->ev[3].scale_unit, "page-faults: scale 1, no unit");
}

static void test_groups(void)
{
	const struct pk_event_list *l;
	int err;

	l = P("{cycles,instructions}");
	ok(!perr && l->n == 2 && l->ev[0].leader == 0 && l->ev[0].nr_members == 2 &&
	   l->ev[1].leader == 0 && l->ev[1].nr_members == 0, "group: leader and nr_members");

	l = P("{cycles,instructions}:u");
	ok(!perr && l->n == 2 && !strcmp(l->ev[0].name, "cycles:u") &&
	   !strcmp(l->ev[1].name, "instructions:u") && l->ev[0].attr.exclude_kernel &&
	   l->ev[1].attr.exclude_kernel && l->ev[1].attr.exclude_hv && !l->ev[1].attr.exclude_user,
	   "group modifiers apply to each member and its name");

	l = P("{task-clock:k,cs}:u");
	ok(!perr && l->n == 2 && !l->ev[0].attr.exclude_user && !l->ev[0].attr.exclude_kernel &&
	   l->ev[0].attr.exclude_hv && !strcmp(l->ev[0].name, "task-clock:ku") &&
	   !strcmp(l->ev[1].name, "cs:u") && l->ev[1].attr.exclude_kernel,
	   "member and group modifiers merge as a union");

	l = P("{cycles:p,instructions}:pp");
	ok(!perr && l->n == 2 && l->ev[0].attr.precise_ip == 3 && l->ev[1].attr.precise_ip == 2 &&
	   !strcmp(l->ev[0].name, "cycles:ppp") && !strcmp(l->ev[1].name, "instructions:pp"),
	   "group precision adds to the member's, as perf 6.1 does");
	l = P("{cycles:pp,instructions}:pp");
	ok(perr == -EINVAL && strstr(d.msg, "more than 3 'p'") && d.offset == 25,
	   "group precision above 3: refused at the group's modifiers (%s at %llu)", d.msg,
	   (unsigned long long)d.offset);

	l = P("cycles,{instructions,branches},cs");
	ok(!perr && l->n == 4 && l->ev[0].leader == 0 && l->ev[0].nr_members == 1 &&
	   l->ev[1].leader == 1 && l->ev[1].nr_members == 2 && l->ev[2].leader == 1 &&
	   l->ev[2].nr_members == 0 && l->ev[3].leader == 3 && l->ev[3].nr_members == 1,
	   "lone events and a group in one list");
	err = pk_event_parse(&cur, "{faults,cs}", &fx, &d);
	ok(!err && l->n == 6 && l->ev[4].leader == 4 && l->ev[4].nr_members == 2 &&
	   l->ev[5].leader == 4, "leader indexes count the events already in the list");
	err = pk_event_parse(&cur, "cycles,cyclez", &fx, &d);
	ok(err == -EINVAL && l->n == 6, "a failed parse appends nothing");

	l = P("{cycles}");
	ok(!perr && l->n == 1 && l->ev[0].nr_members == 1, "group of one");

	l = P(" cycles , { instructions , cs }:k ");
	ok(!perr && l->n == 3 && !strcmp(l->ev[1].name, "instructions:k") &&
	   l->ev[1].nr_members == 2 && l->ev[1].attr.exclude_user && !strcmp(l->ev[0].name, "cycles"),
	   "blanks around items are skipped");
	l = P("{cycles,instructions}:k");
	ok(!perr && l->n == 2 && l->ev[1].attr.exclude_user &&
	   !strcmp(l->ev[1].name, "instructions:k"), "group :k");
}

static void test_lists_raw(void)
{
	const struct pk_event_list *l = P("cycles,instructions,cs");
	int err;

	ok(!perr && l->n == 3 && l->ev[2].attr.type == PERF_TYPE_SOFTWARE &&
	   l->ev[2].attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES && l->ev[2].nr_members == 1,
	   "comma list of lone events");

	pk_event_list_release(&cur);
	err = pk_event_add_defaults(&cur);
	ok(!err && l->n == 8 && pk_event_is(&l->ev[0], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) &&
	   pk_event_is(&l->ev[1], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES) &&
	   pk_event_is(&l->ev[2], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS) &&
	   pk_event_is(&l->ev[3], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS) &&
	   pk_event_is(&l->ev[4], PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES) &&
	   pk_event_is(&l->ev[5], PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS) &&
	   pk_event_is(&l->ev[6], PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS) &&
	   pk_event_is(&l->ev[7], PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES) &&
	   l->ev[7].leader == 7 && l->ev[7].nr_members == 1 && !strcmp(l->ev[4].name, "cycles"),
	   "perf stat's default events in order");
	ok(!pk_event_is(&l->ev[0], PERF_TYPE_HARDWARE, PERF_COUNT_SW_TASK_CLOCK) &&
	   !pk_event_is(NULL, 0, 0), "pk_event_is compares type and config");
}

static void test_tracepoints_fixture(void)
{
	const struct pk_event_list *l;

	l = P("sched:sched_wak*");
	ok(!perr && l->n == 3 && !strcmp(l->ev[0].name, "sched:sched_wakeup") &&
	   l->ev[0].attr.config == 318 && !strcmp(l->ev[1].name, "sched:sched_wakeup_new") &&
	   l->ev[1].attr.config == 317 && !strcmp(l->ev[2].name, "sched:sched_waking") &&
	   l->ev[2].attr.config == 319 && l->ev[2].kind == PK_EVENT_TRACEPOINT &&
	   l->ev[2].nr_members == 1, "glob expands to every match, sorted, full names");
	l = P("sched:*:k");
	ok(!perr && l->n == 5 && !strcmp(l->ev[0].name, "sched:sched_process_exit:k") &&
	   l->ev[4].attr.exclude_user, "sched:*:k: five events with the modifier");
	l = P("s?s*:sys_[a-e][!x]*_read");
	ok(!perr && l->n == 1 && l->ev[0].attr.config == 600, "globs in system and name, [set]");
	l = P("ftrace:*");
	ok(!perr && l->n == 1 && !strcmp(l->ev[0].name, "ftrace:function"),
	   "event directories without an id are skipped");
	l = P("{cycles,sched:sched_wak*}:u");
	ok(!perr && l->n == 4 && l->ev[0].nr_members == 4 && l->ev[3].leader == 0 &&
	   !strcmp(l->ev[3].name, "sched:sched_waking:u"), "glob inside a group");
}

static void test_tracepoints_real(void)
{
	char root[4096], path[4200], line[64];
	const struct pk_event_list *l = &cur;
	FILE *f;
	int err;

	if (pk_tracefs_path(root, sizeof(root))) {
		ok(1, "# SKIP tracefs is not available");
		ok(1, "# SKIP tracefs is not available");
		return;
	}
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", root);
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		ok(1, "# SKIP %s is not readable", path);
		ok(1, "# SKIP %s is not readable", path);
		return;
	}
	fclose(f);
	pk_event_list_release(&cur);
	err = pk_event_parse(&cur, "sched:sched_switch", NULL, &d);
	ok(!err && l->n == 1 && l->ev[0].attr.config == strtoull(line, NULL, 10),
	   "real tracefs: sched:sched_switch id %s", strtok(line, "\n"));
	pk_event_list_release(&cur);
	err = pk_event_parse(&cur, "sched:sched_switch*", NULL, &d);
	ok(!err && l->n >= 1 && !strcmp(l->ev[0].name, "sched:sched_switch"),
	   "real tracefs: glob sched:sched_switch*");
}

static void test_pmu(void)
{
	const struct pk_event_list *l;

	l = P("cpu/mem-loads,ldlat=5/");
	ok(!perr && l->n == 1 && l->ev[0].attr.config == 0x1cd && l->ev[0].attr.config1 == 5 &&
	   l->ev[0].kind == PK_EVENT_PMU && !strcmp(l->ev[0].pmu, "cpu"),
	   "alias terms, then a later term overrides");
	l = P("cpu/mem-loads/");
	ok(!perr && l->n == 1 && l->ev[0].attr.config1 == 3, "alias sets config1 through a format");
	l = P("cpu/config=0x1234,config1=5,config2=6,period=1000/");
	ok(!perr && l->n == 1 && l->ev[0].attr.config == 0x1234 && l->ev[0].attr.config1 == 5 &&
	   l->ev[0].attr.config2 == 6 && l->ev[0].attr.sample_period == 1000, "config terms");
	l = P("cpu/offcore_rsp=0xffffffffffffffff/");
	ok(!perr && l->n == 1 && l->ev[0].attr.config1 == ~0ull, "a 64-bit format field");
	l = P("energy-pkg");
	ok(!perr && l->n == 1 && l->ev[0].attr.type == 11 && l->ev[0].attr.config == 2 &&
	   l->ev[0].scale > 2.32e-10 && l->ev[0].scale < 2.33e-10 && l->ev[0].scale_unit &&
	   !strcmp(l->ev[0].scale_unit, "Joules") && !strcmp(l->ev[0].pmu, "power"),
	   "bare alias with .scale and .unit");
	l = P("power/energy-cores/");
	ok(!perr && l->n == 1 && l->ev[0].attr.config == 1 && l->ev[0].scale_unit, "pmu alias .unit");
	l = P("cpu/topdown-total-slots/");
	ok(!perr && l->n == 1 && l->ev[0].scale == 2.0 && !l->ev[0].scale_unit, "scale without unit");
	l = P("cycles");
	ok(!perr && l->n == 1 && l->ev[0].scale == 1.0 && !l->ev[0].pmu, "no scale: 1.0, no pmu");
	l = P("cas_count_read");
	ok(!perr && l->n == 2 && !strcmp(l->ev[0].pmu, "uncore_imc_0") && l->ev[0].attr.type == 14 &&
	   !strcmp(l->ev[1].pmu, "uncore_imc_1") && l->ev[1].attr.type == 15 &&
	   l->ev[1].attr.config == 0x304 && !strcmp(l->ev[1].scale_unit, "MiB") &&
	   l->ev[1].nr_members == 1, "an alias in two PMUs gives two events");
	l = P("{cpu/event=0x3c/,cpu/event=0xc0/k}:u");
	ok(!perr && l->n == 2 && !strcmp(l->ev[0].name, "cpu/event=0x3c/u") &&
	   !strcmp(l->ev[1].name, "cpu/event=0xc0/ku") && l->ev[1].nr_members == 0 &&
	   l->ev[0].nr_members == 2, "pmu events in a group with modifiers");
	l = P("cpu/event=0x3c,umask=1/,cycles");
	ok(!perr && l->n == 2 && l->ev[0].attr.config == 0x13c && l->ev[1].attr.type == 0,
	   "commas inside a term list do not split the list");
}

static void test_invalid(void)
{
	char longname[400];

	memset(longname, 'a', 300);
	longname[300] = '\0';
	bad(longname, -EINVAL, 0, "event name too long", NULL);
	memcpy(longname + 300, "/event=1/", 10);
	bad(longname, -EINVAL, 0, "pmu name too long", NULL);
}

static int count_cb(const struct pk_event_info *info, void *ctx)
{
	size_t *n = ctx;

	n[info->category == PK_LIST_HW ? 0 : info->category == PK_LIST_SW ? 1 :
	  info->category == PK_LIST_CACHE ? 2 : info->category == PK_LIST_PMU ? 3 : 4]++;
	if (info->category == PK_LIST_PMU && !strcmp(info->name, "power/energy-pkg/"))
		n[5]++;
	if (info->category == PK_LIST_PMU && strstr(info->name, ".scale"))
		n[6]++;
	if (info->category == PK_LIST_HW && !strcmp(info->name, "cpu-cycles") && info->aliases &&
	    !strcmp(info->aliases, "cycles"))
		n[7]++;
	if (info->category == PK_LIST_SW && !strcmp(info->name, "task-clock") && info->supported)
		n[8]++;
	return 0;
}

static int names_cb(const struct pk_event_info *info, void *ctx)
{
	char *buf = ctx;

	strcat(buf, info->name);
	strcat(buf, " ");
	return !strcmp(info->name, "sched:sched_process_exit") ? 7 : 0;
}

static void test_catalog(void)
{
	size_t n[9] = { 0 };
	char names[4096] = "";
	int ret;

	ret = pk_event_foreach(PK_LIST_ALL, &fx, count_cb, n, &d);
	ok(!ret && n[0] == 10 && n[1] == 12 && n[2] == 32, "catalogue: 10 hw, 12 sw, 32 cache");
	ok(n[3] == 23 && n[5] == 1 && n[6] == 0, "catalogue: fixture PMU aliases, no .scale files");
	ok(n[4] == 10, "catalogue: fixture tracepoints with ids");
	ok(n[7] == 1, "catalogue: cpu-cycles OR cycles");
	ok(n[8] == 1, "catalogue: task-clock is supported here");
	ret = pk_event_foreach(PK_LIST_TRACEPOINT, &fx, names_cb, names, &d);
	ok(ret == 7 && !strcmp(names, "ftrace:function irq:irq_handler_entry irq:irq_handler_exit "
			       "sched:sched_process_exit "),
	   "tracepoints sorted; a non-zero return stops the walk");
	if (ret != 7)
		diag("got %d '%s'", ret, names);
	names[0] = '\0';
	ret = pk_event_foreach(PK_LIST_SW, &fx, names_cb, names, &d);
	ok(!ret && !strncmp(names, "alignment-faults bpf-output cgroup-switches context-switches", 60),
	   "software events sorted by name");
}

static void test_opts(void)
{
	struct pk_event_opts old = { .sz = sizeof(size_t), .sysfs_root = sysfs_dir };
	struct pk_event_list l;
	int err;

	/* with the fixture root this alias is found (and is broken) */
	pk_event_list_init(&l);
	err = pk_event_parse(&l, "bad-alias", &old, &d);
	ok(err == -EINVAL && strstr(d.msg, "unknown event 'bad-alias'"),
	   "opts with a short sz: fields past it are ignored");
	err = pk_event_parse(&l, "cycles", NULL, &d);
	ok(!err && l.n == 1, "NULL opts");
	ok(pk_event_parse(NULL, "cycles", NULL, &d) == -EINVAL, "NULL list is -EINVAL");
	err = pk_event_parse(&l, "cyclez", &fx, NULL);
	ok(err == -EINVAL && l.n == 1, "NULL diag");
	pk_event_list_release(&l);
}

int main(void)
{
	fixtures_init();
	if (access(sysfs_dir, R_OK) || access(tracefs_dir, R_OK)) {
		skip_all("tests/fixtures not found: run from the repository root or set PK_SRCDIR");
		return 0;
	}
	test_tables();
	test_precise_max();
	test_display_units();
	test_groups();
	test_lists_raw();
	test_tracepoints_fixture();
	test_tracepoints_real();
	test_pmu();
	test_invalid();
	test_catalog();
	test_opts();
	pk_event_list_release(&cur);
	return done_testing();
}
