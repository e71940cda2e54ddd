/* rand86 entropy core: the flow of samples, the batch, the reads and their accounting. */
/*
 * What urandom is: under credit=measured (the default) a ChaCha20
 * generator with fast key erasure, keyed from both pools once they are
 * seeded and rekeyed on Linux 5.18's schedule; under credit=xymoron and
 * credit=tso v1.89's, SHA-1 over the secondary pool, byte for byte.
 * /dev/random is v1.89's under every rule: 8 credited bits a byte.
 *
 * Map, in file order:
 *   the essay        theory, threat model, the 2002 argument, trade-offs,
 *                    departures, measured credit, sources that need no
 *                    person, a clock that counts instructions, seeding,
 *                    urandom's generator, accounting
 *   transfers        primary to secondary, the catastrophic reseed, at
 *                    once or in rounds (apart)
 *   random, urandom  the two read paths, reads made apart
 *   own bytes        rng_aux_bytes, outside the accounting
 *   setup            rng_init, boot-time seeding
 *   interrupt side   one sample into the batch (patch 4/4)
 *   the flush        the batch into a pool, the meter's grants (4/4)
 *
 * What it calls has files of its own: pool.c (the pools, mixing,
 * extraction), crng.c (urandom's keys: their bits, rounds and schedule),
 * capture.c (the ring `samples` reads), platform.c (the clock and the
 * interrupt flag), source.c (the patch 1/4 API over caller storage),
 * stats.c (snapshots with interrupts masked); bench_hooks.c holds what
 * `bench` alone calls, and docs/LAYERS.md names the rest.
 *
 * Theory
 * ======
 *
 * A computer does what it is told; the only unpredictability it has is in
 * the outside world. rand86 listens to it through the timing of
 * interrupts: a typist's key presses, a mouse, a disk, a serial line, a
 * network card. Each interrupt hands the core a sample (the clock when it
 * happened, and a datum such as a scan code). The core does three things
 * with samples, the same three the Linux random driver did from 1994 on:
 *
 *   1. it MIXES every sample into an entropy pool, with a function that
 *      never loses what was already in the pool (a twisted GFSR: mixing
 *      known data can only stir, never drain, the unknown part);
 *   2. it ESTIMATES how many bits of the sample an observer could not
 *      have predicted, and keeps the sum as the pool's entropy count;
 *   3. it EXTRACTS output by hashing the whole pool with SHA-1, so the
 *      output reveals nothing usable about the pool, and debits the count.
 *
 * /dev/random serves a byte only when 8 bits of estimated entropy back it;
 * /dev/urandom serves any amount, as strong as its generator (above) and
 * the secrecy of what keyed it. Everything hinges on step 2 never
 * overstating.
 *
 * Threat model
 * ============
 *
 * The attacker knows this code, the pool layout and the datum values, can
 * read everything /dev/random and /dev/urandom hand out, and can cause
 * interrupts: flood the network card, type at known moments, hold a key
 * down. The attacker cannot read memory. What the attacker must not
 * achieve is making the core believe it holds entropy it does not have;
 * that is what turns /dev/random into a predictable stream.
 *
 * The 2002 argument
 * =================
 *
 * v1.89 (Ts'o, 1999) estimated each sample from the first, second and
 * third order deltas of its source's interrupt times, and credited every
 * interrupt source it was told about, network cards included. In August
 * 2002 Oliver Xymoron posted four patches arguing that this overstates
 * entropy badly; what each changes (granularity and trust, the Benford
 * estimate, the periodicity and back-to-back checks, honest transfers,
 * the batch that wraps) is told once, in docs/ENTROPY.md, section 2.
 *
 * Ts'o's answer, Linus's, and how rand86 lets the argument be watched
 * (both estimates on every sample, `bits` and `tso_bits`, one credited
 * by `credit=`; a third rule measures, below): docs/ENTROPY.md, section 5.
 *
 * Trade-offs
 * ==========
 *
 *   - Interrupt context is kept cheap: add_timing_entropy() touches one
 *     source's state and one batch word; no loop over the pool, no hash.
 *     The flush, once per timer tick outside the hard-IRQ path, does the
 *     mixing; reads do the hashing.
 *   - Pools, flush and reads run in one context (the main loop). Only the
 *     batch (and per-source statistics) is shared with interrupts; the
 *     flush takes the batch counts with interrupts masked for a few
 *     instructions and mixes the words afterwards. An interrupt that lands
 *     in a word while it is being mixed is harmless: the batch is never
 *     cleared, the word is mixed again by the next flush, and its credit
 *     belongs to the next flush because the counts were already taken.
 *   - Credit is conservative in every corner: the first sample of a
 *     source earns nothing (no reference time), delta 0 earns nothing,
 *     the batch and every pool clamp, and the secondary is credited only
 *     with bits the primary actually gave up.
 *
 * Where rand86 departs from the 2002 patches, and why
 * ===================================================
 *
 *   - Seed bugs fixed (benford[-1] for delta 0, the mixer's word count
 *     after a transfer, 1/4's transfer credit): docs/ENTROPY.md, section 3.
 *   - No scheduler: a main-loop pass counter (rng_plat->passes()) stands
 *     in for nr_context_switches() (docs/ENTROPY.md, section 4). As in the
 *     seed it is compared with the previous trusted sample of any source,
 *     not per source: a second trusted interrupt in one pass earns nothing
 *     even from another device, the stricter of the two checks.
 *   - NULL and untrusted sources: the seed's NULL handle is kept
 *     (add_timing_entropy(NULL, d) goes to the default instance), and a
 *     named source may be created untrusted so it still shows events and
 *     tso_bits in `sources`. Untrusted samples are mixed, their `bits`
 *     stay 0 and they are never credited under either estimator.
 *   - Capture: `samples NAME N` copies a source's raw and shifted deltas
 *     out for SP 800-90B assessment. Samples an observer has seen are not
 *     secret, so while a capture is attached the source earns no credit
 *     and neither `bits` nor `tso_bits` grows (events still count).
 *   - 64-bit clock: the low word is the time, the high word is XORed into
 *     the datum (1999 did this with the TSC's high word).
 *   - /dev/urandom is served in chunks of at most one transfer buffer
 *     that stop at each 1024-byte mark, so the catastrophic reseed happens
 *     every 1024 bytes even within one large read (v1.89 checked once per
 *     read call).
 *   - Statistics that floods raise are 64-bit; the per-flush credit
 *     saturates at the batch size and the pending-sample count saturates
 *     instead of wrapping.
 *
 * Measured credit (credit=measured, the default)
 * ==============================================
 *
 * Both 2002 estimators judge a sample from its own delta and one or two
 * predecessors, and Xymoron's paid a metronome typist 6.7 times what SP
 * 800-90B measured. So each trusted source is also MEASURED (measure.c:
 * health tests and a live min-entropy estimate), and under
 * credit=measured a trusted sample is credited Xymoron's bits only out
 * of a budget the estimate fills (rng_measure_source). What is measured,
 * the budget's bound and the warm-up: docs/ENTROPY.md, section 6. Under
 * credit=xymoron and credit=tso the meter runs for display and credits
 * nothing: the 2002 and 1999 rules exactly, with the seed's sources.
 *
 * The interrupt path stays a handful of operations: the symbol and
 * Xymoron's bits go into a 64-entry queue per source; the tick flush
 * (main loop, not interrupt context) drains the queues up to where it
 * took the batch, runs the tests and the estimate, and grants the
 * credit. A full queue drops the sample from measurement AND credit.
 *
 * What measurement cannot do: it sees only the symbols. A source that
 * is deterministic but complicated (an attacker's replay, two
 * oscillators' phase drift) looks random to any estimator; the health
 * tests catch a source that breaks, not one that lies well. The cap
 * only ever lowers Xymoron's credit, never raises it.
 *
 * Sources that need no person (credit=measured only)
 * ==================================================
 *
 *   - `timer`: the PIT's tick, timed by the TSC. Two oscillators (the
 *     14.318 MHz crystal / 12 and the CPU clock): the TSC count between
 *     ticks jitters with interrupt latency and the oscillators' relative
 *     drift. Granularity is the clock's own (shift 0). How much of that
 *     jitter is unpredictable is exactly what the meter is for; on real
 *     hardware with locked clocks it may be little, and then the health
 *     tests or the estimate say so and it credits little or nothing.
 *     Without a TSC (a 486) the clock IS the PIT, the count between
 *     ticks is the reload value, and the source is created untrusted
 *     (`sources` shows trust=untrusted timed_by=pit).
 *     The back-to-back rule: patch 1/4 keeps ONE last pass count for all
 *     trusted sources (r->last_trusted_switches). A tick lands in every
 *     pass of an idle loop, so if the timer took part, a key press in the
 *     same pass as a tick (a busy command between two passes, or the
 *     tick's own wake-up) would be zeroed: the timer would starve the
 *     keyboard, Linus's 2002 objection made true by us. So the timer
 *     keeps its own last pass count (rng_source_own_pass_check): two
 *     ticks with no pass between them still earn the second nothing, and
 *     the keyboard and mouse never see the tick. An attacker cannot
 *     cause ticks, so the flooding half of the rule has nothing to catch.
 *   - `rtc`: a second crystal whatever times it, so trusted on a 486 too
 *     (docs/ENTROPY.md, section 7); the timer's back-to-back arrangement.
 *   - Both are periodic (rng_source_periodic): a sample is measured only
 *     when it and the one before woke the CPU (add_busy_timing_entropy
 *     otherwise) and its delta is one period within a quarter
 *     (rng_off_period), and the estimate pays nothing below
 *     RNG_METER_PERIODIC_FLOOR_MILLI (2 bits); the others are mixed and
 *     counted in `skipped`. Why: docs/ENTROPY.md, section 7, rules 1-3.
 *   - Disks (ata0..3), trusted by default under measured. 2002 refused
 *     disk timing because it was observable: from the network, a file
 *     server's reads are caused and timed by clients. rand86 serves no
 *     files: its disk reads are its own, at addresses it picks itself,
 *     and nobody outside sees when it issues them or when they complete.
 *     Seek and rotation times then carry the air-turbulence entropy that
 *     Davis, Ihaka and Fenstermacher measured (CRYPTO 1994), and the meter
 *     caps what is credited. What an attacker with the machine in hand
 *     can still do: swap the disk for a device with fixed latency (an
 *     SSD, a CompactFlash card, an emulator) - the estimate and health
 *     tests then see few distinct symbols and credit little or nothing;
 *     watch the drive's activity LED or its acoustics to learn the
 *     completion times (physical access defeats this source, as it does
 *     the keyboard); or read the address sequence off the bus, which is
 *     harmless only as long as the addresses are not derived from output
 *     they can predict. ata=untrusted or ata=off refuse the source.
 *
 * A clock that counts instructions
 * ================================
 *
 * Everything above times an interrupt against a clock and trusts the
 * difference of two oscillators. Under an emulator that runs
 * deterministically (Bochs with `clock: sync=none`, QEMU with -icount)
 * there is one oscillator: guest time is the instruction count, the TSC,
 * the PIT, the RTC and a disk's completion are all functions of it, and
 * the machine replays itself exactly on the next boot. The samples still
 * look like noise - the moment an interrupt is taken depends on what the
 * CPU was doing - so every estimator of one boot pays them (under Bochs
 * the timer and a disk reading zeros seeded the pools, and two boots sent
 * the same bytes: docs/restart.md). No statistic of one boot can tell;
 * SP 800-90B's restart test (3.1.4) can, across boots, and rand86 cannot
 * restart itself. What it can do at boot is ask whether its clock counts
 * time at all (arch/x86/clock.c: a port read costs a microsecond of ISA
 * bus on every PC and one instruction on such an emulator). When the
 * kernel layer says the clock counts instructions
 * (rng_clock_counts_instructions), a trusted source is credited nothing
 * unless its events are caused outside the machine
 * (rng_source_outside_timed: the keyboard and the mouse, a person's
 * timing, which reaches a deterministic emulator through the host's wall
 * clock); the timer, the rtc and the disks are still mixed, measured and
 * shown, and `sources` shows credited=0. Default-deny: a source added
 * later earns nothing there until it says a person drives it. On real
 * hardware the check finds time and nothing changes: the meter decides.
 * What it does not catch: docs/ENTROPY.md, section 7. Under
 * credit=xymoron and credit=tso nothing changes: the seeds' rules.
 *
 * Seeded before serving (credit=measured)
 * =======================================
 *
 * v1.89's /dev/urandom never waits: from the first microsecond it hashes
 * whatever the pools hold. On a machine with no input and a fixed clock
 * (a headless box at first boot, or QEMU with -icount and a fixed RTC)
 * that is the same state every boot, so every boot serves the same
 * bytes: the hole behind the identical keys Heninger, Durumeric, Wustrow
 * and Halderman found on headless devices ("Mining Your Ps and Qs",
 * USENIX Security 2012). Linux closed it with getrandom() waiting for
 * the first seeding (3.17) and later a generator that never serves
 * before it is seeded. rand86 does the same: the flush counts what it
 * credits to the PRIMARY pool since boot, and once that reaches
 * RNG_SEED_BITS (256: one key's worth, the reserve urandom keeps) a
 * latch is set for good (`seeded` in `status`). Until then
 * rng_read_urandom() returns nothing, counts nothing and extracts
 * nothing, so the check cannot be skipped by a caller. After that it
 * never waits again, whatever the counts do: /dev/urandom's promise.
 * Under credit=measured urandom is a ChaCha20 generator (next section)
 * and serves nothing before its first key, which the flush that sets the
 * latch owes: 256 bits extracted from the primary (what seeded it) and
 * the secondary, so two deterministic boots given different keys send
 * different first bytes (tests/qemu/test_seeding.py).
 * Only bits a flush really added to the primary count; mixing without
 * credit (boot data) never does, and the secondary's credit came from
 * the primary anyway. Under credit=xymoron and credit=tso urandom keeps
 * the seeds' behaviour (never waits): those modes replay 2002 and 1999,
 * hole included, and the latch is shown but not obeyed.
 *
 * urandom's generator (credit=measured)
 * ======================================
 *
 * Under credit=measured urandom is ChaCha20 with fast key erasure
 * (chacha.c), keyed from both pools by crng.c: each key takes
 * RNG_CRNG_KEY_BITS credited bits the pools hold, debited as spent (the
 * identity below counts them), and /dev/random waits while one is owed,
 * the first from boot on. Under credit=xymoron and credit=tso urandom is
 * v1.89's, byte for byte (tests/vectors/urandom_v189/). Why, and the
 * schedule: docs/ENTROPY.md, section 10.
 *
 * Accounting (what `status` shows): an identity, not an inequality
 * ================================================================
 *
 *   credited_bits   sum over flushes of what the target pool's count
 *                   actually rose by (after clamping to the pool size).
 *   spent_bits      every bit removed from a pool count, for any reason:
 *                   the secondary's debit when it serves random or
 *                   urandom bytes, the part of a transfer the secondary
 *                   could not hold, the primary's debit for a
 *                   catastrophic reseed, a urandom generator key.
 *   random_bytes    bytes served by rng_read_random().
 *
 * Only flushes raise a pool count and only the debits above lower
 * one, each adding exactly its amount to its counter; a transfer moves
 * bits from the primary to the secondary and spends the remainder. So
 * at every moment between calls
 *
 *     credited_bits == primary_bits + secondary_bits + spent_bits.
 *
 * A random read of n bytes starts with primary >= 8n; the transfer takes
 * from the primary at least 8n minus what the secondary holds (it runs
 * even when the secondary is full, see rng_xfer_secondary), and the
 * secondary gives up the rest, so every read raises spent_bits by at
 * least 8n and random_bytes*8 <= spent_bits. rng_stats() copies all of
 * this with interrupts masked, so `status` shows one consistent moment.
 * tests/unit/test_entropy_props.c checks the identity after every step
 * of random sequences that fill both pools, drain them and fill them
 * again, and tests/fuzz/ with arbitrary ones.
 *
 * Departures from v1.89 in the accounting
 * ---------------------------------------
 *
 *   - The transfer is not skipped when the secondary is full. v1.89 (and
 *     the 2002 patches) skipped it, so with both pools full a 340-byte
 *     read found 1024 bits in the secondary, floored its count at 0 and
 *     served 2720: 1696 bits out of thin air, the very class of bug patch
 *     1/4 was written against.
 *   - /dev/urandom keeps out of a reserve. In v1.89 every urandom read
 *     pulls a transfer out of the primary, so a continuous urandom reader
 *     (rngd on the stream port) keeps the primary at 0 and a /dev/random
 *     reader never wakes. As Linux 2.6 did (account()'s `reserved`;
 *     docs/ENTROPY.md, section 9), rand86 keeps RNG_URANDOM_RESERVE_BITS
 *     (one 256-bit key) in the primary's count against urandom's
 *     transfers and reseed debits. The reseed still mixes a whole buffer,
 *     as v1.89 did from a primary holding less than it output.
 *   - The appliance's own bytes (the disk driver's read addresses) come
 *     from rng_aux_bytes(), a generator keyed by hashing the pools
 *     without feedback, outside the accounting. Drawn from the extraction
 *     path, a disk polled every 100 ms spent all trusted credit.
 *   - Samples that are never credited (add_untrusted_entropy() on a sink
 *     that is a trusted source) leave that source's estimator state
 *     alone; they reset the periodicity check before.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "entropy_internal.h"

static struct rng *rng_default;

/**********************************************************************
 * Transfers and the catastrophic reseed
 **********************************************************************/

