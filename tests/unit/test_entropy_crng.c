/* Host tests of entropy/: urandom's ChaCha20 generator and v1.89's kept bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "entropy/entropy_internal.h"
#include "tests/vectors/urandom_v189/scenario.h"

extern uint64_t stub_time;
extern uint32_t stub_clock_khz;
void stub_reset(void);

static struct rng r;

static int setup(void **state)
{
	(void)state;
	stub_reset();
	return 0;
}

/* Bytes from a hex string; blanks and colons are skipped. */
static size_t unhex(uint8_t *out, size_t max, const char *s)
{
	size_t n = 0;
	unsigned v;

	for (; *s && n < max; s++) {
		if (*s == ' ' || *s == ':' || *s == '\n')
			continue;
		if (sscanf(s, "%2x", &v) != 1)
			fail_msg("bad hex at '%s'", s);
		out[n++] = (uint8_t)v;
		s++;
	}
	return n;
}

/* Key and nonce as the RFC writes them (bytes), to the words the block takes. */
static void load_key_nonce(const char *key_hex, const char *nonce_hex, uint32_t key[8],
	uint32_t nonce[3])
{
	uint8_t k[32], n[12];

	assert_int_equal(unhex(k, sizeof(k), key_hex), 32);
	assert_int_equal(unhex(n, sizeof(n), nonce_hex), 12);
	for (unsigned i = 0; i < 8; i++)
		key[i] = (uint32_t)k[4 * i] | (uint32_t)k[4 * i + 1] << 8 |
			 (uint32_t)k[4 * i + 2] << 16 | (uint32_t)k[4 * i + 3] << 24;
	for (unsigned i = 0; i < 3; i++)
		nonce[i] = (uint32_t)n[4 * i] | (uint32_t)n[4 * i + 1] << 8 |
			   (uint32_t)n[4 * i + 2] << 16 | (uint32_t)n[4 * i + 3] << 24;
}

static void check_block(const char *key_hex, uint32_t counter, const char *nonce_hex,
	const char *want_hex, const char *what)
{
	uint32_t key[8], nonce[3];
	uint8_t want[64], got[64];

	load_key_nonce(key_hex, nonce_hex, key, nonce);
	assert_int_equal(unhex(want, sizeof(want), want_hex), 64);
	rng_chacha20_block(key, counter, nonce, got);
	if (memcmp(got, want, 64) != 0)
		fail_msg("%s: block differs from the RFC's", what);
}

#define KEY_SEQ "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define ZERO32  "0000000000000000000000000000000000000000000000000000000000000000"

/* RFC 8439 2.3.2: the block function's test vector. */
static void test_chacha20_block_rfc8439_2_3_2(void **state)
{
	(void)state;
	check_block(KEY_SEQ, 1, "00:00:00:09:00:00:00:4a:00:00:00:00",
		"10 f1 e7 e4 d1 3b 59 15 50 0f dd 1f a3 20 71 c4"
		"c7 d1 f4 c7 33 c0 68 03 04 22 aa 9a c3 d4 6c 4e"
		"d2 82 64 46 07 9f aa 09 14 c2 d7 05 d9 8b 02 a2"
		"b5 12 9c d1 de 16 4e b9 cb d0 83 e8 a2 50 3c 4e", "2.3.2");
}

/* RFC 8439 2.4.2: the sunscreen text, encrypted from counter 1. */
static void test_chacha20_encrypt_sunscreen_rfc8439_2_4_2(void **state)
{
	static const char plain[] = "Ladies and Gentlemen of the class of '99: If I could offer "
		"you only one tip for the future, sunscreen would be it.";
	uint8_t want[114], got[114], ks[64];
	uint32_t key[8], nonce[3];
	size_t i;

	(void)state;
	assert_int_equal(sizeof(plain) - 1, 114);
	assert_int_equal(unhex(want, sizeof(want),
		"6e 2e 35 9a 25 68 f9 80 41 ba 07 28 dd 0d 69 81"
		"e9 7e 7a ec 1d 43 60 c2 0a 27 af cc fd 9f ae 0b"
		"f9 1b 65 c5 52 47 33 ab 8f 59 3d ab cd 62 b3 57"
		"16 39 d6 24 e6 51 52 ab 8f 53 0c 35 9f 08 61 d8"
		"07 ca 0d bf 50 0d 6a 61 56 a3 8e 08 8a 22 b6 5e"
		"52 bc 51 4d 16 cc f8 06 81 8c e9 1a b7 79 37 36"
		"5a f9 0b bf 74 a3 5b e6 b4 0b 8e ed f2 78 5e 42"
		"87 4d"), 114);
	load_key_nonce(KEY_SEQ, "00:00:00:00:00:00:00:4a:00:00:00:00", key, nonce);
	for (i = 0; i < sizeof(got); i++) {
		if (i % 64 == 0)
			rng_chacha20_block(key, 1 + (uint32_t)(i / 64), nonce, ks);
		got[i] = (uint8_t)plain[i] ^ ks[i % 64];
	}
	assert_memory_equal(got, want, sizeof(want));
}

