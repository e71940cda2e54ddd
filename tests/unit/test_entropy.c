/* Host tests of entropy/: estimators, batch, flush, sources, reads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "entropy/entropy_internal.h"

/* The scripted seam (entropy_platform_stub.c). */
extern uint64_t stub_time, stub_time_step;
extern uint32_t stub_switches, stub_clock_khz;
extern int stub_irq_depth, stub_irq_max_depth;
void stub_reset(void);
void sample_at(struct entropy_source *src, uint64_t t, uint32_t passes, uint32_t datum);

static struct rng r;
static struct entropy_source s1, s2;

/* Patch 1/4's table, restated here so a wrong table in estimate.c fails. */
static const unsigned expected_benford[16] = { 0, 0, 0, 1, 2, 3, 4, 5, 5, 6, 7, 7, 8, 9, 9, 10 };

static int setup(void **state)
{
	(void)state;
	stub_reset();
	rng_init(&r, RNG_CREDIT_XYMORON);
	return 0;
}

/* ---- log2 and Benford ---- */

static void test_log2_16_is_floor_log2_of_low_16_bits(void **state)
{
	uint32_t v;
	int naive;

	(void)state;
	assert_int_equal(rng_log2_16(0), -1);
	for (v = 1; v <= 0xffff; v++) {
		uint32_t x = v;

		naive = -1;
		while (x) {
			x >>= 1;
			naive++;
		}
		if (rng_log2_16(v) != naive)
			fail_msg("rng_log2_16(%u) = %d, want %d", v, rng_log2_16(v), naive);
		if (rng_log2_16(v | 0xabcd0000u) != naive)
			fail_msg("rng_log2_16(0x%x) looked at bits above 16", v | 0xabcd0000u);
	}
	assert_int_equal(rng_log2_16(0x10000), -1);
}

static void test_benford_table_for_every_16bit_bucket(void **state)
{
	unsigned l;

	(void)state;
	for (l = 0; l < 16; l++) {
		uint32_t lo = 1u << l, hi = (2u << l) - 1;

		if (rng_benford_bits(lo) != expected_benford[l] || rng_benford_bits(hi) != expected_benford[l])
			fail_msg("bucket %u (deltas 0x%x..0x%x): bits %u/%u, want %u", l, lo, hi,
				rng_benford_bits(lo), rng_benford_bits(hi), expected_benford[l]);
	}
}

static void test_delta_zero_credits_nothing(void **state)
{
	(void)state;
	/* benford[-1] in the seed: delta 0 (and a delta whose low 16 bits are 0). */
	assert_int_equal(rng_benford_bits(0), 0);
	assert_int_equal(rng_benford_bits(0x30000), 0);

	stub_clock_khz = 1000;   /* 1 MHz clock; granularity 1000 kHz: shift 0 */
	create_entropy_source(&r, &s1, "kbd", 1, 1, 1000);
	sample_at(&s1, 5000, 1, 0);
	sample_at(&s1, 9000, 1, 0);   /* delta 4000: earns */
	assert_true(s1.bits > 0);
	s1.bits = 0;
	sample_at(&s1, 9000, 1, 0);   /* same instant: delta 0 */
	if (s1.bits != 0)
		fail_msg("a zero delta earned %llu bits", (unsigned long long)s1.bits);
}

/* ---- granularity shift ---- */

static void test_shift_for_granularity_below_clock_rate(void **state)
{
	(void)state;
	assert_int_equal(rng_shift_for(1000000, 1), 19);   /* 1e6: 2^19 <= f < 2^20 */
	assert_int_equal(rng_shift_for(1193, 1), 10);
	assert_int_equal(rng_shift_for(1000000, 1000), 9);
	assert_int_equal(rng_shift_for(2048, 1), 11);
	assert_int_equal(rng_shift_for(UINT32_MAX, 1), 31);
}

static void test_shift_is_zero_for_granularity_above_clock_rate_or_zero(void **state)
{
	(void)state;
	assert_int_equal(rng_shift_for(1193, 33000), 0);
	assert_int_equal(rng_shift_for(1193, 1193), 0);
	assert_int_equal(rng_shift_for(1193, 0), 0);
	assert_int_equal(rng_shift_for(0, 0), 0);
	assert_int_equal(rng_shift_for(0, 7), 0);
}

static void test_source_deltas_are_shifted_by_granularity(void **state)
{
	(void)state;
	stub_clock_khz = 1024000;            /* factor 1024: shift 10 */
	create_entropy_source(&r, &s1, "kbd", 1, 1, 1000);
	assert_int_equal(s1.shift, 10);
	sample_at(&s1, 0, 1, 0);
	sample_at(&s1, 1000u << 10, 1, 0);   /* delta 1000 after the shift: benford[9] */
	if (s1.bits != 6)
		fail_msg("shifted delta 1000 earned %llu bits, want 6", (unsigned long long)s1.bits);
}

