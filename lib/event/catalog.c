/*
 * The catalogue behind `perfkit list`: every generic hardware, software and
 * cache event, the aliases of the sysfs PMUs and the tracepoints, in perf
 * list's order (hardware, software, cache, PMU, tracepoint; sorted by name
 * within each). Generic events and PMU aliases are probed with one
 * perf_event_open(2) each on the calling thread (user space only, disabled)
 * so the list can say which ones this kernel and machine accept;
 * tracepoints, thousands of them, are not probed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"

struct cache_entry {
	char name[48];
	__u64 config;
};

/* Whether the kernel opens @a for this thread, user space only or, for PMUs
 * that refuse privilege filters (msr), with none. */
static bool probe(const struct perf_event_attr *a)
{
	struct perf_event_attr attr = *a;
	int fd;

	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	for (int pass = 0; pass < 2; pass++) {
		fd = (int)syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			return true;
		}
		if (errno == ENOENT || errno == ENODEV || errno == EACCES || errno == EPERM)
			return false;
		attr.exclude_kernel = 0;
		attr.exclude_hv = 0;
	}
	return false;
}

static int cmp_sym(const void *a, const void *b)
{
	return strcmp((*(const struct ev_sym *const *)a)->name,
		      (*(const struct ev_sym *const *)b)->name);
}

static int walk_syms(const struct ev_sym *t, size_t n, enum pk_event_category cat,
		     const char *desc, pk_event_info_fn fn, void *ctx)
{
	const struct ev_sym *sorted[32];
	int ret = 0;

	if (n > sizeof(sorted) / sizeof(sorted[0]))
		return -E2BIG;
	for (size_t i = 0; i < n; i++)
		sorted[i] = &t[i];
	qsort(sorted, n, sizeof(sorted[0]), cmp_sym);
	for (size_t i = 0; i < n && !ret; i++) {
		struct perf_event_attr a = { .size = sizeof(a), .type = sorted[i]->type,
					     .config = sorted[i]->config };
		struct pk_event_info info = { .name = sorted[i]->name, .aliases = sorted[i]->alias,
					      .category = cat, .desc = desc, .supported = probe(&a) };

		ret = fn(&info, ctx);
	}
	return ret;
}

static int cmp_cache(const void *a, const void *b)
{
	return strcmp(((const struct cache_entry *)a)->name, ((const struct cache_entry *)b)->name);
}

static int walk_cache(pk_event_info_fn fn, void *ctx)
{
	struct cache_entry e[PERF_COUNT_HW_CACHE_MAX * PERF_COUNT_HW_CACHE_OP_MAX *
			    PERF_COUNT_HW_CACHE_RESULT_MAX];
	size_t n = 0;
	int ret = 0;

	for (unsigned cache = 0; cache < PERF_COUNT_HW_CACHE_MAX; cache++) {
		for (unsigned op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!ev_cache_op_valid(cache, op))
				continue;
			for (unsigned res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX; res++) {
				ev_cache_name(cache, op, res, e[n].name, sizeof(e[n].name));
				e[n++].config = cache | (__u64)op << 8 | (__u64)res << 16;
			}
		}
	}
	qsort(e, n, sizeof(e[0]), cmp_cache);
	for (size_t i = 0; i < n && !ret; i++) {
		struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HW_CACHE,
					     .config = e[i].config };
		struct pk_event_info info = { .name = e[i].name, .category = PK_LIST_CACHE,
					      .desc = "Hardware cache event", .supported = probe(&a) };

		ret = fn(&info, ctx);
	}
	return ret;
}

/* Every "pmu/alias/" under @sysfs, sorted. */
static int pmu_alias_names(const char *sysfs, struct ev_names *out)
{
	struct ev_names pmus;
	char full[2 * EV_NAME_MAX + 4];
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (ev_pmu_list(sysfs, &pmus))
		return 0;	/* no PMUs described: nothing to list */
	for (size_t i = 0; i < pmus.n && !err; i++) {
		struct ev_names al;

		if (ev_pmu_aliases(sysfs, pmus.v[i], &al))
			continue;
		for (size_t j = 0; j < al.n && !err; j++)
			if (!pk_path_fmt(full, sizeof(full), "%s/%s/", pmus.v[i], al.v[j]))
				err = ev_names_add(out, full, strlen(full));
		ev_names_release(&al);
	}
	ev_names_release(&pmus);
	ev_names_sort(out);
	return err;
}

static int walk_pmu(const struct pk_event_opts *opts, const char *sysfs, pk_event_info_fn fn,
		    void *ctx)
{
	struct ev_names names;
	int ret = pmu_alias_names(sysfs, &names);

	for (size_t i = 0; i < names.n && !ret; i++) {
		struct pk_event_list l;
		struct pk_event_info info = { .name = names.v[i], .category = PK_LIST_PMU,
					      .desc = "Kernel PMU event" };

		pk_event_list_init(&l);
		if (!pk_event_parse(&l, names.v[i], opts, NULL) && l.n == 1)
			info.supported = probe(&l.ev[0].attr);
		pk_event_list_release(&l);
		ret = fn(&info, ctx);
	}
	ev_names_release(&names);
	return ret;
}

static int walk_tracepoints(struct ev_ctx *c, pk_event_info_fn fn, void *ctx)
{
	struct ev_names names;
	const char *tracefs;
	int err, ret = 0;

	tracefs = ev_ctx_tracefs(c, &err);
	if (!tracefs || ev_tracepoint_list(tracefs, &names))
		return 0;	/* no tracefs here: no tracepoints to list */
	for (size_t i = 0; i < names.n && !ret; i++) {
		struct pk_event_info info = { .name = names.v[i], .category = PK_LIST_TRACEPOINT,
					      .desc = "Tracepoint event", .supported = true };

		ret = fn(&info, ctx);
	}
	ev_names_release(&names);
	return ret;
}

int pk_event_foreach(unsigned mask, const struct pk_event_opts *opts, pk_event_info_fn fn,
		     void *ctx, struct pk_diag *diag)
{
	struct pk_event_list none;
	struct ev_ctx c;
	int ret = 0;

	pk_diag_init(diag);
	if (!fn)
		return pk_diag_fail(diag, -EINVAL, "no callback");
	pk_event_list_init(&none);
	ev_ctx_init(&c, &none, "", opts, diag);
	if (mask & PK_LIST_HW)
		ret = walk_syms(ev_hw_syms, ev_nr_hw_syms, PK_LIST_HW, "Hardware event", fn, ctx);
	if (!ret && (mask & PK_LIST_SW))
		ret = walk_syms(ev_sw_syms, ev_nr_sw_syms, PK_LIST_SW, "Software event", fn, ctx);
	if (!ret && (mask & PK_LIST_CACHE))
		ret = walk_cache(fn, ctx);
	if (!ret && (mask & PK_LIST_PMU) && c.sysfs[0])
		ret = walk_pmu(opts, c.sysfs, fn, ctx);
	if (!ret && (mask & PK_LIST_TRACEPOINT))
		ret = walk_tracepoints(&c, fn, ctx);
	ev_ctx_release(&c);
	if (ret < 0 && diag && !diag->msg[0])
		pk_diag_fail(diag, ret, "cannot list events: %s", strerror(-ret));
	return ret;
}