/* Extract from the primary, debiting it; return the bits it gave up. */
static unsigned rng_take_primary(struct rng *r, void *out, size_t nbytes)
{
	unsigned taken;

	taken = rng_debit(&r->primary, nbytes * 8);
	rng_pool_extract(&r->primary, out, nbytes);
	return taken;
}

/* Bits the primary may give up while keeping `reserve` counted. */
static size_t rng_primary_above(const struct rng *r, unsigned reserve)
{
	int have = r->primary.entropy_count;

	return have > (int)reserve ? (size_t)(have - (int)reserve) : 0;
}

/*
 * Before serving nbytes from the secondary: if it holds fewer than
 * nbytes*8 bits, move the shortfall from the primary, at most one buffer
 * (340 bytes), crediting only what the primary's count fell by (patch
 * 1/4, tightened). Unlike v1.89 this happens even when the secondary is
 * full: a read may ask for 2720 bits and the secondary holds 1024, and
 * skipping the transfer let the difference out of thin air. What the
 * secondary cannot hold is spent, not kept. Every RNG_RESEED_BYTES of
 * output, mix a buffer from the primary without credit (catastrophic
 * reseed), so an attacker who once learnt the secondary loses it again.
 *
 * `reserve` is 0 for /dev/random and RNG_URANDOM_RESERVE_BITS for
 * /dev/urandom: the non-blocking path lowers the primary's count only
 * down to the reserve (see the essay's departures). Its transfers move
 * no more than the primary holds above the reserve; its reseeds still
 * mix a whole buffer, as v1.89 did from a primary holding less than it
 * output, but debit only what lies above the reserve.
 */