/* ---- the 2002 rules ---- */

static void test_first_sample_of_a_source_earns_nothing(void **state)
{
	(void)state;
	stub_clock_khz = 1000;   /* 1 MHz clock; granularity 1000 kHz: shift 0 */
	create_entropy_source(&r, &s1, "kbd", 1, 1, 1000);
	sample_at(&s1, 0x7654321, 5, 0);
	assert_int_equal(s1.events, 1);
	if (s1.bits != 0)
		fail_msg("first sample earned %llu bits with no reference time", (unsigned long long)s1.bits);
}

static void test_periodic_source_earns_nothing_after_first_samples(void **state)
{
	uint64_t t = 1000, after_two;
	int i;

	(void)state;
	stub_clock_khz = 1000;   /* 1 MHz clock; granularity 1000 kHz: shift 0 */
	create_entropy_source(&r, &s1, "metronome", 0, 1, 1000);
	sample_at(&s1, t, 1, 0);
	sample_at(&s1, t += 12345, 1, 0);
	after_two = s1.bits;
	assert_true(after_two > 0);     /* so the check below can fail */
	for (i = 0; i < 1000; i++)
		sample_at(&s1, t += 12345, 1, 0);
	if (s1.bits != after_two)
		fail_msg("a strictly periodic source earned %llu bits after its first two samples",
			(unsigned long long)(s1.bits - after_two));
	assert_true(s1.tso_bits > 0);   /* v1.89 also settles, but credits the start */
}

/* Key edges on a 1 GHz clock from a 1 kHz keyboard (shift 19, as
 * kern/devices.c registers it), `n` of them `gap(i)` ns apart; s1's fields. */
static void type_edges(uint64_t (*gap)(unsigned i), unsigned n)
{
	uint64_t t = 1000000000ull;
	unsigned i;

	stub_reset();
	rng_init(&r, RNG_CREDIT_XYMORON);
	create_entropy_source(&r, &s1, "keyboard", 1, 1, 1);
	for (i = 0; i < n; i++)
		sample_at(&s1, t += gap(i), 1, i & 1);
}

static uint32_t edge_rand = 1;

/* A strict 100 ms pace plus up to 20 us of the injector's jitter. */
static uint64_t gap_regular(unsigned i)
{
	(void)i;
	edge_rand = edge_rand * 1103515245u + 12345u;   /* ANSI C's rand() step */
	return 100000000ull + (edge_rand >> 16) % 20000u;
}

/* Irregular: 30..300 ms, uniform to the nanosecond. */
static uint64_t gap_irregular(unsigned i)
{
	(void)i;
	edge_rand = edge_rand * 1103515245u + 12345u;
	return 30000000ull + ((uint64_t)edge_rand * 270000000ull >> 32);
}

/* Xymoron's periodicity check on key edges: a strict pace has second
 * differences of only the jitter, which the 1 kHz granularity throws away,
 * (what is left is the first samples' credit), while Ts'o's 1999
 * estimate, without that shift, still credits them; irregular edges earn
 * more. "Under a quarter" leaves room for those first samples; without the
 * shift a regular pace earns 80% of Ts'o's figure here. */
static void test_regular_key_pace_earns_less_than_tso_and_than_irregular(void **state)
{
	uint64_t reg_bits, reg_tso, irr_bits;

	(void)state;
	type_edges(gap_regular, 200);
	reg_bits = s1.bits;
	reg_tso = s1.tso_bits;
	type_edges(gap_irregular, 200);
	irr_bits = s1.bits;
	print_message("200 edges: regular bits %llu tso_bits %llu; irregular bits %llu\n",
		(unsigned long long)reg_bits, (unsigned long long)reg_tso, (unsigned long long)irr_bits);
	if (reg_bits * 4 >= reg_tso)
		fail_msg("a regular pace earned %llu bits, Ts'o's estimate %llu: want under a quarter",
			(unsigned long long)reg_bits, (unsigned long long)reg_tso);
	if (reg_bits * 4 >= irr_bits)
		fail_msg("regular edges earned %llu bits, irregular %llu: want under a quarter",
			(unsigned long long)reg_bits, (unsigned long long)irr_bits);
}

