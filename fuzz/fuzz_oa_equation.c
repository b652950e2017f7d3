/*
 * libFuzzer target for the metric equation compiler and evaluator
 * (pk_oa_expr_*, pk_oa_eval_*). The input is text up to the first NUL,
 * then raw bytes for the deltas and the device variables.
 *
 * The text's first line is compiled as one expression with the counter
 * names C0..C7 (and evaluated as uint64 and as float); then every line
 * (up to 8) becomes counter Ci of a metric set whose odd counters are
 * floats and whose even counters have the line as an availability
 * predicate too, and the set is compiled and evaluated, with the max
 * equations. Compilation must either succeed or fail with -EINVAL, -ELOOP
 * or -E2BIG and a message; evaluation must never crash, read out of bounds
 * or hit undefined behaviour, whatever the deltas and variables. The set's
 * values (its typed program, lib/oa/eval_typed.c) must be bit for bit
 * those of each equation evaluated alone by the plain interpreter, on the
 * values the set gave the counters it names; and a batch of 64 delta arrays
 * (pk_oa_eval_run_batch) gives each array's values as one at a time.
 * The first line's float value, and the input's last 8 bytes taken as a
 * double (any bit pattern), print as printf prints them, through
 * pk_format_fixed6 ("%f", the text report) and pk_format_g17 ("%.17g",
 * JSON).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)
#define MAX_LINES 8

static const char *const names[MAX_LINES] = { "C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7" };

static void check_fail(int err, const struct pk_diag *d)
{
	CHECK(err == -EINVAL || err == -ELOOP || err == -E2BIG);
	CHECK(d->msg[0] != '\0');
}

/* @f as the OA reports print it: pk_format_fixed6 and pk_format_g17 equal printf's "%f" and "%.17g". */
static void check_printed(double f)
{
	char want[PK_FIXED6_MAX + 8], got[PK_FIXED6_MAX];

	snprintf(want, sizeof(want), "%f", f);
	CHECK(pk_format_fixed6(f, got) == strlen(want) && strcmp(got, want) == 0);
	snprintf(want, sizeof(want), "%.17g", f);
	CHECK(pk_format_g17(f, got) == strlen(want) && strcmp(got, want) == 0);
}

/*
 * A batch of the deltas and variations of them gives each array's values,
 * the deltas themselves in the first place.
 */
