/* SHA-1 compression function (FIPS 180-4 section 6.1.2), no padding. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "entropy_internal.h"

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

/*
 * The portable compression. On i386 the kernel uses the assembly below
 * instead; RNG_SHA1_PORTABLE keeps this one too, under its own name, for
 * the test that checks the two agree (tests/unit/test_sha1_i386.c).
 */
#if defined(__i386__) && !defined(RNG_SHA1_NO_ASM)
#define RNG_SHA1_ASM 1
#endif

#if !defined(RNG_SHA1_ASM) || defined(RNG_SHA1_PORTABLE)
#ifdef RNG_SHA1_ASM
void rng_sha1_compress_portable(uint32_t state[5], const uint32_t block[16]);
void rng_sha1_compress_portable(uint32_t state[5], const uint32_t block[16])
#else
void rng_sha1_compress(uint32_t state[5], const uint32_t block[16])
#endif
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

#endif

#ifdef RNG_SHA1_ASM
/*
 * i386: the same 80 rounds in 1,227 instructions (gcc -O2 spends ~1,550:
 * it spills working variables to the stack and copies the block first).
 * Seven registers hold a..e, one temporary (edi) and the block pointer
 * (ebp); W[16..79] live in a 16-word ring on the stack, and W[0..15] are
 * read straight from the caller's block, so nothing is copied. Each round
 * is, as in the C above, e += rol(a,5) + F(b,c,d) + K + W[i]; b = rol(b,30),
 * with the names rotating instead of the values (the macro arguments).
 * Maj is computed as (b&c) + (d&(b^c)): the two terms never share a bit.
 * Only 386 instructions (no bswap, no cmov). The ring is wiped at the end.
 */
__asm__(
	".pushsection .text\n"
	".globl rng_sha1_compress\n"
	".type rng_sha1_compress, @function\n"
	/* W[m] as a memory operand: the caller's block or the ring */
	".macro SHA1_W op, m, reg\n"
	" .if (\\m) < 16\n"
	"  \\op 4*(\\m)(%ebp), \\reg\n"
	" .else\n"
	"  \\op 4*((\\m) & 15)(%esp), \\reg\n"
	" .endif\n"
	".endm\n"
	".macro SHA1_CH b, c, d, e\n"
	" movl \\c, %edi; xorl \\d, %edi; andl \\b, %edi; xorl \\d, %edi; addl %edi, \\e\n"
	".endm\n"
	".macro SHA1_PARITY b, c, d, e\n"
	" movl \\b, %edi; xorl \\c, %edi; xorl \\d, %edi; addl %edi, \\e\n"
	".endm\n"
	".macro SHA1_MAJ b, c, d, e\n"
	" movl \\b, %edi; xorl \\c, %edi; andl \\d, %edi; addl %edi, \\e\n"
	" movl \\b, %edi; andl \\c, %edi; addl %edi, \\e\n"
	".endm\n"
	".macro SHA1_ROUND f, k, a, b, c, d, e\n"
	" .if sha1_i < 16\n"
	"  addl $\\k, \\e\n"
	"  SHA1_W addl, sha1_i, \\e\n"
	" .else\n"
	"  SHA1_W movl, sha1_i-3, %edi\n"
	"  SHA1_W xorl, sha1_i-8, %edi\n"
	"  SHA1_W xorl, sha1_i-14, %edi\n"
	"  SHA1_W xorl, sha1_i-16, %edi\n"
	"  roll $1, %edi\n"
	"  movl %edi, 4*(sha1_i & 15)(%esp)\n"
	"  leal \\k(\\e, %edi), \\e\n"
	" .endif\n"
	" \\f \\b, \\c, \\d, \\e\n"
	" movl \\a, %edi; roll $5, %edi; addl %edi, \\e\n"
	" rorl $2, \\b\n"
	" .set sha1_i, sha1_i + 1\n"
	".endm\n"
	".macro SHA1_FIVE f, k\n"
	" SHA1_ROUND \\f, \\k, %eax, %ebx, %ecx, %edx, %esi\n"
	" SHA1_ROUND \\f, \\k, %esi, %eax, %ebx, %ecx, %edx\n"
	" SHA1_ROUND \\f, \\k, %edx, %esi, %eax, %ebx, %ecx\n"
	" SHA1_ROUND \\f, \\k, %ecx, %edx, %esi, %eax, %ebx\n"
	" SHA1_ROUND \\f, \\k, %ebx, %ecx, %edx, %esi, %eax\n"
	".endm\n"
	"rng_sha1_compress:\n"
	" pushl %ebp; pushl %edi; pushl %esi; pushl %ebx\n"
	" subl $64, %esp\n"                 /* the W ring */
	" movl 84(%esp), %edi\n"            /* state */
	" movl 88(%esp), %ebp\n"            /* block */
	" movl 0(%edi), %eax; movl 4(%edi), %ebx; movl 8(%edi), %ecx\n"
	" movl 12(%edi), %edx; movl 16(%edi), %esi\n"
	" .set sha1_i, 0\n"
	" .rept 4\n SHA1_FIVE SHA1_CH, 0x5a827999\n .endr\n"
	" .rept 4\n SHA1_FIVE SHA1_PARITY, 0x6ed9eba1\n .endr\n"
	" .rept 4\n SHA1_FIVE SHA1_MAJ, 0x8f1bbcdc\n .endr\n"
	" .rept 4\n SHA1_FIVE SHA1_PARITY, 0xca62c1d6\n .endr\n"
	" movl 84(%esp), %edi\n"
	" addl %eax, 0(%edi); addl %ebx, 4(%edi); addl %ecx, 8(%edi)\n"
	" addl %edx, 12(%edi); addl %esi, 16(%edi)\n"
	" xorl %eax, %eax; movl %esp, %edi; movl $16, %ecx; rep stosl\n"
	" addl $64, %esp\n"
	" popl %ebx; popl %esi; popl %edi; popl %ebp\n"
	" ret\n"
	".size rng_sha1_compress, . - rng_sha1_compress\n"
	".purgem SHA1_W\n.purgem SHA1_CH\n.purgem SHA1_PARITY\n.purgem SHA1_MAJ\n"
	".purgem SHA1_ROUND\n.purgem SHA1_FIVE\n"
	".popsection\n");
#endif

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
