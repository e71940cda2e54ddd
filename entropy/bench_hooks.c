/* rand86 entropy core: the entry points `bench` alone calls (entropy_hooks.h). */
/*
 * app/cmd_bench.c and tools/bench/ time a piece of the core on its own:
 * against a baseline, or without honest samples. These stand on pool.c,
 * estimate.c and platform.c, as the paths they are timed against do,
 * and build at -O2 as those do.
 */
#include <stdint.h>

#include "entropy_internal.h"

/*
 * v1.89's add_timer_randomness() with this tree's pieces: read the clock,
 * the delta-of-deltas estimate, mix two words straight into the pool and
 * credit it, under one irq_save. Not on any path of the appliance: the
 * baseline `bench` times the 2002 sample path (estimate into the batch,
 * flushed by the tick) against.
 */
void rng_sample_1999(struct rng_pool *p, struct entropy_source *src, uint32_t datum)
{
	unsigned long flags = rng_plat->irq_save();   /* bound: one sample, a few us */
	uint32_t t = (uint32_t)rng_plat->now();
	uint32_t w[2] = { datum, t };

	rng_mix_words(p, w, 2);
	rng_credit(p, rng_tso_estimate(src, t));
	rng_plat->irq_restore(flags);
}

void rng_bench_crng_key(struct rng *r)
{
	rng_pool_extract(&r->primary, r->crng_key, sizeof(r->crng_key));
	r->crng_keys++;
}
