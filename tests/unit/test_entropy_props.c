/* Host property tests of entropy/: random operation sequences, edge inputs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "entropy/entropy_internal.h"
#include "entropy_ops.h"

extern uint64_t stub_time, stub_time_step;
extern uint32_t stub_switches, stub_clock_khz;
void stub_reset(void);
void sample_at(struct entropy_source *src, uint64_t t, uint32_t passes, uint32_t datum);

static struct ops_world world;

static uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Random sequences of samples, fills of both pools, flushes, reads of
 * every size, urandom across the reseed mark and the disk's address
 * draws; after every step: credited_bits == primary + secondary +
 * spent_bits exactly, random_bytes*8 <= spent_bits, no read raises pool
 * entropy, a random read lowers it by at least 8 bits a byte, transfers
 * never credit the secondary more than they took from the primary, an
 * address draw changes no count (see entropy_ops.c).
 */
static void test_random_sequences_keep_conservation_invariants(void **state)
{
	uint64_t served = 0, credited = 0, full = 0;
	uint32_t seed;
	int step;

	(void)state;
	for (seed = 1; seed <= 24; seed++) {
		uint64_t s = 0x9e3779b97f4a7c15ull * seed;

		ops_init(&world, seed * 2654435761u);
		for (step = 0; step < 4000; step++) {
			uint64_t x = xorshift64(&s);
			uint8_t op = (uint8_t)x;
			uint32_t a = (uint32_t)(x >> 8) & 0xffffff;
			uint32_t b = (uint32_t)xorshift64(&s);
			const char *err;

			/* mostly forward steps of a few thousand ticks */
			if ((op & 0x18) != 0)
				b = (b & 0xffff) + 1;
			if (op % OPS_KINDS <= 4)
				op |= 0x80;         /* usually a main-loop pass */
			if (op % OPS_KINDS == 8)
				a %= 1100;          /* urandom across the 1024-byte reseed mark */
			if (op % OPS_KINDS == 7 && (b & 1))
				a %= 345;           /* every random read size, 1..340 and past it */
			err = ops_step(&world, op, a, b);
			if (err)
				fail_msg("seed %u step %d (op %u a %u b %u): %s", seed, step,
					op % OPS_KINDS, a, b, err);
		}
		served += world.r.random_bytes;
		credited += world.r.credited_bits;
		full += world.full_both;
	}
	/* ... and must reach the state where the 2002 holes were: both full. */
	if (full == 0)
		fail_msg("no sequence ever had both pools full before a random read");
	/* The sequences must really exercise /dev/random, or the checks are vacuous. */
	if (served < 1000 || credited < 10000)
		fail_msg("random sequences served only %llu random bytes from %llu credited bits",
			(unsigned long long)served, (unsigned long long)credited);
}

static void test_any_read_size_is_safe(void **state)
{
	static const size_t sizes[] = { 0, 1, 9, 10, 11, 339, 340, 341, 1023, 1024, 1025, 4096 };
	static uint8_t buf[100000];
	struct rng *r = &world.r;
	size_t i, n;

	(void)state;
	ops_init(&world, 0);                      /* seed 0: credit=xymoron, urandom never waits */
	assert_int_equal(r->estimator, RNG_CREDIT_XYMORON);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		r->primary.entropy_count = 4096;
		r->credited_bits += 4096;
		/* a full primary backs 512 bytes: one read gives min(size, 340) */
		n = rng_read_random(r, buf, sizes[i]);
		assert_int_equal(n, sizes[i] < RNG_SEC_XFER_BYTES ? sizes[i] : RNG_SEC_XFER_BYTES);
		assert_int_equal(rng_read_urandom(r, buf, sizes[i]), sizes[i]);
	}
	assert_int_equal(rng_read_urandom(r, buf, sizeof(buf)), sizeof(buf));
	assert_true(r->primary.entropy_count >= 0);
	assert_true(r->random_bytes * 8 <= r->credited_bits);
	r->primary.entropy_count = 4096;
	r->credited_bits += 4096;
	assert_int_equal(rng_read_random(r, buf, SIZE_MAX), RNG_SEC_XFER_BYTES);
}