/* RFC 8439 Appendix A.1: test vectors 1 to 5 of the block function. */
static void test_chacha20_block_rfc8439_appendix_a1(void **state)
{
	(void)state;
	check_block(ZERO32, 0, "000000000000000000000000",
		"76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
		"da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586", "A.1 #1");
	check_block(ZERO32, 1, "000000000000000000000000",
		"9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
		"29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f", "A.1 #2");
	check_block("0000000000000000000000000000000000000000000000000000000000000001", 1,
		"000000000000000000000000",
		"3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a"
		"8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0", "A.1 #3");
	check_block("00ff000000000000000000000000000000000000000000000000000000000000", 2,
		"000000000000000000000000",
		"72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca"
		"13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096", "A.1 #4");
	check_block(ZERO32, 0, "000000000000000000000002",
		"c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c7"
		"8a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d", "A.1 #5");
}

/* ---- v1.89's urandom, kept byte for byte under the seed rules ---- */

static uint8_t v189_want[URANDOM_V189_BYTES];

static void load_v189(void)
{
	FILE *f = fopen("tests/vectors/urandom_v189/v189.bin", "rb");

	if (!f)
		fail_msg("tests/vectors/urandom_v189/v189.bin: cannot open (run from the tree's root)");
	assert_int_equal(fread(v189_want, 1, sizeof(v189_want), f), sizeof(v189_want));
	fclose(f);
}

static void test_seed_rules_urandom_is_v189_byte_for_byte(void **state)
{
	static const enum rng_estimator rules[] = { RNG_CREDIT_XYMORON, RNG_CREDIT_TSO };
	static uint8_t got[URANDOM_V189_BYTES];

	(void)state;
	load_v189();
	for (unsigned i = 0; i < 2; i++) {
		memset(got, 0, sizeof(got));
		assert_int_equal(urandom_v189_scenario(&r, rules[i], got), 0);
		if (memcmp(got, v189_want, sizeof(got)) != 0)
			fail_msg("credit=%s: urandom differs from the bytes recorded from d09da8a",
				i ? "tso" : "xymoron");
		/* the same debits the recorded tree made (README) */
		assert_int_equal(r.primary.entropy_count, 256);
		assert_int_equal(r.secondary.entropy_count, 0);
		assert_int_equal(r.spent_bits, 4352);
		assert_int_equal(r.reseeds, 4);
		assert_int_equal(r.crng_keys, 0);
	}
}

/* ---- the generator (credit=measured) ---- */

/* A flush that credits `bits` (as the meter's grants would). */
static void flush_with_credit(struct rng *x, uint32_t bits)
{
	x->batch_credit = bits;
	x->batch_samples_pending = 1;
	rng_batch_flush(x);
}

static void check_identity(const struct rng *x)
{
	struct rng_stats st;

	rng_stats(x, &st);
	if (st.credited_bits != (uint64_t)st.primary_bits + (uint64_t)st.secondary_bits + st.spent_bits)
		fail_msg("identity: credited %llu != %d + %d + spent %llu",
			(unsigned long long)st.credited_bits, st.primary_bits, st.secondary_bits,
			(unsigned long long)st.spent_bits);
}

/* A seeded, keyed measured instance with `extra` credited bits left over. */
static void seed_measured(struct rng *x, unsigned extra)
{
	rng_init(x, RNG_CREDIT_MEASURED);
	rng_mix_uncredited(x, "boot", 4);
	flush_with_credit(x, RNG_CRNG_KEY_BITS);        /* seeds, and the key takes it */
	assert_true(rng_urandom_ready(x));
	if (extra)
		flush_with_credit(x, extra);
}