static void test_samples_without_main_loop_pass_earn_nothing(void **state)
{
	uint64_t t = 0;
	int i;

	(void)state;
	stub_clock_khz = 1000;   /* 1 MHz clock; granularity 1000 kHz: shift 0 */
	create_entropy_source(&r, &s1, "kbd", 1, 1, 1000);
	sample_at(&s1, t, 1, 0);
	for (i = 0; i < 100; i++)
		sample_at(&s1, t += 1000 + 37 * (uint64_t)(i * i % 101), 0, 0);
	if (s1.bits != 0)
		fail_msg("back-to-back samples (no main loop pass) earned %llu bits",
			(unsigned long long)s1.bits);
	for (i = 0; i < 100; i++)
		sample_at(&s1, t += 1000 + 37 * (uint64_t)(i * i % 101), 1, 0);
	assert_true(s1.bits > 0);       /* the same deltas with passes do earn */
}

static void test_main_loop_pass_check_spans_all_trusted_sources(void **state)
{
	uint64_t before;

	(void)state;
	stub_clock_khz = 1000;   /* 1 MHz clock; granularity 1000 kHz: shift 0 */
	create_entropy_source(&r, &s1, "kbd", 1, 1, 1000);
	create_entropy_source(&r, &s2, "mouse", 12, 1, 1000);
	sample_at(&s1, 100, 1, 0);
	sample_at(&s1, 2000, 1, 0);
	sample_at(&s2, 2100, 1, 0);
	sample_at(&s2, 3900, 1, 0);
	/* a pass, then mouse, then keyboard with no pass since the mouse:
	 * patch 1/4 keeps one last_ctxt for all sources, so the keyboard
	 * earns nothing although its own previous sample was passes ago. */
	before = s1.bits;
	sample_at(&s2, 6100, 1, 0);
	sample_at(&s1, 7777, 0, 0);
	if (s1.bits != before)
		fail_msg("keyboard sample right after a mouse sample in the same pass earned %llu bits",
			(unsigned long long)(s1.bits - before));
	/* and with a pass in between it does earn */
	sample_at(&s1, 13579, 1, 0);
	assert_true(s1.bits > before);
}

static void test_untrusted_source_counts_tso_bits_but_no_bits_or_credit(void **state)
{
	uint64_t t = 0;
	int i;

	(void)state;
	stub_clock_khz = 1000;   /* 1 MHz clock; granularity 1000 kHz: shift 0 */
	create_entropy_source(&r, &s1, "ne2k0", 9, 0, 1000);
	for (i = 0; i < 200; i++)
		sample_at(&s1, t += 1000 + (uint64_t)(i * 7919 % 3001), 1, 0);
	assert_int_equal(s1.events, 200);
	assert_int_equal(s1.bits, 0);
	assert_true(s1.tso_bits > 0);
	assert_int_equal(r.batch_credit, 0);
	assert_int_equal(rng_batch_flush(&r), 0);
	assert_int_equal(r.credited_bits, 0);
	r.estimator = RNG_CREDIT_TSO;
	sample_at(&s1, t += 4321, 1, 0);
	assert_int_equal(r.batch_credit, 0);
}

static void test_null_source_goes_to_default_rng_uncredited(void **state)
{
	(void)state;
	add_timing_entropy(NULL, 1);    /* no default yet: dropped, no crash */
	assert_int_equal(r.batch_samples, 0);
	rng_set_default(&r);
	sample_at(NULL, 12345, 1, 0xdead);
	assert_int_equal(r.batch_samples, 1);
	assert_int_equal(r.batch_credit, 0);
	assert_int_equal(r.batch[0], 0xdead ^ 12345);
}

static void test_untrusted_sink_is_never_credited(void **state)
{
	uint64_t t = 0;
	int i;

	(void)state;
	stub_clock_khz = 1000;   /* 1 MHz clock; granularity 1000 kHz: shift 0 */
	create_entropy_source(&r, &s1, "net", 9, 1, 1000);   /* trusted flag set on purpose */
	r.untrusted_sink = &s1;
	for (i = 0; i < 50; i++) {
		stub_switches++;
		stub_time = t += 1000 + (uint64_t)(i * 7919 % 3001);
		add_untrusted_entropy(&r, (uint32_t)i);
	}
	assert_int_equal(s1.events, 50);
	assert_int_equal(s1.bits, 0);
	assert_int_equal(r.batch_credit, 0);
}

