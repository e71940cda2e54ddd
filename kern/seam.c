/* The live pools, and the kernel's side of the entropy core's seam (entropy/entropy.h). */
#include "kern/kernel.h"
#include "cpu.h"

struct rng rng_live;

void rng_live_init(enum credit_mode credit)
{
	rng_init(&rng_live, credit == CREDIT_TSO ? RNG_CREDIT_TSO :
		credit == CREDIT_XYMORON ? RNG_CREDIT_XYMORON : RNG_CREDIT_MEASURED);
	rng_set_default(&rng_live);
	/* Power-on known-answer test: every byte served passes through SHA-1. */
	if (rng_sha1_selftest() != 0) {
		panic_printf("entropy: SHA-1 known-answer test failed: this build must not serve random bytes; halted\r\n");
		cpu_halt_forever();
	}
}

/* The clock and the interrupt flag come from arch/x86/clock.c; the
 * "context switch" is a main-loop pass (loop.c says why). */
uint32_t entropy_context_switches(void) { return kern_passes(); }
