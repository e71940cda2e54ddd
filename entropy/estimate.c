/* Entropy estimators: Xymoron's 2002 rules and Ts'o's 1999 (v1.89) rules. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "entropy_internal.h"

/*
 * Both estimators look at the same thing: the low 32 bits of the clock at
 * each interrupt of one source. Everything is unsigned 32-bit arithmetic,
 * so a clock that wraps (every ~4 s for a 1 GHz TSC) or steps backwards
 * produces a large delta, never undefined behaviour. A large delta is then
 * masked (16 bits for Xymoron, 12 bits for Ts'o), exactly as the seeds do.
 */

/* floor(log2(v & 0xffff)), -1 for 0: a branchy binary search, no loop. */
int rng_log2_16(uint32_t v)
{
	int n = 0;

	v &= 0xffff;
	if (v == 0)
		return -1;
	if (v >= 1u << 8) { v >>= 8; n += 8; }
	if (v >= 1u << 4) { v >>= 4; n += 4; }
	if (v >= 1u << 2) { v >>= 2; n += 2; }
	if (v >= 1u << 1) n += 1;
	return n;
}

/*
 * Entropy of an n-bit delta drawn from an exponential distribution,
 * derived from Benford's law and rounded down (patch 1/4). Indexed by
 * floor(log2(delta)); a delta of 0 is handled before the lookup, so the
 * seed's benford[-1] read cannot happen here.
 */
static const uint8_t rng_benford[16] = {
	0, 0, 0, 1, 2, 3, 4, 5, 5, 6, 7, 7, 8, 9, 9, 10
};

unsigned rng_benford_bits(uint32_t delta)
{
	int l = rng_log2_16(delta);

	return l < 0 ? 0 : rng_benford[l];
}

/*
 * How many low clock bits a source cannot influence: a keyboard scanned
 * at 1 kHz timed by a 1 GHz TSC has ~20 bits of noise that are the CPU's,
 * not the typist's. factor = clock/granularity, shift = floor(log2(factor)).
 * A granularity of 0 (unknown) or one finer than the clock gives factor 0
 * or 1, hence shift 0: nothing is thrown away that the clock could resolve.
 */
unsigned rng_shift_for(uint32_t clock_khz, uint32_t granularity_khz)
{
	uint32_t factor;
	unsigned shift = 0;

	if (granularity_khz == 0)
		return 0;
	factor = clock_khz / granularity_khz;
	while (factor >>= 1)
		shift++;
	return shift;
}

static uint32_t rng_abs32(uint32_t x)
{
	/* |x| of x read as two's complement, computed unsigned: |INT32_MIN| is
	 * 0x80000000, where v1.89's signed negation overflowed. */
	return (x & 0x80000000u) ? 0u - x : x;
}

/*
 * Patch 1/4, for one trusted sample at time `now` with the main loop's
 * pass counter at `switches`:
 *  - periodicity: delta2 = |delta - last delta|; take min(delta, delta2),
 *    so a metronome earns nothing once its period is known;
 *  - polling/flooding: if the main loop has not passed since the
 *    previous trusted sample of any source, delta = 0 (back-to-back
 *    interrupts). 1/4 keeps one `last_ctxt` for all sources; so does
 *    rand86 (r->last_trusted_switches), the stricter reading: two trusted
 *    interrupts inside one loop pass earn the second nothing;
 *  - granularity: delta >>= shift;
 *  - bits = Benford estimate of the low 16 bits.
 * The first sample of a source has no reference time and earns nothing.
 */
unsigned rng_xymoron_estimate(struct entropy_source *src, uint32_t now, uint32_t switches)
{
	uint32_t delta = now - src->last_time;
	uint32_t delta2 = rng_abs32(delta - src->last_delta);
	int fresh = src->have_last == 0;
	/* The timer source (credit=measured only) keeps its own last pass:
	 * see "Sources that need no person" in random.c. */
	uint32_t *last = src->own_pass_check ? &src->own_last_switches
	                                     : &src->rng->last_trusted_switches;

	src->last_time = now;
	src->last_delta = delta;
	if (delta2 < delta)
		delta = delta2;
	if (switches == *last || fresh)
		delta = 0;
	*last = switches;
	src->have_last = 1;
	return rng_benford_bits(delta >> src->shift);
}

/*
 * v1.89's add_timer_randomness() estimate: minimum of the absolute first,
 * second and third order deltas, halved "on general principles", limited
 * to 12 bits, floor(log2). Kept bit-for-bit (apart from the INT_MIN case
 * above) including its first-sample behaviour, since it is the baseline
 * that `tso_bits` shows next to Xymoron's `bits`.
 */
unsigned rng_tso_estimate(struct entropy_source *src, uint32_t now)
{
	uint32_t delta = now - src->tso_last_time;
	uint32_t delta2 = delta - src->tso_last_delta;
	uint32_t delta3 = delta2 - src->tso_last_delta2;
	int l;

	src->tso_last_time = now;
	src->tso_last_delta = delta;
	src->tso_last_delta2 = delta2;
	delta = rng_abs32(delta);
	delta2 = rng_abs32(delta2);
	delta3 = rng_abs32(delta3);
	if (delta > delta2)
		delta = delta2;
	if (delta > delta3)
		delta = delta3;
	l = rng_log2_16((delta >> 1) & 0xfff);
	return l < 0 ? 0 : (unsigned)l;
}
