/* The i386 assembly SHA-1 compression against the portable C one.
 * A bare multiboot kernel (boot/multiboot.S calls kmain): the host cannot
 * run 32-bit binaries, QEMU can. `make test-sha1-i386` boots it; the verdict
 * is on COM1 and in QEMU's exit status (isa-debug-exit: 0 pass, 1 fail). */
#include <stdint.h>
#include <string.h>

#include "entropy/entropy_internal.h"
#include "arch/x86/io.h"

void rng_sha1_compress_portable(uint32_t state[5], const uint32_t block[16]);
void kmain(void);

#define TRIALS    100000
#define COM1      0x3F8
#define UART_LSR  5
#define UART_LSR_THRE 0x20
#define DEBUG_EXIT 0xF4

static void put(const char *s)
{
	for (; *s; s++) {
		for (int spin = 0; spin < 100000 && !(inb(COM1 + UART_LSR) & UART_LSR_THRE); spin++)
			;
		outb(COM1, (uint8_t)*s);
	}
}

static void put_u32(uint32_t v)
{
	char buf[11], *p = buf + 10;
	*p = 0;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	put(p);
}

static void verdict(int pass)
{
	outb(DEBUG_EXIT, pass ? 0 : 1);
	for (;;)
		__asm__ __volatile__("cli; hlt");
}

/* xorshift32: reproducible inputs */
static uint32_t next(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

void kmain(void)
{
	uint32_t seed = 0x12345678, block[16], copy[16], a[5], b[5];
	uint32_t trial, fails = 0;
	int i;

	if (rng_sha1_selftest() != 0) {
		put("FAIL: assembly SHA-1 fails the FIPS 180-2 \"abc\" vector\r\n");
		verdict(0);
	}
	for (trial = 0; trial < TRIALS; trial++) {
		/* the first 64: one bit set or clear everywhere, then random */
		for (i = 0; i < 16; i++)
			block[i] = trial < 64 ? ((trial & 32) ? ~0u : 0u) ^ (1u << (trial % 32)) : next(&seed);
		for (i = 0; i < 5; i++)
			a[i] = b[i] = trial == 0 ? rng_sha1_iv[i] : next(&seed);
		memcpy(copy, block, sizeof(copy));
		rng_sha1_compress(a, block);
		rng_sha1_compress_portable(b, block);
		if (memcmp(block, copy, sizeof(copy)) != 0) {
			put("FAIL: the assembly wrote the caller's block\r\n");
			verdict(0);
		}
		if (memcmp(a, b, sizeof(a)) != 0 && fails++ < 5) {
			put("FAIL: compression differs in trial ");
			put_u32(trial);
			put("\r\n");
		}
	}
	if (fails) {
		put("FAIL: ");
		put_u32(fails);
		put(" compressions differ\r\n");
		verdict(0);
	}
	put("ok: assembly and portable SHA-1 agree on ");
	put_u32(TRIALS);
	put(" compressions\r\n");
	verdict(1);
}
