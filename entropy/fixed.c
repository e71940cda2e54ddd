/* Fixed-point arithmetic for the SP 800-90B estimators: logarithms, powers, roots, bounds. */
/*
 * The kernel has no FPU code (-mgeneral-regs-only), so the meter
 * (measure.c) and the estimators (est_stat.c, est_pred.c) work in
 * integers: probabilities as fractions or Q32, logarithms Q16, results in
 * thousandths of a bit, and the one place whose terms span a thousand
 * binary orders (6.3.7's local bound) in a small float. All of that
 * arithmetic is here, and only here. Every rounding here goes toward less
 * entropy.
 */
#include <stdint.h>
#include <stddef.h>

#include "entropy_internal.h"

/* 2.576 (the standard's z for a 99% one-sided bound), in thousandths */
#define RNG_Z_MILLI 2576u
/* ln(100) in thousandths: the no-hit bound 1 - 0.01^(1/N) <= ln(100)/N */
#define RNG_LN100_MILLI 4606u

/**********************************************************************
 * Logarithms, roots, powers
 **********************************************************************/

/* The top set bit's index (0 for x = 0): one bsr on a half, no loop. */
static uint32_t rng_msb64(uint64_t x)
{
	uint32_t hi = (uint32_t)(x >> 32), lo = (uint32_t)x;

	if (hi)
		return 63u - (uint32_t)__builtin_clz(hi);
	return lo ? 31u - (uint32_t)__builtin_clz(lo) : 0u;
}

uint32_t rng_log2_q16(uint64_t x)
{
	uint32_t k, frac = 0, bit;
	uint64_t y;

	if (x == 0)
		return 0;
	k = rng_msb64(x);
	/* y in [2^31, 2^32): x / 2^k as Q31 (truncated: never above) */
	y = k >= 31 ? x >> (k - 31) : x << (31 - k);
	for (bit = 1u << 15; bit; bit >>= 1) {
		/* y < 2^32 here: one 32x32 multiply (a single mul on a 386) */
		y = ((uint64_t)(uint32_t)y * (uint32_t)y) >> 31;
		if (y >= (1ull << 32)) {
			y >>= 1;
			frac |= bit;
		}
	}
	return (k << 16) | frac;
}

uint32_t rng_isqrt64(uint64_t x)
{
	uint64_t r = 0, bit = 1ull << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (uint32_t)r;
}

/* -log2(p) in thousandths, p in Q32 (0, 2^32], rounded down (log2 taken
 * one Q16 step up; 0 for p >= 1). */
uint32_t rng_milli_of_q32(uint64_t p)
{
	uint32_t l;

	if (p >= 1ull << 32)
		return 0;
	l = rng_log2_q16(p) + 1;
	return (uint32_t)((((uint64_t)(32u << 16) - l) * 1000) >> 16);
}

/* An upper bound of log2(x), Q16: rng_log2_q16 truncates its squarings. */
int64_t rng_log2_up(uint64_t x)
{
	return (int64_t)rng_log2_q16(x) + 2;
}

/* floor(-1000 * log2(p)) from an upper bound p * 2^32 of p, 0 for p >= 1. */
uint32_t rng_neglog2_milli(uint64_t p_q32)
{
	int64_t l;

	if (p_q32 == 0)
		p_q32 = 1;
	l = rng_log2_up(p_q32);
	if (l >= 32 << 16)
		return 0;
	return (uint32_t)((((32 << 16) - l) * 1000) >> 16);
}

/* 2^(-2^-j) * 2^32 for j = 1..16, rounded up: bits of 2^-f multiplied in. */
static const uint32_t rng_exp2_frac_q32[16] = {
	3037000500u, 3611622603u, 3938502376u, 4112874774u,
	4202935004u, 4248701965u, 4271771997u, 4283353946u,
	4289156691u, 4292061010u, 4293513907u, 4294240540u,
	4294603903u, 4294785596u, 4294876445u, 4294921871u,
};

