/* rand86 entropy core: the capture ring that `samples` reads. */
/*
 * One producer, the interrupt side (random.c's rng_estimate puts a
 * captured source's sample here and credits it nothing: a sample an
 * observer has seen is not secret), one consumer, the main loop
 * (app/'s `samples`). No lock: each side writes only its own index, and a compiler
 * barrier orders the data stores before the index store that publishes
 * them (the producer is an interrupt on the same CPU).
 */
#include <stdint.h>

#include "entropy_internal.h"

/* Order the capture ring's data stores before its head store. */
#define RNG_BARRIER() __asm__ __volatile__("" ::: "memory")

/**********************************************************************
 * Capture ring (single producer in IRQ, single consumer in main loop)
 **********************************************************************/

void rng_capture_start(struct entropy_source *src, struct rng_capture *cap)
{
	cap->head = cap->tail = 0;
	cap->dropped = 0;
	RNG_BARRIER();
	src->capture = cap;
}

void rng_capture_stop(struct entropy_source *src)
{
	src->capture = NULL;
	RNG_BARRIER();
}

int rng_capture_read(struct rng_capture *cap, uint32_t *raw, uint32_t *shifted)
{
	uint32_t tail = cap->tail;

	if (cap->head == tail)
		return 0;
	RNG_BARRIER();
	*raw = cap->raw[tail & (RNG_CAPTURE_RING - 1)];
	*shifted = cap->shifted[tail & (RNG_CAPTURE_RING - 1)];
	RNG_BARRIER();
	cap->tail = tail + 1;
	return 1;
}

void rng_capture_put(struct rng_capture *cap, uint32_t raw, uint32_t shifted)
{
	uint32_t head = cap->head;

	if (head - cap->tail >= RNG_CAPTURE_RING) {
		cap->dropped++;
		return;
	}
	cap->raw[head & (RNG_CAPTURE_RING - 1)] = raw;
	cap->shifted[head & (RNG_CAPTURE_RING - 1)] = shifted;
	RNG_BARRIER();
	cap->head = head + 1;
}
