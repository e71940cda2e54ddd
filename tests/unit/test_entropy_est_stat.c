/* Host tests of entropy/est_stat.c (SP 800-90B 6.3.2-6.3.6) and the meter's
 * full assessment against NIST's ea_non_iid. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "entropy/entropy_internal.h"
#include "est_stat_vectors.h"

/*
 * Tolerance (the meter's contract): never above the tool by more than
 * 0.5% + 2 milli, never below it by more than 2% -- plus 1 milli below,
 * the floor to thousandths (a figure of 0.0120 bits can only be 11 or 12).
 */
#define EST_ABOVE(tool) ((tool) * 1005 / 1000000 + 2)
#define EST_BELOW(tool) ((tool) * 98 / 100000 - 1)

static void *scratch;
static uint8_t bits[8 * 1024];

static int setup(void **state)
{
	(void)state;
	/* exactly the documented size, from malloc, so ASan sees any overrun */
	scratch = malloc(RNG_EST_STAT_SCRATCH);
	return scratch ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(scratch);
	return 0;
}

static uint32_t est_run(int key, const uint8_t *sym)
{
	rng_est_bits(sym, 1024, bits);
	switch (key) {
	case EST_COLLISION_BIT: return rng_est_collision_milli(bits, 8192, 1, scratch);
	case EST_MARKOV_BIT: return rng_est_markov_milli(bits, 8192, 1, scratch);
	case EST_COMPRESSION_BIT: return rng_est_compression_milli(bits, 8192, 1, scratch);
	case EST_TTUPLE_BIT: return rng_est_ttuple_milli(bits, 8192, 1, scratch);
	case EST_LRS_BIT: return rng_est_lrs_milli(bits, 8192, 1, scratch);
	case EST_TTUPLE_LIT: return rng_est_ttuple_milli(sym, 1024, 8, scratch);
	case EST_MULTIMMC_LIT: return rng_est_multimmc_milli(sym, 1024, 8, scratch);
	case EST_LZ78Y_LIT: return rng_est_lz78y_milli(sym, 1024, 8, scratch);
	default: return rng_est_lrs_milli(sym, 1024, 8, scratch);
	}
}

/* Every vector, one estimator: within the tolerance of the tool's figure. */
static void check_key(int key, unsigned width)
{
	size_t v;

	for (v = 0; v < sizeof(est_vectors) / sizeof(est_vectors[0]); v++) {
		const struct est_vector *e = &est_vectors[v];
		int64_t tool = e->tool_micro[key], ours = est_run(key, e->sym);

		if (tool < 0) {
			if (ours != width * 1000)
				fail_msg("%s: the tool skips this estimator, ours gave %lld (want %u)",
					 e->name, (long long)ours, width * 1000);
			continue;
		}
		if (ours > EST_ABOVE(tool) || ours < EST_BELOW(tool))
			fail_msg("%s: ours %lld milli, ea_non_iid %.6f bits", e->name,
				 (long long)ours, tool / 1e6);
	}
}

/*
 * The meter's full assessment of a window holding the vector: the least
 * of the tool's figures for the estimators it runs (literal t-tuple, LRS,
 * MultiMMC and LZ78Y, 8 x each bitstring one), taken from the stored
 * figures. Bitstring
 * figures count 8 times, and so do their rounding and tolerance.
 */
static void test_meter_full_assessment_is_the_tools_least_figure(void **s)
{
	static struct rng_meter m;
	size_t v;

	(void)s;
	for (v = 0; v < sizeof(est_vectors) / sizeof(est_vectors[0]); v++) {
		const struct est_vector *e = &est_vectors[v];
		int64_t want = 8000000, ours, tol_above = 0, tol_below = 0;

		for (int key = 0; key < EST_N_KEYS; key++) {
			int64_t t = e->tool_micro[key], k = key >= EST_TTUPLE_LIT ? 1 : 8;
			if (t >= 0 && t * k < want) {
				want = t * k;
				tol_above = k * EST_ABOVE(t);
				tol_below = k * EST_BELOW(t);
			}
		}
		rng_meter_init(&m);
		for (unsigned i = 0; i < 1024; i++)
			rng_meter_add(&m, e->sym[i]);
		ours = rng_meter_full_milli(&m);
		if (want == 8000000 ? ours != 8000 : ours > tol_above || ours < tol_below)
			fail_msg("%s: the meter's full assessment %lld milli, the tool's least figure %.6f",
				 e->name, (long long)ours, want / 1e6);
		if (rng_meter_estimate(&m) > (uint32_t)ours)
			fail_msg("%s: h_milli above the full assessment", e->name);
	}
}

