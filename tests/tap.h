/*
 * A minimal TAP producer for perfkit's C unit tests, run by prove.
 * ok(cond, name, ...) prints "ok N - name" or "not ok N - name" with a
 * diagnostic line giving file and line; is_int/is_str/is_dbl show the values
 * that differed. done_testing() prints the plan and returns the exit status.
 */
#ifndef PERFKIT_TESTS_TAP_H
#define PERFKIT_TESTS_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

static inline int tap_result(int pass, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline int tap_result(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("%sok %d - ", pass ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

#define ok(cond, ...) tap_result(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, ...) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (!tap_result(g_ == w_, __FILE__, __LINE__, __VA_ARGS__)) \
		printf("#   got %lld, want %lld\n", g_, w_); \
} while (0)

#define is_str(got, want, ...) do { \
	const char *g_ = (got), *w_ = (want); \
	int p_ = (g_ && w_) ? strcmp(g_, w_) == 0 : g_ == w_; \
	if (!tap_result(p_, __FILE__, __LINE__, __VA_ARGS__)) \
		printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

/* Doubles equal within a relative tolerance @tol. */
#define is_dbl(got, want, tol, ...) do { \
	double g_ = (got), w_ = (want); \
	double d_ = fabs(g_ - w_), s_ = fabs(w_) > 1 ? fabs(w_) : 1; \
	if (!tap_result(d_ <= (tol) * s_, __FILE__, __LINE__, __VA_ARGS__)) \
		printf("#   got %.17g, want %.17g\n", g_, w_); \
} while (0)

static inline void skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
}

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Show the first line where the texts @want (from @want_by) and @got (from @got_by) differ. */
static inline void diag_first_difference(const char *want_by, const char *want, const char *got_by,
					 const char *got)
{
	const char *p = want, *q = got;

	while (*p && *p == *q)          /* to the start of the first line that differs */
		p++, q++;
	while (p > want && p[-1] != '\n')
		p--, q--;
	diag("%s: %.*s", want_by, (int)strcspn(p, "\n"), p);
	diag("%s: %.*s", got_by, (int)strcspn(q, "\n"), q);
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
