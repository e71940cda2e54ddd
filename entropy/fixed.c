/* Fixed-point arithmetic for the SP 800-90B estimators: logarithms, roots, bounds. */
/*
 * The kernel has no FPU code (-mgeneral-regs-only), so the meter
 * (measure.c) and the estimators (est_stat.c, est_pred.c) work in
 * integers: probabilities as fractions or Q32, logarithms Q16, results in
 * thousandths of a bit. Every rounding here goes toward less entropy.
 */
#include <stdint.h>
#include <stddef.h>

#include "entropy_internal.h"

/* 2.576 (the standard's z for a 99% one-sided bound), in thousandths */
#define RNG_Z_MILLI 2576u
/* ln(100) in thousandths: the no-hit bound 1 - 0.01^(1/N) <= ln(100)/N */
#define RNG_LN100_MILLI 4606u

static uint32_t rng_msb64(uint64_t x)
{
	uint32_t k = 0;

	while (x >>= 1)
		k++;
	return k;
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
		y = (y * y) >> 31;
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

/*
 * -log2 of the 99% upper bound of a proportion c/n, in thousandths of a
 * bit, 0..8000. p_u * 2^32 = (c * 2^32 + z * sqrt(c(n-c)/(n-1)) * 2^32) / n,
 * the square root taken of c(n-c) * 2^32 / (n-1) (so it carries 2^16).
 */
uint32_t rng_ucb_milli(uint32_t c, uint32_t n)
{
	uint64_t pu, s;
	uint32_t l;

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
	l = rng_log2_q16(pu) + 1;           /* round log2 up: H rounds down */
	if (l >= 32u << 16)
		return 0;
	return (uint32_t)((((uint64_t)(32u << 16) - l) * 1000) >> 16);
}

