/* SHA-1 compression function (FIPS 180-4 section 6.1.2), no padding. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "entropy.h"

/*
 * The pool is hashed as 32-bit words in host order, 16 at a time, as
 * v1.89's SHATransform() did: block[i] is the message word W[i] itself
 * (a FIPS byte message must be loaded big-endian by the caller). The
 * message schedule is kept in a 16-word ring and wiped before returning.
 */

const uint32_t rng_sha1_iv[5] = {
	0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0
};

#define SHA1_K0 0x5a827999u     /* FIPS 180-4 4.2.1 */
#define SHA1_K1 0x6ed9eba1u
#define SHA1_K2 0x8f1bbcdcu
#define SHA1_K3 0xca62c1d6u

static inline uint32_t sha1_rol(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

/* W[i] for i >= 16, computed in place in the 16-word ring. */
static inline uint32_t sha1_w(uint32_t w[16], unsigned i)
{
	uint32_t t = w[(i + 13) & 15] ^ w[(i + 8) & 15] ^ w[(i + 2) & 15] ^ w[i & 15];

	w[i & 15] = sha1_rol(t, 1);
	return w[i & 15];
}

/* The round functions, in forms with one operation fewer than FIPS's
 * (Ch as d^(b&(c^d)), Maj as (b&c)|(d&(b|c))); same values. */
#define SHA1_CH(b, c, d)     ((d) ^ ((b) & ((c) ^ (d))))
#define SHA1_PARITY(b, c, d) ((b) ^ (c) ^ (d))
#define SHA1_MAJ(b, c, d)    (((b) & (c)) | ((d) & ((b) | (c))))

/* One round with the five working variables renamed instead of moved:
 * the new "a" lands in e, and b is rotated in place. */
#define SHA1_ROUND(a, b, c, d, e, F, k, wi) do {                    \
	(e) += sha1_rol((a), 5) + F((b), (c), (d)) + (k) + (wi);    \
	(b) = sha1_rol((b), 30);                                    \
} while (0)

/* Five rounds bring the names back to where they started. */
#define SHA1_FIVE(F, k, W, i) do {                                  \
	SHA1_ROUND(a, b, c, d, e, F, k, W((i) + 0));                \
	SHA1_ROUND(e, a, b, c, d, F, k, W((i) + 1));                \
	SHA1_ROUND(d, e, a, b, c, F, k, W((i) + 2));                \
	SHA1_ROUND(c, d, e, a, b, F, k, W((i) + 3));                \
	SHA1_ROUND(b, c, d, e, a, F, k, W((i) + 4));                \
} while (0)

#define SHA1_W_LOADED(i)   (w[(i)])
#define SHA1_W_NEXT(i)     sha1_w(w, (i))

void rng_sha1_compress(uint32_t state[5], const uint32_t block[16])
{
	uint32_t w[16];
	uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
	volatile uint32_t *wipe = w;
	unsigned i;

	memcpy(w, block, sizeof(w));
	_Pragma("GCC unroll 4")
	for (i = 0; i < 15; i += 5)
		SHA1_FIVE(SHA1_CH, SHA1_K0, SHA1_W_LOADED, i);
	SHA1_ROUND(a, b, c, d, e, SHA1_CH, SHA1_K0, w[15]);      /* round 15 */
	SHA1_ROUND(e, a, b, c, d, SHA1_CH, SHA1_K0, sha1_w(w, 16));
	SHA1_ROUND(d, e, a, b, c, SHA1_CH, SHA1_K0, sha1_w(w, 17));
	SHA1_ROUND(c, d, e, a, b, SHA1_CH, SHA1_K0, sha1_w(w, 18));
	SHA1_ROUND(b, c, d, e, a, SHA1_CH, SHA1_K0, sha1_w(w, 19));
	_Pragma("GCC unroll 4")
	for (i = 20; i < 40; i += 5)
		SHA1_FIVE(SHA1_PARITY, SHA1_K1, SHA1_W_NEXT, i);
	_Pragma("GCC unroll 4")
	for (i = 40; i < 60; i += 5)
		SHA1_FIVE(SHA1_MAJ, SHA1_K2, SHA1_W_NEXT, i);
	_Pragma("GCC unroll 4")
	for (i = 60; i < 80; i += 5)
		SHA1_FIVE(SHA1_PARITY, SHA1_K3, SHA1_W_NEXT, i);
	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
	state[4] += e;
	for (i = 0; i < 16; i++)
		wipe[i] = 0;
}

/*
 * FIPS 180-2 appendix A.1: "abc" is one block once padded (0x80 after the
 * message, the bit length 24 in the last word); its digest is published.
 * One compression runs all 80 rounds and the whole message schedule, so a
 * compiler or CPU that gets any of them wrong for this target fails here.
 */
int rng_sha1_selftest(void)
{
	static const uint32_t abc_digest[5] = {
		0xa9993e36, 0x4706816a, 0xba3e2571, 0x7850c26c, 0x9cd0d89d
	};
	uint32_t block[16] = { 0x61626380 };
	uint32_t h[5];

	block[15] = 24;
	memcpy(h, rng_sha1_iv, sizeof(h));
	rng_sha1_compress(h, block);
	return memcmp(h, abc_digest, sizeof(h)) == 0 ? 0 : -1;
}
