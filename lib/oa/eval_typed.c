/*
 * A metric set's equations as one typed program, which pk_oa_eval_run()
 * runs for every segment. Once a program is specialized (eval.c), the type
 * of every stack slot is known when compiling: an integer literal or a
 * delta is a uint64, a float literal a double, $Counter its counter's type,
 * and each operator's result follows from its operands' types. So the run
 * needs no tags and tests no types: where eval.c's run() converts an
 * operand (as_d, as_u, truth), the typed program has a conversion
 * instruction of its own, and each operator one version per domain. The
 * counters' programs follow each other in evaluation order, each ending in
 * a store of its value, so one call evaluates the whole set. An operator or
 * a store whose operand was just pushed (a literal, a delta, a counter)
 * takes it from there itself: a quarter fewer instructions for Intel's files.
 *
 * The same program runs on one delta array or on PK_OA_EVAL_BATCH at once:
 * then each instruction loops over the arrays, so its dispatch is paid once
 * for all of them and the loops vectorize. A segment of Broadwell's
 * RenderBasic (213 instructions) takes about 125 ns that way against 340 ns
 * alone. One source, run_arrays(), serves both, with the width a constant.
 *
 * The values are eval.c's run()'s bit for bit: test_oa_metrics compares the
 * two on every set of the metric files and on every operator with uint64
 * and double operands of edge values, and a batch with each of its arrays
 * run alone.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "eval_int.h"

enum typed_op {
	T_PUSH,                   /* push imm (its bits: a uint64 or a double) */
	T_DELTA,                  /* push deltas[idx] */
	T_CTR,                    /* push the value of counter idx (its bits) */
	T_U2F, T_F2U, T_F2B,      /* slot: uint64 -> double, double -> uint64 (oa_f2u), -> d != 0 */
	T_NOT,                    /* uint64: !x */
	/* uint64 x uint64 -> uint64 */
	T_UADD, T_USUB, T_UMUL, T_UMIN, T_UDIV, T_AND, T_OR, T_SHL, T_SHR,
	T_LAND, T_LOR, T_ULT, T_ULTE, T_UGT, T_UGTE, T_UEQ,
	/* double x double -> double */
	T_FADD, T_FSUB, T_FMUL, T_FMIN, T_FDIV, T_FMAX,
	/* double x double -> uint64 (0 or 1) */
	T_FLT, T_FLTE, T_FGT, T_FGTE, T_FEQ,
	T_STORE,                  /* counter idx, of type imm, from the top (popped) or as operands */
};

/* A program being typed: the slots' types (true: double). */
struct typing {
	struct typed *t;
	bool f[MAX_DEPTH];
	size_t sp;
	size_t pushed;            /* t->n after the last push of the top slot, else 0 */
};

/*
 * Where an operator's right operand or a store's value comes from (its slot
 * field): the stack, the instruction's imm, deltas[idx] or counter idx's
 * value (a store's idx is its counter: it reads index imm instead).
 */
enum { FROM_STACK, FROM_IMM, FROM_DELTA, FROM_CTR };

static bool is_binary(uint8_t op)
{
	return op >= T_UADD && op < T_STORE;
}

static int put(struct typing *ty, uint8_t op, uint8_t slot, uint32_t idx, uint64_t imm)
{
	struct typed *t = ty->t;
	struct typed_insn *last = t->n ? &t->v[t->n - 1] : NULL;

	if ((is_binary(op) || op == T_STORE) && ty->pushed == t->n && last) {
		/* the operand was pushed just before: the operator or store takes it */
		uint8_t from = last->op == T_PUSH ? FROM_IMM : last->op == T_DELTA ? FROM_DELTA : FROM_CTR;

		if (op == T_STORE)
			*last = (struct typed_insn){ .op = op, .slot = from, .idx = idx,
						     .imm = from == FROM_IMM ? last->imm : last->idx,
						     .type = (uint8_t)imm };
		else
			*last = (struct typed_insn){ .op = op, .slot = from, .idx = last->idx, .imm = last->imm };
		ty->pushed = 0;
		return 0;
	}
	if (t->n == t->cap && pk_array_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v), 256))
		return -ENOMEM;
	t->v[t->n++] = (struct typed_insn){ .op = op, .slot = slot, .idx = idx, .imm = imm,
					    .type = (uint8_t)(op == T_STORE ? imm : 0) };
	ty->pushed = op == T_PUSH || op == T_DELTA || op == T_CTR ? t->n : 0;
	return 0;
}