/* A catastrophic reseed: a whole buffer of the primary's bytes, debited
 * (down to the reserve on the urandom path) and, once extracted, mixed
 * into the secondary. RNG_RESEED_ROUNDS extraction rounds fill it. */
#define RNG_RESEED_WORDS ((RNG_SEC_XFER_BYTES + 3) / 4)
#define RNG_RESEED_ROUNDS ((RNG_RESEED_WORDS * 4 + RNG_EXTRACT_BYTES - 1) / RNG_EXTRACT_BYTES)

static void rng_reseed_debit(struct rng *r, unsigned reserve)
{
	size_t bits = 8 * 4 * RNG_RESEED_WORDS;

	if (reserve && bits > rng_primary_above(r, reserve))
		bits = rng_primary_above(r, reserve);
	r->spent_bits += rng_debit(&r->primary, bits);
}

static void rng_reseed_mix(struct rng *r, const uint32_t buf[RNG_RESEED_WORDS])
{
	rng_mix_words(&r->secondary, buf, RNG_RESEED_WORDS);
	r->extracted_since_reseed = 0;
	r->reseeds++;
}

_Static_assert(sizeof(((struct rng *)0)->reseed_buf) == 4 * RNG_RESEED_WORDS,
	       "the stepped reseed's buffer is the one-shot form's");

