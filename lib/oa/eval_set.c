/*
 * A metric set compiled for one device: availability predicates decided
 * with the device's variables, every equation and max equation compiled
 * once and specialized for the device and report format (eval.c), counters
 * ordered so that $Counter references are computed before their users
 * (cycles rejected), then joined into one typed program (eval_typed.c) that
 * evaluates the set on any number of delta arrays.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eval_int.h"

struct pk_oa_eval {
	const struct pk_oa_set_info *set;
	struct pk_oa_devvars vars;
	const struct pk_oa_format_info *fmt;
	struct code code;
	struct prog *eq, *max;     /* per counter */
	bool *avail;
	size_t n_avail;
	uint32_t *order;           /* counters in evaluation order */
	struct typed run;          /* every counter's equation, in that order */
};

PK_API void pk_oa_eval_free(struct pk_oa_eval *ev)
{
	if (!ev)
		return;
	free(ev->code.v);
	free(ev->eq);
	free(ev->max);
	free(ev->avail);
	free(ev->order);
	free(ev->run.v);
	free(ev);
}

/* Deepest chain of $Counter references followed (IGT's files: 3). */
#define MAX_REF_DEPTH 1024

/*
 * Depth-first walk of counter @i's references, appending each counter to
 * ev->order after those it references. @state: 0 new, 1 on the path, 2 done.
 */
static int topo_visit(struct pk_oa_eval *ev, uint32_t i, uint8_t *state, size_t *n_order,
		      uint32_t *path, size_t depth, struct pk_diag *diag)
{
	const struct prog *p = &ev->eq[i];

	if (state[i] == 2)
		return 0;
	if (state[i] == 1) {
		char chain[256] = "";
		size_t at = 0, k0 = 0;

		while (k0 < depth && path[k0] != i)
			k0++;
		for (size_t k = k0; k < depth && at < sizeof(chain); k++)
			at += (size_t)snprintf(chain + at, sizeof(chain) - at, "%s -> ",
					       ev->set->counters[path[k]].symbol_name);
		if (at < sizeof(chain))
			snprintf(chain + at, sizeof(chain) - at, "%s", ev->set->counters[i].symbol_name);
		return pk_diag_fail(diag, -ELOOP, "metric set '%s': counters reference each other in a cycle: %s",
				    ev->set->symbol_name, chain);
	}
	if (depth == MAX_REF_DEPTH)
		return pk_diag_fail(diag, -E2BIG, "metric set '%s': counter references nested deeper than %d at '%s'",
				    ev->set->symbol_name, MAX_REF_DEPTH, ev->set->counters[i].symbol_name);
	state[i] = 1;
	path[depth] = i;
	for (uint32_t k = 0; k < p->n; k++) {
		const struct insn *x = &ev->code.v[p->start + k];
		int err;

		if (x->op == I_CTR &&
		    (err = topo_visit(ev, x->idx, state, n_order, path, depth + 1, diag)))
			return err;
	}
	state[i] = 2;
	ev->order[(*n_order)++] = i;
	return 0;
}

PK_API int pk_oa_eval_new(const struct pk_oa_set_info *set, const struct pk_oa_devvars *vars,
			  const struct pk_oa_format_info *fmt, struct pk_oa_eval **out,
			  struct pk_diag *diag)
{
	struct pk_oa_eval *ev;
	const char **names = NULL;
	struct names nm = { 0 };
	uint8_t *state = NULL;
	uint32_t *path = NULL;
	size_t n = set->n_counters, n_order = 0;
	int err = -ENOMEM;

	*out = NULL;
	if (n > UINT32_MAX / 2)
		return pk_diag_fail(diag, -E2BIG, "metric set '%s': too many counters", set->symbol_name);
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->set = set;
	if (vars)
		ev->vars = *vars;
	ev->fmt = fmt;
	ev->eq = calloc(n ? n : 1, sizeof(*ev->eq));
	ev->max = calloc(n ? n : 1, sizeof(*ev->max));
	ev->avail = calloc(n ? n : 1, sizeof(*ev->avail));
	ev->order = calloc(n ? n : 1, sizeof(*ev->order));
	names = calloc(n ? n : 1, sizeof(*names));
	state = calloc(n ? n : 1, 1);
	path = calloc(MAX_REF_DEPTH, sizeof(*path));
	if (!ev->eq || !ev->max || !ev->avail || !ev->order || !names || !state || !path)
		goto out;
	for (size_t i = 0; i < n; i++)
		names[i] = set->counters[i].symbol_name ? set->counters[i].symbol_name : "";
	if ((err = oa_names_init(&nm, names, n)))
		goto out;