static void check_batch(const struct pk_oa_eval *ev, const uint64_t *deltas, size_t n_lines)
{
	static uint64_t rows[PK_OA_EVAL_BATCH][PK_OA_MAX_VALUES];
	static struct pk_oa_value all[MAX_LINES * PK_OA_EVAL_BATCH];
	struct pk_oa_value one[MAX_LINES];

	for (size_t j = 0; j < PK_OA_EVAL_BATCH; j++)
		for (size_t k = 0; k < PK_OA_MAX_VALUES; k++)
			rows[j][k] = deltas[k] * (j + 1) + j;
	pk_oa_eval_run_batch(ev, (const uint64_t (*)[PK_OA_MAX_VALUES])rows, all);
	for (size_t j = 0; j < PK_OA_EVAL_BATCH; j++) {
		pk_oa_eval_run(ev, rows[j], one);
		for (size_t i = 0; i < n_lines; i++)
			CHECK(all[i * PK_OA_EVAL_BATCH + j].type == one[i].type &&
			      all[i * PK_OA_EVAL_BATCH + j].u == one[i].u);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	char *text = malloc(tlen + 1), *lines[MAX_LINES];
	uint64_t deltas[PK_OA_MAX_VALUES] = { 0 };
	struct pk_oa_devvars vars = { 0 };
	struct pk_oa_value ctr[MAX_LINES], v;
	struct pk_oa_counter_info ci[MAX_LINES];
	struct pk_oa_set_info set = { .name = "Fuzz", .symbol_name = "Fuzz", .counters = ci };
	struct pk_oa_env env = { .deltas = deltas, .fmt = NULL, .vars = &vars, .counters = ctr };
	struct pk_oa_expr *e = NULL;
	struct pk_oa_eval *ev = NULL;
	struct pk_diag d;
	size_t rest, n_lines = 0;
	int err;

	if (size >= sizeof(double)) {
		double raw;

		memcpy(&raw, data + size - sizeof(raw), sizeof(raw));
		check_printed(raw);
	}
	if (!text)
		return 0;
	memcpy(text, data, tlen);
	text[tlen] = '\0';
	rest = nul ? size - tlen - 1 : 0;
	if (rest) {
		size_t n = rest < sizeof(deltas) ? rest : sizeof(deltas);

		memcpy(deltas, nul + 1, n);
		if (rest > n)
			memcpy(&vars, nul + 1 + n, rest - n < sizeof(vars) ? rest - n : sizeof(vars));
	}
	env.fmt = pk_oa_format_info(rest && (nul[1] & 1) ? 5 : 10);
	for (size_t i = 0; i < MAX_LINES; i++) {
		ctr[i].type = i & 1 ? PK_OA_FLOAT : PK_OA_UINT64;
		ctr[i].u = deltas[i];
	}

	/* the first line alone */
	for (char *p = text; ; p = strchr(p, '\n') + 1) {
		lines[n_lines++] = p;
		if (!strchr(p, '\n') || n_lines == MAX_LINES)
			break;
	}
	for (size_t i = 0; i < n_lines; i++) {
		char *nl = strchr(lines[i], '\n');

		if (nl)
			*nl = '\0';
	}
	pk_diag_init(&d);
	err = pk_oa_expr_compile(lines[0], names, MAX_LINES, &e, &d);
	if (err) {
		CHECK(e == NULL);
		check_fail(err, &d);
	} else {
		v = pk_oa_expr_eval(e, &env, PK_OA_UINT64);
		CHECK(v.type == PK_OA_UINT64);
		v = pk_oa_expr_eval(e, &env, PK_OA_FLOAT);
		CHECK(v.type == PK_OA_FLOAT);
		check_printed(v.f);
		pk_oa_expr_free(e);
	}

	/* every line a counter of one set */
	memset(ci, 0, sizeof(ci));
	for (size_t i = 0; i < n_lines; i++) {
		ci[i].name = ci[i].symbol_name = names[i];
		ci[i].equation = lines[i];
		ci[i].data_type = i & 1 ? PK_OA_FLOAT : PK_OA_UINT64;
		ci[i].max_equation = i & 1 ? lines[(i + 1) % n_lines] : NULL;
		ci[i].availability = i & 1 ? NULL : lines[i];
	}
	set.n_counters = n_lines;
	pk_diag_init(&d);
	err = pk_oa_eval_new(&set, &vars, env.fmt, &ev, &d);
	if (err) {
		CHECK(ev == NULL);
		check_fail(err, &d);
	} else {
		struct pk_oa_value vals[MAX_LINES];

		struct pk_oa_env set_env = { .deltas = deltas, .fmt = env.fmt, .vars = &vars, .counters = vals };

		CHECK(pk_oa_eval_n_available(ev) <= n_lines);
		pk_oa_eval_run(ev, deltas, vals);
		for (size_t i = 0; i < n_lines; i++) {
			CHECK(vals[i].type == ci[i].data_type);
			CHECK(pk_oa_expr_compile(lines[i], names, n_lines, &e, &d) == 0);
			v = pk_oa_expr_eval(e, &set_env, ci[i].data_type);
			CHECK(v.type == vals[i].type && v.u == vals[i].u);
			pk_oa_expr_free(e);
			err = pk_oa_eval_max(ev, i, deltas, vals, &v);
			CHECK(err == 0 || (err == -ENOENT && !ci[i].max_equation));
		}
		check_batch(ev, deltas, n_lines);
		pk_oa_eval_free(ev);
	}
	free(text);
	return 0;
}