static void test_tso_estimator_hand_worked_examples(void **state)
{
	/* time, expected v1.89 bits: see the derivations beside each line */
	static const struct { uint32_t t; unsigned bits; } ex[] = {
		{ 1000, 8 },                /* d=1000 d2=1000 d3=1000: 500 -> 8 */
		{ 1100, 5 },                /* d=100 d2=-900 d3=-1900: 50 -> 5 */
		{ 1200, 0 },                /* d=100 d2=0: 0 -> 0 */
		{ 1300, 0 },                /* d=100 d2=0 d3=0 */
		{ 9300, 11 },               /* d=8000 d2=7900 d3=7900: 3950 -> 11 */
		{ 140372, 7 },              /* d=131072 d2=123072 d3=115172: 57586&0xfff=242 -> 7 */
		{ 140362, 2 },              /* backwards: d=-10: 5 -> 2 */
	};
	struct entropy_source src;
	unsigned i;

	(void)state;
	memset(&src, 0, sizeof(src));
	for (i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		unsigned got = rng_tso_estimate(&src, ex[i].t);

		if (got != ex[i].bits)
			fail_msg("v1.89 estimate at t=%u: %u bits, want %u", ex[i].t, got, ex[i].bits);
	}
}

static void test_tso_estimator_credits_under_credit_tso(void **state)
{
	uint64_t t = 0;
	int i;

	(void)state;
	stub_clock_khz = 1000;   /* 1 MHz clock; granularity 1000 kHz: shift 0 */
	r.estimator = RNG_CREDIT_TSO;
	create_entropy_source(&r, &s1, "kbd", 1, 1, 1000);
	for (i = 0; i < 10; i++)
		sample_at(&s1, t += 100 + (uint64_t)(i * i * 31), 0, 0);   /* no passes: bits 0 */
	assert_int_equal(s1.bits, 0);
	assert_true(s1.tso_bits > 0);
	assert_int_equal(r.batch_credit, s1.tso_bits);
}

static void test_time_high_word_is_xored_into_datum(void **state)
{
	(void)state;
	sample_at(NULL, 0, 0, 0);           /* no default: dropped */
	rng_set_default(&r);
	sample_at(NULL, 0x0000000500000077ull, 0, 0x1000);
	assert_int_equal(r.batch[0], 0x1000u ^ 5u ^ 0x77u);
}

/* ---- batch and flush ---- */

static void trusted_noise(struct entropy_source *s, int n, uint64_t *t)
{
	int i;

	for (i = 0; i < n; i++)
		sample_at(s, *t += 4096 + (uint64_t)((i * 7919) % 60000), 1, (uint32_t)i);
}

static void test_batch_wraps_counts_overwrites_and_keeps_capped_credit(void **state)
{
	uint64_t t = 0;

	(void)state;
	stub_clock_khz = 1000;   /* 1 MHz clock; granularity 1000 kHz: shift 0 */
	create_entropy_source(&r, &s1, "kbd", 1, 1, 1000);
	trusted_noise(&s1, RNG_BATCH_WORDS + 44, &t);
	assert_int_equal(r.batch_samples, RNG_BATCH_WORDS + 44);
	assert_int_equal(r.batch_samples_pending, RNG_BATCH_WORDS + 44);
	if (r.batch_overwrites != 44)
		fail_msg("%llu overwrites counted, want 44", (unsigned long long)r.batch_overwrites);
	assert_int_equal(r.batch_pos, 44);
	assert_true(s1.bits > RNG_BATCH_WORDS);
	/* the credit sum saturates at the cap: wrapping lost nothing below it */
	assert_int_equal(r.batch_credit, RNG_BATCH_WORDS);
	assert_int_equal(rng_batch_flush(&r), RNG_BATCH_WORDS);
	assert_int_equal(r.primary.entropy_count, RNG_BATCH_WORDS);
	assert_int_equal(r.credited_bits, RNG_BATCH_WORDS);
	assert_int_equal(r.batch_samples_pending, 0);
	assert_int_equal(r.batch_pos, 0);
	assert_int_equal(r.batch_credit, 0);
	assert_int_equal(r.batch_flushes, 1);
}

static void test_untrusted_flood_does_not_erase_trusted_credit(void **state)
{
	uint64_t t = 0;
	unsigned long long credit;
	int i;

	(void)state;
	stub_clock_khz = 1000;   /* 1 MHz clock; granularity 1000 kHz: shift 0 */
	create_entropy_source(&r, &s1, "kbd", 1, 1, 1000);
	create_entropy_source(&r, &s2, "ne2k0", 9, 0, 1000);
	trusted_noise(&s1, 20, &t);
	credit = r.batch_credit;
	assert_true(credit > 0);
	for (i = 0; i < 10000; i++)
		sample_at(&s2, t += 3, 0, 0xffffffffu);
	assert_int_equal(r.batch_credit, credit);
	assert_int_equal(rng_batch_flush(&r), credit);
	assert_true(r.batch_overwrites >= 10000 + 20 - RNG_BATCH_WORDS);
}

