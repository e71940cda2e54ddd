/* rand86 entropy core: v1.89's pools, their mixing, credit and debit, and extraction. */
/*
 * The pieces every path of the core stands on and that stand on nothing
 * of it but SHA-1: the twisted GFSR that mixes words into a pool, the
 * clamped count, and the hash-and-fold round with its feedback. Who
 * mixes, credits and extracts, when and how much, is random.c's: the
 * flow of samples and reads. The algorithms are docs/ENTROPY.md
 * section 1.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "entropy_internal.h"

/* Clear memory that held secrets in a way the compiler cannot elide. */
void rng_wipe(void *p, size_t n)
{
	volatile uint8_t *v = p;

	while (n--)
		*v++ = 0;
}

/**********************************************************************
 * The pools and the mixing function (v1.89 add_entropy_words)
 **********************************************************************/

/* Taps of the twisted GFSR: x^128 + x^103 + x^76 + x^51 + x^25 + x + 1
 * and x^32 + x^26 + x^20 + x^14 + x^7 + x + 1 (v1.89 random_state_*). */
static const unsigned rng_taps_128[5] = { 103, 76, 51, 25, 1 };
static const unsigned rng_taps_32[5] = { 26, 20, 14, 7, 1 };

/* The CRC-32 polynomial's multiples of x^0..x^2: the "twist" (v1.89). */
static const uint32_t rng_twist[8] = {
	0x00000000, 0x3b6e20c8, 0x76dc4190, 0x4db26158,
	0xedb88320, 0xd6d6a3e8, 0x9b64c2b0, 0xa00ae278
};

void rng_pool_init(struct rng_pool *p, unsigned poolwords)
{
	memset(p, 0, sizeof(*p));
	p->poolwords = poolwords == RNG_SECONDARY_WORDS ? RNG_SECONDARY_WORDS : RNG_PRIMARY_WORDS;
}

static uint32_t rng_rol(uint32_t w, unsigned n)
{
	n &= 31;
	return n ? (w << n) | (w >> (32 - n)) : w;
}

void rng_mix_words(struct rng_pool *p, const uint32_t *in, size_t nwords)
{
	const unsigned *taps = p->poolwords == RNG_SECONDARY_WORDS ? rng_taps_32 : rng_taps_128;
	unsigned mask = p->poolwords - 1;
	unsigned i;
	uint32_t w;

	while (nwords--) {
		w = rng_rol(*in++, p->input_rotate);
		i = p->add_ptr = (p->add_ptr - 1) & mask;
		/* 7 bits of rotation per word, 14 at the start of the pool, so
		 * successive passes spread input bits evenly (v1.89). */
		p->input_rotate = (p->input_rotate + (i ? 7 : 14)) & 31;
		w ^= p->words[(i + taps[0]) & mask];
		w ^= p->words[(i + taps[1]) & mask];
		w ^= p->words[(i + taps[2]) & mask];
		w ^= p->words[(i + taps[3]) & mask];
		w ^= p->words[(i + taps[4]) & mask];
		w ^= p->words[i];
		p->words[i] = (w >> 3) ^ rng_twist[w & 7];
	}
}

/* Raise p's count by up to `bits`, clamped; return how much it rose. */
unsigned rng_credit(struct rng_pool *p, unsigned bits)
{
	int room = RNG_POOL_BITS(p) - p->entropy_count;

	if (room < 0)
		room = 0;
	if (bits > (unsigned)room)
		bits = (unsigned)room;
	p->entropy_count += (int)bits;
	return bits;
}

/* Lower p's count by up to `bits` (floor 0); return how much it fell. */
unsigned rng_debit(struct rng_pool *p, size_t bits)
{
	unsigned have = p->entropy_count > 0 ? (unsigned)p->entropy_count : 0;

	if (bits > have)
		bits = have;
	p->entropy_count = (int)(have - bits);
	return (unsigned)bits;
}

/**********************************************************************
 * Extraction: SHA-1 over the pool, feeding the hash back
 **********************************************************************/

/*
 * One round: compress the pool 16 words at a time from the SHA-1 IV;
 * after each block mix one word of the running hash back into the pool,
 * so that knowing the pool after an extraction does not reveal earlier
 * outputs unless SHA-1 can be inverted (anti-backtracking). Then fold the
 * 160-bit hash in half, in case it has a recognisable pattern, and emit
 * 80 bits: h0^h3, h1^h4, and h2 folded to 16 bits, little-endian words.
 */
void rng_extract_round(struct rng_pool *p, uint8_t out[RNG_EXTRACT_BYTES])
{
	uint32_t h[5];
	unsigned i, x;

	memcpy(h, rng_sha1_iv, sizeof(h));
	for (i = 0, x = 0; i < p->poolwords; i += 16, x += 2) {
		rng_sha1_compress(h, p->words + i);
		rng_mix_words(p, &h[x % 5], 1);
	}
	h[0] ^= h[3];
	h[1] ^= h[4];
	h[2] ^= h[2] >> 16;
	for (i = 0; i < 4; i++) {
		out[i] = (uint8_t)(h[0] >> (8 * i));
		out[4 + i] = (uint8_t)(h[1] >> (8 * i));
	}
	out[8] = (uint8_t)h[2];
	out[9] = (uint8_t)(h[2] >> 8);
	rng_wipe(h, sizeof(h));
}

void rng_pool_extract(struct rng_pool *p, void *out, size_t nbytes)
{
	uint8_t tmp[RNG_EXTRACT_BYTES];
	uint8_t *dst = out;
	size_t n;

	while (nbytes) {
		rng_extract_round(p, tmp);
		n = nbytes < RNG_EXTRACT_BYTES ? nbytes : RNG_EXTRACT_BYTES;
		memcpy(dst, tmp, n);
		dst += n;
		nbytes -= n;
	}
	rng_wipe(tmp, sizeof(tmp));
}
