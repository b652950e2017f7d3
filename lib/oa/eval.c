/*
 * The RPN equations of Intel's metric XML: compiled once into a flat program
 * of typed stack operations (for a metric set, specialized then for its
 * device and report format), then evaluated on accumulated OA deltas with
 * the semantics of the C code IGT generates from the same equations
 * (perf-equations-codegen.py; ../shared/reference/gpu.md 4.2-4.4), so that
 * every number matches i915-perf-reader's.
 *
 * Grammar: tokens separated by whitespace.
 *
 *   token                  pushes / does                          type
 *   123, 0x7b              the number                             uint64
 *   1.5                    the number                             double
 *   true, false            1, 0                                   uint64
 *   $Name                  device variable, else counter Name     uint64 / counter's type
 *   A B C GPU_TIME         a namespace (only READ may consume it)
 *   GPU_CLOCK PERFCNT
 *   NS n READ              deltas[fmt's offset of NS + n], n literal  uint64
 *   x y OP                 x OP y for the binary operators below
 *   x NOT                  !x                                     uint64
 *
 * Operators and IGT's C for them (tmp types in brackets):
 *
 *   UADD USUB UMUL   uint64 t = x op y            usual conversions, then to uint64
 *   UMIN             uint64 t = MIN(x, y)         same
 *   UDIV             uint64 a = x, b = y; t = b ? a / b : 0
 *   FADD FSUB FMUL   double t = x op y            usual conversions (u64 op u64 wraps)
 *   FDIV             double a = x, b = y; t = b ? a / b : 0
 *   FMAX             double a = x, b = y; t = MAX(a, b)
 *   AND OR << >>     uint64 t = x op y            (operands as uint64)
 *   && || ULT ULTE UGT UGTE EQUALS   C's logical and comparison operators, 0 or 1
 *
 * A stack slot knows whether it holds a uint64 or a double, which is all C's
 * usual arithmetic conversions need here: any double operand makes a binary
 * operation a double one.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eval_int.h"

static const struct {
	const char *tok;
	uint8_t op;
	uint8_t argc;
} operators[] = {
	{ "UADD", I_UADD, 2 }, { "USUB", I_USUB, 2 }, { "UMUL", I_UMUL, 2 },
	{ "UDIV", I_UDIV, 2 }, { "UMIN", I_UMIN, 2 },
	{ "FADD", I_FADD, 2 }, { "FSUB", I_FSUB, 2 }, { "FMUL", I_FMUL, 2 },
	{ "FDIV", I_FDIV, 2 }, { "FMAX", I_FMAX, 2 },
	{ "AND", I_AND, 2 }, { "OR", I_OR, 2 }, { "<<", I_SHL, 2 }, { ">>", I_SHR, 2 },
	{ "&&", I_LAND, 2 }, { "||", I_LOR, 2 },
	{ "ULT", I_ULT, 2 }, { "ULTE", I_ULTE, 2 }, { "UGT", I_UGT, 2 }, { "UGTE", I_UGTE, 2 },
	{ "EQUALS", I_EQ, 2 }, { "NOT", I_NOT, 1 },
};

static const char *const ns_words[PK_OA_NS_COUNT] = {
	[PK_OA_NS_A] = "A",
	[PK_OA_NS_B] = "B",
	[PK_OA_NS_C] = "C",
	[PK_OA_NS_GPU_TIME] = "GPU_TIME",
	[PK_OA_NS_GPU_CLOCK] = "GPU_CLOCK",
	[PK_OA_NS_PERFCNT] = "PERFCNT",
};

/* Device variables: IGT's names (codegen.py hw_vars) and where the value lives. */
static const struct {
	const char *name;
	size_t off;
} devvars[] = {
	{ "EuCoresTotalCount", offsetof(struct pk_oa_devvars, eu_cores_total) },
	{ "EuSlicesTotalCount", offsetof(struct pk_oa_devvars, eu_slices_total) },
	{ "EuSubslicesTotalCount", offsetof(struct pk_oa_devvars, eu_subslices_total) },
	{ "EuDualSubslicesTotalCount", offsetof(struct pk_oa_devvars, eu_subslices_total) },
	{ "EuThreadsCount", offsetof(struct pk_oa_devvars, eu_threads_count) },
	{ "SliceMask", offsetof(struct pk_oa_devvars, slice_mask) },
	{ "SubsliceMask", offsetof(struct pk_oa_devvars, subslice_mask) },
	{ "DualSubsliceMask", offsetof(struct pk_oa_devvars, subslice_mask) },
	{ "GpuTimestampFrequency", offsetof(struct pk_oa_devvars, timestamp_frequency) },
	{ "GpuMinFrequency", offsetof(struct pk_oa_devvars, gt_min_freq) },
	{ "GpuMaxFrequency", offsetof(struct pk_oa_devvars, gt_max_freq) },
	{ "SkuRevisionId", offsetof(struct pk_oa_devvars, revision) },
	{ "QueryMode", offsetof(struct pk_oa_devvars, query_mode) },
};