static void test_flush_mixes_only_pending_samples(void **state)
{
	uint32_t before[RNG_PRIMARY_WORDS];

	(void)state;
	memcpy(before, r.primary.words, sizeof(before));
	assert_int_equal(rng_batch_flush(&r), 0);
	assert_memory_equal(before, r.primary.words, sizeof(before));
	assert_int_equal(r.primary.add_ptr, 0);
	rng_set_default(&r);
	sample_at(NULL, 7, 0, 1);
	sample_at(NULL, 9, 0, 2);
	rng_batch_flush(&r);
	assert_int_equal(r.primary.add_ptr, RNG_PRIMARY_WORDS - 2);
}

static void test_flush_caps_credit_and_clamps_to_pool(void **state)
{
	(void)state;
	r.batch_credit = 100000;            /* as if set by a future bug */
	r.batch_samples_pending = 100000;
	assert_int_equal(rng_batch_flush(&r), RNG_BATCH_WORDS);
	assert_int_equal(r.primary.add_ptr, 0);   /* exactly 256 words: add_ptr back to 0 */
	r.primary.entropy_count = RNG_PRIMARY_WORDS * 32 - 10;
	r.batch_credit = 200;
	r.batch_samples_pending = 1;
	assert_int_equal(rng_batch_flush(&r), 10);
	assert_int_equal(r.primary.entropy_count, RNG_PRIMARY_WORDS * 32);
	if (r.credited_bits != RNG_BATCH_WORDS + 10)
		fail_msg("credited_bits %llu counts bits the full pool refused",
			(unsigned long long)r.credited_bits);
}

static void test_flush_switches_to_secondary_when_primary_full_and_back(void **state)
{
	(void)state;
	r.primary.entropy_count = RNG_PRIMARY_WORDS * 32;
	r.batch_credit = 100;
	r.batch_samples_pending = 3;
	assert_int_equal(rng_batch_flush(&r), 100);
	assert_ptr_equal(r.batch_target, &r.secondary);
	assert_int_equal(r.secondary.entropy_count, 100);
	assert_int_equal(r.secondary.add_ptr, RNG_SECONDARY_WORDS - 3);
	/* both full: nothing credited, nothing counted */
	r.secondary.entropy_count = RNG_SECONDARY_WORDS * 32;
	r.batch_credit = 50;
	assert_int_equal(rng_batch_flush(&r), 0);
	assert_int_equal(r.credited_bits, 100);
	/* a read drains the primary: the next flush goes back to it */
	r.primary.entropy_count = 64;
	r.batch_credit = 30;
	assert_int_equal(rng_batch_flush(&r), 30);
	assert_ptr_equal(r.batch_target, &r.primary);
	assert_int_equal(r.primary.entropy_count, 94);
}

static void test_sampling_and_flush_restore_interrupt_state(void **state)
{
	uint64_t t = 0;

	(void)state;
	stub_clock_khz = 1000;   /* 1 MHz clock; granularity 1000 kHz: shift 0 */
	create_entropy_source(&r, &s1, "kbd", 1, 1, 1000);
	trusted_noise(&s1, 10, &t);
	rng_batch_flush(&r);
	assert_int_equal(stub_irq_depth, 0);
	assert_int_equal(stub_irq_max_depth, 1);
}

/* ---- capture ---- */

static void test_capture_records_deltas_and_credits_nothing(void **state)
{
	struct rng_capture cap;
	uint32_t raw, shifted;

	(void)state;
	stub_clock_khz = 4000;                  /* factor 4: shift 2 */
	create_entropy_source(&r, &s1, "kbd", 1, 1, 1000);
	sample_at(&s1, 1000, 1, 0);
	rng_capture_start(&s1, &cap);
	sample_at(&s1, 1000 + 4001, 1, 0);
	sample_at(&s1, 1000 + 4001 + 999, 1, 0);
	assert_int_equal(s1.events, 3);
	assert_int_equal(s1.bits, 0);
	assert_int_equal(s1.tso_bits, 8);       /* only the first, uncaptured sample */
	assert_int_equal(r.batch_credit, 0);
	assert_int_equal(r.batch_samples, 3);
	assert_true(rng_capture_read(&cap, &raw, &shifted));
	assert_int_equal(raw, 4001);
	assert_int_equal(shifted, 1000);
	assert_true(rng_capture_read(&cap, &raw, &shifted));
	assert_int_equal(raw, 999);
	assert_int_equal(shifted, 249);
	assert_false(rng_capture_read(&cap, &raw, &shifted));
	rng_capture_stop(&s1);
	sample_at(&s1, 9000, 1, 0);
	assert_true(s1.bits > 0);
	assert_false(rng_capture_read(&cap, &raw, &shifted));
}