/*
 * The deferred form (kern/assess.c runs it in the main loop's idle
 * time): the window is copied when the job is taken, the meter goes on
 * adding symbols while it runs, and the figure held is the one-shot
 * form's on the window as it was taken, bit for bit, on every vector.
 */
static void test_deferred_assessment_equals_the_one_shot_form(void **s)
{
	static struct rng_meter once, later;
	struct rng_full_job job;
	size_t v;

	(void)s;
	for (v = 0; v < sizeof(est_vectors) / sizeof(est_vectors[0]); v++) {
		const struct est_vector *e = &est_vectors[v];
		uint32_t want;

		rng_meter_init(&once);
		rng_meter_init(&later);
		later.full_deferred = 1;
		for (unsigned i = 0; i < 1024; i++) {
			rng_meter_add(&once, e->sym[i]);
			rng_meter_add(&later, e->sym[i]);
		}
		want = rng_meter_full_milli(&once);
		(void)rng_meter_estimate(&later);          /* due: wanted, not run */
		if (rng_meter_health(&later) == RNG_HEALTH_OK)
			assert_true(later.full_wanted);    /* (a failing one is not due) */
		assert_int_equal(later.full_n, 0);
		rng_full_job_take(&job, &later);
		for (unsigned i = 0; i < 300; i++)          /* the window moves on meanwhile */
			rng_meter_add(&later, e->sym[(i * 7) % 1024] ^ 0x5a);
		rng_full_job_run(&job);
		rng_full_job_post(&job);
		if (later.full_milli != want || later.full_n != 1024)
			fail_msg("%s: deferred %u milli at n %llu, one-shot %u", e->name,
				 later.full_milli, (unsigned long long)later.full_n, want);
	}
}

/* Deferred, a source is paid nothing from RNG_METER_MIN symbols on until
 * its first assessment is held, nor after a health failure until one is
 * held on a window taken after it. */
static void test_deferred_meter_pays_nothing_without_a_current_assessment(void **s)
{
	static struct rng_meter m;
	struct rng_full_job job;
	const struct est_vector *e = &est_vectors[0];
	uint32_t fails;

	(void)s;
	rng_meter_init(&m);
	m.full_deferred = 1;
	for (unsigned i = 0; i < 1024; i++)
		rng_meter_add(&m, e->sym[i]);
	assert_int_equal(rng_meter_estimate(&m), 0);
	rng_full_job_take(&job, &m);
	rng_full_job_run(&job);
	rng_full_job_post(&job);
	if (job.result > 0)
		assert_true(rng_meter_estimate(&m) > 0);
	fails = m.rct_fail;
	for (unsigned i = 0; i < RNG_METER_RCT_C; i++)   /* one stuck run: RCT fails */
		rng_meter_add(&m, 0x42);
	assert_int_equal(m.rct_fail, fails + 1);
	for (unsigned i = 0; i < 2 * 1024; i++)          /* passes again: still unpaid */
		rng_meter_add(&m, e->sym[i % 1024]);
	assert_int_equal(rng_meter_health(&m), RNG_HEALTH_OK);
	assert_int_equal(rng_meter_estimate(&m), 0);
	assert_true(m.full_wanted);
}

static void test_collision_matches_tool(void **s) { (void)s; check_key(EST_COLLISION_BIT, 1); }
static void test_markov_matches_tool(void **s) { (void)s; check_key(EST_MARKOV_BIT, 1); }
static void test_compression_matches_tool(void **s) { (void)s; check_key(EST_COMPRESSION_BIT, 1); }
static void test_ttuple_bitstring_matches_tool(void **s) { (void)s; check_key(EST_TTUPLE_BIT, 1); }
static void test_lrs_bitstring_matches_tool(void **s) { (void)s; check_key(EST_LRS_BIT, 1); }
static void test_ttuple_literal_matches_tool(void **s) { (void)s; check_key(EST_TTUPLE_LIT, 8); }
static void test_lrs_literal_matches_tool(void **s) { (void)s; check_key(EST_LRS_LIT, 8); }
static void test_multimmc_literal_matches_tool(void **s) { (void)s; check_key(EST_MULTIMMC_LIT, 8); }
static void test_lz78y_literal_matches_tool(void **s) { (void)s; check_key(EST_LZ78Y_LIT, 8); }

