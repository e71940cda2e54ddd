/* Host tests of the credit rule (credit=measured) on stored captures, with scripted clocks.
 *
 * Each capture in tests/vectors/credit/ (scripts/credit_vectors.py) is
 * replayed through the whole sample path as a scripted clock: a fresh
 * rng, one trusted source, the capture's raw deltas as the clock, a
 * flush every 4 samples (about what the main loop does with keys). As
 * make compare and the honesty test do it on a live boot: WARMUP samples,
 * then a credited stretch of STRETCH, then the full SP 800-90B 6.3
 * assessment (tools/full_assess.h) of what follows, block by block of
 * 1,024 (the mean, as compare gives it), which the rule never saw paid.
 * The rule's bound (docs/ENTROPY.md, "What a window is paid";
 * docs/PROTOCOL.md's is 1.1x): credited per sample at most 1.0x that
 * assessment, the machine typists (steady, burst, metronome, the mouse's
 * rhythm) like every source. Paying the meter's whole estimate (every
 * factor 1000) fails it for the timer and the rtc (1.08x, 1.06x). No
 * lower bound is asserted: credit=measured is Xymoron's estimate capped
 * (docs/PROTOCOL.md), and where Xymoron's bits are under 0.6x the
 * assessment (irregular typing, the 486 keyboard, the rtc on a 486,
 * bursts) no factor reaches it; the figures print.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "entropy/entropy_internal.h"
#include "tools/full_assess.h"

extern uint32_t stub_clock_khz;
void stub_reset(void);
void sample_at(struct entropy_source *src, uint64_t t, uint32_t passes, uint32_t datum);

#define WARMUP 128                           /* as compare and the honesty test */
#define STRETCH 1024
#define NEXT 1024
#define PER_FLUSH 4
#define MAXLEN 8192

static struct rng r;
static struct entropy_source src;
static uint32_t raw[MAXLEN], shifted[MAXLEN];
static uint8_t sym[MAXLEN];

/* The capture's samples; its shift, from the deltas (raw >> shift == shifted). */
static unsigned load(const char *name, unsigned *shift)
{
	char path[256];
	FILE *f;
	unsigned n = 0;

	snprintf(path, sizeof(path), "tests/vectors/credit/%s.txt", name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: missing (make credit-vectors writes it)", path);
	while (n < MAXLEN && fscanf(f, "%8x %8x", &raw[n], &shifted[n]) == 2) {
		sym[n] = (uint8_t)shifted[n];
		n++;
	}
	fclose(f);
	*shift = 0;
	for (unsigned i = 0; i < n; i++) {
		if (shifted[i] == 0 || raw[i] < 2 * shifted[i])
			continue;
		while ((raw[i] >> *shift) > shifted[i])
			(*shift)++;
		break;
	}
	return n;
}

/* Replay samples 0..upto-1 once; the source's credited bits and Xymoron's
 * estimate summed (what credit=measured caps) after sample mark-1 and
 * after the last. mark is a multiple of PER_FLUSH: a flush ends there. */
static void replay(unsigned shift, unsigned mark, unsigned upto, uint64_t credited[2],
	uint64_t bits[2])
{
	uint64_t t = 1ull << 40;

	stub_reset();
	stub_clock_khz = 1u << shift;              /* granularity 1 kHz: that shift */
	rng_init(&r, RNG_CREDIT_MEASURED);
	create_entropy_source(&r, &src, "replay", 1, 1, 1);
	assert_int_equal(src.shift, shift);
	for (unsigned i = 0; i < upto; i++) {
		t += raw[i];
		sample_at(&src, t, 1, i);
		if ((i + 1) % PER_FLUSH == 0 || i + 1 == upto) {
			r.primary.entropy_count = 0;  /* keep the pool from clamping */
			rng_batch_flush(&r);
		}
		if (i + 1 == mark) {
			credited[0] = src.credited;
			bits[0] = src.bits;
		}
	}
	credited[1] = src.credited;
	bits[1] = src.bits;
}

static void check(const char *name)
{
	unsigned shift, n = load(name, &shift);
	uint64_t credited[2], bits[2], sum = 0;
	unsigned blocks = 0;
	uint32_t assessed;
	double per, xym, ratio;

	if (n < WARMUP + STRETCH + NEXT)
		fail_msg("%s: %u samples, want %u", name, n, WARMUP + STRETCH + NEXT);
	replay(shift, WARMUP, WARMUP + STRETCH, credited, bits);
	for (unsigned at = WARMUP + STRETCH; at + NEXT <= n; at += NEXT)
		sum += full_assess_block(sym + at, NEXT, NULL), blocks++;
	assessed = (uint32_t)(sum / blocks);
	per = (double)(credited[1] - credited[0]) / STRETCH;
	xym = (double)(bits[1] - bits[0]) / STRETCH;
	ratio = assessed ? per * 1000.0 / assessed : (per > 0 ? 99.0 : 0.0);
	print_message("%-13s shift %2u: credited %.3f bits/sample (Xymoron's %.3f), next %u "
		"assessed %.3f: %.2fx\n", name, shift, per, xym, blocks * NEXT, assessed / 1000.0, ratio);
	if (ratio > 1.0)
		fail_msg("%s: credited %.3f bits a sample, %.2fx the assessment of the next %u",
			name, per, ratio, NEXT);
}

#define CASE(name) \
	static void test_credit_##name(void **state) { (void)state; check(#name); }
CASE(steady)
CASE(irregular)
CASE(burst)
CASE(metronome)
CASE(slow)
CASE(kbd486)
CASE(mouse)
CASE(mouse_rhythm)
CASE(timer)
CASE(timer1000)
CASE(rtc)
CASE(rtc486)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_credit_steady), cmocka_unit_test(test_credit_irregular),
		cmocka_unit_test(test_credit_burst), cmocka_unit_test(test_credit_metronome),
		cmocka_unit_test(test_credit_slow), cmocka_unit_test(test_credit_kbd486),
		cmocka_unit_test(test_credit_mouse), cmocka_unit_test(test_credit_mouse_rhythm),
		cmocka_unit_test(test_credit_timer), cmocka_unit_test(test_credit_timer1000),
		cmocka_unit_test(test_credit_rtc), cmocka_unit_test(test_credit_rtc486),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