static void test_capture_ring_full_counts_drops(void **state)
{
	struct rng_capture cap;
	uint32_t raw, shifted;
	int i;

	(void)state;
	create_entropy_source(&r, &s1, "ata0", 14, 0, 0);
	rng_capture_start(&s1, &cap);
	for (i = 1; i <= RNG_CAPTURE_RING + 5; i++)
		sample_at(&s1, (uint64_t)i * 10, 1, 0);
	assert_int_equal(cap.dropped, 5);
	for (i = 0; i < RNG_CAPTURE_RING; i++)
		assert_true(rng_capture_read(&cap, &raw, &shifted));
	assert_false(rng_capture_read(&cap, &raw, &shifted));
	sample_at(&s1, 99999, 1, 0);
	assert_true(rng_capture_read(&cap, &raw, &shifted));
	assert_int_equal(raw, 99999 - (RNG_CAPTURE_RING + 5) * 10);
}

/* ---- registry ---- */

static void test_find_source_by_name_and_free_unlinks(void **state)
{
	static struct entropy_source s3;

	(void)state;
	create_entropy_source(&r, &s1, "keyboard", 1, 1, 1000);
	create_entropy_source(&r, &s2, "mouse", 12, 1, 1000);
	create_entropy_source(&r, &s3, "ata0", 14, 0, 0);
	assert_ptr_equal(r.sources, &s1);       /* creation order */
	assert_ptr_equal(s1.next, &s2);
	assert_ptr_equal(rng_find_source(&r, "mouse"), &s2);
	assert_ptr_equal(rng_find_source(&r, "ata0"), &s3);
	assert_null(rng_find_source(&r, "mous"));
	free_entropy_source(&s2);
	assert_null(rng_find_source(&r, "mouse"));
	assert_ptr_equal(s1.next, &s3);
	free_entropy_source(&s1);
	assert_ptr_equal(r.sources, &s3);
}

/* ---- reads ---- */

static void test_read_random_waits_when_primary_empty(void **state)
{
	uint8_t buf[16];

	(void)state;
	r.primary.entropy_count = 7;
	assert_false(rng_random_ready(&r));
	assert_int_equal(rng_read_random(&r, buf, sizeof(buf)), 0);
	assert_int_equal(r.random_bytes, 0);
	r.primary.entropy_count = 8;
	assert_true(rng_random_ready(&r));
}

static void test_read_random_serves_at_most_340_and_primary_bits_over_8(void **state)
{
	static uint8_t buf[1000];

	(void)state;
	r.credited_bits = 4096;     /* as if flushed in */
	r.primary.entropy_count = 4096;
	assert_int_equal(rng_read_random(&r, buf, sizeof(buf)), RNG_SEC_XFER_BYTES);
	r.primary.entropy_count = 83;
	r.secondary.entropy_count = 1024;
	/* floor(83 / 8) = 10 bytes; the secondary holds 1024 >= 80 bits, so
	 * no transfer: it gives 80 and the primary keeps its 83 */
	assert_int_equal(rng_read_random(&r, buf, sizeof(buf)), 10);
	assert_int_equal(r.primary.entropy_count, 83);
	assert_int_equal(r.secondary.entropy_count, 1024 - 80);
	assert_int_equal(rng_read_random(&r, buf, 3), 3);
	assert_int_equal(r.secondary.entropy_count, 1024 - 80 - 24);
	assert_true(r.random_bytes * 8 <= r.credited_bits);
}

static void test_transfer_credits_secondary_only_what_primary_gave(void **state)
{
	uint8_t buf[100];

	(void)state;
	/* 40 bits above urandom's reserve: v1.89 would credit 800 bits */
	r.primary.entropy_count = RNG_URANDOM_RESERVE_BITS + 40;
	rng_read_urandom(&r, buf, sizeof(buf));
	assert_int_equal(r.primary.entropy_count, RNG_URANDOM_RESERVE_BITS);
	assert_int_equal(r.xfer_taken_bits, 40);
	assert_int_equal(r.xfer_credited_bits, 40);
	if (r.secondary.entropy_count != 0)
		fail_msg("secondary holds %d bits after serving 800 with 40 in",
			r.secondary.entropy_count);
	assert_int_equal(r.urandom_bytes, 100);
}

static void test_catastrophic_reseed_every_1024_bytes(void **state)
{
	static uint8_t buf[4096];

	(void)state;
	rng_read_urandom(&r, buf, 1024);
	assert_int_equal(r.reseeds, 0);
	rng_read_urandom(&r, buf, 1);
	assert_int_equal(r.reseeds, 1);
	rng_read_urandom(&r, buf, sizeof(buf));
	assert_int_equal(r.reseeds, 5);
	assert_int_equal(r.urandom_bytes, 1024 + 1 + 4096);
}

