/* rand86 entropy core: urandom's ChaCha20 keys, their bits, rounds and schedule. */
/*
 * Under credit=measured /dev/urandom is chacha.c's fast-key-erasure
 * generator; this file makes its keys from the pools and says when.
 * random.c asks it for a key that is owed after each flush
 * (rng_crng_tick) and before each urandom read (rng_crng_read_due),
 * whether one is owed (rng_crng_owed: /dev/random waits
 * meanwhile) and for urandom's bytes (rng_crng_serve); the kernel's loop
 * has keys made apart (rng_crng_poll). It stands on pool.c and chacha.c.
 * Why ChaCha20 and this schedule: docs/ENTROPY.md section 10.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "entropy_internal.h"

/**********************************************************************
 * urandom's generator (credit=measured): its keys and their schedule
 **********************************************************************/

/*
 * A key: RNG_CRNG_KEY_BITS credited bits that the pools hold now, debited
 * from the primary first and then the secondary, and spent. Its bytes are
 * v1.89 extractions of both pools (the hash and its feedback), XORed into
 * the old key as Linux 4.8's crng_reseed did, so a reseed never loses what
 * the old key had. A key is made in RNG_CRNG_ROUNDS extraction rounds
 * (rng_crng_round), all at once in the flush or one a pass when made
 * apart; the rounds are those of rng_pool_extract on 32 bytes, in order.
 */
#define RNG_CRNG_PART_ROUNDS ((32 + RNG_EXTRACT_BYTES - 1) / RNG_EXTRACT_BYTES)
#define RNG_CRNG_ROUNDS (2 * RNG_CRNG_PART_ROUNDS)   /* the primary's, the secondary's */

/* Debit the key's bits; 0, with nothing changed, when the pools hold
 * fewer bits than a key needs. */
static int rng_crng_begin(struct rng *r)
{
	unsigned got;
	int have = r->primary.entropy_count + r->secondary.entropy_count;

	if (have < RNG_CRNG_KEY_BITS)
		return 0;
	got = rng_debit(&r->primary, RNG_CRNG_KEY_BITS);
	got += rng_debit(&r->secondary, RNG_CRNG_KEY_BITS - got);
	r->spent_bits += got;
	r->crng_key_bits += got;
	return 1;
}

/* Round i (0-based) of the key begun: into crng_part, and at the end of
 * each pool's part its 32 bytes XORed into the key. 1 after the last. */
static int rng_crng_round(struct rng *r, unsigned i)
{
	struct rng_pool *p = i < RNG_CRNG_PART_ROUNDS ? &r->primary : &r->secondary;
	unsigned at = i % RNG_CRNG_PART_ROUNDS * RNG_EXTRACT_BYTES, k;
	uint8_t tmp[RNG_EXTRACT_BYTES];
	uint32_t w;

	rng_extract_round(p, tmp);
	memcpy(r->crng_part + at, tmp, 32 - at < RNG_EXTRACT_BYTES ? 32 - at : RNG_EXTRACT_BYTES);
	rng_wipe(tmp, sizeof(tmp));
	if (i % RNG_CRNG_PART_ROUNDS != RNG_CRNG_PART_ROUNDS - 1)
		return 0;
	for (k = 0; k < 8; k++) {
		memcpy(&w, r->crng_part + 4 * k, 4);
		r->crng_key[k] ^= w;
	}
	rng_wipe(r->crng_part, sizeof(r->crng_part));
	rng_wipe(&w, sizeof(w));
	return i == RNG_CRNG_ROUNDS - 1;
}

/*
 * The key made, begun at `begun`: owed no more, and the next one due
 * (Linux 5.18's crng_has_old_seed) uptime/2 after this one, at least
 * RNG_CRNG_MIN_S and at most RNG_CRNG_MAX_S seconds, uptime counted
 * from rng_init.
 */