union slot {
	uint64_t u;
	double d;
};

/* Conversion @conv done now on the literal just pushed. */
static void convert_literal(struct typing *ty, uint8_t conv)
{
	union slot v = { .u = ty->t->v[ty->t->n - 1].imm };

	if (conv == T_U2F)
		v.d = (double)v.u;
	else
		v.u = conv == T_F2U ? oa_f2u(v.d) : v.d != 0;
	ty->t->v[ty->t->n - 1].imm = v.u;
}

/* Make slot @slot (0: top) a double (@to_f), else a uint64; @truth: a uint64 d != 0. */
static int convert(struct typing *ty, uint8_t slot, bool to_f, bool truth)
{
	bool *f = &ty->f[ty->sp - 1 - slot];
	uint8_t conv = to_f ? T_U2F : truth ? T_F2B : T_F2U;

	if (*f == to_f)
		return 0;
	*f = to_f;
	if (slot == 0 && ty->pushed == ty->t->n && ty->t->v[ty->t->n - 1].op == T_PUSH) {
		convert_literal(ty, conv);
		return 0;
	}
	if (slot == 1 && ty->pushed == ty->t->n) {
		/* below a value just pushed: converted before that push, as the top then */
		struct typed_insn push = ty->t->v[--ty->t->n];
		int err = put(ty, conv, 0, 0, 0);

		return err ? err : put(ty, push.op, 0, push.idx, push.imm);
	}
	return put(ty, conv, slot, 0, 0);
}

/* Both operands doubles (@to_f), uint64s, or truth values. */
static int convert2(struct typing *ty, bool to_f, bool truth)
{
	int err = convert(ty, 1, to_f, truth);

	return err ? err : convert(ty, 0, to_f, truth);
}

/* Operator @op of eval.c on the two top slots: the typed instructions, the result's type in *@f. */
static int binary(struct typing *ty, uint8_t op, bool *f)
{
	static const struct {
		uint8_t u, d;             /* the instruction for uint64s, for doubles (if any) */
	} arith[] = {
		[I_UDIV] = { T_UDIV, 0 }, [I_AND] = { T_AND, 0 }, [I_OR] = { T_OR, 0 },
		[I_SHL] = { T_SHL, 0 }, [I_SHR] = { T_SHR, 0 },
		[I_LAND] = { T_LAND, 0 }, [I_LOR] = { T_LOR, 0 },
		[I_FDIV] = { 0, T_FDIV }, [I_FMAX] = { 0, T_FMAX },
		[I_UADD] = { T_UADD, T_FADD }, [I_USUB] = { T_USUB, T_FSUB },
		[I_UMUL] = { T_UMUL, T_FMUL }, [I_UMIN] = { T_UMIN, T_FMIN },
		[I_FADD] = { T_UADD, T_FADD }, [I_FSUB] = { T_USUB, T_FSUB },
		[I_FMUL] = { T_UMUL, T_FMUL },
		[I_ULT] = { T_ULT, T_FLT }, [I_ULTE] = { T_ULTE, T_FLTE },
		[I_UGT] = { T_UGT, T_FGT }, [I_UGTE] = { T_UGTE, T_FGTE }, [I_EQ] = { T_UEQ, T_FEQ },
	};
	bool fl = ty->f[ty->sp - 2] || ty->f[ty->sp - 1];
	int err;

	switch (op) {
	case I_UDIV: case I_AND: case I_OR: case I_SHL: case I_SHR: case I_LAND: case I_LOR:
		/* on uint64s (on truth values for && and ||) */
		*f = false;
		if ((err = convert2(ty, false, op == I_LAND || op == I_LOR)))
			return err;
		return put(ty, arith[op].u, 0, 0, 0);
	case I_FDIV: case I_FMAX:
		*f = true;
		if ((err = convert2(ty, true, false)))
			return err;
		return put(ty, arith[op].d, 0, 0, 0);
	case I_UADD: case I_USUB: case I_UMUL: case I_UMIN:
		/* in doubles when either is one, the result as a uint64 */
		*f = false;
		if (!fl)
			return put(ty, arith[op].u, 0, 0, 0);
		if ((err = convert2(ty, true, false)) || (err = put(ty, arith[op].d, 0, 0, 0)))
			return err;
		return put(ty, T_F2U, 0, 0, 0);
	case I_FADD: case I_FSUB: case I_FMUL:
		/* in uint64s when both are, the result as a double */
		*f = true;
		if (fl)
			return (err = convert2(ty, true, false)) ? err : put(ty, arith[op].d, 0, 0, 0);
		if ((err = put(ty, arith[op].u, 0, 0, 0)))
			return err;
		return put(ty, T_U2F, 0, 0, 0);
	case I_ULT: case I_ULTE: case I_UGT: case I_UGTE: case I_EQ:
		*f = false;
		if (fl && (err = convert2(ty, true, false)))
			return err;
		return put(ty, fl ? arith[op].d : arith[op].u, 0, 0, 0);
	}
	return -EPROTO;
}

