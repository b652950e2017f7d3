/*
 * Numbers as text without printf, for outputs of hundreds of thousands of
 * values: pk_fmt_uint (decimal), pk_format_fixed6 and pk_format_g17.
 *
 * pk_format_fixed6 is printf("%f") without printf: a double with six decimals, the exact
 * decimal value of the binary number rounded half to even, as glibc prints
 * it in the default rounding mode. The OA reports print hundreds of
 * thousands of such values, and glibc's general multi-precision path is
 * most of their cost.
 *
 * v = m * 2^e exactly (m < 2^53). From 2^-11 up, the integer part is
 * m >> -e and the fraction's bits times 10^6 fit one 64 x 64 multiplication
 * (fixed6_of_fraction); below, v * 10^6 = m * 15625 * 2^(e + 6) in 128
 * bits. Either way the rounding is exact, and taken without a branch (a
 * mispredicted one per value was half the cost). Values of 10^13 or more,
 * infinities and NaNs go to snprintf.
 *
 * pk_format_g17 is printf("%.17g") (JSON's doubles, which read back
 * exactly) the same way: the value rounded to 17 significant digits,
 * N = round(v * 10^(16 - X)) in [10^16, 10^17) for v's decimal exponent X,
 * is m * 10^k >> -e or (m << e) / 10^-k, exact in 128 bits for
 * 2^-19 <= |v| < 2^120 (about 1.9e-6 to 1.3e36); then %g's layout. Other
 * values go to snprintf.
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

size_t pk_format_page_size(uint64_t size, char *out)
{
	int unit = 0;
	size_t n;

	if (!size) {
		memcpy(out, "N/A", 4);
		return 3;
	}
	/* perf's unit_number__scnprintf(): divide while the quotient stays above 1 */
	while (size / 1024 > 1 && unit < 3) {
		size /= 1024;
		unit++;
	}
	n = pk_fmt_uint(out, size);
	out[n++] = "BKMG"[unit];
	out[n] = '\0';
	return n;
}

/* @v (< 100) as two digits. */
static inline void put_pair(char *p, uint32_t v)
{
	memcpy(p, digit_pairs + 2 * v, 2);
}

/* @v (< 10^4) as four digits: two pairs, neither waiting for the other. */
static inline void put4(char *p, uint32_t v)
{
	put_pair(p, v / 100);
	put_pair(p + 2, v % 100);
}

size_t pk_fmt_uint(char *p, uint64_t v)
{
	size_t n = decimal_digits(v);
	char *q = p + n;

	/* written in place from the last digit: no copy through a scratch buffer */
	while (v >= 100) {
		q -= 2;
		put_pair(q, (uint32_t)(v % 100));
		v /= 100;
	}
	if (v >= 10)
		put_pair(q - 2, (uint32_t)v);
	else
		q[-1] = (char)('0' + v);
	return n;
}

/* The length snprintf(out, @size, ...) left in out, from its result @r. */
static size_t printed_length(int r, size_t size)
{
	return r < 0 ? 0 : (size_t)r < size ? (size_t)r : size - 1;
}

/*
 * The six decimals of v = m / 2^k (1 <= k < 64) and its integer part
 * (*@ip): the fraction's bits F = m mod 2^k times 10^6 in one 64 x 64
 * multiplication, whose bits from k up are the decimals (below 2^20) and
 * whose bits under k (all in the low word) decide the rounding, half to
 * even; rounding up to 10^6 carries into the integer part.
 */
static uint32_t fixed6_of_fraction(uint64_t m, unsigned k, uint64_t *ip)
{
	unsigned __int128 t = (unsigned __int128)(m & ((1ull << k) - 1)) * 1000000u;
	uint64_t lo = (uint64_t)t, rem = lo & ((1ull << k) - 1), half = 1ull << (k - 1);
	uint32_t f = (uint32_t)((lo >> k) | ((uint64_t)(t >> 64) << (64 - k)));

	/* without a branch: which way a value rounds is a coin toss */
	f += (rem > half) | ((rem == half) & f);
	*ip = (m >> k) + (f == 1000000);
	return f == 1000000 ? 0 : f;
}

/* Values below 2^-11 and subnormals: v * 10^6 through 128 bits, then rounded. */
static uint64_t fixed6_scaled_small(uint64_t m, int e)
{
	unsigned __int128 p = (unsigned __int128)m * 15625u;
	unsigned k = (unsigned)-(e + 6);
	unsigned __int128 rem, half;
	uint64_t q;

	if (k >= 128)
		return 0;
	rem = p & ((((unsigned __int128)1) << k) - 1);
	half = ((unsigned __int128)1) << (k - 1);
	q = (uint64_t)(p >> k);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	return q;
}