/* ---- programs ------------------------------------------------------------------ */

static int emit(struct code *c, struct insn in)
{
	if (c->n == c->cap && pk_array_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v), 64))
		return -ENOMEM;
	c->v[c->n++] = in;
	return 0;
}

static int cmp_names(const void *a, const void *b, void *ctx)
{
	const struct names *nm = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int r = strcmp(nm->name[x], nm->name[y]);

	return r ? r : (x > y) - (x < y);
}

int oa_names_init(struct names *nm, const char *const *name, size_t n)
{
	nm->name = name;
	nm->n = n;
	nm->sorted = NULL;
	if (!n)
		return 0;
	nm->sorted = malloc(n * sizeof(*nm->sorted));
	if (!nm->sorted)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		nm->sorted[i] = (uint32_t)i;
	qsort_r(nm->sorted, n, sizeof(*nm->sorted), cmp_names, nm);
	return 0;
}

/* Index of counter @s (@len bytes); the last one of that name, as IGT's dict keeps. -1 if none. */
static long names_find(const struct names *nm, const char *s, size_t len)
{
	size_t lo = 0, hi = nm->n;
	long found = -1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = nm->name[nm->sorted[mid]];
		int r = strncmp(m, s, len);

		if (r == 0 && m[len] != '\0')
			r = 1;
		if (r < 0) {
			lo = mid + 1;
		} else if (r > 0) {
			hi = mid;
		} else {
			found = nm->sorted[mid];
			lo = mid + 1;   /* keep looking for a later index */
		}
	}
	return found;
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

static bool tok_is(const char *t, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(t, word, len) == 0;
}

/* Parse a decimal or 0x literal; 1 uint64, 2 double, 0 not a number, -1 overflow. */
static int parse_number(const char *t, size_t len, uint64_t *u, double *d)
{
	char buf[64];
	size_t i = 0;
	uint64_t v = 0;

	if (len == 0 || t[0] < '0' || t[0] > '9')
		return 0;
	if (len > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
		for (i = 2; i < len; i++) {
			char ch = t[i];
			unsigned dig;

			if (ch >= '0' && ch <= '9')
				dig = (unsigned)(ch - '0');
			else if (ch >= 'a' && ch <= 'f')
				dig = (unsigned)(ch - 'a' + 10);
			else if (ch >= 'A' && ch <= 'F')
				dig = (unsigned)(ch - 'A' + 10);
			else
				return 0;
			if (v > UINT64_MAX >> 4)
				return -1;
			v = v << 4 | dig;
		}
		*u = v;
		return 1;
	}
	for (i = 0; i < len && t[i] >= '0' && t[i] <= '9'; i++) {
		unsigned dig = (unsigned)(t[i] - '0');

		if (v > (UINT64_MAX - dig) / 10)
			return -1;
		v = v * 10 + dig;
	}
	if (i == len) {
		*u = v;
		return 1;
	}
	/* digits '.' digits: a double literal */
	if (t[i] != '.' || i + 1 == len || len >= sizeof(buf))
		return 0;
	for (size_t j = i + 1; j < len; j++)
		if (t[j] < '0' || t[j] > '9')
			return 0;
	memcpy(buf, t, len);
	buf[len] = '\0';
	*d = strtod(buf, NULL);
	return 2;
}

