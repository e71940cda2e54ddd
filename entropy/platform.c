/* rand86 entropy core: the platform it runs on, handed in once. */
/*
 * Time, the interrupt flag and the pass count come from outside entropy/
 * in one struct rng_platform (kern/seam.c fills it on the appliance, the
 * host tests with a scripted clock). It has a file of its own, under
 * every file of the core that reads the clock or masks interrupts, so
 * none of them calls into random.c for it.
 */
#include "entropy_internal.h"

const struct rng_platform *rng_plat;

void rng_platform_init(const struct rng_platform *p)
{
	rng_plat = p;
}