int oa_typed_add(struct typed *t, const struct code *c, const struct prog *p,
		 const struct pk_oa_counter_info *counters, uint32_t idx)
{
	struct typing ty = { .t = t };
	bool to_f = counters[idx].data_type == PK_OA_FLOAT;
	int err = 0;

	for (uint32_t k = 0; k < p->n && !err; k++) {
		const struct insn *x = &c->v[p->start + k];
		bool f;

		switch (x->op) {
		case I_IMM:
		case I_FIMM:
		case I_DELTA:
		case I_CTR:
			if (ty.sp == MAX_DEPTH)
				return -EPROTO;
			f = x->op == I_FIMM || (x->op == I_CTR && counters[x->idx].data_type == PK_OA_FLOAT);
			err = put(&ty, x->op == I_DELTA ? T_DELTA : x->op == I_CTR ? T_CTR : T_PUSH, 0,
				  x->idx, x->imm);
			ty.f[ty.sp++] = f;
			break;
		case I_NOT:
			if (ty.sp < 1)
				return -EPROTO;
			if (!(err = convert(&ty, 0, false, true)))
				err = put(&ty, T_NOT, 0, 0, 0);
			break;
		default:
			if (ty.sp < 2)
				return -EPROTO;
			if (!(err = binary(&ty, x->op, &f))) {
				ty.sp--;
				ty.f[ty.sp - 1] = f;
			}
			break;
		}
	}
	if (err)
		return err;
	if (ty.sp != 1)
		return -EPROTO;
	if ((err = convert(&ty, 0, to_f, false)))
		return err;
	return put(&ty, T_STORE, 0, idx, (uint64_t)counters[idx].data_type);
}

/*
 * The run of @t on @n delta arrays at once: counter idx of deltas[j] into
 * values[idx * n + j]. Each instruction does its work for the n arrays in a
 * loop, so the dispatch is paid once per n arrays and the loops vectorize;
 * @n is a constant in each caller, so the one-array run has no loops left.
 * @st: room for MAX_DEPTH * n slots, @operand for n.
 */