/* What the compiler knows of a stack slot. */
enum slot { S_VALUE, S_LITERAL, S_NS };

/*
 * Compile @text into @c. @what names the expression in messages
 * ("'RenderBasic' counter 'GpuBusy' equation"). @names resolves counter
 * references (NULL: none allowed).
 */
int oa_compile(struct code *c, struct prog *p, const char *text, const struct names *names,
	       const char *what, struct pk_diag *diag)
{
	enum slot kind[MAX_DEPTH];
	uint64_t lit[MAX_DEPTH];
	size_t depth = 0, pos = 0;
	const char *s = text;
	int err;

	p->start = (uint32_t)c->n;
	p->present = true;
	for (;;) {
		const char *t;
		size_t len;
		uint64_t u = 0;
		double d = 0;
		int num;

		while (*s && is_space(*s))
			s++;
		if (!*s)
			break;
		t = s;
		while (*s && !is_space(*s))
			s++;
		len = (size_t)(s - t);
		pos++;

#define FAIL(...) do { \
	char m_[200]; \
	snprintf(m_, sizeof(m_), __VA_ARGS__); \
	return pk_diag_fail(diag, -EINVAL, "%s '%s': %s at token %zu", what, text, m_, pos); \
} while (0)
#define PUSH(k, l) do { \
	if (depth == MAX_DEPTH) \
		FAIL("deeper than %d values", MAX_DEPTH); \
	kind[depth] = (k); \
	lit[depth++] = (l); \
} while (0)

		num = parse_number(t, len, &u, &d);
		if (num < 0)
			FAIL("number '%.*s' does not fit in 64 bits", (int)len, t);
		if (num == 1) {
			if ((err = emit(c, (struct insn){ .op = I_IMM, .imm = u })))
				return err;
			PUSH(S_LITERAL, u);
			continue;
		}
		if (num == 2) {
			memcpy(&u, &d, sizeof(u));
			if ((err = emit(c, (struct insn){ .op = I_FIMM, .imm = u })))
				return err;
			PUSH(S_VALUE, 0);
			continue;
		}
		if (tok_is(t, len, "true") || tok_is(t, len, "false")) {
			if ((err = emit(c, (struct insn){ .op = I_IMM, .imm = t[0] == 't' })))
				return err;
			PUSH(S_VALUE, 0);
			continue;
		}
		if (t[0] == '$') {
			size_t i;
			long ci;

			for (i = 0; i < sizeof(devvars) / sizeof(devvars[0]); i++)
				if (tok_is(t + 1, len - 1, devvars[i].name))
					break;
			if (i < sizeof(devvars) / sizeof(devvars[0])) {
				if ((err = emit(c, (struct insn){ .op = I_VAR, .idx = (uint32_t)i })))
					return err;
				PUSH(S_VALUE, 0);
				continue;
			}
			ci = names && len > 1 ? names_find(names, t + 1, len - 1) : -1;
			if (ci < 0)
				FAIL("unknown variable '%.*s'", (int)len, t);
			if ((err = emit(c, (struct insn){ .op = I_CTR, .idx = (uint32_t)ci })))
				return err;
			PUSH(S_VALUE, 0);
			continue;
		}
		{
			int ns = -1;

			for (int i = 0; i < PK_OA_NS_COUNT; i++)
				if (tok_is(t, len, ns_words[i]))
					ns = i;
			if (ns >= 0) {
				PUSH(S_NS, (uint64_t)ns);
				continue;
			}
		}
		if (tok_is(t, len, "READ")) {
			if (depth < 2)
				FAIL("READ needs a namespace and a counter number");
			if (kind[depth - 1] != S_LITERAL)
				FAIL("READ needs a literal counter number");
			if (kind[depth - 2] != S_NS)
				FAIL("READ needs a namespace (A, B, C, GPU_TIME, GPU_CLOCK, PERFCNT)");
			if (lit[depth - 1] >= PK_OA_MAX_VALUES)
				FAIL("READ of counter %llu, past the %d accumulated deltas",
				     (unsigned long long)lit[depth - 1], PK_OA_MAX_VALUES);
			/* the literal's I_IMM was the last instruction emitted: replace it */
			c->v[c->n - 1] = (struct insn){ .op = I_READ, .ns = (uint8_t)lit[depth - 2],
							 .idx = (uint32_t)lit[depth - 1] };
			depth -= 2;
			PUSH(S_VALUE, 0);
			continue;
		}
		{
			size_t i;

			for (i = 0; i < sizeof(operators) / sizeof(operators[0]); i++)
				if (tok_is(t, len, operators[i].tok))
					break;
			if (i == sizeof(operators) / sizeof(operators[0]))
				FAIL("unknown token '%.*s'", (int)len, t);
			if (depth < operators[i].argc)
				FAIL("%s needs %u operands, the stack holds %zu", operators[i].tok,
				     operators[i].argc, depth);
			for (unsigned k = 0; k < operators[i].argc; k++)
				if (kind[depth - 1 - k] == S_NS)
					FAIL("namespace '%s' used as a value by %s",
					     ns_words[lit[depth - 1 - k]], operators[i].tok);
			if ((err = emit(c, (struct insn){ .op = operators[i].op })))
				return err;
			depth -= operators[i].argc;
			PUSH(S_VALUE, 0);
		}
	}
	if (depth != 1) {
		if (depth == 0)
			return pk_diag_fail(diag, -EINVAL, "%s '%s': empty expression", what, text);
		return pk_diag_fail(diag, -EINVAL, "%s '%s': %zu values left at the end, not 1 (after token %zu)",
				    what, text, depth, pos);
	}
	if (kind[0] == S_NS)
		return pk_diag_fail(diag, -EINVAL, "%s '%s': namespace '%s' without READ", what, text,
				    ns_words[lit[0]]);
	p->n = (uint32_t)(c->n - p->start);
