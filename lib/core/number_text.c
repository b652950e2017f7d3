/*
 * Numbers as text without printf, for outputs of hundreds of thousands of
 * values: pk_fmt_uint (decimal) and pk_format_fixed6.
 *
 * pk_format_fixed6 is printf("%f") without printf: a double with six decimals, the exact
 * decimal value of the binary number rounded half to even, as glibc prints
 * it in the default rounding mode. The OA reports print hundreds of
 * thousands of such values, and glibc's general multi-precision path is
 * most of their cost.
 *
 * v = m * 2^e exactly (m < 2^53), so v * 10^6 = m * 15625 * 2^(e + 6),
 * where m * 15625 < 2^67 fits in 128 bits: the scaled value's integer part
 * and remainder come from one shift, and the rounding is exact. Values of
 * 10^13 or more, infinities and NaNs go to snprintf.
 */
#include <stdio.h>
#include <string.h>
#include <perfkit/core.h>

/* "00" "01" ... "99": two digits at a time, half the divisions. */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static const uint64_t powers_of_ten[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

/* Decimal digits of @v: log10 from its bit length (x 1233 / 4096), corrected by one compare. */
static size_t decimal_digits(uint64_t v)
{
	unsigned t;

	if (v < 10)
		return 1;
	t = (unsigned)(64 - __builtin_clzll(v)) * 1233 >> 12;
	return t + 1 - (v < powers_of_ten[t]);
}

size_t pk_fmt_uint(char *p, uint64_t v)
{
	size_t n = decimal_digits(v);
	char *q = p + n;

	/* written in place from the last digit: no copy through a scratch buffer */
	while (v >= 100) {
		q -= 2;
		memcpy(q, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(q - 2, digit_pairs + 2 * v, 2);
	else
		q[-1] = (char)('0' + v);
	return n;
}

size_t pk_format_fixed6(double v, char *out)
{
	uint64_t bits, m, q;
	unsigned __int128 p;
	int e, s;
	size_t n = 0;

	memcpy(&bits, &v, 8);
	e = (int)((bits >> 52) & 0x7ff);
	if (e == 0x7ff || (v >= 1e13 || v <= -1e13)) {
		int r = snprintf(out, PK_FIXED6_MAX, "%f", v);

		return r < 0 ? 0 : (size_t)r < PK_FIXED6_MAX ? (size_t)r : PK_FIXED6_MAX - 1;
	}
	m = bits & ((1ull << 52) - 1);
	if (e)
		m |= 1ull << 52;
	e = e ? e - 1075 : -1074;
	p = (unsigned __int128)m * 15625u;
	s = e + 6;
	if (s >= 0) {
		q = (uint64_t)(p << s);
	} else if (-s >= 128) {
		q = 0;
	} else {
		unsigned k = (unsigned)-s;
		unsigned __int128 rem = p & ((((unsigned __int128)1) << k) - 1);
		unsigned __int128 half = ((unsigned __int128)1) << (k - 1);

		q = (uint64_t)(p >> k);
		if (rem > half || (rem == half && (q & 1)))
			q++;
	}
	if (bits >> 63)
		out[n++] = '-';
	n += pk_fmt_uint(out + n, q / 1000000u);
	q %= 1000000u;
	out[n++] = '.';
	for (int i = 4; i >= 0; i -= 2, q /= 100)
		memcpy(out + n + i, digit_pairs + 2 * (q % 100), 2);
	n += 6;
	out[n] = '\0';
	return n;
}