/* 2^(l / 2^16) * 2^32 for a Q16 exponent l, rounded up, at most 2^32. */
uint64_t rng_exp2_up_q32(int64_t l)
{
	uint64_t r = RNG_Q32_ONE, a;
	unsigned j, k;

	if (l >= 0)
		return RNG_Q32_ONE;
	a = (uint64_t)-l;
	k = (unsigned)(a >> 16);
	for (j = 0; j < 16; j++)
		if (a & (0x8000u >> j))
			r = (r * rng_exp2_frac_q32[j] + RNG_Q32_ONE - 1) >> 32;
	if (k >= 33)
		return 1;
	return (r + (1ull << k) - 1) >> k;
}

/* An upper bound of log2((num / den)^(1/t)), Q16 (6.3.5 step 3, 6.3.6 step 5). */
int64_t rng_root_log2_up(uint64_t num, uint64_t den, uint32_t t)
{
	int64_t x = rng_log2_up(num) - (int64_t)rng_log2_q16(den);

	return x >= 0 ? (x + t - 1) / t : -(-x / (int64_t)t);
}

/**********************************************************************
 * Upper confidence bounds (6.3.1, 6.3.7)
 **********************************************************************/

/*
 * -log2 of the 99% upper bound of a proportion c/n, in thousandths of a
 * bit, 0..8000. p_u * 2^32 = (c * 2^32 + z * sqrt(c(n-c)/(n-1)) * 2^32) / n,
 * the square root taken of c(n-c) * 2^32 / (n-1) (so it carries 2^16).
 */
uint32_t rng_ucb_milli(uint32_t c, uint32_t n)
{
	uint64_t pu, s;

	if (n == 0 || c > n)
		return 0;
	if (c == 0) {
		pu = (((uint64_t)RNG_LN100_MILLI << 32) / 1000 + n - 1) / n;
	} else if (c == n || n == 1) {
		return 0;
	} else {
		s = rng_isqrt64(((uint64_t)c * (n - c) << 32) / (n - 1)) + 1;
		pu = ((uint64_t)c << 32) + ((s * RNG_Z_MILLI) << 16) / 1000 + 1;
		pu = (pu + n - 1) / n;
	}
	if (pu >= 1ull << 32)
		return 0;
	if (pu < 1ull << 24)
		pu = 1ull << 24;                /* max(p, 1/256) */
	return rng_milli_of_q32(pu);
}

/* p_u = p + z sqrt(p (1 - p) / (n - 1)), capped at 1 (6.3.5 step 4), Q32. */
uint64_t rng_upper_q32(uint64_t p, uint32_t n)
{
	uint64_t var, s;

	if (p >= RNG_Q32_ONE || n < 2)
		return RNG_Q32_ONE;
	var = (p * (RNG_Q32_ONE - p) + n - 2) / (n - 1);    /* Q64 */
	s = rng_isqrt64(var) + 1;                           /* Q32 */
	p += (s * RNG_EST_Z_Q20 + (1u << 20) - 1) >> 20;
	return p < RNG_Q32_ONE ? p : RNG_Q32_ONE;
}

/**********************************************************************
 * A small float: m * 2^e, m normalised to bit 63 (or 0), for the local
 * bound, whose terms span p^r ~ 2^-1000 to x^N ~ 1 + 2^-20.
 **********************************************************************/

struct rng_sf {
	uint64_t m;
	int32_t e;
};

/* make, add and sub stay out of line: inlined into the local bound's
 * many calls they cost the kernel image ~1.6 KB (built -Os, i386). */
static __attribute__((noinline)) struct rng_sf rng_sf_make(uint64_t m, int32_t e)
{
	struct rng_sf r = { m, e };

	if (m == 0) {
		r.e = -100000;
		return r;
	}
	while (!(r.m >> 63)) {
		r.m <<= 1;
		r.e--;
	}
	return r;
}

/* product, truncated (the error, 2^-63 a step, is far below what matters) */
static struct rng_sf rng_sf_mul(struct rng_sf a, struct rng_sf b)
{
	uint64_t a0 = (uint32_t)a.m, a1 = a.m >> 32, b0 = (uint32_t)b.m, b1 = b.m >> 32;
	uint64_t p01 = a0 * b1, p10 = a1 * b0, mid, hi;
	struct rng_sf r;

	if (!a.m || !b.m)
		return rng_sf_make(0, 0);
	mid = ((a0 * b0) >> 32) + (uint32_t)p01 + (uint32_t)p10;
	hi = a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	r.e = a.e + b.e + 64;
	if (!(hi >> 63)) {
		hi = (hi << 1) | ((mid >> 31) & 1);
		r.e--;
	}
	r.m = hi;
	return r;
}