#undef FAIL
#undef PUSH
	return 0;
}

/* ---- evaluation ---------------------------------------------------------------- */

struct val {
	bool f;
	union {
		uint64_t u;
		double d;
	};
};

static inline double as_d(struct val v)
{
	return v.f ? v.d : (double)v.u;
}

static inline uint64_t as_u(struct val v)
{
	return v.f ? oa_f2u(v.d) : v.u;
}

static inline struct val U(uint64_t u)
{
	return (struct val){ .f = false, .u = u };
}

static inline struct val F(double d)
{
	return (struct val){ .f = true, .d = d };
}

static inline bool truth(struct val v)
{
	return v.f ? v.d != 0 : v.u != 0;
}

/* Where namespace @ns starts in the deltas of format @f, -1 when it has none. */
static inline int ns_offset(const struct pk_oa_format_info *f, unsigned ns)
{
	switch (ns) {
	case PK_OA_NS_A: return f->a;
	case PK_OA_NS_B: return f->b;
	case PK_OA_NS_C: return f->c;
	case PK_OA_NS_GPU_TIME: return f->gpu_time;
	case PK_OA_NS_GPU_CLOCK: return f->gpu_clock;
	case PK_OA_NS_PERFCNT: return f->perfcnt;
	}
	return -1;
}

/* The delta index "@ns @idx READ" reads in format @f (NULL: none), PK_OA_MAX_VALUES when none (it reads 0). */
static inline uint64_t read_index(const struct pk_oa_format_info *f, unsigned ns, uint32_t idx)
{
	int off = f ? ns_offset(f, ns) : -1;
	uint64_t at = off >= 0 ? (uint64_t)off + idx : PK_OA_MAX_VALUES;

	return at < PK_OA_MAX_VALUES ? at : PK_OA_MAX_VALUES;
}

