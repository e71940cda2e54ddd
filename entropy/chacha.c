/* rand86 entropy core: ChaCha20 (RFC 8439) and urandom's fast-key-erasure generator. */
/*
 * Under credit=measured /dev/urandom is a ChaCha20 generator keyed from
 * the pools (crng.c makes and schedules the keys; docs/ENTROPY.md says
 * why). This file is the cipher and the read: 32-bit adds, xors and
 * rotates only, so it runs on a 386 without an FPU, and the host tests
 * run the same code.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "entropy_internal.h"

/* RFC 8439 2.3: the constants "expand 32-byte k", little-endian words. */
static const uint32_t chacha_sigma[4] = { 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574 };

#define CHACHA_ROTL(v, n) ((v) << (n) | (v) >> (32 - (n)))

/* RFC 8439 2.1: the quarter round. */
#define CHACHA_QR(a, b, c, d) do { \
	a += b; d ^= a; d = CHACHA_ROTL(d, 16); \
	c += d; b ^= c; b = CHACHA_ROTL(b, 12); \
	a += b; d ^= a; d = CHACHA_ROTL(d, 8); \
	c += d; b ^= c; b = CHACHA_ROTL(b, 7); \
} while (0)

static void chacha_store_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* RFC 8439 2.3: 20 rounds (10 column + diagonal pairs) over a copy of
 * the input state, then the input added word by word, serialised
 * little-endian. x is the caller's scratch, so one wipe per read does. */
static void chacha_core(uint32_t x[16], const uint32_t in[16], uint8_t out[64])
{
	unsigned i;

	memcpy(x, in, 16 * sizeof(uint32_t));
	for (i = 0; i < 10; i++) {
		CHACHA_QR(x[0], x[4], x[8], x[12]);
		CHACHA_QR(x[1], x[5], x[9], x[13]);
		CHACHA_QR(x[2], x[6], x[10], x[14]);
		CHACHA_QR(x[3], x[7], x[11], x[15]);
		CHACHA_QR(x[0], x[5], x[10], x[15]);
		CHACHA_QR(x[1], x[6], x[11], x[12]);
		CHACHA_QR(x[2], x[7], x[8], x[13]);
		CHACHA_QR(x[3], x[4], x[9], x[14]);
	}
	for (i = 0; i < 16; i++)
		chacha_store_le32(out + 4 * i, x[i] + in[i]);
}

static void chacha_wipe(void *p, size_t n)
{
	volatile uint32_t *v = p;

	for (n /= 4; n; n--)
		*v++ = 0;
}

/* RFC 8439 2.3: state = constants, key, block counter, nonce. */
static void chacha_setup(uint32_t in[16], const uint32_t key[8], uint32_t counter,
	const uint32_t nonce[3])
{
	memcpy(in, chacha_sigma, sizeof(chacha_sigma));
	memcpy(in + 4, key, 8 * sizeof(uint32_t));
	in[12] = counter;
	in[13] = nonce[0];
	in[14] = nonce[1];
	in[15] = nonce[2];
}

void rng_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
	uint8_t out[64])
{
	uint32_t in[16], x[16];

	chacha_setup(in, key, counter, nonce);
	chacha_core(x, in, out);
	chacha_wipe(in, sizeof(in));
	chacha_wipe(x, sizeof(x));
}

/*
 * One read of the fast-key-erasure generator (Bernstein, "Fast-key-erasure
 * random-number generators", 2017; Linux 5.17's crng_fast_key_erasure):
 * block 0 under the current key gives the NEXT key (its first 32 bytes,
 * never served) and up to 32 bytes of output; blocks 1, 2, ... give the
 * rest. The key is then replaced, and the old key and every block wiped,
 * so the state left behind cannot reproduce a byte this read served.
 * Nonce 0, 32-bit block counter: a read is at most RNG_CRNG_READ_MAX bytes.
 */
void rng_crng_read(uint32_t key[8], uint8_t *out, size_t len)
{
	static const uint32_t zero_nonce[3];
	uint32_t in[16], x[16];
	uint8_t blk[64];
	size_t n;

	chacha_setup(in, key, 0, zero_nonce);
	chacha_core(x, in, blk);
	memcpy(key, blk, 32);                  /* the next key: never served */
	n = len < 32 ? len : 32;
	memcpy(out, blk + 32, n);
	out += n;
	len -= n;
	for (; len >= 64; out += 64, len -= 64) {
		in[12]++;
		chacha_core(x, in, out);
	}
	if (len) {
		in[12]++;
		chacha_core(x, in, blk);
		memcpy(out, blk, len);
	}
	chacha_wipe(in, sizeof(in));
	chacha_wipe(x, sizeof(x));
	chacha_wipe(blk, sizeof(blk));
}
