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
/* floor(sqrt(x)). */
uint32_t rng_isqrt64(uint64_t x);

/* SP 800-90B estimators 6.3.2-6.3.6 (est_stat.c). Each returns the min-entropy
 * per symbol, thousandths of a bit, of s[0..n-1], n <= RNG_EST_MAX_N, each
 * symbol < 2^bits; bits = 8 (literal) or 1 (bitstring: one bit per byte, as
 * rng_est_bits makes it). bits * 1000 where the tool skips the estimator.
 * scratch: RNG_EST_STAT_SCRATCH bytes, 4-byte aligned, caller-owned. */
#define RNG_EST_MAX_N 8192
#define RNG_EST_STAT_SCRATCH (5 * 2 * RNG_EST_MAX_N)
void rng_est_bits(const uint8_t *s, uint32_t n, uint8_t *out);
uint32_t rng_est_collision_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
uint32_t rng_est_markov_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
uint32_t rng_est_compression_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
uint32_t rng_est_ttuple_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
uint32_t rng_est_lrs_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
void rng_est_tuple_lrs_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch,
			     uint32_t *ttuple, uint32_t *lrs);
/* The bare hash-and-fold extraction (no accounting, no transfer): the
 * reference for tests. */
void rng_pool_extract(struct rng_pool *p, void *out, size_t nbytes);
/* SP 800-90B non-IID estimators over a buffer (entropy/est_*.c): min-entropy
 * per symbol, thousandths of a bit, of s[0..n-1], each symbol < 2^bits;
 * bits = 8 (literal) or 1 (bitstring: one bit per byte, 0 or 1). scratch:
 * at least RNG_EST_SCRATCH bytes of caller-owned memory. */
#define RNG_EST_NMAX_LIT 1024       /* longer input: the last ones judged */
#define RNG_EST_NMAX_BIT 8192
#ifndef RNG_EST_SCRATCH
#define RNG_EST_SCRATCH (10 * RNG_EST_NMAX_BIT)   /* est_pred.c, bits: 10 bytes a bit */
/* ChaCha20 (chacha.c): RFC 8439 2.3's block function, and one read of
 * urandom's fast-key-erasure generator (len <= RNG_CRNG_READ_MAX; key is
 * replaced by output never served). */
void rng_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
	uint8_t out[64]);
void rng_crng_read(uint32_t key[8], uint8_t *out, size_t len);
#endif
uint32_t rng_est_multimcw_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
uint32_t rng_est_lag_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
uint32_t rng_est_multimmc_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
uint32_t rng_est_lz78y_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
/* 6.3.7 steps 3-6 from C correct of N, longest run r, alphabet k. */
uint32_t rng_pred_estimate_milli(uint32_t c, uint32_t n, uint32_t r, uint32_t k);
/* Q32 p in [lo, 1] solving 6.3.7 step 5 for a run of r in n, rounded up. */
uint64_t rng_local_p_q32(uint64_t lo, uint32_t r, uint32_t n);
/* ChaCha20 (chacha.c): RFC 8439 2.3's block function, and one read of
 * urandom's fast-key-erasure generator (len <= RNG_CRNG_READ_MAX; key is
 * replaced by output never served). */
void rng_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
	uint8_t out[64]);
void rng_crng_read(uint32_t key[8], uint8_t *out, size_t len);
#endif
