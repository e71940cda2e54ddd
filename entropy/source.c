/* rand86 entropy core: the sources, patch 1/4's API over caller storage. */
/*
 * A source is storage its driver owns, linked into its instance's list
 * in creation order: name, IRQ, trust, the granularity shift (patch 1/4,
 * docs/ENTROPY.md section 2), its meter and the flags the kernel sets
 * on it. random.c's interrupt side reads them; here they are made,
 * found, walked and dropped, and the full assessments' jobs are picked
 * among them for kern/assess.c.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "entropy_internal.h"

/**********************************************************************
 * Sources (patch 1/4 API over caller storage)
 **********************************************************************/

struct entropy_source *create_entropy_source(struct rng *r, struct entropy_source *storage,
	const char *name, int irq, int trusted, uint32_t granularity_khz)
{
	struct entropy_source **link = &r->sources;

	memset(storage, 0, sizeof(*storage));
	storage->rng = r;
	storage->name = name;
	storage->irq = irq;
	storage->trusted = trusted != 0;
	storage->shift = rng_shift_for(rng_plat->clock_khz(), granularity_khz);
	rng_meter_init(&storage->meter);
	storage->meter.full_deferred = (uint8_t)r->full_deferred;
	if (trusted && r->rec_slots) {
		r->rec_slots--;
		storage->rec = r->rec_pool;
		storage->rec_max = r->rec_max;
		r->rec_pool += r->rec_max;
	}
	while (*link)
		link = &(*link)->next;
	*link = storage;
	return storage;
}

void rng_defer_full_assessments(struct rng *r)
{
	struct entropy_source *src;

	r->full_deferred = 1;
	for (src = r->sources; src; src = src->next)
		src->meter.full_deferred = 1;
}

/* The smallest window first (a typist's first 64 symbols cost a few
 * hundredths of a full window and wait for no rtc), then in turn. */
int rng_full_job_next(struct rng *r, struct rng_full_job *j)
{
	struct entropy_source *start = r->full_last && r->full_last->next ? r->full_last->next
		: r->sources, *src = start, *best = NULL;

	if (!src)
		return 0;
	do {
		if (src->meter.full_wanted && (!best || (src->meter.n < best->meter.n &&
				src->meter.n < RNG_METER_W)))
			best = src;
		src = src->next ? src->next : r->sources;
	} while (src != start);
	if (!best)
		return 0;
	rng_full_job_take(j, &best->meter);
	r->full_last = best;
	return 1;
}

void rng_full_job_finish(struct rng *r, const struct rng_full_job *j)
{
	struct entropy_source *src;

	for (src = r->sources; src; src = src->next)
		if (&src->meter == j->m && src->meter.n >= j->at_n) {
			rng_full_job_post(j);
			return;
		}
}

/* The caller must have stopped the source's interrupts first. */
void free_entropy_source(struct entropy_source *src)
{
	struct entropy_source **link;

	if (!src || !src->rng)
		return;
	for (link = &src->rng->sources; *link; link = &(*link)->next) {
		if (*link == src) {
			*link = src->next;
			break;
		}
	}
	if (src->rng->untrusted_sink == src)
		src->rng->untrusted_sink = NULL;
	if (src->rng->full_last == src)
		src->rng->full_last = NULL;
	src->next = NULL;
}

struct entropy_source *rng_source_next(struct rng *r, struct entropy_source *prev)
{
	return prev ? prev->next : r->sources;
}

void rng_source_own_pass_check(struct entropy_source *src)
{
	src->own_pass_check = 1;
}

void rng_source_outside_timed(struct entropy_source *src)
{
	src->outside_timed = 1;
}

void rng_clock_counts_instructions(struct rng *r)
{
	r->instruction_clock = 1;
}

/* Credits nothing on this machine: random.c's essay, "A clock that counts
 * instructions". */
int rng_source_clock_bound(const struct entropy_source *src)
{
	return src->rng->instruction_clock && !src->outside_timed;
}

void rng_source_periodic(struct entropy_source *src, uint32_t period_ticks)
{
	uint64_t per_s = period_ticks ? (uint64_t)rng_plat->clock_khz() * 1000u / period_ticks : 0;
	src->period = period_ticks;
	if (per_s > src->meter.full_every)      /* the full assessment at most once a second */
		src->meter.full_every = (uint32_t)per_s;
}

struct entropy_source *rng_find_source(struct rng *r, const char *name)
{
	struct entropy_source *s;

	for (s = r->sources; s; s = s->next)
		if (s->name && name && strcmp(s->name, name) == 0)
			return s;
	return NULL;
}
