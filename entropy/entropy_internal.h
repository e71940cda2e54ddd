/* rand86 entropy core: what the files of entropy/ share and its host tests check. */
#ifndef RAND86_ENTROPY_INTERNAL_H
#define RAND86_ENTROPY_INTERNAL_H
#include "entropy.h"

int rng_log2_16(uint32_t v);                 /* floor(log2(v & 0xffff)); -1 for 0 */
unsigned rng_benford_bits(uint32_t delta);   /* 0 for delta 0 */
unsigned rng_shift_for(uint32_t clock_khz, uint32_t granularity_khz);
void rng_sha1_compress(uint32_t state[5], const uint32_t block[16]);
extern const uint32_t rng_sha1_iv[5];        /* FIPS 180-4 5.3.1 H(0) */
void rng_mix_words(struct rng_pool *p, const uint32_t *in, size_t nwords);
/* -1000 * log2(p) for an upper bound p of a proportion c/n (6.3.1), 0..8000. */
uint32_t rng_ucb_milli(uint32_t c, uint32_t n);
/* floor(2^16 * log2(x)) for x >= 1 (0 for x = 0). */
uint32_t rng_log2_q16(uint64_t x);
/* The bare hash-and-fold extraction (no accounting, no transfer): the
 * reference for tests. */
void rng_pool_extract(struct rng_pool *p, void *out, size_t nbytes);
#endif