static struct val run(const struct insn *in, size_t n, const struct pk_oa_env *env)
{
	struct val st[MAX_DEPTH];
	size_t sp = 0;

	for (size_t i = 0; i < n; i++) {
		const struct insn *x = &in[i];
		struct val a, b, r;
		bool fl;

		switch (x->op) {
		case I_IMM:
			st[sp++] = U(x->imm);
			continue;
		case I_FIMM: {
			double d;

			memcpy(&d, &x->imm, sizeof(d));
			st[sp++] = F(d);
			continue;
		}
		case I_VAR: {
			uint64_t v = 0;

			if (env->vars)
				memcpy(&v, (const char *)env->vars + devvars[x->idx].off, sizeof(v));
			st[sp++] = U(v);
			continue;
		}
		case I_READ: {
			uint64_t at = read_index(env->fmt, x->ns, x->idx);

			st[sp++] = U(env->deltas && at < PK_OA_MAX_VALUES ? env->deltas[at] : 0);
			continue;
		}
		case I_DELTA:
			st[sp++] = U(env->deltas ? env->deltas[x->idx] : 0);
			continue;
		case I_CTR: {
			const struct pk_oa_value *cv = env->counters ? &env->counters[x->idx] : NULL;

			st[sp++] = !cv ? U(0) : cv->type == PK_OA_FLOAT ? F(cv->f) : U(cv->u);
			continue;
		}
		case I_NOT:
			st[sp - 1] = U(!truth(st[sp - 1]));
			continue;
		default:
			break;
		}
		b = st[--sp];
		a = st[sp - 1];
		fl = a.f || b.f;
		switch (x->op) {
		case I_UADD:
			r = U(fl ? oa_f2u(as_d(a) + as_d(b)) : a.u + b.u);
			break;
		case I_USUB:
			r = U(fl ? oa_f2u(as_d(a) - as_d(b)) : a.u - b.u);
			break;
		case I_UMUL:
			r = U(fl ? oa_f2u(as_d(a) * as_d(b)) : a.u * b.u);
			break;
		case I_UMIN:
			if (fl)
				r = U(oa_f2u(as_d(a) < as_d(b) ? as_d(a) : as_d(b)));
			else
				r = U(a.u < b.u ? a.u : b.u);
			break;
		case I_UDIV: {
			uint64_t ua = as_u(a), ub = as_u(b);

			r = U(ub ? ua / ub : 0);
			break;
		}
		case I_FADD:
			r = F(fl ? as_d(a) + as_d(b) : (double)(a.u + b.u));
			break;
		case I_FSUB:
			r = F(fl ? as_d(a) - as_d(b) : (double)(a.u - b.u));
			break;
		case I_FMUL:
			r = F(fl ? as_d(a) * as_d(b) : (double)(a.u * b.u));
			break;
		case I_FDIV: {
			double da = as_d(a), db = as_d(b);

			r = F(db != 0 ? da / db : 0);
			break;
		}
		case I_FMAX: {
			double da = as_d(a), db = as_d(b);

			r = F(da > db ? da : db);
			break;
		}
		case I_AND:
			r = U(as_u(a) & as_u(b));
			break;
		case I_OR:
			r = U(as_u(a) | as_u(b));
			break;
		case I_SHL:
			r = U(as_u(b) < 64 ? as_u(a) << as_u(b) : 0);
			break;
		case I_SHR:
			r = U(as_u(b) < 64 ? as_u(a) >> as_u(b) : 0);
			break;
		case I_LAND:
			r = U(truth(a) && truth(b));
			break;
		case I_LOR:
			r = U(truth(a) || truth(b));
			break;
		case I_ULT:
			r = U(fl ? as_d(a) < as_d(b) : a.u < b.u);
			break;
		case I_ULTE:
			r = U(fl ? as_d(a) <= as_d(b) : a.u <= b.u);
			break;
		case I_UGT:
			r = U(fl ? as_d(a) > as_d(b) : a.u > b.u);
			break;
		case I_UGTE:
			r = U(fl ? as_d(a) >= as_d(b) : a.u >= b.u);
			break;
		case I_EQ:
			r = U(fl ? as_d(a) == as_d(b) : a.u == b.u);
			break;
		default:
			r = U(0);
			break;
		}
		st[sp - 1] = r;
	}
	return sp ? st[sp - 1] : U(0);
}