	for (size_t i = 0; i < n; i++) {
		const struct pk_oa_counter_info *ci = &set->counters[i];
		struct pk_oa_env env = { .vars = &ev->vars };
		char what[200];

		snprintf(what, sizeof(what), "metric set '%s' counter '%s' equation",
			 set->symbol_name, names[i]);
		if ((err = oa_compile(&ev->code, &ev->eq[i], ci->equation ? ci->equation : "", &nm,
				   what, diag)))
			goto out;
		if (ci->max_equation) {
			snprintf(what, sizeof(what), "metric set '%s' counter '%s' max_equation",
				 set->symbol_name, names[i]);
			if ((err = oa_compile(&ev->code, &ev->max[i], ci->max_equation, &nm, what, diag)))
				goto out;
		}
		ev->avail[i] = true;
		if (ci->availability) {
			struct prog ap;

			snprintf(what, sizeof(what), "metric set '%s' counter '%s' availability",
				 set->symbol_name, names[i]);
			/* device variables only: there are no counter values yet */
			if ((err = oa_compile(&ev->code, &ap, ci->availability, NULL, what, diag)))
				goto out;
			ev->avail[i] = oa_prog_true(&ev->code, &ap, &env);
			ev->code.n = ap.start;   /* not needed any more */
		}
		ev->n_avail += ev->avail[i];
	}
	for (uint32_t i = 0; i < n; i++)
		if ((err = topo_visit(ev, i, state, &n_order, path, 0, diag)))
			goto out;
	/* the device and format are this evaluator's for good: fold them in */
	for (size_t i = 0; i < n; i++) {
		struct pk_oa_env env = { .vars = &ev->vars, .fmt = ev->fmt };

		oa_prog_specialize(&ev->code, &ev->eq[i], &env);
		if (ev->max[i].present)
			oa_prog_specialize(&ev->code, &ev->max[i], &env);
	}
	for (size_t k = 0; k < n; k++) {
		uint32_t i = ev->order[k];

		err = oa_typed_add(&ev->run, &ev->code, &ev->eq[i], set->counters, i);
		if (err == -EPROTO)
			pk_diag_fail(diag, err, "metric set '%s' counter '%s': its equation cannot be typed",
				     set->symbol_name, names[i]);
		if (err)
			goto out;
	}
	err = 0;
out:
	free(nm.sorted);
	free(names);
	free(state);
	free(path);
	if (err) {
		pk_oa_eval_free(ev);
		return err;
	}
	*out = ev;
	return 0;
}

PK_API const struct pk_oa_set_info *pk_oa_eval_set(const struct pk_oa_eval *ev)
{
	return ev->set;
}

PK_API bool pk_oa_eval_available(const struct pk_oa_eval *ev, size_t i)
{
	return i < ev->set->n_counters && ev->avail[i];
}

PK_API size_t pk_oa_eval_n_available(const struct pk_oa_eval *ev)
{
	return ev->n_avail;
}

PK_API void pk_oa_eval_run(const struct pk_oa_eval *ev, const uint64_t *deltas,
			   struct pk_oa_value *values)
{
	oa_typed_run(&ev->run, deltas, values);
}

PK_API void pk_oa_eval_run_batch(const struct pk_oa_eval *ev,
				 const uint64_t (*deltas)[PK_OA_MAX_VALUES], struct pk_oa_value *values)
{
	oa_typed_run_batch(&ev->run, deltas, values);
}

PK_API int pk_oa_eval_max(const struct pk_oa_eval *ev, size_t i, const uint64_t *deltas,
			  const struct pk_oa_value *values, struct pk_oa_value *out)
{
	struct pk_oa_env env = { .deltas = deltas, .fmt = ev->fmt, .vars = &ev->vars,
				 .counters = values };

	if (i >= ev->set->n_counters || !ev->max[i].present)
		return -ENOENT;
	*out = oa_prog_eval(&ev->code, &ev->max[i], &env,
			ev->set->counters[i].data_type);
	return 0;
}
