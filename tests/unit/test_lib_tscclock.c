/* Host tests: uptime on the TSC held to the tick count (lib/tscclock.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "lib/tscclock.h"

#define KHZ 2095976u
#define HZ  100u

/* A machine whose TSC and PIT agree; `at_us` of true time. */
static uint64_t tsc_at(uint64_t us) { return 77777 + us * KHZ / 1000; }
static uint64_t jiffies_at(uint64_t us) { return us * HZ / 1000000; }

static void test_steady_clock_counts_every_millisecond_and_keeps_the_fraction(void **state)
{
	(void)state;
	struct tsc_uptime u = { .tsc = tsc_at(0), .jiffies = 0 };
	uint64_t last = 0;
	for (uint64_t us = 300; us <= 10000000; us += 300) {       /* a call every 0.3 ms for 10 s */
		uint64_t ms = tsc_uptime_ms(&u, tsc_at(us), jiffies_at(us), KHZ, HZ);
		assert_true(ms >= last);
		last = ms;
	}
	/* calls 0.3 ms apart, each under a millisecond: truncating each
	 * step would count none of them */
	assert_true(last == 10000 || last == 9999);
	assert_int_equal(u.leaps, 0);
}

static void test_a_forward_leap_of_the_tsc_counts_the_ticks_instead(void **state)
{
	(void)state;
	struct tsc_uptime u = { .tsc = tsc_at(0), .jiffies = 0 };
	uint64_t leap = 463533670ull * KHZ;                        /* 5.4 days, as the soak saw */
	assert_int_equal(tsc_uptime_ms(&u, tsc_at(130000000), jiffies_at(130000000), KHZ, HZ), 130000);
	/* 20 ms later by the PIT, 5.4 days later by the TSC */
	uint64_t ms = tsc_uptime_ms(&u, tsc_at(130020000) + leap, jiffies_at(130020000), KHZ, HZ);
	assert_int_equal(ms, 130020);
	assert_int_equal(u.leaps, 1);
	/* and the TSC is believed again from its new base */
	ms = tsc_uptime_ms(&u, tsc_at(131020000) + leap, jiffies_at(131020000), KHZ, HZ);
	assert_int_equal(ms, 131020);
	assert_int_equal(u.leaps, 1);
}

static void test_a_tsc_that_goes_back_never_takes_uptime_back(void **state)
{
	(void)state;
	struct tsc_uptime u = { .tsc = tsc_at(0), .jiffies = 0 };
	assert_int_equal(tsc_uptime_ms(&u, tsc_at(5000000), jiffies_at(5000000), KHZ, HZ), 5000);
	uint64_t back = 3000ull * KHZ;                              /* restarted 3 s back */
	uint64_t ms = tsc_uptime_ms(&u, tsc_at(5100000) - back, jiffies_at(5100000), KHZ, HZ);
	assert_int_equal(ms, 5100);
	assert_int_equal(u.leaps, 1);
	ms = tsc_uptime_ms(&u, tsc_at(6100000) - back, jiffies_at(6100000), KHZ, HZ);
	assert_int_equal(ms, 6100);
	/* reset to 0 outright (a suspend on an old board) */
	ms = tsc_uptime_ms(&u, 1000, jiffies_at(6200000), KHZ, HZ);
	assert_int_equal(ms, 6200);
}

static void test_lost_ticks_do_not_overrule_the_tsc(void **state)
{
	(void)state;
	/* a loaded emulator merges ticks: a third lost at hz=1000 was seen */
	struct tsc_uptime u = { .tsc = tsc_at(0), .jiffies = 0 };
	uint64_t ms = 0;
	for (uint64_t us = 10000; us <= 60000000; us += 10000)
		ms = tsc_uptime_ms(&u, tsc_at(us), us * 1000 / 1000000 * 2 / 3, KHZ, 1000);
	assert_int_equal(ms, 60000);
	assert_int_equal(u.leaps, 0);
}

static void test_a_long_gap_between_calls_is_believed(void **state)
{
	(void)state;
	struct tsc_uptime u = { .tsc = tsc_at(0), .jiffies = 0 };
	uint64_t day = 86400ull * 1000000;
	assert_int_equal(tsc_uptime_ms(&u, tsc_at(day), jiffies_at(day), KHZ, HZ), 86400000);
	/* just after a 1 s masked stretch: ticks one short of the TSC by a second */
	assert_int_equal(tsc_uptime_ms(&u, tsc_at(day + 1000000), jiffies_at(day), KHZ, HZ), 86401000);
	assert_int_equal(u.leaps, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_clock_counts_every_millisecond_and_keeps_the_fraction),
		cmocka_unit_test(test_a_forward_leap_of_the_tsc_counts_the_ticks_instead),
		cmocka_unit_test(test_a_tsc_that_goes_back_never_takes_uptime_back),
		cmocka_unit_test(test_lost_ticks_do_not_overrule_the_tsc),
		cmocka_unit_test(test_a_long_gap_between_calls_is_believed),
	};
	return cmocka_run_group_tests_name("lib/tscclock", tests, NULL, NULL);
}
