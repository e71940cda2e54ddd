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

#define SHA1_K0 0x5a827999u     /* FIPS 180-4 4.2.1 */
#define SHA1_K1 0x6ed9eba1u
#define SHA1_K2 0x8f1bbcdcu
#define SHA1_K3 0xca62c1d6u

static uint32_t sha1_rol(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

void rng_sha1_compress(uint32_t state[5], const uint32_t block[16])
{
	uint32_t w[16];
	uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
	uint32_t f, k, t;
	volatile uint32_t *wipe = w;
	unsigned i;

	for (i = 0; i < 80; i++) {
		if (i < 16) {
			w[i] = block[i];
		} else {
			t = w[(i + 13) & 15] ^ w[(i + 8) & 15] ^ w[(i + 2) & 15] ^ w[i & 15];
			w[i & 15] = sha1_rol(t, 1);
		}
		if (i < 20) {
			f = (b & c) | (~b & d);
			k = SHA1_K0;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = SHA1_K1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = SHA1_K2;
		} else {
			f = b ^ c ^ d;
			k = SHA1_K3;
		}
		t = sha1_rol(a, 5) + f + e + k + w[i & 15];
		e = d;
		d = c;
		c = sha1_rol(b, 30);
		b = a;
		a = t;
	}
	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
	state[4] += e;
	for (i = 0; i < 16; i++)
		wipe[i] = 0;
}