/* What a read serves is ChaCha20 under the key it found: block 0's
 * second half, then blocks 1, 2, ...; and block 0's first half is the
 * key it leaves (the RFC-checked block function is the reference). */
static void test_a_read_serves_chacha20_and_leaves_block_0_as_key(void **state)
{
	static const uint32_t zero_nonce[3];
	uint32_t key[8];
	uint8_t got[100], want[32 + 128], b0[64];

	(void)state;
	seed_measured(&r, 0);
	memcpy(key, r.crng_key, sizeof(key));
	rng_chacha20_block(key, 0, zero_nonce, b0);
	memcpy(want, b0 + 32, 32);
	rng_chacha20_block(key, 1, zero_nonce, want + 32);
	rng_chacha20_block(key, 2, zero_nonce, want + 96);
	assert_int_equal(rng_read_urandom(&r, got, sizeof(got)), sizeof(got));
	assert_memory_equal(got, want, sizeof(got));
	assert_memory_equal(r.crng_key, b0, 32);
	assert_int_equal(r.urandom_bytes, sizeof(got));
}

/* Does any 8-byte run of `served` appear in what `key` gives at counters
 * 0..blocks-1 (nonce 0)? */
static int key_reproduces(const uint32_t key[8], unsigned blocks, const uint8_t *served,
	size_t len)
{
	static const uint32_t zero_nonce[3];
	static uint8_t stream[64 * 80];
	size_t i, j;

	assert_true(blocks <= 80);
	for (i = 0; i < blocks; i++)
		rng_chacha20_block(key, (uint32_t)i, zero_nonce, stream + 64 * i);
	for (i = 0; i + 8 <= len; i++)
		for (j = 0; j + 8 <= 64 * blocks; j++)
			if (memcmp(served + i, stream + j, 8) == 0)
				return 1;
	return 0;
}

/*
 * Fast key erasure: restored from the state a read leaves (its key), the
 * generator run at every counter the read used and the ones before gives
 * none of the bytes served. The detector must catch plain counter mode,
 * a generator that leaves its key as it found it: shown on the same read.
 */
static void test_state_after_a_read_cannot_reproduce_its_bytes(void **state)
{
	static const size_t sizes[] = { 256, 4096, 100, 33, 32, 31, 1 };
	static uint8_t served[4096];
	uint32_t before[8];
	unsigned i, blocks;

	(void)state;
	seed_measured(&r, 0);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memcpy(before, r.crng_key, sizeof(before));
		assert_int_equal(rng_read_urandom(&r, served, sizes[i]), sizes[i]);
		blocks = (unsigned)((sizes[i] + 32 + 63) / 64) + 1;   /* used, and one more */
		if (sizes[i] >= 8 && !key_reproduces(before, blocks, served, sizes[i]))
			fail_msg("the detector misses plain counter mode (%zu bytes)", sizes[i]);
		if (key_reproduces(r.crng_key, blocks, served, sizes[i]))
			fail_msg("the key left after a %zu-byte read reproduces served bytes", sizes[i]);
		if (memcmp(before, r.crng_key, sizeof(before)) == 0)
			fail_msg("the key was not replaced by a %zu-byte read", sizes[i]);
	}
}

/*
 * Each key takes RNG_CRNG_KEY_BITS credited bits the pools hold, debited
 * as spent: the primary first, then the secondary; the identity holds.
 */
static void test_each_key_debits_256_bits_from_the_pools(void **state)
{
	uint8_t buf[16];

	(void)state;
	seed_measured(&r, 100);
	assert_int_equal(r.crng_keys, 1);
	assert_int_equal(r.crng_key_bits, 256);
	assert_int_equal(r.spent_bits, 256);
	assert_int_equal(r.primary.entropy_count, 100);
	check_identity(&r);
	/* the next key, due once the schedule says and made by the read that
	 * finds it due: 100 primary + 156 secondary */
	r.secondary.entropy_count = 200;
	r.credited_bits += 200;
	stub_time = r.crng_next;
	flush_with_credit(&r, 0);
	assert_int_equal(r.crng_keys, 1);              /* nobody read: no key */
	assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), sizeof(buf));
	assert_int_equal(r.crng_keys, 2);
	assert_int_equal(r.primary.entropy_count, 0);
	assert_int_equal(r.secondary.entropy_count, 44);
	assert_int_equal(r.spent_bits, 512);
	check_identity(&r);
}