/* utils.h read_file_subset: bit j of symbol i is (sym >> (7 - j)) & 1, unmapped. */
static void test_bits_msb_first(void **s)
{
	static const uint8_t sym[3] = { 0x80, 0x01, 0xa5 };
	static const uint8_t want[24] = { 1, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 1,
					  1, 0, 1, 0, 0, 1, 0, 1 };
	uint8_t out[24];

	(void)s;
	rng_est_bits(sym, 3, out);
	assert_memory_equal(out, want, sizeof(want));
}

/* The convention is what the tool's figures need: LSB first misses them. */
static void test_bits_lsb_first_misses_tool(void **s)
{
	const struct est_vector *e = &est_vectors[2];          /* markov */
	int64_t tool = e->tool_micro[EST_MARKOV_BIT], ours;
	unsigned i, j;

	(void)s;
	assert_string_equal(e->name, "markov");
	for (i = 0; i < 1024; i++)
		for (j = 0; j < 8; j++)
			bits[8 * i + j] = (e->sym[i] >> j) & 1;
	ours = rng_est_markov_milli(bits, 8192, 1, scratch);
	assert_true(ours > EST_ABOVE(tool) || ours < EST_BELOW(tool));
}

/* What the tool does not run gives bits * 1000: it never lowers a minimum. */
static void test_skipped_estimators_give_full_width(void **s)
{
	(void)s;
	rng_est_bits(est_vectors[0].sym, 1024, bits);
	assert_int_equal(rng_est_collision_milli(est_vectors[0].sym, 1024, 8, scratch), 8000);
	assert_int_equal(rng_est_markov_milli(est_vectors[0].sym, 1024, 8, scratch), 8000);
	assert_int_equal(rng_est_compression_milli(est_vectors[0].sym, 1024, 8, scratch), 8000);
	/* 6.3.4 needs more than 1000 six-bit blocks: 6005 bits is too few */
	assert_int_equal(rng_est_compression_milli(bits, 6005, 1, scratch), 1000);
	/* 1001 blocks score one distance: the tool's sigma is infinite, p = 1 */
	assert_int_equal(rng_est_compression_milli(bits, 6006, 1, scratch), 0);
	assert_int_not_equal(rng_est_compression_milli(bits, 8192, 1, scratch), 1000);
}

/* One symbol repeated: every tuple is certain, no entropy (and the deepest
 * LCP stack, n entries, stays inside the scratch). */
static void test_constant_input_has_no_entropy(void **s)
{
	uint32_t tt, lrs;

	(void)s;
	memset(bits, 0, sizeof(bits));
	rng_est_tuple_lrs_milli(bits, 8192, 1, scratch, &tt, &lrs);
	assert_int_equal(tt, 0);
	assert_int_equal(lrs, 0);
	assert_int_equal(rng_est_markov_milli(bits, 8192, 1, scratch), 0);
	assert_int_equal(rng_est_collision_milli(bits, 8192, 1, scratch), 0);
	assert_int_equal(rng_est_compression_milli(bits, 8192, 1, scratch), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bits_msb_first),
		cmocka_unit_test(test_meter_full_assessment_is_the_tools_least_figure),
		cmocka_unit_test(test_deferred_assessment_equals_the_one_shot_form),
		cmocka_unit_test(test_deferred_meter_pays_nothing_without_a_current_assessment),
		cmocka_unit_test(test_bits_lsb_first_misses_tool),
		cmocka_unit_test(test_collision_matches_tool),
		cmocka_unit_test(test_markov_matches_tool),
		cmocka_unit_test(test_compression_matches_tool),
		cmocka_unit_test(test_ttuple_bitstring_matches_tool),
		cmocka_unit_test(test_lrs_bitstring_matches_tool),
		cmocka_unit_test(test_ttuple_literal_matches_tool),
		cmocka_unit_test(test_lrs_literal_matches_tool),
		cmocka_unit_test(test_multimmc_literal_matches_tool),
		cmocka_unit_test(test_lz78y_literal_matches_tool),
		cmocka_unit_test(test_skipped_estimators_give_full_width),
		cmocka_unit_test(test_constant_input_has_no_entropy),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