static void rng_xfer_secondary(struct rng *r, size_t nbytes, unsigned reserve)
{
	uint32_t tmp[RNG_RESEED_WORDS];
	struct rng_pool *s = &r->secondary;
	size_t have = (size_t)s->entropy_count / 8;
	size_t bytes, limit;
	unsigned taken, credited;

	memset(tmp, 0, sizeof(tmp));
	if ((size_t)s->entropy_count < nbytes * 8) {
		bytes = nbytes - have;
		if (bytes > RNG_SEC_XFER_BYTES)
			bytes = RNG_SEC_XFER_BYTES;
		limit = reserve ? rng_primary_above(r, reserve) / 8 : bytes;
		if (bytes > limit)
			bytes = limit;
		if (bytes) {
			taken = rng_take_primary(r, tmp, bytes);
			rng_mix_words(s, tmp, (bytes + 3) / 4);
			credited = rng_credit(s, taken);
			r->xfer_taken_bits += taken;
			r->xfer_credited_bits += credited;
			r->spent_bits += taken - credited;
		}
	}
	if (r->extracted_since_reseed >= RNG_RESEED_BYTES && !r->reads_apart) {
		/* The whole buffer is extracted and mixed as in v1.89; only its
		 * debit is bounded by the reserve on the urandom path. */
		rng_reseed_debit(r, reserve);
		rng_pool_extract(&r->primary, tmp, sizeof(tmp));
		rng_reseed_mix(r, tmp);
	}
	rng_wipe(tmp, sizeof(tmp));
}