/*
 * The first key goes before /dev/random: under credit=measured random
 * serves nothing until the key is made, so the bits that seed the pools
 * are the key's (COM2's default stream=random cannot drain them first).
 * Should the pools hold less than a key when it is owed (a policy
 * switched at run time), the key waits for its bits and random with it.
 */
static void test_first_key_goes_before_random(void **state)
{
	uint8_t buf[RNG_SEC_XFER_BYTES];

	(void)state;
	rng_init(&r, RNG_CREDIT_MEASURED);
	flush_with_credit(&r, 200);
	assert_false(rng_random_ready(&r));
	assert_int_equal(rng_read_random(&r, buf, 16), 0);    /* stream=random waits */
	assert_int_equal(r.primary.entropy_count, 200);
	flush_with_credit(&r, 56);                     /* 256 since boot: seeded, keyed */
	assert_true(rng_seeded(&r));
	assert_int_equal(r.crng_keys, 1);
	assert_int_equal(r.primary.entropy_count, 0);  /* the key took them all */
	assert_int_equal(rng_read_urandom(&r, buf, 16), 16);
	flush_with_credit(&r, 100);
	assert_int_equal(rng_read_random(&r, buf, 16), 12);    /* 100 bits: 12 bytes */
	check_identity(&r);

	/* a key owed to drained pools (credit=tso drained them, then measured) */
	rng_init(&r, RNG_CREDIT_TSO);
	flush_with_credit(&r, 256);
	while (rng_read_random(&r, buf, sizeof(buf)))
		;
	r.estimator = RNG_CREDIT_MEASURED;
	r.crng_due = 1;
	flush_with_credit(&r, 150);
	assert_false(rng_urandom_ready(&r));
	assert_int_equal(rng_read_urandom(&r, buf, 16), 0);
	assert_int_equal(rng_read_random(&r, buf, 16), 0);
	flush_with_credit(&r, 150);
	assert_int_equal(r.crng_keys, 1);
	assert_int_equal(rng_read_urandom(&r, buf, 16), 16);
	assert_true(rng_read_random(&r, buf, 16) > 0);
	check_identity(&r);
}

/* The schedule, uptime counted from rng_init: the next key is due
 * uptime/2 after this one, within [1 s, 60 s]. Key times by hand, in
 * microseconds: 10 s, +5, +7.5, +11.25, +16.875, +25.3125, +37.96875,
 * +56.953125, then +60 (the cap: uptime/2 is past 85 s). */
static void test_reseed_schedule_in_clock_time(void **state)
{
	static const uint64_t key_at_us[] = { 10000000, 15000000, 22500000, 33750000, 50625000,
		75937500, 113906250, 170859375, 230859375, 290859375 };
	const uint64_t us = 1000;                      /* stub clock: 1 GHz */
	struct rng_stats st;
	uint8_t buf[16];
	unsigned i;

	(void)state;
	rng_init(&r, RNG_CREDIT_MEASURED);
	stub_time = key_at_us[0] * us;
	flush_with_credit(&r, RNG_CRNG_KEY_BITS);
	for (i = 1; i < sizeof(key_at_us) / sizeof(key_at_us[0]); i++) {
		rng_stats(&r, &st);
		assert_int_equal(st.crng_keys, i);
		assert_int_equal(st.crng_keyed_ms, key_at_us[i - 1] / 1000);
		assert_int_equal(st.crng_reseed_ms, key_at_us[i] / 1000);
		r.primary.entropy_count += 300;
		r.credited_bits += 300;
		stub_time = key_at_us[i] * us - 1;     /* a nanosecond early: no key */
		assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), sizeof(buf));
		assert_int_equal(r.crng_keys, i);
		stub_time = key_at_us[i] * us;
		flush_with_credit(&r, 0);              /* due, but no read: no key */
		assert_int_equal(r.crng_keys, i);
		assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), sizeof(buf));
		assert_int_equal(r.crng_keys, i + 1);
		check_identity(&r);
	}
	rng_stats(&r, &st);
	assert_int_equal(st.crng_key_bits, 256 * st.crng_keys);
	assert_int_equal(st.crng_reseed_ms, (290859375 + 60000000) / 1000);
}

/* A reseed owed to an empty pool waits for the bits, and /dev/random
 * with it; urandom keeps serving from the key it has. */
