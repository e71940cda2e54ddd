/* Host seam for entropy/: a scripted clock and main-loop counter. */
#include <stdint.h>

#include "entropy/entropy.h"

extern uint64_t stub_time, stub_time_step;
extern uint32_t stub_switches, stub_clock_khz;
extern int stub_irq_depth, stub_irq_max_depth;
void stub_reset(void);
void sample_at(struct entropy_source *src, uint64_t t, uint32_t passes, uint32_t datum);

/*
 * Tests drive time by hand: stub_time is what the platform's now() returns, then
 * it advances by stub_time_step (0 = frozen). stub_switches is the main
 * loop's pass counter. stub_irq_depth checks that every save is restored.
 */
uint64_t stub_time;
uint64_t stub_time_step;
uint32_t stub_switches;
uint32_t stub_clock_khz = 1000000;      /* a 1 GHz TSC */
int stub_irq_depth;
int stub_irq_max_depth;

static uint64_t stub_now(void)
{
	uint64_t t = stub_time;

	stub_time += stub_time_step;
	return t;
}

static uint32_t stub_khz(void)
{
	return stub_clock_khz;
}

static uint32_t stub_passes(void)
{
	return stub_switches;
}

static unsigned long stub_irq_save(void)
{
	if (++stub_irq_depth > stub_irq_max_depth)
		stub_irq_max_depth = stub_irq_depth;
	return (unsigned long)stub_irq_depth;
}

static void stub_irq_restore(unsigned long flags)
{
	(void)flags;
	stub_irq_depth--;
}

static const struct rng_platform stub_platform = {
	.now = stub_now, .clock_khz = stub_khz, .passes = stub_passes,
	.irq_save = stub_irq_save, .irq_restore = stub_irq_restore,
};

/* Helpers the host tests share (declared in each test file). */
void stub_reset(void)
{
	rng_platform_init(&stub_platform);
	stub_time = 0;
	stub_time_step = 0;
	stub_switches = 0;
	stub_clock_khz = 1000000;
	stub_irq_depth = 0;
	stub_irq_max_depth = 0;
	rng_set_default(NULL);
}

/* One interrupt of src at clock t, `passes` main-loop passes before it. */
void sample_at(struct entropy_source *src, uint64_t t, uint32_t passes, uint32_t datum)
{
	stub_switches += passes;
	stub_time = t;
	add_timing_entropy(src, datum);
}