/*
 * Reads apart: a reseed that is due is begun by the read that finds it
 * due, which serves nothing; rng_apart_poll() then extracts the primary
 * one round a call into reseed_buf and, after the last, mixes the whole
 * buffer into the secondary as rng_xfer_secondary() does at once. v1.89
 * itself let the scheduler in between the rounds of a long extraction
 * (extract_entropy's need_resched check); a flush between rounds mixes
 * into the primary being extracted, which only adds to what it gives.
 * The debit is taken when the reseed begins, so no read takes those bits
 * meanwhile. 1 when a reseed is under way (the read must wait).
 */
static int rng_reseed_waits(struct rng *r, unsigned reserve)
{
	if (!r->reads_apart)
		return 0;
	if (!r->reseed_left && r->extracted_since_reseed >= RNG_RESEED_BYTES) {
		rng_reseed_debit(r, reserve);
		r->reseed_left = RNG_RESEED_ROUNDS;
	}
	return r->reseed_left != 0;
}

static void rng_reseed_round(struct rng *r)
{
	uint8_t out[RNG_EXTRACT_BYTES], *buf = (uint8_t *)r->reseed_buf;
	size_t at = (size_t)(RNG_RESEED_ROUNDS - r->reseed_left) * RNG_EXTRACT_BYTES, n;

	rng_extract_round(&r->primary, out);
	n = sizeof(r->reseed_buf) - at < RNG_EXTRACT_BYTES ? sizeof(r->reseed_buf) - at :
		RNG_EXTRACT_BYTES;
	memcpy(buf + at, out, n);
	rng_wipe(out, sizeof(out));
	if (--r->reseed_left)
		return;
	rng_reseed_mix(r, r->reseed_buf);
	rng_wipe(r->reseed_buf, sizeof(r->reseed_buf));
}

/* Serve nbytes (<= RNG_SEC_XFER_BYTES) from the secondary pool. */
static void rng_extract_secondary(struct rng *r, void *out, size_t nbytes, unsigned reserve)
{
	rng_xfer_secondary(r, nbytes, reserve);
	r->spent_bits += rng_debit(&r->secondary, nbytes * 8);
	r->extracted_since_reseed += (uint32_t)nbytes;
	rng_pool_extract(&r->secondary, out, nbytes);
}

/**********************************************************************
 * /dev/random and /dev/urandom
 **********************************************************************/

void rng_reads_apart(struct rng *r)
{
	r->reads_apart = 1;
}

int rng_apart_poll(struct rng *r)
{
	if (r->reseed_left) {
		rng_reseed_round(r);
		return 1;
	}
	return r->crng_apart && rng_crng_poll(r);
}

int rng_apart_pending(const struct rng *r)
{
	return r->reseed_left != 0 || (r->crng_apart && r->crng_round != 0);
}

int rng_random_ready(const struct rng *r)
{
	return r->primary.entropy_count >= RNG_READ_WAKEUP_BITS && !rng_crng_owed(r);
}

/*
 * n = min(len, 340, primary_bits/8). The transfer above then takes from
 * the primary at least 8n minus what the secondary holds, and the
 * secondary gives up the rest: every byte served lowers
 * primary_bits + secondary_bits by at least 8 bits.
 */
size_t rng_read_random(struct rng *r, void *buf, size_t len)
{
	size_t n = len;
	size_t avail = r->primary.entropy_count > 0 ? (size_t)r->primary.entropy_count / 8 : 0;

	if (n > RNG_SEC_XFER_BYTES)
		n = RNG_SEC_XFER_BYTES;
	if (r->reads_apart && n > RNG_APART_BYTES)
		n = RNG_APART_BYTES;
	if (n > avail)
		n = avail;
	if (n == 0 || rng_crng_owed(r))    /* urandom's key goes first */
		return 0;
	if (rng_reseed_waits(r, 0))
		return 0;
	rng_extract_secondary(r, buf, n, 0);
	r->random_bytes += n;
	return n;
}

int rng_seeded(const struct rng *r)
{
	return r->seeded;
}

int rng_urandom_ready(const struct rng *r)
{
	if (r->estimator == RNG_CREDIT_MEASURED)
		return r->crng_keys != 0;       /* keyed implies seeded */
	return 1;
}

