/* The full SP 800-90B 6.3 assessment of one block (full_assess.h). */
#include <stdint.h>

#include "entropy/entropy_internal.h"   /* the estimators */
#include "tools/full_assess.h"

#define BLOCK RNG_EST_NMAX_LIT
#define SCRATCH (RNG_EST_SCRATCH > RNG_EST_STAT_SCRATCH ? RNG_EST_SCRATCH : RNG_EST_STAT_SCRATCH)

static uint8_t bits[BLOCK * 8];
static uint32_t scratch[SCRATCH / 4];

typedef uint32_t (*estimator)(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);

/* 6.3.1: the commonest value's count, bounded above at 99% */
static uint32_t est_mcv(const uint8_t *s, uint32_t n, unsigned b, void *w)
{
	uint32_t count[256] = { 0 }, c = 0;

	(void)w;
	for (uint32_t i = 0; i < n; i++)
		if (++count[s[i]] > c)
			c = count[s[i]];
	(void)b;                             /* on bits p >= 1/2: at most 1 bit */
	return rng_ucb_milli(c, n);
}

const char *const full_assess_name[FULL_ASSESS_NEST] = {
	"MCV", "Collision", "Markov", "Compression", "T-Tuple", "LRS", "MultiMCW", "Lag",
	"MultiMMC", "LZ78Y",
};

/* In ea_non_iid's order (6.3.1-6.3.10). Collision, Markov and
 * compression answer `no estimate` (8000) on 8-bit symbols, as the tool
 * runs them on the bitstring only. */
static const estimator est[FULL_ASSESS_NEST] = {
	est_mcv, rng_est_collision_milli, rng_est_markov_milli, rng_est_compression_milli,
	rng_est_ttuple_milli, rng_est_lrs_milli, rng_est_multimcw_milli, rng_est_lag_milli,
	rng_est_multimmc_milli, rng_est_lz78y_milli,
};

uint32_t full_assess_block(const uint8_t *s, uint32_t n, struct full_tally *t)
{
	uint32_t h = 8000, v;

	rng_est_bits(s, n, bits);
	for (unsigned k = 0; k < 2; k++) {
		for (unsigned e = 0; e < FULL_ASSESS_NEST; e++) {
			v = k ? 8 * est[e](bits, 8 * n, 1, scratch) : est[e](s, n, 8, scratch);
			if (v > 8000)
				v = 8000;
			if (t) {
				t->sum[k][e] += v;
				if (t->blocks == 0 || v < t->low[k][e])
					t->low[k][e] = v;
			}
			if (v < h)
				h = v;
		}
	}
	return h;
}
