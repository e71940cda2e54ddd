/* rand86 entropy core: what the files of entropy/ share and its host tests check. */
#ifndef RAND86_ENTROPY_INTERNAL_H
#define RAND86_ENTROPY_INTERNAL_H
#include "entropy.h"
#include "entropy_hooks.h"

int rng_log2_16(uint32_t v);                 /* floor(log2(v & 0xffff)); -1 for 0 */
unsigned rng_benford_bits(uint32_t delta);   /* 0 for delta 0 */
unsigned rng_shift_for(uint32_t clock_khz, uint32_t granularity_khz);
void rng_sha1_compress(uint32_t state[5], const uint32_t block[16]);
extern const uint32_t rng_sha1_iv[5];        /* FIPS 180-4 5.3.1 H(0) */
extern const struct rng_platform *rng_plat;   /* platform.c: rng_platform_init's */
/* The pools (pool.c): v1.89's mixing, the clamped count, extraction. */
#define RNG_POOL_BITS(p)    ((int)(p)->poolwords * 32)
void rng_mix_words(struct rng_pool *p, const uint32_t *in, size_t nwords);
unsigned rng_credit(struct rng_pool *p, unsigned bits);   /* what the count rose by */
unsigned rng_debit(struct rng_pool *p, size_t bits);      /* what it fell by, floor 0 */
/* One round: the pool hashed with its feedback, RNG_EXTRACT_BYTES out. */
void rng_extract_round(struct rng_pool *p, uint8_t out[RNG_EXTRACT_BYTES]);
void rng_wipe(void *p, size_t n);            /* a clear the compiler keeps */
/* Fixed point (fixed.c): probabilities Q32, logarithms Q16, results in
 * thousandths of a bit. */
#define RNG_Q32_ONE (1ull << 32)
/* 2.5758293035489008 (the tool's ZALPHA), Q20, rounded up */
#define RNG_EST_Z_Q20 2700953ull
/* floor(2^16 * log2(x)) for x >= 1 (0 for x = 0). */
uint32_t rng_log2_q16(uint64_t x);
/* An upper bound of log2(x), Q16. */
int64_t rng_log2_up(uint64_t x);
/* floor(sqrt(x)). */
uint32_t rng_isqrt64(uint64_t x);
/* floor(-1000 * log2(p)) from an upper bound p * 2^32 of p, 0 for p >= 1. */
uint32_t rng_neglog2_milli(uint64_t p_q32);
/* -1000 * log2(p), p in Q32 (0, 2^32], log2 one Q16 step up, 0 for p >= 1. */
uint32_t rng_milli_of_q32(uint64_t p);
/* 2^(l / 2^16) * 2^32 for a Q16 exponent l, rounded up, at most 2^32. */
uint64_t rng_exp2_up_q32(int64_t l);
/* An upper bound of log2((num / den)^(1/t)), Q16. */
int64_t rng_root_log2_up(uint64_t num, uint64_t den, uint32_t t);
/* p + z sqrt(p (1 - p) / (n - 1)), capped at 1 (6.3.5 step 4), Q32. */
uint64_t rng_upper_q32(uint64_t p, uint32_t n);
/* -1000 * log2(p) for an upper bound p of a proportion c/n (6.3.1), 0..8000. */
uint32_t rng_ucb_milli(uint32_t c, uint32_t n);
/* Q32 p in [lo, 1] solving 6.3.7 step 5 for a run of r in n, rounded up. */
uint64_t rng_local_p_q32(uint64_t lo, uint32_t r, uint32_t n);

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
#define RNG_EST_SCRATCH (10 * RNG_EST_NMAX_BIT)   /* est_pred.c, bits: 10 bytes a bit */
/* est_pred.c's two dictionary predictors at once on symbols: a 2048-slot
 * hash table (12 KiB), 13 bytes a symbol for the first, 9 for the second */
#define RNG_EST_PRED_LIT_SCRATCH (12 * 1024 + 22 * RNG_EST_NMAX_LIT + 2)
uint32_t rng_est_multimcw_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
uint32_t rng_est_lag_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
uint32_t rng_est_multimmc_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
uint32_t rng_est_lz78y_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch);
/* Both of those on symbols (bits = 8), the context classes found once. */
void rng_est_mmc_lz78y_milli(const uint8_t *s, uint32_t n, void *scratch,
			     uint32_t *mmc, uint32_t *lz78y);
/* 6.3.7 steps 3-6 from C correct of N, longest run r, alphabet k. */
uint32_t rng_pred_estimate_milli(uint32_t c, uint32_t n, uint32_t r, uint32_t k);
/* ChaCha20 (chacha.c): RFC 8439 2.3's block function, and one read of
 * urandom's fast-key-erasure generator (len <= RNG_CRNG_READ_MAX; key is
 * replaced by output never served). */
void rng_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
	uint8_t out[64]);
void rng_crng_read(uint32_t key[8], uint8_t *out, size_t len);
/* A source that credits nothing here: its clock counts instructions
 * (source.c; random.c's essay says why). */
int rng_source_clock_bound(const struct entropy_source *src);
/* The capture ring (capture.c): the interrupt side's put. */
void rng_capture_put(struct rng_capture *cap, uint32_t raw, uint32_t shifted);
/* urandom's keys (crng.c), for random.c: after a flush, the key that is
 * owed, whole; is one owed (/dev/random waits); urandom's bytes. */
void rng_crng_tick(struct rng *r);
void rng_crng_read_due(struct rng *r);
int rng_crng_owed(const struct rng *r);
void rng_crng_serve(struct rng *r, uint8_t *dst, size_t len);
#endif