static void test_owed_reseed_waits_for_bits_and_urandom_serves_on(void **state)
{
	uint8_t buf[32];

	(void)state;
	seed_measured(&r, 0);
	stub_time = r.crng_next;
	flush_with_credit(&r, 100);
	assert_int_equal(r.crng_due, 0);               /* due, but owed once read */
	assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), sizeof(buf));
	assert_int_equal(r.crng_keys, 1);
	assert_int_equal(r.crng_due, 1);
	assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), sizeof(buf));
	assert_int_equal(rng_read_random(&r, buf, sizeof(buf)), 0);
	flush_with_credit(&r, 156);
	assert_int_equal(r.crng_keys, 2);
	assert_int_equal(r.crng_due, 0);
	check_identity(&r);
}

/* Reseeds are lazy (Linux 5.18): while nobody reads urandom none is
 * made, however long past due, and what is credited stays for
 * /dev/random; the first read after that makes one. */
static void test_no_reseed_spends_bits_while_nobody_reads_urandom(void **state)
{
	uint8_t buf[16];
	unsigned i;

	(void)state;
	seed_measured(&r, 0);
	for (i = 0; i < 20; i++) {
		stub_time = r.crng_next + i * 61000000000ull;   /* a minute apart */
		flush_with_credit(&r, 200);
	}
	assert_int_equal(r.crng_keys, 1);
	assert_int_equal(r.spent_bits, 256);
	assert_int_equal(r.crng_due, 0);
	assert_true(rng_random_ready(&r));
	assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), sizeof(buf));
	assert_int_equal(r.crng_keys, 2);
	assert_int_equal(r.spent_bits, 512);
	check_identity(&r);
}

/* r, set to work apart, and `whole`, which makes everything at once: the
 * same boot data and the same credit, so their outputs can be compared. */
static void twins(struct rng *whole, enum rng_estimator est, void (*apart)(struct rng *),
		  unsigned bits)
{
	rng_init(whole, est);
	rng_init(&r, est);
	apart(&r);
	rng_mix_uncredited(whole, "boot", 4);
	rng_mix_uncredited(&r, "boot", 4);
	flush_with_credit(whole, bits);
	flush_with_credit(&r, bits);
}

/*
 * Keys made apart (rng_crng_keys_apart, as the appliance does): one
 * extraction round a poll, eight in all, and the key the flush would have
 * made when nothing comes between the rounds. Until the last round the key
 * is still owed: /dev/random waits and urandom serves from none.
 */
static void test_a_key_made_apart_takes_eight_polls_and_equals_the_flushs(void **state)
{
	static struct rng whole;
	uint8_t buf[16];
	unsigned polls = 0;

	(void)state;
	twins(&whole, RNG_CREDIT_MEASURED, rng_crng_keys_apart, RNG_CRNG_KEY_BITS + 100);
	assert_int_equal(whole.crng_keys, 1);
	assert_int_equal(r.crng_keys, 0);              /* the flush left it to the polls */
	while (rng_crng_poll(&r)) {
		polls++;
		if (r.crng_keys)
			break;
		assert_int_equal(r.crng_due, 1);
		assert_int_equal(rng_read_random(&r, buf, sizeof(buf)), 0);
		assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), 0);
		assert_true(polls < 8);
	}
	assert_int_equal(polls, 8);
	assert_int_equal(r.crng_keys, 1);
	assert_int_equal(r.crng_due, 0);
	assert_memory_equal(r.crng_key, whole.crng_key, sizeof(r.crng_key));
	assert_memory_equal(r.primary.words, whole.primary.words, sizeof(r.primary.words));
	assert_memory_equal(r.secondary.words, whole.secondary.words, sizeof(r.secondary.words));
	assert_int_equal(r.crng_next, whole.crng_next);
	assert_int_equal(rng_crng_poll(&r), 0);        /* nothing owed now */
	check_identity(&r);
	assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), sizeof(buf));
}

/*
 * Reads apart (rng_reads_apart, as the appliance does), credit=xymoron:
 * each read serves at most RNG_APART_BYTES, a read stops where the
 * catastrophic reseed is due, the next read begins the reseed and serves
 * nothing, and rng_apart_poll() makes it one extraction round a call, 34
 * in all (340 bytes), reads serving nothing meanwhile. With nothing
 * between the rounds, the bytes served and the pools after are those of
 * the one-shot form read in the same sizes.
 */
/* Reads from r (apart) and whole (one-shot), each the size r's gave,
 * until r's stop where its catastrophic reseed is due; returns the bytes. */