static void test_any_time_datum_and_granularity_is_safe(void **state)
{
	static const uint32_t clocks[] = { 0, 1, 1193, 1000000, UINT32_MAX };
	static const uint32_t grans[] = { 0, 1, 1193, 33000, UINT32_MAX };
	static const uint64_t times[] = {
		0, 1, 0xffffffffull, 0x100000000ull, 0xfffffffeull, 5, 0x7fffffffull,
		0x80000000ull, 0xffffffffffffffffull, 0x8000000000000000ull, 3, 2, 1, 0,
	};
	static const uint32_t data[] = { 0, 1, 0x80000000u, UINT32_MAX };
	struct rng *r = &world.r;
	struct entropy_source src;
	size_t c, g, t;

	(void)state;
	for (c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++) {
		for (g = 0; g < sizeof(grans) / sizeof(grans[0]); g++) {
			stub_reset();
			stub_clock_khz = clocks[c];
			rng_init(r, (g & 1) ? RNG_CREDIT_TSO : RNG_CREDIT_XYMORON);
			create_entropy_source(r, &src, "edge", -1, 1, grans[g]);
			assert_true(src.shift < 32);
			for (t = 0; t < sizeof(times) / sizeof(times[0]); t++) {
				sample_at(&src, times[t], (uint32_t)(t & 1), data[t % 4]);
				assert_true(r->batch_credit <= RNG_BATCH_WORDS);
			}
			assert_int_equal(src.events, sizeof(times) / sizeof(times[0]));
			rng_batch_flush(r);
			assert_true(r->primary.entropy_count <= RNG_BATCH_WORDS);
		}
	}
}

static void test_32bit_clock_wrap_gives_the_true_delta(void **state)
{
	struct rng *r = &world.r;
	struct entropy_source a, b;

	(void)state;
	stub_reset();
	stub_clock_khz = 1000;
	rng_init(r, RNG_CREDIT_XYMORON);
	create_entropy_source(r, &a, "wrap", 1, 1, 1000);
	create_entropy_source(r, &b, "nowrap", 2, 1, 1000);
	/* the same deltas, once across the 32-bit wrap and once not */
	sample_at(&a, 0xffffff00ull, 1, 0);
	sample_at(&b, 0x10000000ull, 1, 0);
	a.tso_bits = b.tso_bits = 0;        /* v1.89's first sample measures from 0 */
	sample_at(&a, 0x100000900ull, 1, 0);
	sample_at(&b, 0x10000a00ull, 1, 0);
	if (a.bits != b.bits || a.tso_bits != b.tso_bits || a.bits == 0)
		fail_msg("delta 0xa00 across the clock wrap earned %llu/%llu bits, without wrap %llu/%llu",
			(unsigned long long)a.bits, (unsigned long long)a.tso_bits,
			(unsigned long long)b.bits, (unsigned long long)b.tso_bits);
}

/* Set a pool state directly, keeping the identity (what a history of
 * flushes that credited exactly these counts would leave). */
static void set_pools(struct rng *r, int primary, int secondary)
{
	r->primary.entropy_count = primary;
	r->secondary.entropy_count = secondary;
	r->credited_bits = (uint64_t)primary + (uint64_t)secondary + r->spent_bits;
}

static void check_identity(const struct rng *r, const char *what, size_t n)
{
	if (r->credited_bits != (uint64_t)r->primary.entropy_count +
	    (uint64_t)r->secondary.entropy_count + r->spent_bits)
		fail_msg("%s %zu: credited %llu != primary %d + secondary %d + spent %llu", what, n,
			(unsigned long long)r->credited_bits, r->primary.entropy_count,
			r->secondary.entropy_count, (unsigned long long)r->spent_bits);
	if (r->random_bytes * 8 > r->spent_bits)
		fail_msg("%s %zu: random_bytes %llu * 8 > spent_bits %llu", what, n,
			(unsigned long long)r->random_bytes, (unsigned long long)r->spent_bits);
}

/*
 * The 2002 class of hole: both pools full, then a read larger than the
 * secondary holds. v1.89 skipped the transfer because the secondary was
 * full, and the secondary's count floored at 0 while 340 bytes went out.
 * Every size 1..340 at every secondary level (step 8 bits) must lower
 * the pools by at least 8 bits a byte.
 */
static void test_random_read_from_full_pools_debits_every_byte(void **state)
{
	static uint8_t buf[RNG_SEC_XFER_BYTES];
	struct rng *r = &world.r;
	size_t n;
	int level;

	(void)state;
	for (level = 0; level <= 1024; level += 8) {
		for (n = 1; n <= RNG_SEC_XFER_BYTES; n++) {
			int before;

			ops_init(&world, 7);
			r->extracted_since_reseed = (uint32_t)(n * 37 % RNG_RESEED_BYTES);
			set_pools(r, 4096, level);
			before = r->primary.entropy_count + r->secondary.entropy_count;
			if (rng_read_random(r, buf, n) != n)
				fail_msg("full primary served less than %zu bytes", n);
			if (r->primary.entropy_count + r->secondary.entropy_count > before - 8 * (int)n)
				fail_msg("secondary at %d bits: random %zu lowered the pools only from %d to %d",
					level, n, before, r->primary.entropy_count + r->secondary.entropy_count);
			check_identity(r, "random read", n);
		}
	}
}

