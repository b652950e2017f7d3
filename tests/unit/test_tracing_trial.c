/*
 * The trial run (lib/script/tracing_trial.c) with bodies of its own: steps
 * that crash (SIGSEGV, abort) or hang in the child are left out of the
 * caller's run, and every other step is made, in order, once; a step that
 * crashes only in the child after the caller has passed it cannot happen
 * (the caller is one step behind); eight crashing steps give up; and the
 * caller never makes a step before the child has finished it.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/core.h>
#include "script/tracing.h"
#include "../tap.h"

#define STEPS 12

struct plan {
	int crash[STEPS];         /* in the child: 1 SIGSEGV, 2 abort, 3 hang */
	int made[STEPS];          /* the caller's count of each step made */
	int order_ok;
	int last;
};

static void body(void *ctx, struct pk_trace_trial *t)
{
	struct plan *p = ctx;

	for (int i = 0; i < STEPS; i++) {
		if (!pk_trace_trial_step(t))
			continue;
		if (t->is_child) {
			if (p->crash[i] == 1)
				raise(SIGSEGV);
			if (p->crash[i] == 2)
				abort();
			if (p->crash[i] == 3)
				for (;;)
					pause();
			continue;
		}
		/* the caller: the child has started a later step, or is done */
		if (!(t->child_done || t->pid == 0 || (t->child_seen && t->child_at > (uint32_t)i)))
			p->order_ok = 0;
		if (i <= p->last)
			p->order_ok = 0;
		p->last = i;
		p->made[i]++;
	}
}

/* Run the plan with crash kinds @kinds at steps @at (@n of them); the steps made as a string of 0/1. */
static int run(const int *at, const int *kinds, size_t n, char *made, struct pk_trace_trial *t, int *order_ok)
{
	struct plan p;
	int r;

	memset(&p, 0, sizeof(p));
	p.order_ok = 1;
	p.last = -1;
	for (size_t i = 0; i < n; i++)
		p.crash[at[i]] = kinds[i];
	r = pk_trace_trial_run(t, body, &p, 300);
	for (int i = 0; i < STEPS; i++)
		made[i] = (char)('0' + p.made[i]);
	made[STEPS] = 0;
	*order_ok = p.order_ok;
	return r;
}

int main(void)
{
	struct pk_trace_trial t;
	char made[STEPS + 1];
	int order_ok, r;

	r = run(NULL, NULL, 0, made, &t, &order_ok);
	ok(r == 0 && !strcmp(made, "111111111111") && t.n_crashed == 0 && order_ok,
	   "no crash: every step made once, in order, each after the child's (%s)", made);

	{
		static const int at[] = { 0, 4, 5, 11 }, kinds[] = { 1, 2, 1, 2 };

		r = run(at, kinds, 4, made, &t, &order_ok);
		ok(r == 0 && !strcmp(made, "011100111110") && t.n_crashed == 4 && order_ok,
		   "SIGSEGV at steps 0 and 5, abort at 4 and 11: those four left out, the rest made in order (%s)",
		   made);
	}
	{
		static const int at[] = { 2, 7 }, kinds[] = { 3, 1 };
		uint64_t t0 = pk_now_ns();

		r = run(at, kinds, 2, made, &t, &order_ok);
		ok(r == 0 && !strcmp(made, "110111101111") && order_ok,
		   "a step that hangs (2) is killed after the stall time and left out, as a crash (7) (%s)", made);
		ok(pk_now_ns() - t0 < 5000000000ull, "the hang cost about the stall time (%.2f s)",
		   (double)(pk_now_ns() - t0) / 1e9);
	}
	{
		static const int at[] = { 1, 2, 3, 4, 5, 6, 7, 8 }, kinds[] = { 1, 1, 1, 1, 1, 1, 1, 1 };

		r = run(at, kinds, 8, made, &t, &order_ok);
		ok(r == -1 && !strcmp(made, "100000000000") && t.n_crashed == PK_TRACE_TRIAL_MAX,
		   "eight crashing steps: it gives up, and makes no step after them (%s)", made);
	}
	return done_testing();
}
