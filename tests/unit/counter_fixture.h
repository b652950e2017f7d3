/*
 * Shared by the counter unit tests: building pk_event values by hand, so the
 * tests do not depend on the event parser.
 */
#ifndef PERFKIT_TESTS_COUNTER_FIXTURE_H
#define PERFKIT_TESTS_COUNTER_FIXTURE_H

#include <string.h>
#include <perfkit/counter.h>

static struct pk_event mkev(__u32 type, __u64 config, const char *name, int leader, int nr)
{
	struct pk_event e;

	memset(&e, 0, sizeof(e));
	e.attr.type = type;
	e.attr.size = sizeof(e.attr);
	e.attr.config = config;
	e.kind = type == PERF_TYPE_SOFTWARE ? PK_EVENT_SOFTWARE : PK_EVENT_HARDWARE;
	e.name = (char *)name;
	e.leader = leader;
	e.nr_members = nr;
	e.scale = 1.0;
	return e;
}

#define SW(cfg, name, leader, nr) mkev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##cfg, name, leader, nr)
#define HW(cfg, name, leader, nr) mkev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_##cfg, name, leader, nr)
#define LIST(arr) { .ev = (arr), .n = sizeof(arr) / sizeof((arr)[0]), .cap = 0 }

#endif