size_t rng_read_urandom(struct rng *r, void *buf, size_t len)
{
	uint8_t *dst = buf;
	size_t n, served = len;

	if (!rng_urandom_ready(r))
		return 0;
	if (r->estimator == RNG_CREDIT_MEASURED) {
		rng_crng_read_due(r);
		r->urandom_bytes += len;
		rng_crng_serve(r, dst, len);
		return served;
	}
	if (rng_reseed_waits(r, RNG_URANDOM_RESERVE_BITS))
		return 0;
	if (r->reads_apart && len > RNG_APART_BYTES)
		len = RNG_APART_BYTES;
	served = len;
	while (len) {
		if (r->reads_apart && r->extracted_since_reseed >= RNG_RESEED_BYTES)
			break;                  /* the reseed first: the next read begins it */
		/* Chunks end where the next catastrophic reseed is due. */
		n = len < RNG_SEC_XFER_BYTES ? len : RNG_SEC_XFER_BYTES;
		if (r->extracted_since_reseed < RNG_RESEED_BYTES &&
		    n > RNG_RESEED_BYTES - r->extracted_since_reseed)
			n = RNG_RESEED_BYTES - r->extracted_since_reseed;
		rng_extract_secondary(r, dst, n, RNG_URANDOM_RESERVE_BITS);
		dst += n;
		len -= n;
	}
	served -= len;
	r->urandom_bytes += served;
	return served;
}

/**********************************************************************
 * The appliance's own bytes: outside the accounting
 **********************************************************************/

/*
 * The disk driver picks the sectors it reads with these bytes. They must
 * not come from the extraction path: that debits the pools, pulls
 * transfers out of the primary and counts towards the reseed, so a disk
 * polled every few hundred milliseconds would spend all trusted credit
 * (an attached disk starved /dev/random). Instead: a key made by hashing
 * both pools' words without feedback and without touching any count
 * (SHA-1 compression is one-way, so the key reveals nothing usable about
 * the pools), then SHA-1 compression of (key, counter) blocks. The key is
 * remade every RNG_AUX_REKEY blocks so new pool input reaches it.
 */
static void rng_aux_rekey(struct rng *r)
{
	uint32_t h[5];
	unsigned i;

	memcpy(h, rng_sha1_iv, sizeof(h));
	for (i = 0; i < r->primary.poolwords; i += 16)
		rng_sha1_compress(h, r->primary.words + i);
	for (i = 0; i < r->secondary.poolwords; i += 16)
		rng_sha1_compress(h, r->secondary.words + i);
	for (i = 0; i < 5; i++)
		r->aux_key[i] ^= h[i];
	r->aux_blocks = 0;
	rng_wipe(h, sizeof(h));
}

void rng_aux_bytes(struct rng *r, void *buf, size_t len)
{
	uint32_t block[16], h[5];
	uint8_t *dst = buf;
	size_t n;

	while (len) {
		if (r->aux_blocks % RNG_AUX_REKEY == 0)
			rng_aux_rekey(r);
		memset(block, 0, sizeof(block));
		memcpy(block, r->aux_key, sizeof(r->aux_key));
		block[5] = r->aux_blocks++;
		memcpy(h, rng_sha1_iv, sizeof(h));
		rng_sha1_compress(h, block);
		n = len < sizeof(h) ? len : sizeof(h);
		memcpy(dst, h, n);
		dst += n;
		len -= n;
	}
	rng_wipe(block, sizeof(block));
	rng_wipe(h, sizeof(h));
}

/**********************************************************************
 * Setup and boot-time seeding
 **********************************************************************/

void rng_init(struct rng *r, enum rng_estimator est)
{
	memset(r, 0, sizeof(*r));
	rng_pool_init(&r->primary, RNG_PRIMARY_WORDS);
	rng_pool_init(&r->secondary, RNG_SECONDARY_WORDS);
	r->estimator = est;
	r->batch_target = &r->primary;
	r->crng_t0 = rng_plat ? rng_plat->now() : 0;
}

void rng_set_default(struct rng *r)
{
	rng_default = r;
}

struct rng *rng_get_default(void)
{
	return rng_default;
}

/* Boot data (RTC, TSC, multiboot info) is guessable: mix, never credit.
 * Both pools get it, so even early /dev/urandom output depends on it. */
void rng_mix_uncredited(struct rng *r, const void *buf, size_t len)
{
	const uint8_t *src = buf;
	uint32_t w;
	size_t n;

	while (len) {
		n = len < 4 ? len : 4;
		w = 0;
		memcpy(&w, src, n);
		rng_mix_words(&r->primary, &w, 1);
		rng_mix_words(&r->secondary, &w, 1);
		src += n;
		len -= n;
	}
}

/**********************************************************************
 * Interrupt context: one sample into the batch (patch 4/4)
 **********************************************************************/

/* Queue a trusted sample's symbol (low 8 bits of its shifted delta) and
 * Xymoron's bits for the flush's meter: a store and an index, no loop.
 * A full queue drops the sample from measurement and credit (counted). */
static void rng_meter_queue(struct entropy_source *src, uint32_t shifted, unsigned bits)
{
	uint32_t head = src->mq_head;

	if (head - src->mq_tail >= RNG_METER_INQ) {
		src->mq_dropped++;
		return;
	}
	src->mq[head & (RNG_METER_INQ - 1)] = (uint16_t)((shifted & 0xffu) | (bits & 0xfu) << 8);
	src->mq_head = head + 1;
}

/* How rng_sample takes a sample. */
#define RNG_NEVER_CREDIT 1u   /* untrusted: counted and mixed, estimator state untouched */
#define RNG_BUSY         2u   /* add_busy_timing_entropy(): estimators advance, no meter */

/* A periodic source's delta that is not one period within a quarter: a
 * period was lost, or the clock stood still. */
static int rng_off_period(uint32_t raw, uint32_t period)
{
	uint32_t slack = period / 4;
	return raw < period - slack || raw > period + slack;
}

/* A sample estimated and not captured: recorded, or counted in its
 * source's columns, queued for the meter and, under credit=xymoron and
 * tso, credited at once. Returns the credit it asks of the batch. */