/* Issue's directed case: both pools full, `random 256`, through rounds. */
static void test_full_pools_random_256_is_backed(void **state)
{
	static uint8_t buf[256];
	struct rng *r = &world.r;
	size_t done = 0, k;

	(void)state;
	ops_init(&world, 3);
	set_pools(r, 4096, 1024);
	while (done < sizeof(buf) && (k = rng_read_random(r, buf + done, sizeof(buf) - done)) > 0)
		done += k;
	assert_int_equal(done, 256);
	if (r->primary.entropy_count + r->secondary.entropy_count > 4096 + 1024 - 2048)
		fail_msg("random 256 from full pools left %d + %d bits (at most 3072)",
			r->primary.entropy_count, r->secondary.entropy_count);
	check_identity(r, "random", 256);
}

/* A disk polled for its own reads, keys credited, nothing served: the
 * pools must hold every credited bit (the address draw spends nothing). */
static void test_disk_address_draws_spend_no_credit(void **state)
{
	struct rng *r = &world.r;
	uint32_t lba;
	unsigned i;

	(void)state;
	ops_init(&world, 5);
	for (i = 0; i < 400; i++) {
		const char *err = ops_step(&world, 13, 0, i * 2654435761u);   /* one fill round */

		if (err)
			fail_msg("fill: %s", err);
		rng_aux_bytes(r, &lba, sizeof(lba));
	}
	if (r->credited_bits == 0)
		fail_msg("the fill rounds credited nothing: the test is vacuous");
	if ((uint64_t)(r->primary.entropy_count + r->secondary.entropy_count) != r->credited_bits ||
	    r->spent_bits != 0 || r->reseeds != 0)
		fail_msg("with no reads the pools hold %d + %d of %llu credited bits (spent %llu, reseeds %llu)",
			r->primary.entropy_count, r->secondary.entropy_count,
			(unsigned long long)r->credited_bits, (unsigned long long)r->spent_bits,
			(unsigned long long)r->reseeds);
}

/*
 * /dev/urandom may not drain what a /dev/random reader waits for: a
 * continuous urandom reader between every flush still leaves the primary
 * its reserve, so a random reader gets a key's worth.
 */
static void test_urandom_reader_does_not_starve_random_reader(void **state)
{
	static uint8_t buf[4096];
	struct rng *r = &world.r;
	size_t got = 0;
	unsigned i;

	(void)state;
	ops_init(&world, 9);
	for (i = 0; i < 200 && got < 32; i++) {
		const char *err = ops_step(&world, 13, 0, i * 40503u + 1);    /* credit arrives */

		if (err)
			fail_msg("fill: %s", err);
		rng_read_urandom(r, buf, sizeof(buf));                      /* rngd on COM2 */
		if (r->primary.entropy_count < 0 ||
		    (r->credited_bits >= RNG_URANDOM_RESERVE_BITS &&
		     r->primary.entropy_count + r->secondary.entropy_count < 0))
			fail_msg("bad counts");
		got += rng_read_random(r, buf, 32 - got);                   /* console random 32 */
		check_identity(r, "round", i);
	}
	if (got < 32)
		fail_msg("random 32 got only %zu bytes in %u rounds of credit and urandom reads", got, i);
}

/* An untrusted sample must not reset a trusted source's estimator: a
 * periodic trusted source earns the same with and without them. */
static void test_uncredited_samples_leave_trusted_state_alone(void **state)
{
	struct rng *r = &world.r;
	struct entropy_source per;
	uint64_t alone, mixed;
	unsigned i;

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		stub_reset();
		rng_init(r, RNG_CREDIT_XYMORON);
		create_entropy_source(r, &per, "periodic", 1, 1, 1000000);
		r->untrusted_sink = &per;
		for (i = 0; i < 200; i++) {
			sample_at(&per, 1000000ull * (i + 1), 1, i);
			if (pass) {
				stub_time += 123457 + 7919u * (i % 13);
				add_untrusted_entropy(r, i);
			}
		}
		if (pass)
			mixed = per.bits;
		else
			alone = per.bits;
	}
	if (mixed > alone)
		fail_msg("periodic trusted source: %llu bits alone, %llu with uncredited samples interleaved",
			(unsigned long long)alone, (unsigned long long)mixed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_sequences_keep_conservation_invariants),
		cmocka_unit_test(test_any_read_size_is_safe),
		cmocka_unit_test(test_any_time_datum_and_granularity_is_safe),
		cmocka_unit_test(test_32bit_clock_wrap_gives_the_true_delta),
		cmocka_unit_test(test_random_read_from_full_pools_debits_every_byte),
		cmocka_unit_test(test_full_pools_random_256_is_backed),
		cmocka_unit_test(test_disk_address_draws_spend_no_credit),
		cmocka_unit_test(test_urandom_reader_does_not_starve_random_reader),
		cmocka_unit_test(test_uncredited_samples_leave_trusted_state_alone),
	};

	return cmocka_run_group_tests_name("entropy_props", tests, NULL, NULL);
}
