/*
 * Private pieces of the equation evaluator shared by eval.c (compiling and
 * running one expression) and eval_set.c (a metric set compiled for one
 * device): the instruction set and the compiled-program containers.
 */
#ifndef PERFKIT_OA_EVAL_INT_H
#define PERFKIT_OA_EVAL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <perfkit/oa.h>

/* Deepest stack an expression may use (IGT's files use at most a handful). */
#define MAX_DEPTH 64

enum opcode {
	I_IMM,    /* push imm (uint64) */
	I_FIMM,   /* push imm reinterpreted as double */
	I_VAR,    /* push device variable idx */
	I_READ,   /* push deltas[off[ns] + idx] */
	I_CTR,    /* push counters[idx] */
	I_DELTA,  /* push deltas[idx] (a READ resolved by oa_prog_specialize) */
	I_UADD, I_USUB, I_UMUL, I_UDIV, I_UMIN,
	I_FADD, I_FSUB, I_FMUL, I_FDIV, I_FMAX,
	I_AND, I_OR, I_SHL, I_SHR,
	I_LAND, I_LOR, I_ULT, I_ULTE, I_UGT, I_UGTE, I_EQ,
	I_NOT,
};

struct insn {
	uint8_t op;
	uint8_t ns;
	uint32_t idx;
	uint64_t imm;
};

/* A growable instruction array shared by all programs of one set. */
struct code {
	struct insn *v;
	size_t n, cap;
};

/* One compiled expression: a slice of a struct code. */
struct prog {
	uint32_t start, n;
	bool present;
};

/* Looks up $names of counters: sorted (name, index) pairs. */
struct names {
	const char *const *name;   /* by counter index */
	uint32_t *sorted;          /* indices sorted by name, then index */
	size_t n;
};

/*
 * (uint64_t)d as x86-64 code from GCC computes it (cvttsd2si, with 2^63
 * subtracted first for large values), without C's undefined behaviour
 * outside [0, 2^64): negative values above -2^63 wrap, values from 2^64 up
 * give 0, NaN and values at or below -2^63 give 2^63.
 */
static inline uint64_t oa_f2u(double d)
{
	if (d >= 9223372036854775808.0) {
		if (d < 18446744073709551616.0)
			return (uint64_t)(d - 9223372036854775808.0) ^ 0x8000000000000000ULL;
		return 0;
	}
	if (d > -9223372036854775808.0)
		return (uint64_t)(int64_t)d;
	return 0x8000000000000000ULL;
}

/* Sort @n counter names (by index in @name) for $Name lookups. 0 or -ENOMEM. */
int oa_names_init(struct names *nm, const char *const *name, size_t n);
/*
 * Compile @text into @c as program @p. @what names the expression in
 * messages; @names resolves counter references (NULL: none allowed).
 */
int oa_compile(struct code *c, struct prog *p, const char *text, const struct names *names,
	       const char *what, struct pk_diag *diag);
/* Run program @p of @c and convert the result to @type. */
struct pk_oa_value oa_prog_eval(const struct code *c, const struct prog *p, const struct pk_oa_env *env,
				enum pk_oa_data_type type);
/*
 * Specialize program @p of @c (in place; it can only shrink) for the device
 * variables and format of @env, which must be those of every later run:
 * variables become constants, READs direct delta indices, and operations
 * whose operands are all constants are done once, by the same code that
 * runs programs, so results are unchanged.
 */
void oa_prog_specialize(struct code *c, struct prog *p, const struct pk_oa_env *env);
/* Run program @p of @c as a predicate. */
bool oa_prog_true(const struct code *c, const struct prog *p, const struct pk_oa_env *env);

/*
 * A metric set's specialized programs as one typed program (eval_typed.c):
 * each slot's type known when compiling, conversions as instructions, one
 * store per counter.
 */
struct typed_insn {
	uint8_t op;
	uint8_t slot;             /* conversions: 0 the top of the stack, 1 the value below */
	uint8_t type;             /* stores: the counter's enum pk_oa_data_type */
	uint32_t idx;
	uint64_t imm;
};

struct typed {
	struct typed_insn *v;
	size_t n, cap;
};

/*
 * Append program @p of @c (specialized: no I_VAR or I_READ left), then a
 * store of its value as counter @idx of @counters (whose types $Counter
 * references take). 0, -ENOMEM, or -EPROTO for an instruction it cannot
 * type.
 */
int oa_typed_add(struct typed *t, const struct code *c, const struct prog *p,
		 const struct pk_oa_counter_info *counters, uint32_t idx);
/* Run @t: every counter it stores into @values, from @deltas and the values stored before. */
void oa_typed_run(const struct typed *t, const uint64_t *deltas, struct pk_oa_value *values);
/* @t on PK_OA_EVAL_BATCH delta arrays at once: counter idx of deltas[j] into values[idx * PK_OA_EVAL_BATCH + j]. */
void oa_typed_run_batch(const struct typed *t, const uint64_t (*deltas)[PK_OA_MAX_VALUES],
			struct pk_oa_value *values);

#endif