static unsigned rng_count_estimate(struct rng *r, struct entropy_source *src, uint32_t raw,
	int had_last, unsigned bits, unsigned tso)
{
	/* A recorded sample, as a captured one, credits nothing: it is shown. */
	if (had_last && src->rec_n < src->rec_max) {
		src->rec[src->rec_n] = raw;
		src->rec_n = src->rec_n + 1;
		return 0;
	}
	src->bits += bits;
	src->tso_bits += tso;
	if (!src->trusted)
		return 0;
	if (had_last)
		rng_meter_queue(src, raw >> src->shift, bits);
	if (r->estimator == RNG_CREDIT_MEASURED)
		return 0;                       /* the flush grants it, after measuring */
	bits = r->estimator == RNG_CREDIT_TSO ? tso : bits;
	src->credited += bits;
	return bits;
}

/* Estimate one sample of src; return the credit it asks of the batch. */
static unsigned rng_estimate(struct rng *r, struct entropy_source *src, uint32_t t,
	unsigned how)
{
	int never_credit = how & RNG_NEVER_CREDIT;
	struct rng_capture *cap = src->capture;
	uint32_t raw = t - src->last_time;
	unsigned tso, bits = 0;
	int had_last = src->have_last;       /* the first sample has no delta: not a symbol */

	src->events++;
	/* A sample that is never credited, arriving on a trusted source (the
	 * untrusted sink may be one), must leave that source's estimator state
	 * alone, both estimators': interleaved uncredited samples would reset
	 * the periodicity check, and a periodic trusted source would earn
	 * credit it does not have. It counts as an event and is mixed. */
	if (never_credit && src->trusted)
		return 0;
	tso = rng_tso_estimate(src, t);
	if (src->trusted) {
		bits = rng_xymoron_estimate(src, t, rng_plat->passes());
	} else {
		/* An untrusted source keeps its own reference time for `samples`. */
		src->last_time = t;
		src->last_delta = raw;
	}
	if (src->period && had_last && rng_off_period(raw, src->period))
		how |= RNG_BUSY;
	if (how & RNG_BUSY) {
		src->skipped++;                 /* the estimators moved on: next delta is one period */
		return 0;
	}
	if (cap) {
		rng_capture_put(cap, raw, raw >> src->shift);
		return 0;
	}
	return rng_count_estimate(r, src, raw, had_last, bits, tso);
}

static void rng_sample(struct rng *r, struct entropy_source *src, uint32_t datum,
	unsigned how)
{
	unsigned long flags = rng_plat->irq_save();   /* bound: one clock read, one estimate */
	uint64_t now = rng_plat->now();
	uint32_t t = (uint32_t)now;
	unsigned credit = 0;
	uint32_t pos;

	datum ^= (uint32_t)(now >> 32);
	if (src)
		credit = rng_estimate(r, src, t, how);
	pos = r->batch_pos;
	r->batch[pos] ^= datum ^ t;
	r->batch_pos = (pos + 1) & (RNG_BATCH_WORDS - 1);
	/* The flush credits at most RNG_BATCH_WORDS bits: saturate there,
	 * so a flood cannot wrap the sum. */
	if (r->batch_credit + credit > RNG_BATCH_WORDS)
		r->batch_credit = RNG_BATCH_WORDS;
	else
		r->batch_credit += credit;
	if (r->batch_samples_pending >= RNG_BATCH_WORDS)
		r->batch_overwrites++;
	if (r->batch_samples_pending != UINT32_MAX)
		r->batch_samples_pending++;
	r->batch_samples++;
	rng_plat->irq_restore(flags);
}

void add_timing_entropy(struct entropy_source *src, uint32_t datum)
{
	if (src)
		rng_sample(src->rng, src, datum, 0);
	else if (rng_default)
		rng_sample(rng_default, NULL, datum, RNG_NEVER_CREDIT);
}

void add_busy_timing_entropy(struct entropy_source *src, uint32_t datum)
{
	rng_sample(src->rng, src, datum, src->trusted ? RNG_BUSY : RNG_NEVER_CREDIT);
}

void add_untrusted_entropy(struct rng *r, uint32_t datum)
{
	rng_sample(r, r->untrusted_sink, datum, RNG_NEVER_CREDIT);
}

/**********************************************************************
 * Timer tick: flush the batch into a pool (patch 4/4)
 **********************************************************************/

/* What each healthy sample of src is paid now, in thousandths of a bit:
 * the meter's estimate, with the rules below. */
/* The estimate is made anew every RNG_ESTIMATE_MS, every
 * RNG_ESTIMATE_SYMBOLS symbols and at once after a health failure, not
 * at every flush: the rtc's 10 samples a flush each time cost ~3% of a
 * 4 MIPS CPU in logarithms and rescans alone. Every sample still passes
 * the health tests before it is paid (SP 800-90B 4.4: the continuous part),
 * the window moves by under 1/16 between estimates, and a newly held full
 * assessment is used at once. */
#define RNG_ESTIMATE_MS      100u
#define RNG_ESTIMATE_SYMBOLS 64u

