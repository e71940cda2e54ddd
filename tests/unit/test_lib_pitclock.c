/* Host tests: the PIT clock's tick-in-flight handling (lib/pitclock.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "lib/pitclock.h"

#define R 11932u                     /* hz=100 */

static void test_reloaded_count_before_the_tick_is_seen_is_not_a_step_back(void **state)
{
	(void)state;
	struct pit_clock c = { 0 };
	uint64_t a = pit_clock_value(&c, 5, 100, 0, R);         /* just before the reload */
	uint64_t b = pit_clock_value(&c, 5, R - 30, 0, R);      /* reloaded; no IRR, no tick yet */
	assert_true(b > a);
	assert_int_equal(b, 6 * (uint64_t)R + 30);
	uint64_t d = pit_clock_value(&c, 5, R - 60, 1, R);      /* IRR now set */
	assert_int_equal(d, 6 * (uint64_t)R + 60);
	uint64_t e = pit_clock_value(&c, 6, R - 90, 0, R);      /* the tick taken */
	assert_int_equal(e, 6 * (uint64_t)R + 90);
}

static void test_irr_with_a_low_count_is_already_counted(void **state)
{
	(void)state;
	struct pit_clock c = { 0 };
	/* latched at 2 counts left, the edge then set IRR before it was read */
	assert_int_equal(pit_clock_value(&c, 5, 2, 1, R), 5 * (uint64_t)R + R - 2);
}

static void test_zero_and_out_of_range_counts_read_as_reload(void **state)
{
	(void)state;
	struct pit_clock c = { 0 };
	assert_int_equal(pit_clock_value(&c, 3, 0, 0, 65536), 3 * 65536ull);
	struct pit_clock d = { 0 };
	assert_int_equal(pit_clock_value(&d, 3, 70000, 0, R), 3 * (uint64_t)R);
}

/* A simulated 8254 + 8259 where the tick reaches the PIC up to `lag`
 * counts after the reload and the handler runs later still: every read
 * is monotonic and within a tick of the truth. */
static void check_monotonic_with_lag(uint32_t reload, uint32_t lag)
{
	struct pit_clock c = { 0 };
	uint64_t last = 0;
	srand(reload ^ lag);
	uint64_t t = 0;
	for (int i = 0; i < 200000; i++) {
		t += (uint64_t)(rand() % (reload / 7 + 1));
		uint64_t ticks = t / reload;
		uint32_t into = (uint32_t)(t % reload);
		uint32_t count = reload - into;
		uint64_t j = ticks;
		int irr = 0;
		if (ticks && into < lag) {                      /* edge late: tick not yet seen */
			j = ticks - 1;
			irr = into >= lag / 2;                      /* ... or in the IRR already */
		}
		uint64_t v = pit_clock_value(&c, j, count, irr, reload);
		if (v < last)
			fail_msg("reload %u lag %u: clock went back from %llu to %llu", reload, lag,
				(unsigned long long)last, (unsigned long long)v);
		if (v + reload < t || v > t + reload)
			fail_msg("reload %u: clock %llu is more than a tick from %llu", reload,
				(unsigned long long)v, (unsigned long long)t);
		last = v;
	}
}

static void test_monotonic_at_every_hz(void **state)
{
	(void)state;
	const uint32_t reloads[] = { 65536, 11932, 4773, 1193 };   /* hz 18, 100, 250, 1000 */
	for (size_t i = 0; i < 4; i++) {
		check_monotonic_with_lag(reloads[i], reloads[i] / 3);
		check_monotonic_with_lag(reloads[i], 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reloaded_count_before_the_tick_is_seen_is_not_a_step_back),
		cmocka_unit_test(test_irr_with_a_low_count_is_already_counted),
		cmocka_unit_test(test_zero_and_out_of_range_counts_read_as_reload),
		cmocka_unit_test(test_monotonic_at_every_hz),
	};
	return cmocka_run_group_tests_name("lib/pitclock", tests, NULL, NULL);
}