static size_t read_both_to_the_reseed(struct rng *whole, uint8_t *a, uint8_t *b, size_t cap)
{
	uint8_t buf[64];
	size_t got = 0, k;

	while (got < cap - sizeof(buf)) {
		k = rng_read_urandom(&r, buf, sizeof(buf));
		if (k == 0)
			break;
		assert_true(k <= RNG_APART_BYTES);
		memcpy(a + got, buf, k);
		assert_int_equal(rng_read_urandom(whole, b + got, k), k);
		got += k;
	}
	return got;
}

/* Polls r's reseed round by round; nothing is served meanwhile. */
static unsigned poll_the_reseed(void)
{
	uint8_t buf[64];
	unsigned polls = 0;

	while (rng_apart_poll(&r)) {
		polls++;
		if (r.reseeds)
			break;
		assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), 0);
		assert_int_equal(rng_read_random(&r, buf, sizeof(buf)), 0);
		assert_true(polls < 34);
	}
	return polls;
}

static void test_a_reseed_made_apart_takes_34_polls_and_equals_the_one_shot(void **state)
{
	static struct rng whole;
	static uint8_t a[2048], b[2048];
	uint8_t buf[64];
	size_t got, k;

	(void)state;
	twins(&whole, RNG_CREDIT_XYMORON, rng_reads_apart, 2000);
	got = read_both_to_the_reseed(&whole, a, b, sizeof(a));
	assert_int_equal(got, RNG_RESEED_BYTES);        /* stopped where the reseed is due */
	assert_int_equal(r.reseeds, 0);
	assert_int_equal(poll_the_reseed(), 34);
	assert_int_equal(rng_apart_poll(&r), 0);        /* nothing under way */
	/* the one-shot form reseeds inside its next read, of the same size */
	k = rng_read_urandom(&r, a + got, sizeof(buf));
	assert_int_equal(k, RNG_APART_BYTES);
	assert_int_equal(rng_read_urandom(&whole, b + got, k), k);
	got += k;
	assert_int_equal(whole.reseeds, 1);
	assert_memory_equal(a, b, got);
	assert_memory_equal(r.primary.words, whole.primary.words, sizeof(r.primary.words));
	assert_memory_equal(r.secondary.words, whole.secondary.words, sizeof(r.secondary.words));
	assert_int_equal(r.spent_bits, whole.spent_bits);
	check_identity(&r);
	/* /dev/random apart: at most RNG_APART_BYTES a read too */
	flush_with_credit(&r, 1000);
	assert_int_equal(rng_read_random(&r, buf, sizeof(buf)), RNG_APART_BYTES);
	check_identity(&r);
}

/* credit=measured's ChaCha20 reads are cheap (~37 instructions a byte):
 * reads apart leave them whole. */
static void test_reads_apart_leave_chacha20_reads_whole(void **state)
{
	uint8_t buf[256];

	(void)state;
	seed_measured(&r, 0);
	rng_reads_apart(&r);
	assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), sizeof(buf));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_chacha20_block_rfc8439_2_3_2, setup),
		cmocka_unit_test_setup(test_chacha20_encrypt_sunscreen_rfc8439_2_4_2, setup),
		cmocka_unit_test_setup(test_chacha20_block_rfc8439_appendix_a1, setup),
		cmocka_unit_test_setup(test_seed_rules_urandom_is_v189_byte_for_byte, setup),
		cmocka_unit_test_setup(test_a_read_serves_chacha20_and_leaves_block_0_as_key, setup),
		cmocka_unit_test_setup(test_state_after_a_read_cannot_reproduce_its_bytes, setup),
		cmocka_unit_test_setup(test_each_key_debits_256_bits_from_the_pools, setup),
		cmocka_unit_test_setup(test_first_key_goes_before_random, setup),
		cmocka_unit_test_setup(test_reseed_schedule_in_clock_time, setup),
		cmocka_unit_test_setup(test_owed_reseed_waits_for_bits_and_urandom_serves_on, setup),
		cmocka_unit_test_setup(test_no_reseed_spends_bits_while_nobody_reads_urandom, setup),
		cmocka_unit_test_setup(test_a_key_made_apart_takes_eight_polls_and_equals_the_flushs, setup),
		cmocka_unit_test_setup(test_a_reseed_made_apart_takes_34_polls_and_equals_the_one_shot, setup),
		cmocka_unit_test_setup(test_reads_apart_leave_chacha20_reads_whole, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