static void rng_crng_made(struct rng *r, uint64_t begun)
{
	uint64_t sec = (uint64_t)rng_plat->clock_khz() * 1000u;
	uint64_t gap = (begun - r->crng_t0) / 2;

	r->crng_keys++;
	r->crng_due = 0;
	if (gap < RNG_CRNG_MIN_S * sec)
		gap = RNG_CRNG_MIN_S * sec;
	if (gap > RNG_CRNG_MAX_S * sec)
		gap = RNG_CRNG_MAX_S * sec;
	r->crng_at = begun;
	r->crng_next = begun + gap;
}

/* Is a key owed (the first once seeded, a reseed once a read found it
 * due, rng_crng_read_due)? /dev/random waits meanwhile (crng_due). */
static int rng_crng_owed_now(const struct rng *r)
{
	return r->estimator == RNG_CREDIT_MEASURED && r->seeded && r->crng_due;
}

/*
 * A urandom read, before it is served: is a reseed due by the schedule?
 * Then it is owed, and made now, whole, when the pools hold its bits
 * (made apart, the loop's polls make it while the old key serves on).
 * Lazily, as Linux 5.18's crng_make_state does: a reseed is made only
 * when urandom is used, so while nobody reads it the bits a person typed
 * stay in the pools for /dev/random (a disk polled and 80 keys typed,
 * nobody reading, once spent 5 of 25 keys' worth on keys nobody used).
 */
void rng_crng_read_due(struct rng *r)
{
	if (r->crng_due || !r->crng_keys || (int64_t)(rng_plat->now() - r->crng_next) < 0)
		return;
	r->crng_due = 1;
	if (!r->crng_apart)
		rng_crng_tick(r);
}

/* After each flush (guest time, the timer tick): the key that is owed,
 * whole, as soon as the pools hold its bits. */
void rng_crng_tick(struct rng *r)
{
	uint64_t now;
	unsigned i = 0;

	if (!rng_crng_owed_now(r) || !rng_crng_begin(r))
		return;
	now = rng_plat->now();                   /* the key's time: when it was begun */
	while (!rng_crng_round(r, i))
		i++;
	rng_crng_made(r, now);
}

/**********************************************************************
 * Keys made apart, and what the read paths ask
 **********************************************************************/

void rng_crng_keys_apart(struct rng *r)
{
	r->crng_apart = 1;
}

/*
 * Keys made apart: one extraction round a call (~10 k instructions for
 * the primary's, a quarter of that for the secondary's), so no pass of
 * the main loop holds the CPU for a whole key (~86 k instructions, 22 ms
 * at 4 MIPS). The bits are debited at the first round, so no read takes
 * them meanwhile; a flush between rounds mixes into the pools being
 * extracted, which only adds to the key. 1 when a round was made.
 */
int rng_crng_poll(struct rng *r)
{
	if (!r->crng_round) {
		if (!rng_crng_owed_now(r) || !rng_crng_begin(r))
			return 0;
		r->crng_begun = rng_plat->now();
	}
	if (rng_crng_round(r, r->crng_round)) {
		r->crng_round = 0;
		rng_crng_made(r, r->crng_begun);
	} else {
		r->crng_round++;
	}
	return 1;
}

/* credit=measured: urandom's key is owed (the first one from boot on,
 * later ones once a read found them due), and goes before /dev/random:
 * so the first key takes the first 256 bits credited, before
 * /dev/random can drain them. */
int rng_crng_owed(const struct rng *r)
{
	return r->estimator == RNG_CREDIT_MEASURED && (r->crng_due || !r->crng_keys);
}

/* credit=measured: the ChaCha20 generator, one erasing read per
 * RNG_CRNG_READ_MAX bytes (the appliance's callers take 256 at a time). */
void rng_crng_serve(struct rng *r, uint8_t *dst, size_t len)
{
	size_t n;

	while (len) {
		n = len < RNG_CRNG_READ_MAX ? len : RNG_CRNG_READ_MAX;
		rng_crng_read(r->crng_key, dst, n);
		dst += n;
		len -= n;
	}
}
