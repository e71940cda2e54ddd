/* Host property tests of entropy/: random operation sequences, edge inputs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "entropy.h"
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
 * Random sequences of samples, flushes and reads; after every step:
 * random_bytes*8 <= credited_bits, no read raises pool entropy, a random
 * read lowers it by at least 8 bits a byte, transfers never credit the
 * secondary more than they took from the primary (see entropy_ops.c).
 */
static void test_random_sequences_keep_conservation_invariants(void **state)
{
	uint64_t served = 0, credited = 0;
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
			if (op % 12 <= 4)
				op |= 0x80;         /* usually a main-loop pass */
			if (op % 12 == 8)
				a %= 700;           /* long urandom reads only cost time */
			err = ops_step(&world, op, a, b);
			if (err)
				fail_msg("seed %u step %d (op %u a %u b %u): %s", seed, step, op % 12, a, b, err);
		}
		served += world.r.random_bytes;
		credited += world.r.credited_bits;
	}
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
	ops_init(&world, 0);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		r->primary.entropy_count = 4096;
		r->credited_bits += 4096;
		n = rng_read_random(r, buf, sizes[i]);
		assert_true(n <= sizes[i] && n <= RNG_SEC_XFER_BYTES);
		rng_read_urandom(r, buf, sizes[i]);
	}
	rng_read_urandom(r, buf, sizeof(buf));
	assert_int_equal(r->primary.entropy_count >= 0, 1);
	assert_true(r->random_bytes * 8 <= r->credited_bits);
	n = rng_read_random(r, buf, SIZE_MAX);
	assert_true(n <= RNG_SEC_XFER_BYTES);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_sequences_keep_conservation_invariants),
		cmocka_unit_test(test_any_read_size_is_safe),
		cmocka_unit_test(test_any_time_datum_and_granularity_is_safe),
		cmocka_unit_test(test_32bit_clock_wrap_gives_the_true_delta),
	};

	return cmocka_run_group_tests_name("entropy_props", tests, NULL, NULL);
}