static void test_urandom_output_changes_every_read(void **state)
{
	uint8_t a[32], b[32];

	(void)state;
	rng_read_urandom(&r, a, sizeof(a));
	rng_read_urandom(&r, b, sizeof(b));
	assert_memory_not_equal(a, b, sizeof(a));
}

static void test_internal_bytes_are_not_counted_as_served(void **state)
{
	uint8_t a[16], b[16];

	(void)state;
	rng_aux_bytes(&r, a, sizeof(a));
	rng_aux_bytes(&r, b, sizeof(b));
	assert_memory_not_equal(a, b, sizeof(a));
	if (r.urandom_bytes != 0 || r.random_bytes != 0)
		fail_msg("internal draws counted as served: urandom_bytes=%llu random_bytes=%llu",
			(unsigned long long)r.urandom_bytes, (unsigned long long)r.random_bytes);
}

/* ---- seeded before serving (credit=measured) ---- */

/* A flush that credits `bits` (as the meter's grants would) to whichever
 * pool it fills. */
static void flush_with_credit(struct rng *x, uint32_t bits)
{
	x->batch_credit = bits;
	x->batch_samples_pending = 1;
	rng_batch_flush(x);
}

static void test_urandom_serves_nothing_before_256_bits_reach_the_primary(void **state)
{
	uint8_t buf[64], untouched[64];

	(void)state;
	rng_init(&r, RNG_CREDIT_MEASURED);
	memset(buf, 0xa5, sizeof(buf));
	memcpy(untouched, buf, sizeof(buf));
	assert_false(rng_urandom_ready(&r));
	assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, untouched, sizeof(buf));
	flush_with_credit(&r, 200);
	flush_with_credit(&r, 55);           /* 255 in all: one short */
	assert_int_equal(r.primary.entropy_count, 255);
	assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, untouched, sizeof(buf));
	if (r.urandom_bytes != 0 || r.spent_bits != 0 || r.extracted_since_reseed != 0)
		fail_msg("an unseeded read moved the accounting: urandom_bytes=%llu spent=%llu",
			(unsigned long long)r.urandom_bytes, (unsigned long long)r.spent_bits);
	assert_false(rng_seeded(&r));
	flush_with_credit(&r, 1);            /* the 256th bit */
	assert_true(rng_seeded(&r));
	assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), sizeof(buf));
	assert_int_equal(r.urandom_bytes, sizeof(buf));
}

static void test_seeded_never_goes_back_when_the_pools_drain(void **state)
{
	uint8_t buf[RNG_SEC_XFER_BYTES];
	struct rng_stats st;

	(void)state;
	rng_init(&r, RNG_CREDIT_MEASURED);
	flush_with_credit(&r, 256);
	while (rng_read_random(&r, buf, sizeof(buf)))
		;
	assert_int_equal(r.primary.entropy_count < 8, 1);
	assert_int_equal(rng_read_urandom(&r, buf, 100), 100);
	rng_stats(&r, &st);
	assert_int_equal(st.seeded, 1);
	assert_int_equal(st.primary_credited_bits, 256);
}

static void test_credit_to_the_secondary_does_not_seed(void **state)
{
	uint8_t buf[16];

	(void)state;
	rng_init(&r, RNG_CREDIT_MEASURED);
	r.primary.entropy_count = RNG_PRIMARY_WORDS * 32;    /* full: the flush fills the secondary */
	r.credited_bits = RNG_PRIMARY_WORDS * 32;
	flush_with_credit(&r, 256);
	assert_int_equal(r.secondary.entropy_count, 256);
	assert_false(rng_seeded(&r));
	assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), 0);
}

/* What seeded the primary must reach urandom's first bytes: two
 * instances with the same boot data and different samples must differ. */
static void test_first_urandom_bytes_depend_on_what_seeded_the_primary(void **state)
{
	static struct rng a, b;
	uint8_t out_a[32], out_b[32];

	(void)state;
	rng_init(&a, RNG_CREDIT_MEASURED);
	rng_init(&b, RNG_CREDIT_MEASURED);
	rng_mix_uncredited(&a, "boot", 4);
	rng_mix_uncredited(&b, "boot", 4);
	a.batch[0] = 0x1234;                 /* one sample differs */
	b.batch[0] = 0x1235;
	flush_with_credit(&a, 300);
	flush_with_credit(&b, 300);
	assert_int_equal(rng_read_urandom(&a, out_a, sizeof(out_a)), sizeof(out_a));
	assert_int_equal(rng_read_urandom(&b, out_b, sizeof(out_b)), sizeof(out_b));
	assert_memory_not_equal(out_a, out_b, sizeof(out_a));
	if (a.credited_bits != (uint64_t)a.primary.entropy_count + (uint64_t)a.secondary.entropy_count +
	    a.spent_bits)
		fail_msg("identity broken by the first key");
	assert_int_equal(a.spent_bits, RNG_CRNG_KEY_BITS);     /* the key took what seeded it */
}