size_t pk_format_fixed6(double v, char *out)
{
	uint64_t bits, m, ip;
	uint32_t f;
	int e;
	size_t n = 0;

	memcpy(&bits, &v, 8);
	e = (int)((bits >> 52) & 0x7ff);
	if (e == 0x7ff || (v >= 1e13 || v <= -1e13)) {
		return printed_length(snprintf(out, PK_FIXED6_MAX, "%f", v), PK_FIXED6_MAX);
	}
	m = bits & ((1ull << 52) - 1);
	if (e)
		m |= 1ull << 52;
	e = e ? e - 1075 : -1074;      /* v = m * 2^e, e <= -9 below 1e13 */
	if (e > -64) {
		f = fixed6_of_fraction(m, (unsigned)-e, &ip);
	} else {
		uint64_t q = fixed6_scaled_small(m, e);

		ip = q / 1000000u;
		f = (uint32_t)(q % 1000000u);
	}
	if (bits >> 63)
		out[n++] = '-';
	n += pk_fmt_uint(out + n, ip);
	out[n++] = '.';
	put_pair(out + n, f / 10000);
	put4(out + n + 2, f % 10000);
	n += 6;
	out[n] = '\0';
	return n;
}

/* 10^@k (0 <= k <= 22) times @m (< 2^53): below 2^127. */
static unsigned __int128 times_power_of_ten(uint64_t m, int k)
{
	unsigned __int128 p = (unsigned __int128)m * powers_of_ten[k < 19 ? k : 19];

	return k < 19 ? p : p * powers_of_ten[k - 19];
}

/*
 * m * 2^e * 10^k rounded half to even, for the bounds pk_format_g17
 * keeps: m < 2^53, -20 <= k <= 22, -71 <= e <= 67 (every product and
 * shift below 2^128).
 */
static unsigned __int128 scaled_rounded(uint64_t m, int e, int k)
{
	unsigned __int128 num, q, rem, d;

	if (k >= 0) {
		num = times_power_of_ten(m, k);
		if (e >= 0)
			return num << e;
		q = num >> -e;
		rem = num & ((((unsigned __int128)1) << -e) - 1);
		d = ((unsigned __int128)1) << -e;
	} else {
		num = (unsigned __int128)m << e;
		d = times_power_of_ten(1, -k);
		q = num / d;
		rem = num % d;
	}
	if (2 * rem > d || (2 * rem == d && (q & 1)))
		q++;
	return q;
}

/* Removes the zeros that end @p (after a '.') and the '.' if nothing is left after it. */
static char *strip_fraction(char *p)
{
	while (p[-1] == '0')
		p--;
	return p[-1] == '.' ? p - 1 : p;
}

size_t pk_format_g17(double v, char *out)
{
	uint64_t bits, m, n = 0;
	int e, x;
	char digits[20], *p = out;

	memcpy(&bits, &v, 8);
	e = (int)((bits >> 52) & 0x7ff);
	m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
	e -= 1075;
	/*
	 * floor(log10(2^(e + 52))), exact for these e: v's decimal exponent or
	 * one less, corrected below (an estimate off the other way would only
	 * send v to snprintf)
	 */
	x = (e + 52) * 78913 >> 18;
	if (v != 0 && x >= -6 && x <= 35) {
		n = (uint64_t)scaled_rounded(m, e, 16 - x);
		if (n >= powers_of_ten[17])
			n = (uint64_t)scaled_rounded(m, e, 16 - ++x);
	}
	if (bits >> 63)
		*p++ = '-';
	if (v == 0) {
		*p++ = '0';
		*p = '\0';
		return (size_t)(p - out);
	}
	if (n < powers_of_ten[16] || n >= powers_of_ten[17])
		return printed_length(snprintf(out, PK_G17_MAX, "%.17g", v), PK_G17_MAX);
	pk_fmt_uint(digits, n);
	if (x < -4 || x >= 17) {
		*p++ = digits[0];
		*p++ = '.';
		memcpy(p, digits + 1, 16);
		p = strip_fraction(p + 16);
		*p++ = 'e';
		*p++ = x < 0 ? '-' : '+';
		x = x < 0 ? -x : x;
		if (x < 10)
			*p++ = '0';
		p += pk_fmt_uint(p, (uint64_t)x);
	} else if (x >= 0) {
		memcpy(p, digits, (size_t)x + 1);
		p += x + 1;
		*p++ = '.';
		memcpy(p, digits + x + 1, (size_t)(16 - x));
		p = strip_fraction(p + 16 - x);
	} else {
		*p++ = '0';
		*p++ = '.';
		for (int z = -x - 1; z > 0; z--)
			*p++ = '0';
		memcpy(p, digits, 17);
		p = strip_fraction(p + 17);
	}
	*p = '\0';
	return (size_t)(p - out);
}
