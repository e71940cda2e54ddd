/* rand86 entropy core: its statistics, one consistent copy at a time. */
#include <stdint.h>

#include "entropy_internal.h"

/**********************************************************************
 * Statistics: snapshots taken with interrupts masked
 **********************************************************************/

/*
 * Interrupts raise the batch and per-source counters; on i386 a 64-bit
 * counter is two stores, so reading one while an interrupt updates it
 * can tear. Every reader outside entropy/ goes through these, which copy
 * everything at once under rng_plat->irq_save() (a few dozen loads).
 */
void rng_stats(const struct rng *r, struct rng_stats *st)
{
	unsigned long flags = rng_plat->irq_save();

	st->estimator = r->estimator;
	st->primary_bits = r->primary.entropy_count;
	st->secondary_bits = r->secondary.entropy_count;
	st->primary_max = RNG_POOL_BITS(&r->primary);
	st->secondary_max = RNG_POOL_BITS(&r->secondary);
	st->credited_bits = r->credited_bits;
	st->spent_bits = r->spent_bits;
	st->random_bytes = r->random_bytes;
	st->urandom_bytes = r->urandom_bytes;
	st->batch_samples = r->batch_samples;
	st->batch_flushes = r->batch_flushes;
	st->batch_overwrites = r->batch_overwrites;
	st->reseeds = r->reseeds;
	st->primary_credited_bits = r->primary_credited_bits;
	st->seeded = r->seeded;
	st->crng_keys = r->crng_keys;
	st->crng_key_bits = r->crng_key_bits;
	st->crng_keyed_ms = r->crng_keys ? r->crng_at - r->crng_t0 : 0;
	st->crng_reseed_ms = r->crng_keys ? r->crng_next - r->crng_t0 : 0;
	rng_plat->irq_restore(flags);
	st->crng_keyed_ms /= rng_plat->clock_khz();      /* ticks to ms, outside the mask */
	st->crng_reseed_ms /= rng_plat->clock_khz();
}

void rng_source_stats(const struct entropy_source *src, struct rng_source_stats *st)
{
	unsigned long flags = rng_plat->irq_save();   /* bound: as rng_stats, a few dozen loads */

	st->name = src->name;
	st->irq = src->irq;
	st->trusted = src->trusted;
	st->capture = src->capture != NULL;
	st->events = src->events;
	st->bits = src->bits;
	st->tso_bits = src->tso_bits;
	st->credited = src->credited;
	st->h_milli = src->meter.h_milli;
	st->full_milli = src->meter.full_milli;
	st->full_age = (uint32_t)(src->meter.n - src->meter.full_n);
	st->health = rng_meter_health(&src->meter);
	st->rct_fail = src->meter.rct_fail;
	st->apt_fail = src->meter.apt_fail;
	st->unmeasured = src->mq_dropped;
	st->skipped = src->skipped;
	st->clock_bound = src->trusted && rng_source_clock_bound(src);
	rng_plat->irq_restore(flags);
}

int rng_primary_full(const struct rng *r)
{
	return r->primary.entropy_count >= RNG_POOL_BITS(&r->primary);
}