static void test_seed_rules_serve_urandom_at_once(void **state)
{
	uint8_t buf[16];
	static const enum rng_estimator seed_rules[] = { RNG_CREDIT_XYMORON, RNG_CREDIT_TSO };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		rng_init(&r, seed_rules[i]);
		assert_false(rng_seeded(&r));
		assert_int_equal(rng_read_urandom(&r, buf, sizeof(buf)), sizeof(buf));
		assert_int_equal(r.urandom_bytes, sizeof(buf));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_log2_16_is_floor_log2_of_low_16_bits, setup),
		cmocka_unit_test_setup(test_urandom_serves_nothing_before_256_bits_reach_the_primary, setup),
		cmocka_unit_test_setup(test_seeded_never_goes_back_when_the_pools_drain, setup),
		cmocka_unit_test_setup(test_credit_to_the_secondary_does_not_seed, setup),
		cmocka_unit_test_setup(test_seed_rules_serve_urandom_at_once, setup),
		cmocka_unit_test_setup(test_first_urandom_bytes_depend_on_what_seeded_the_primary, setup),
		cmocka_unit_test_setup(test_internal_bytes_are_not_counted_as_served, setup),
		cmocka_unit_test_setup(test_benford_table_for_every_16bit_bucket, setup),
		cmocka_unit_test_setup(test_delta_zero_credits_nothing, setup),
		cmocka_unit_test_setup(test_shift_for_granularity_below_clock_rate, setup),
		cmocka_unit_test_setup(test_shift_is_zero_for_granularity_above_clock_rate_or_zero, setup),
		cmocka_unit_test_setup(test_source_deltas_are_shifted_by_granularity, setup),
		cmocka_unit_test_setup(test_first_sample_of_a_source_earns_nothing, setup),
		cmocka_unit_test_setup(test_periodic_source_earns_nothing_after_first_samples, setup),
		cmocka_unit_test_setup(test_regular_key_pace_earns_less_than_tso_and_than_irregular, setup),
		cmocka_unit_test_setup(test_samples_without_main_loop_pass_earn_nothing, setup),
		cmocka_unit_test_setup(test_main_loop_pass_check_spans_all_trusted_sources, setup),
		cmocka_unit_test_setup(test_untrusted_source_counts_tso_bits_but_no_bits_or_credit, setup),
		cmocka_unit_test_setup(test_null_source_goes_to_default_rng_uncredited, setup),
		cmocka_unit_test_setup(test_untrusted_sink_is_never_credited, setup),
		cmocka_unit_test_setup(test_tso_estimator_hand_worked_examples, setup),
		cmocka_unit_test_setup(test_tso_estimator_credits_under_credit_tso, setup),
		cmocka_unit_test_setup(test_time_high_word_is_xored_into_datum, setup),
		cmocka_unit_test_setup(test_batch_wraps_counts_overwrites_and_keeps_capped_credit, setup),
		cmocka_unit_test_setup(test_untrusted_flood_does_not_erase_trusted_credit, setup),
		cmocka_unit_test_setup(test_flush_mixes_only_pending_samples, setup),
		cmocka_unit_test_setup(test_flush_caps_credit_and_clamps_to_pool, setup),
		cmocka_unit_test_setup(test_flush_switches_to_secondary_when_primary_full_and_back, setup),
		cmocka_unit_test_setup(test_sampling_and_flush_restore_interrupt_state, setup),
		cmocka_unit_test_setup(test_capture_records_deltas_and_credits_nothing, setup),
		cmocka_unit_test_setup(test_capture_ring_full_counts_drops, setup),
		cmocka_unit_test_setup(test_find_source_by_name_and_free_unlinks, setup),
		cmocka_unit_test_setup(test_read_random_waits_when_primary_empty, setup),
		cmocka_unit_test_setup(test_read_random_serves_at_most_340_and_primary_bits_over_8, setup),
		cmocka_unit_test_setup(test_transfer_credits_secondary_only_what_primary_gave, setup),
		cmocka_unit_test_setup(test_catastrophic_reseed_every_1024_bytes, setup),
		cmocka_unit_test_setup(test_urandom_output_changes_every_read, setup),
	};

	return cmocka_run_group_tests_name("entropy", tests, NULL, NULL);
}
