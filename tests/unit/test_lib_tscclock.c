/* Host tests: uptime on the TSC, checked by the tick count and settled by
 * the CMOS clock (lib/tscclock.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "lib/tscclock.h"

#define KHZ 2095976u
#define HZ  100u

/* The fake machine: true time in us; the TSC, the ticks and the CMOS clock
 * follow it unless a test bends them. */
static uint64_t now_us, tsc_bias, ticks_lost;
static int64_t tsc_step;                 /* a leap or a step back of the TSC */
static int have_rtc, rtc_reads;

static uint64_t tsc(void) { return 77777 + tsc_bias + now_us * KHZ / 1000 + (uint64_t)tsc_step; }
static uint64_t ticks(void) { return now_us * HZ / 1000000 - ticks_lost; }
static uint32_t rtc(void)
{
	rtc_reads++;
	return have_rtc ? (uint32_t)(800000000u + now_us / 1000000) : TSC_NO_RTC;
}

static struct tsc_uptime u;

static void boot(void)
{
	now_us = tsc_bias = ticks_lost = 0;
	tsc_step = 0;
	have_rtc = 1;
	rtc_reads = 0;
	tsc_uptime_base(&u, tsc(), ticks(), 0, rtc());
	u.ms = 0;
	u.leaps = 0;
	rtc_reads = 0;
}

static uint64_t up(void) { return tsc_uptime_ms(&u, tsc(), ticks(), KHZ, HZ, rtc); }

static void test_steady_clock_counts_every_millisecond_and_never_reads_the_rtc(void **state)
{
	(void)state;
	boot();
	uint64_t last = 0;
	for (now_us = 300; now_us <= 10000000; now_us += 300) {   /* every 0.3 ms for 10 s */
		uint64_t ms = up();
		assert_true(ms >= last);
		last = ms;
	}
	/* calls 0.3 ms apart: counting each call's whole milliseconds would
	 * count none of them */
	assert_true(last == 10000 || last == 9999);
	assert_int_equal(u.leaps, 0);
	assert_int_equal(rtc_reads, 0);
}

static void test_a_forward_leap_of_the_tsc_counts_wall_time_instead(void **state)
{
	(void)state;
	boot();
	now_us = 130000000;
	assert_int_equal(up(), 130000);
	tsc_step = (int64_t)463533670ull * KHZ;                     /* 5.4 days, as the soak saw */
	now_us += 20000;
	uint64_t ms = up();
	assert_true(ms >= 130000 && ms <= 131020);                 /* the CMOS clock's second */
	assert_int_equal(u.leaps, 1);
	now_us += 1000000;                                         /* the TSC believed again */
	assert_int_equal(up() - ms, 1000);
	assert_int_equal(u.leaps, 1);
}

static void test_a_leap_without_a_cmos_clock_counts_the_ticks(void **state)
{
	(void)state;
	boot();
	have_rtc = 0;
	now_us = 50000000;
	assert_int_equal(up(), 50000);
	tsc_step = (int64_t)3600000ull * KHZ;                       /* an hour ahead */
	now_us += 500000;
	assert_int_equal(up(), 50500);
	assert_int_equal(u.leaps, 1);
}

static void test_a_stalled_emulator_is_believed_though_its_ticks_merged(void **state)
{
	(void)state;
	boot();
	/* the dashboard's four calls a second; then QEMU stopped for 3 s: the
	 * host's TSC ran on, the 8259 merged 300 ticks into one */
	uint64_t ms = 0;
	for (now_us = 250000; now_us <= 10000000; now_us += 250000)
		ms = up();
	assert_int_equal(ms, 10000);
	now_us = 13000000;
	ticks_lost += 299;
	assert_int_equal(up(), 13000);
	for (int i = 0; i < 40; i++) {
		now_us += 250000;
		ms = up();
	}
	assert_int_equal(ms, 23000);
	assert_int_equal(u.leaps, 0);
	/* the same soon after the base, where the ticks cannot vouch for the
	 * TSC: 2 s up, then stopped for 10 s; the CMOS clock says it was */
	boot();
	for (now_us = 250000; now_us <= 2000000; now_us += 250000)
		ms = up();
	now_us = 12000000;
	ticks_lost += 999;
	assert_int_equal(up(), 12000);
	assert_int_equal(rtc_reads, 1);
	assert_int_equal(u.leaps, 0);
	now_us += 1000000;
	assert_int_equal(up(), 13000);
}

static void test_a_tsc_that_goes_back_never_takes_uptime_back(void **state)
{
	(void)state;
	boot();
	now_us = 5000000;
	assert_int_equal(up(), 5000);
	tsc_step = -(int64_t)3000ull * KHZ;                         /* 3 s back */
	now_us += 100000;
	uint64_t ms = up();
	assert_true(ms >= 5000 && ms <= 5100);
	now_us += 1000000;
	uint64_t ms2 = up();
	assert_true(ms2 >= ms + 1000 - 1 && ms2 <= 6100);
	tsc_bias = 0;                                              /* reset outright (old board, suspend) */
	tsc_step = -(int64_t)(77777 + now_us * KHZ / 1000) + 1000;
	now_us += 100000;
	assert_true(up() >= ms2);
}

static void test_a_tsc_that_differs_by_core_does_not_run_ahead(void **state)
{
	(void)state;
	boot();
	/* the emulator's thread moves between two cores 90 ms apart every
	 * 100 ms; a call every millisecond for 60 s */
	uint64_t ms = 0;
	for (now_us = 1000; now_us <= 60000000; now_us += 1000) {
		tsc_step = (now_us / 100000) % 2 ? (int64_t)90ull * KHZ : 0;
		uint64_t v = up();
		assert_true(v >= ms);
		ms = v;
	}
	assert_true(ms >= 59900 && ms <= 60090);
	assert_int_equal(u.leaps, 0);
	assert_int_equal(rtc_reads, 0);
}

static void test_lost_ticks_do_not_overrule_the_tsc(void **state)
{
	(void)state;
	boot();
	/* a loaded emulator merges ticks: a third lost was seen at hz=1000 */
	uint64_t ms = 0;
	for (now_us = 10000; now_us <= 60000000; now_us += 10000) {
		ticks_lost = now_us * HZ / 1000000 / 3;
		ms = up();
	}
	assert_int_equal(ms, 60000);
	assert_int_equal(u.leaps, 0);
}

static void test_a_long_gap_between_calls_is_believed(void **state)
{
	(void)state;
	boot();
	now_us = 86400ull * 1000000;
	assert_int_equal(up(), 86400000);
	assert_int_equal(u.leaps, 0);
	assert_int_equal(rtc_reads, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_clock_counts_every_millisecond_and_never_reads_the_rtc),
		cmocka_unit_test(test_a_forward_leap_of_the_tsc_counts_wall_time_instead),
		cmocka_unit_test(test_a_leap_without_a_cmos_clock_counts_the_ticks),
		cmocka_unit_test(test_a_stalled_emulator_is_believed_though_its_ticks_merged),
		cmocka_unit_test(test_a_tsc_that_goes_back_never_takes_uptime_back),
		cmocka_unit_test(test_a_tsc_that_differs_by_core_does_not_run_ahead),
		cmocka_unit_test(test_lost_ticks_do_not_overrule_the_tsc),
		cmocka_unit_test(test_a_long_gap_between_calls_is_believed),
	};
	return cmocka_run_group_tests_name("lib/tscclock", tests, NULL, NULL);
}