static struct pk_oa_value to_value(struct val v, enum pk_oa_data_type type)
{
	struct pk_oa_value out = { .type = type };

	if (type == PK_OA_FLOAT)
		out.f = as_d(v);
	else
		out.u = as_u(v);
	return out;
}

/* ---- one expression ------------------------------------------------------------ */

struct pk_oa_expr {
	struct code code;
	struct prog prog;
};

PK_API int pk_oa_expr_compile(const char *text, const char *const *counter_names,
			      size_t n_counters, struct pk_oa_expr **out, struct pk_diag *diag)
{
	struct pk_oa_expr *e;
	struct names nm;
	int err;

	*out = NULL;
	if (!text)
		return pk_diag_fail(diag, -EINVAL, "no equation");
	for (size_t i = 0; i < n_counters; i++)
		if (!counter_names[i])
			return pk_diag_fail(diag, -EINVAL, "counter name %zu is NULL", i);
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	if ((err = oa_names_init(&nm, counter_names, n_counters))) {
		free(e);
		return err;
	}
	err = oa_compile(&e->code, &e->prog, text, &nm, "equation", diag);
	free(nm.sorted);
	if (err) {
		pk_oa_expr_free(e);
		return err;
	}
	*out = e;
	return 0;
}

PK_API void pk_oa_expr_free(struct pk_oa_expr *e)
{
	if (!e)
		return;
	free(e->code.v);
	free(e);
}

PK_API struct pk_oa_value pk_oa_expr_eval(const struct pk_oa_expr *e, const struct pk_oa_env *env,
					  enum pk_oa_data_type type)
{
	static const struct pk_oa_env none;

	return oa_prog_eval(&e->code, &e->prog, env ? env : &none, type);
}

struct pk_oa_value oa_prog_eval(const struct code *c, const struct prog *p, const struct pk_oa_env *env,
				enum pk_oa_data_type type)
{
	return to_value(run(c->v + p->start, p->n, env), type);
}

/* An instruction pushing @v. */
static struct insn constant(struct val v)
{
	struct insn x = { .op = v.f ? I_FIMM : I_IMM };

	if (v.f)
		memcpy(&x.imm, &v.d, sizeof(v.d));
	else
		x.imm = v.u;
	return x;
}

static bool is_constant(const struct insn *x)
{
	return x->op == I_IMM || x->op == I_FIMM;
}

void oa_prog_specialize(struct code *c, struct prog *p, const struct pk_oa_env *env)
{
	struct insn *v = c->v + p->start;
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->n; i++) {
		struct insn x = v[i];
		/*
		 * every instruction leaves one value on top, so an operator's
		 * operands are constants when the last 1 (NOT) or 2 kept
		 * instructions push constants
		 */
		uint32_t argc = x.op == I_NOT ? 1 : x.op > I_DELTA ? 2 : 0;

		if (x.op == I_VAR) {
			x = constant(run(&x, 1, env));
		} else if (x.op == I_READ) {
			uint64_t at = read_index(env->fmt, x.ns, x.idx);

			x = at < PK_OA_MAX_VALUES ? (struct insn){ .op = I_DELTA, .idx = (uint32_t)at }
						  : constant(U(0));
		} else if (argc && n >= argc && is_constant(&v[n - 1]) &&
			   (argc == 1 || is_constant(&v[n - 2]))) {
			struct insn t[3];

			memcpy(t, v + n - argc, argc * sizeof(*t));
			t[argc] = x;
			n -= argc;
			x = constant(run(t, argc + 1, env));
		}
		v[n++] = x;
	}
	p->n = n;
}

bool oa_prog_true(const struct code *c, const struct prog *p, const struct pk_oa_env *env)
{
	return truth(run(c->v + p->start, p->n, env));
}
