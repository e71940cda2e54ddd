/* The live pools, and the kernel's side of the entropy core's seam (entropy/entropy.h). */
#include "kern/kernel.h"
#include "arch/x86/cpu.h"
#include "arch/x86/clock.h"

struct rng rng_live;

/* The core's seam (entropy/entropy.h): time and the interrupt flag from
 * arch/x86, the "context switch" is a main-loop pass (loop.c says why). */
static unsigned long seam_irq_save(void) { return irq_save(); }
static void seam_irq_restore(unsigned long flags) { irq_restore(flags); }

static const struct rng_platform seam = {
	.now = clock_now, .clock_khz = clock_khz, .passes = kern_passes,
	.irq_save = seam_irq_save, .irq_restore = seam_irq_restore,
};

void rng_live_init(enum rng_estimator credit)
{
	rng_platform_init(&seam);
	rng_init(&rng_live, credit);
	rng_set_default(&rng_live);
	if (boot_opts.record)
		kern_record_init();
	/* Power-on known-answer test: every byte served passes through SHA-1. */
	if (rng_sha1_selftest() != 0) {
		panic_printf("entropy: SHA-1 known-answer test failed: this build must not serve random bytes; halted\r\n");
		cpu_halt_forever();
	}
}