static uint64_t rng_sf_align(struct rng_sf b, int32_t e)
{
	int32_t d = e - b.e;

	return d >= 64 ? 0 : b.m >> d;
}

/* a + b, both >= 0 */
static __attribute__((noinline)) struct rng_sf rng_sf_add(struct rng_sf a, struct rng_sf b)
{
	uint64_t s;

	if (a.m == 0 || (b.m && b.e > a.e)) {
		struct rng_sf t = a;
		a = b;
		b = t;
	}
	if (b.m == 0)
		return a;
	s = a.m + rng_sf_align(b, a.e);
	if (s < a.m)
		return (struct rng_sf){ (s >> 1) | (1ull << 63), a.e + 1 };
	return (struct rng_sf){ s, a.e };
}

/* a - b if a > b, else 0 */
static __attribute__((noinline)) struct rng_sf rng_sf_sub(struct rng_sf a, struct rng_sf b)
{
	uint64_t bm;

	if (b.m == 0)
		return a;
	if (a.m == 0 || b.e > a.e)
		return rng_sf_make(0, 0);
	bm = rng_sf_align(b, a.e);
	if (bm >= a.m)
		return rng_sf_make(0, 0);
	return rng_sf_make(a.m - bm, a.e);
}

/* a > b, both >= 0 */
static int rng_sf_gt(struct rng_sf a, struct rng_sf b)
{
	if (a.m == 0 || b.m == 0)
		return a.m != 0;
	return a.e != b.e ? a.e > b.e : a.m > b.m;
}

static struct rng_sf rng_sf_pow(struct rng_sf a, uint32_t k)
{
	struct rng_sf r = rng_sf_make(1, 0);

	for (; k; k >>= 1) {
		if (k & 1)
			r = rng_sf_mul(r, a);
		a = rng_sf_mul(a, a);
	}
	return r;
}

/**********************************************************************
 * The local bound (6.3.7 step 5, shared by 6.3.7-6.3.10)
 **********************************************************************/

/*
 * Is p below the local bound? 6.3.7 step 5: with q = 1 - p and x the
 * smaller root of x = 1 + q p^r x^(r+1) (iterated from 1, at most 66
 * times as the tool does), a run of r successes is absent from N trials
 * with probability (1 - p x) / ((r + 1 - r x) q x^(N+1)); p is too low
 * while that exceeds 0.99. e = x - 1 is kept apart: x is 1 + ~2^-20.
 */
static int rng_local_below(uint64_t p_q32, uint32_t r, uint32_t n)
{
	struct rng_sf p = rng_sf_make(p_q32, -32), q = rng_sf_make((1ull << 32) - p_q32, -32);
	struct rng_sf one = rng_sf_make(1, 0), t, e = rng_sf_make(0, 0), e1, num, den;
	int i;

	t = rng_sf_mul(q, rng_sf_pow(p, r));
	for (i = 0; i < 66; i++) {
		e1 = rng_sf_mul(t, rng_sf_pow(rng_sf_add(one, e), r + 1));
		if (!rng_sf_gt(e1, e) || (e1.e == e.e && e1.m - e.m < 16))
			break;
		e = e1;
	}
	num = rng_sf_sub(q, rng_sf_mul(p, e));                     /* 1 - p x */
	den = rng_sf_sub(one, rng_sf_mul(rng_sf_make(r, 0), e));   /* r + 1 - r x */
	if (num.m == 0 || den.m == 0)
		return 0;               /* at or past the root 1/p: p too high */
	den = rng_sf_mul(rng_sf_mul(den, q), rng_sf_pow(rng_sf_add(one, e), n + 1));
	den = rng_sf_mul(den, rng_sf_make(0xfd70a3d70a3d7000ull, -64));   /* 0.99 */
	return rng_sf_gt(num, den);
}

/* The p solving the step-5 equation in [lo, 1], rounded up; Q32. */
uint64_t rng_local_p_q32(uint64_t lo, uint32_t r, uint32_t n)
{
	uint64_t hi = 1ull << 32, mid;

	if (!rng_local_below(lo, r, n))
		return lo;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (rng_local_below(mid, r, n))
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}
