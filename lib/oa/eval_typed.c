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
 * The values are run()'s bit for bit: test_oa_metrics compares the two on
 * every set of the metric files and on every operator with uint64 and
 * double operands of edge values.
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

void oa_typed_run(const struct typed *t, const uint64_t *deltas, struct pk_oa_value *values)
{
	union slot st[MAX_DEPTH], operand, *a, *b;
	size_t sp = 0;

	for (const struct typed_insn *x = t->v, *end = t->v + t->n; x < end; x++) {
		switch (x->op) {
		case T_PUSH: st[sp++].u = x->imm; continue;
		case T_DELTA: st[sp++].u = deltas[x->idx]; continue;
		case T_CTR: st[sp++].u = values[x->idx].u; continue;
		case T_U2F: a = &st[sp - 1 - x->slot]; a->d = (double)a->u; continue;
		case T_F2U: a = &st[sp - 1 - x->slot]; a->u = oa_f2u(a->d); continue;
		case T_F2B: a = &st[sp - 1 - x->slot]; a->u = a->d != 0; continue;
		case T_NOT: st[sp - 1].u = !st[sp - 1].u; continue;
		case T_STORE:
			values[x->idx].type = (enum pk_oa_data_type)x->type;
			values[x->idx].u = x->slot == FROM_STACK ? st[--sp].u :
					   x->slot == FROM_IMM ? x->imm :
					   x->slot == FROM_DELTA ? deltas[x->imm] : values[x->imm].u;
			continue;
		}
		switch (x->slot) {
		case FROM_IMM: operand.u = x->imm; b = &operand; break;
		case FROM_DELTA: operand.u = deltas[x->idx]; b = &operand; break;
		case FROM_CTR: operand.u = values[x->idx].u; b = &operand; break;
		default: b = &st[--sp]; break;
		}
		a = &st[sp - 1];
		switch (x->op) {
		case T_UADD: a->u += b->u; break;
		case T_USUB: a->u -= b->u; break;
		case T_UMUL: a->u *= b->u; break;
		case T_UMIN: a->u = a->u < b->u ? a->u : b->u; break;
		case T_UDIV: a->u = b->u ? a->u / b->u : 0; break;
		case T_AND: a->u &= b->u; break;
		case T_OR: a->u |= b->u; break;
		case T_SHL: a->u = b->u < 64 ? a->u << b->u : 0; break;
		case T_SHR: a->u = b->u < 64 ? a->u >> b->u : 0; break;
		case T_LAND: a->u = a->u && b->u; break;
		case T_LOR: a->u = a->u || b->u; break;
		case T_ULT: a->u = a->u < b->u; break;
		case T_ULTE: a->u = a->u <= b->u; break;
		case T_UGT: a->u = a->u > b->u; break;
		case T_UGTE: a->u = a->u >= b->u; break;
		case T_UEQ: a->u = a->u == b->u; break;
		case T_FADD: a->d += b->d; break;
		case T_FSUB: a->d -= b->d; break;
		case T_FMUL: a->d *= b->d; break;
		case T_FMIN: a->d = a->d < b->d ? a->d : b->d; break;
		case T_FDIV: a->d = b->d != 0 ? a->d / b->d : 0; break;
		case T_FMAX: a->d = a->d > b->d ? a->d : b->d; break;
		case T_FLT: a->u = a->d < b->d; break;
		case T_FLTE: a->u = a->d <= b->d; break;
		case T_FGT: a->u = a->d > b->d; break;
		case T_FGTE: a->u = a->d >= b->d; break;
		case T_FEQ: a->u = a->d == b->d; break;
		}
	}
}
