/* v1.89 /dev/urandom from a fixed pool state: the recorded vector's scenario. */
#ifndef RAND86_URANDOM_V189_SCENARIO_H
#define RAND86_URANDOM_V189_SCENARIO_H
/*
 * Shared by gen.c (which wrote v189.bin from the tree named
 * in README) and tests/unit/test_entropy_crng.c (which replays it on the
 * current tree). Fixed pool words and counts, then reads whose sizes cross
 * the transfer buffer (340), the catastrophic reseed mark (1024) and the
 * reserve the primary keeps for /dev/random readers.
 */
#include <stdint.h>
#include <stddef.h>
#include "entropy/entropy_internal.h"

static const size_t urandom_v189_reads[] = { 1, 10, 340, 700, 1024, 3000 };
#define URANDOM_V189_BYTES (1 + 10 + 340 + 700 + 1024 + 3000)

/* Fills out[URANDOM_V189_BYTES]; returns 0, or -1 if a read came up short. */
static inline int urandom_v189_scenario(struct rng *r, enum rng_estimator est, uint8_t *out)
{
	size_t i, got;

	rng_init(r, est);
	for (i = 0; i < RNG_PRIMARY_WORDS; i++)
		r->primary.words[i] = 0x9e3779b9u * (uint32_t)(i + 1) ^ 0x5bd1e995u;
	for (i = 0; i < RNG_SECONDARY_WORDS; i++)
		r->secondary.words[i] = 0x85ebca6bu * (uint32_t)(i + 7);
	r->primary.entropy_count = 4096;
	r->secondary.entropy_count = 512;
	for (i = 0; i < sizeof(urandom_v189_reads) / sizeof(urandom_v189_reads[0]); i++) {
		got = rng_read_urandom(r, out, urandom_v189_reads[i]);
		if (got != urandom_v189_reads[i])
			return -1;
		out += got;
	}
	return 0;
}
#endif