static uint32_t rng_estimate_now(struct entropy_source *src)
{
	struct rng_meter *m = &src->meter;
	uint64_t now = rng_plat->now();
	uint32_t fails = m->rct_fail + m->apt_fail;

	if (src->est_at && now - src->est_at < (uint64_t)rng_plat->clock_khz() * RNG_ESTIMATE_MS &&
	    m->n - src->est_n < RNG_ESTIMATE_SYMBOLS && fails == src->est_fails &&
	    m->n >= RNG_METER_MIN && m->full_n == src->est_full_n)
		return m->h_milli;
	src->est_at = now ? now : 1;
	src->est_n = m->n;
	src->est_full_n = m->full_n;
	src->est_fails = fails;
	return rng_meter_estimate(m);
}

static uint32_t rng_pay_milli(struct entropy_source *src)
{
	uint32_t h;

	h = rng_estimate_now(src);
	if (src->period && h < RNG_METER_PERIODIC_FLOOR_MILLI)
		h = 0;
	h = rng_meter_paid(&src->meter, h);
	if (rng_source_clock_bound(src))
		h = 0;
	return h;
}

/*
 * Measure what one trusted source queued since the last flush, then grant
 * it credit: each sample may have Xymoron's bits, but only out of a
 * budget that grows by the live estimate h_milli per healthy sample and
 * holds at most h_milli + 999 after growing. So over ANY stretch of
 * samples a source is granted at most (sum of h over the stretch) plus
 * under one bit of rounding carried in (integer bits from a fractional
 * estimate need that much). Warm-up and failed health grant nothing and
 * empty the budget. The estimate used is the one over a window that
 * already holds the samples being paid. Returns the bits granted
 * (before the batch cap); runs whatever the policy, so h_milli and the
 * health fields are live under credit=xymoron and tso too.
 */
static unsigned rng_measure_source(struct entropy_source *src)
{
	uint32_t tail = src->mq_tail, head = src->mq_snap, i, h, b;
	unsigned total = 0, grant;
	uint16_t *e;

	if (tail == head)
		return 0;
	for (i = tail; i != head; i++) {
		e = &src->mq[i & (RNG_METER_INQ - 1)];
		rng_meter_add(&src->meter, (uint8_t)RNG_MQ_SYM(*e));
		if (rng_meter_health(&src->meter) == RNG_HEALTH_OK)
			*e |= RNG_MQ_OK;
	}
	h = rng_pay_milli(src);
	for (i = tail; i != head; i++) {
		e = &src->mq[i & (RNG_METER_INQ - 1)];
		if (!(*e & RNG_MQ_OK)) {
			src->budget_milli = 0;
			continue;
		}
		src->est_milli += h;
		b = src->budget_milli + h;
		if (b > h + 999)
			b = h + 999;
		grant = b / 1000;
		if (grant > RNG_MQ_BITS(*e))
			grant = RNG_MQ_BITS(*e);
		src->budget_milli = b - grant * 1000;
		total += grant;
	}
	src->mq_tail = head;
	return total;
}

/* Seeded before serving (essay): the latch, once the primary has been
 * credited RNG_SEED_BITS in all since boot. */
static void rng_count_seed(struct rng *r, unsigned credited)
{
	r->primary_credited_bits += credited;
	if (r->primary_credited_bits >= RNG_SEED_BITS && !r->seeded) {
		r->seeded = 1;
		r->crng_due = r->estimator == RNG_CREDIT_MEASURED;   /* the first key */
	}
}

/* Every source's queued samples measured; under credit=measured their
 * grants join the batch's credit, capped at the batch. The meter's time
 * is counted (meter_ticks). */
static uint32_t rng_measure_all(struct rng *r, uint32_t credit)
{
	struct entropy_source *src;
	unsigned grant;
	uint64_t t0 = rng_plat->now();

	for (src = r->sources; src; src = src->next) {
		grant = rng_measure_source(src);
		if (r->estimator != RNG_CREDIT_MEASURED)
			continue;
		src->credited += grant;
		credit = credit + grant > RNG_BATCH_WORDS ? RNG_BATCH_WORDS : credit + grant;
	}
	r->meter_ticks += rng_plat->now() - t0;
	return credit;
}

unsigned rng_batch_flush(struct rng *r)
{
	struct rng_pool *target;
	struct entropy_source *src;
	unsigned long flags;
	uint32_t credit, samples;
	unsigned credited;

	flags = rng_plat->irq_save();                 /* bound: three loads, three stores */
	credit = r->batch_credit;
	samples = r->batch_samples_pending;
	r->batch_pos = 0;
	r->batch_credit = 0;
	r->batch_samples_pending = 0;
	/* the queued samples that belong to this flush's batch words */
	for (src = r->sources; src; src = src->next)
		src->mq_snap = src->mq_head;
	rng_plat->irq_restore(flags);

	if (!r->crng_apart)
		rng_crng_tick(r); /* a due key goes before a full assessment (below) */
	credit = rng_measure_all(r, credit);

	/* Fill the primary; while it is full, fill the secondary; go back to
	 * the primary as soon as reads have drained it (4/4). */
	target = &r->primary;
	if (target->entropy_count >= RNG_POOL_BITS(target))
		target = &r->secondary;
	r->batch_target = target;

	if (credit > RNG_BATCH_WORDS)
		credit = RNG_BATCH_WORDS;
	if (samples > RNG_BATCH_WORDS)
		samples = RNG_BATCH_WORDS;
	rng_mix_words(target, r->batch, samples);
	credited = rng_credit(target, credit);
	r->credited_bits += credited;
	r->batch_flushes++;
	if (target == &r->primary)
		rng_count_seed(r, credited);
	if (!r->crng_apart)
		rng_crng_tick(r); /* the first key, or one whose bits this flush brought */
	return credited;
}