static inline __attribute__((always_inline)) void
run_arrays(const struct typed *t, const size_t n, const uint64_t (*deltas)[PK_OA_MAX_VALUES],
	   struct pk_oa_value *values, union slot *st, union slot *operand)
{
	size_t sp = 0;

#define EACH(stmt) for (size_t j = 0; j < n; j++) { stmt; }
	for (const struct typed_insn *x = t->v, *end = t->v + t->n; x < end; x++) {
		union slot *a, *b;
		struct pk_oa_value *o;

		switch (x->op) {
		case T_PUSH: a = &st[sp++ * n]; EACH(a[j].u = x->imm) continue;
		case T_DELTA: a = &st[sp++ * n]; EACH(a[j].u = deltas[j][x->idx]) continue;
		case T_CTR: a = &st[sp++ * n]; o = &values[x->idx * n]; EACH(a[j].u = o[j].u) continue;
		case T_U2F: a = &st[(sp - 1 - x->slot) * n]; EACH(a[j].d = (double)a[j].u) continue;
		case T_F2U: a = &st[(sp - 1 - x->slot) * n]; EACH(a[j].u = oa_f2u(a[j].d)) continue;
		case T_F2B: a = &st[(sp - 1 - x->slot) * n]; EACH(a[j].u = a[j].d != 0) continue;
		case T_NOT: a = &st[(sp - 1) * n]; EACH(a[j].u = !a[j].u) continue;
		case T_STORE: {
			enum pk_oa_data_type type = (enum pk_oa_data_type)x->type;

			o = &values[x->idx * n];
			if (x->slot == FROM_STACK) {
				a = &st[--sp * n];
				EACH(o[j].type = type; o[j].u = a[j].u)
			} else if (x->slot == FROM_IMM) {
				EACH(o[j].type = type; o[j].u = x->imm)
			} else if (x->slot == FROM_DELTA) {
				EACH(o[j].type = type; o[j].u = deltas[j][x->imm])
			} else {
				const struct pk_oa_value *from = &values[x->imm * n];

				EACH(o[j].type = type; o[j].u = from[j].u)
			}
			continue;
		}
		}
		b = operand;
		switch (x->slot) {
		case FROM_IMM: EACH(b[j].u = x->imm) break;
		case FROM_DELTA: EACH(b[j].u = deltas[j][x->idx]) break;
		case FROM_CTR: o = &values[x->idx * n]; EACH(b[j].u = o[j].u) break;
		default: b = &st[--sp * n]; break;
		}
		a = &st[(sp - 1) * n];
		switch (x->op) {
		case T_UADD: EACH(a[j].u += b[j].u) break;
		case T_USUB: EACH(a[j].u -= b[j].u) break;
		case T_UMUL: EACH(a[j].u *= b[j].u) break;
		case T_UMIN: EACH(a[j].u = a[j].u < b[j].u ? a[j].u : b[j].u) break;
		case T_UDIV: EACH(a[j].u = b[j].u ? a[j].u / b[j].u : 0) break;
		case T_AND: EACH(a[j].u &= b[j].u) break;
		case T_OR: EACH(a[j].u |= b[j].u) break;
		case T_SHL: EACH(a[j].u = b[j].u < 64 ? a[j].u << b[j].u : 0) break;
		case T_SHR: EACH(a[j].u = b[j].u < 64 ? a[j].u >> b[j].u : 0) break;
		case T_LAND: EACH(a[j].u = a[j].u && b[j].u) break;
		case T_LOR: EACH(a[j].u = a[j].u || b[j].u) break;
		case T_ULT: EACH(a[j].u = a[j].u < b[j].u) break;
		case T_ULTE: EACH(a[j].u = a[j].u <= b[j].u) break;
		case T_UGT: EACH(a[j].u = a[j].u > b[j].u) break;
		case T_UGTE: EACH(a[j].u = a[j].u >= b[j].u) break;
		case T_UEQ: EACH(a[j].u = a[j].u == b[j].u) break;
		case T_FADD: EACH(a[j].d += b[j].d) break;
		case T_FSUB: EACH(a[j].d -= b[j].d) break;
		case T_FMUL: EACH(a[j].d *= b[j].d) break;
		case T_FMIN: EACH(a[j].d = a[j].d < b[j].d ? a[j].d : b[j].d) break;
		case T_FDIV: EACH(a[j].d = b[j].d != 0 ? a[j].d / b[j].d : 0) break;
		case T_FMAX: EACH(a[j].d = a[j].d > b[j].d ? a[j].d : b[j].d) break;
		case T_FLT: EACH(a[j].u = a[j].d < b[j].d) break;
		case T_FLTE: EACH(a[j].u = a[j].d <= b[j].d) break;
		case T_FGT: EACH(a[j].u = a[j].d > b[j].d) break;
		case T_FGTE: EACH(a[j].u = a[j].d >= b[j].d) break;
		case T_FEQ: EACH(a[j].u = a[j].d == b[j].d) break;
		}
	}
#undef EACH
}

void oa_typed_run(const struct typed *t, const uint64_t *deltas, struct pk_oa_value *values)
{
	union slot st[MAX_DEPTH], operand;

	run_arrays(t, 1, (const uint64_t (*)[PK_OA_MAX_VALUES])deltas, values, st, &operand);
}

/*
 * The batch run, vectorized for AVX2 where the CPU has it (static: clang
 * names a non-static clone's dispatcher differently). The sanitizer build
 * (PK_NO_TARGET_CLONES) has the baseline only, as report.c's run_a32u40.
 */
#ifndef PK_NO_TARGET_CLONES
__attribute__((target_clones("avx2", "default")))
#endif
static void run_batch(const struct typed *t, const uint64_t (*deltas)[PK_OA_MAX_VALUES],
		      struct pk_oa_value *values)
{
	union slot st[MAX_DEPTH * PK_OA_EVAL_BATCH], operand[PK_OA_EVAL_BATCH];

	run_arrays(t, PK_OA_EVAL_BATCH, deltas, values, st, operand);
}

void oa_typed_run_batch(const struct typed *t, const uint64_t (*deltas)[PK_OA_MAX_VALUES],
			struct pk_oa_value *values)
{
	run_batch(t, deltas, values);
}
