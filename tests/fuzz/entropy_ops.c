/* Drives entropy/ with arbitrary operations and checks its invariants. */
/*
 * Shared by the seeded property test (tests/unit/test_entropy_props.c)
 * and the libFuzzer target (tests/fuzz/fuzz_entropy.c). One operation is
 * (op, a, b): a sample on one of four sources or a NULL handle, a flush,
 * a /dev/random or /dev/urandom read, a capture toggle, an estimator
 * switch, an untrusted flood, the disk driver's address draw, a fill of
 * many credited samples. Bit 31 of the seed sets up the appliance's form
 * (kern/assess.c): full assessments, urandom keys and reseeds made apart,
 * reads of at most RNG_APART_BYTES; there one of the two flush operations
 * is a main-loop pass instead (a round apart, a step of the assessment in
 * hand). After every operation ops_step() checks the invariants and
 * returns a message naming the first one broken, or NULL.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "entropy/entropy_internal.h"
#include "entropy_ops.h"

extern uint64_t stub_time, stub_time_step;
extern uint32_t stub_switches, stub_clock_khz;
extern int stub_irq_depth, stub_irq_max_depth;
void stub_reset(void);

static const uint32_t ops_clocks[] = { 0, 1, 1193, 33000, 1000000, 2500000, UINT32_MAX };
static const uint32_t ops_grans[] = { 0, 1, 9, 1000, 33000, UINT32_MAX };

void ops_init(struct ops_world *w, uint32_t seed)
{
	static const char *names[OPS_SOURCES] = { "keyboard", "mouse", "ne2k0", "ata0" };
	unsigned i;

	stub_reset();
	memset(w, 0, sizeof(*w));
	stub_clock_khz = ops_clocks[seed % (sizeof(ops_clocks) / sizeof(ops_clocks[0]))];
	rng_init(&w->r, (enum rng_estimator)((seed >> 4) % 3));   /* xymoron, tso, measured */
	rng_set_default(&w->r);
	for (i = 0; i < OPS_SOURCES; i++)
		create_entropy_source(&w->r, &w->src[i], names[i], (int)i, i != 2,
			ops_grans[(seed >> (8 + 3 * i)) % (sizeof(ops_grans) / sizeof(ops_grans[0]))]);
	w->r.untrusted_sink = &w->src[2];
	stub_time = (uint64_t)seed << 20;
	if (seed >> 31) {                /* kern_assess_init's calls */
		w->apart = 1;
		rng_defer_full_assessments(&w->r);
		rng_crng_keys_apart(&w->r);
		rng_reads_apart(&w->r);
	}
}

static int ops_pool_ok(const struct rng_pool *p)
{
	return p->entropy_count >= 0 && p->entropy_count <= (int)p->poolwords * 32 &&
	       p->add_ptr < p->poolwords && p->input_rotate < 32;
}

static int ops_energy(const struct rng *r)
{
	return r->primary.entropy_count + r->secondary.entropy_count;
}

#define OPS_FAIL(...) do { snprintf(w->msg, sizeof(w->msg), __VA_ARGS__); return w->msg; } while (0)

static const char *ops_check(struct ops_world *w)
{
	struct rng *r = &w->r;
	unsigned i;

	if (r->credited_bits != (uint64_t)ops_energy(r) + r->spent_bits)
		OPS_FAIL("identity broken: credited_bits %llu != primary %d + secondary %d + spent %llu",
			(unsigned long long)r->credited_bits, r->primary.entropy_count,
			r->secondary.entropy_count, (unsigned long long)r->spent_bits);
	if (r->random_bytes * 8 > r->spent_bits)
		OPS_FAIL("random_bytes %llu * 8 > spent_bits %llu: bytes served that no pool gave up",
			(unsigned long long)r->random_bytes, (unsigned long long)r->spent_bits);
	if (!ops_pool_ok(&r->primary) || !ops_pool_ok(&r->secondary))
		OPS_FAIL("pool state out of range: primary %d secondary %d bits",
			r->primary.entropy_count, r->secondary.entropy_count);
	if (r->xfer_credited_bits > r->xfer_taken_bits)
		OPS_FAIL("transfers credited the secondary %llu bits but took %llu from the primary",
			(unsigned long long)r->xfer_credited_bits, (unsigned long long)r->xfer_taken_bits);
	if (r->batch_pos >= RNG_BATCH_WORDS || r->batch_credit > RNG_BATCH_WORDS)
		OPS_FAIL("batch state out of range: pos %u credit %u", r->batch_pos, r->batch_credit);
	if (stub_irq_depth != 0)
		OPS_FAIL("interrupts left masked (depth %d)", stub_irq_depth);
	for (i = 0; i < OPS_SOURCES; i++)
		if (!w->src[i].trusted && w->src[i].bits != 0)
			OPS_FAIL("untrusted source %s has bits=%llu", w->src[i].name,
				(unsigned long long)w->src[i].bits);
	return NULL;
}

static void ops_sample(struct ops_world *w, uint8_t op, uint32_t a, uint32_t b)
{
	unsigned which = a % (OPS_SOURCES + 1);

	/* b is the clock step as a signed number: time may go backwards,
	 * and bit 0x40 of op jumps the high word. */
	stub_time += (uint64_t)(int64_t)(int32_t)b;
	if (op & 0x40)
		stub_time += (uint64_t)(a >> 8) << 32;
	if (op & 0x80)
		stub_switches++;
	if (which == OPS_SOURCES)
		add_timing_entropy(NULL, a);
	else if (which == 2 && (op & 0x20))
		add_untrusted_entropy(&w->r, a);
	else
		add_timing_entropy(&w->src[which], a);
}

static const char *ops_read_random(struct ops_world *w, uint32_t a)
{
	struct rng *r = &w->r;
	size_t len = a % (OPS_BUF + 1);
	int before = ops_energy(r), primary = r->primary.entropy_count;
	size_t n;

	if (primary >= 4096 && r->secondary.entropy_count >= 1024 && len > 128)
		w->full_both++;
	n = rng_read_random(r, w->buf, len);
	size_t cap = len < RNG_SEC_XFER_BYTES ? len : RNG_SEC_XFER_BYTES;

	if (w->apart && cap > RNG_APART_BYTES)
		cap = RNG_APART_BYTES;
	if ((size_t)primary / 8 < cap)
		cap = (size_t)primary / 8;
	if (r->estimator == RNG_CREDIT_MEASURED && (r->crng_due || !r->crng_keys))
		cap = 0;                 /* urandom's key is owed: it goes first */
	if (r->reseed_left)
		cap = 0;                 /* apart: a reseed under way, or begun by this read */
	if (r->crng_due && w->primary_credited < RNG_SEED_BITS)
		OPS_FAIL("a urandom key is owed before seeding");
	if (n != cap)
		OPS_FAIL("random read of %zu with primary %d bits served %zu, want %zu", len, primary, n, cap);
	if (ops_energy(r) > before - 8 * (int)n)
		OPS_FAIL("random read of %zu bytes lowered pool entropy only from %d to %d",
			n, before, ops_energy(r));
	return NULL;
}

static const char *ops_flush(struct ops_world *w);

/* The disk driver's address draw: no count, counter or reseed may move. */
static const char *ops_aux(struct ops_world *w, uint32_t a)
{
	struct rng *r = &w->r;
	int before = ops_energy(r);
	uint64_t spent = r->spent_bits, ur = r->urandom_bytes, reseeds = r->reseeds;
	uint32_t since = r->extracted_since_reseed;

	rng_aux_bytes(r, w->buf, 1 + a % 64);
	if (ops_energy(r) != before || r->spent_bits != spent || r->urandom_bytes != ur ||
	    r->reseeds != reseeds || r->extracted_since_reseed != since)
		OPS_FAIL("an aux draw touched the accounting: pools %d -> %d, spent %llu -> %llu",
			before, ops_energy(r), (unsigned long long)spent,
			(unsigned long long)r->spent_bits);
	return NULL;
}

/* Fill towards both pools: rounds of well-spaced trusted samples of
 * source 0 (a main-loop pass before each), each round flushed. */
static const char *ops_fill(struct ops_world *w, uint32_t a, uint32_t b)
{
	uint32_t rounds = 1 + a % 40, i, j, x = b | 1;
	const char *err;

	for (i = 0; i < rounds; i++) {
		for (j = 0; j < 32; j++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			stub_switches++;
			stub_time += 0x100000 + (x & 0xfffff);
			add_timing_entropy(&w->src[0], x);
		}
		err = ops_flush(w);
		if (err)
			return err;
	}
	return NULL;
}

/* Keys made whole, in the flush or lazily in a measured urandom read:
 * at most one since (keys, key_bits, spent) were read, each of its bits
 * debited and spent, and nothing else spent. */
static const char *ops_keys_whole(struct ops_world *w, const char *what, uint64_t keys,
	uint64_t key_bits, uint64_t spent)
{
	const struct rng *r = &w->r;
	uint64_t made = r->crng_keys - keys, debit = r->crng_key_bits - key_bits;

	if (made > 1 || debit != made * RNG_CRNG_KEY_BITS || r->spent_bits - spent != debit)
		OPS_FAIL("%s made %llu keys debiting %llu bits and spent %llu", what,
			(unsigned long long)made, (unsigned long long)debit,
			(unsigned long long)(r->spent_bits - spent));
	return NULL;
}

static const char *ops_read_urandom(struct ops_world *w, uint32_t a)
{
	struct rng *r = &w->r;
	size_t len = a % (OPS_BUF + 1);
	int before = ops_energy(r);
	uint64_t served = r->urandom_bytes, spent = r->spent_bits;
	/* Seeded before serving: under credit=measured nothing leaves before
	 * the generator has a key, and no key before the primary has been
	 * credited RNG_SEED_BITS in all (counted here by the harness from the
	 * flushes it ran, not read from the core). */
	int keyed = r->crng_keys != 0;
	int may_serve = r->estimator != RNG_CREDIT_MEASURED || keyed;
	size_t want = may_serve ? len : 0, got;
	uint32_t since = r->extracted_since_reseed;
	uint64_t keys = r->crng_keys, key_bits = r->crng_key_bits;
	const char *err;

	if (keyed && w->primary_credited < RNG_SEED_BITS)
		OPS_FAIL("urandom keyed with %llu bits credited to the primary",
			(unsigned long long)w->primary_credited);

	got = rng_read_urandom(r, w->buf, len);
	if (w->apart && r->estimator != RNG_CREDIT_MEASURED) {
		/* v1.89's urandom apart: a piece at most, ending at the reseed
		 * mark; nothing while the reseed is under way */
		if (want > RNG_APART_BYTES)
			want = RNG_APART_BYTES;
		if (since < RNG_RESEED_BYTES && want > RNG_RESEED_BYTES - since)
			want = RNG_RESEED_BYTES - since;
		if (r->reseed_left)
			want = 0;
	}
	if (got != want)
		OPS_FAIL("urandom read of %zu returned %zu, want %zu (primary credited %llu)", len,
			got, want, (unsigned long long)w->primary_credited);
	if (rng_seeded(r) != (w->primary_credited >= RNG_SEED_BITS))
		OPS_FAIL("seeded is %d with %llu bits credited to the primary", rng_seeded(r),
			(unsigned long long)w->primary_credited);
	if (r->urandom_bytes != served + want)
		OPS_FAIL("urandom_bytes did not grow by %zu", want);
	if (!may_serve && r->spent_bits != spent)
		OPS_FAIL("an unkeyed urandom read spent %llu bits",
			(unsigned long long)(r->spent_bits - spent));
	/* Under credit=measured a read spends nothing but the reseed that is
	 * due when it comes (lazily, crng.c), whatever its length. */
	if (r->estimator == RNG_CREDIT_MEASURED &&
	    (err = ops_keys_whole(w, "a urandom read", keys, key_bits, spent)))
		return err;
	if (ops_energy(r) > before)
		OPS_FAIL("urandom read raised pool entropy from %d to %d", before, ops_energy(r));
	return NULL;
}

/* Apart: what a main-loop pass does for entropy/ (kern/loop.c,
 * kern/assess.c): one round of a key or a reseed, and a step of the full
 * assessment in hand (take the next due, run it, post it), between which
 * samples and flushes go on. A pass credits nothing, raises no pool, and
 * spends only the bits of a key it begins. */
static const char *ops_pass(struct ops_world *w)
{
	struct rng *r = &w->r;
	int before = ops_energy(r);
	uint64_t credited = r->credited_bits, keys = r->crng_keys, key_bits = r->crng_key_bits;
	uint64_t spent = r->spent_bits;
	/* a key is begun only when one is owed (crng.c): the first once
	 * seeded, a reseed once a read found it due */
	int owed = r->estimator == RNG_CREDIT_MEASURED && rng_seeded(r) && r->crng_due;

	rng_apart_poll(r);
	if (!w->job_taken) {
		w->job_taken = rng_full_job_next(r, &w->job);
	} else if (!w->job_ran) {
		rng_full_job_run(&w->job);
		w->job_ran = 1;
	} else {
		rng_full_job_finish(r, &w->job);
		w->job_taken = w->job_ran = 0;
	}
	if (r->credited_bits != credited || ops_energy(r) > before)
		OPS_FAIL("a pass credited %llu bits, pools %d -> %d",
			(unsigned long long)(r->credited_bits - credited), before, ops_energy(r));
	if (r->crng_keys - keys > 1 || r->crng_key_bits - key_bits > RNG_CRNG_KEY_BITS ||
	    r->spent_bits - spent != r->crng_key_bits - key_bits)
		OPS_FAIL("a pass made %llu keys, debited %llu key bits and spent %llu",
			(unsigned long long)(r->crng_keys - keys),
			(unsigned long long)(r->crng_key_bits - key_bits),
			(unsigned long long)(r->spent_bits - spent));
	if (r->crng_key_bits != key_bits && !owed)
		OPS_FAIL("a pass began a urandom key that nothing owed");
	return NULL;
}

static const char *ops_flush(struct ops_world *w)
{
	struct rng *r = &w->r;
	int before = ops_energy(r), to_primary = r->primary.entropy_count < RNG_PRIMARY_WORDS * 32;
	uint64_t credited = r->credited_bits, keys = r->crng_keys, key_bits = r->crng_key_bits;
	uint64_t spent = r->spent_bits;
	unsigned got = rng_batch_flush(r);
	int debit = (int)(r->crng_key_bits - key_bits);   /* urandom's keys, made in the flush */
	const char *err;

	if (to_primary)                                   /* the flush fills the primary first */
		w->primary_credited += got;
	if (got > RNG_BATCH_WORDS)
		OPS_FAIL("flush credited %u bits, cap is %u", got, RNG_BATCH_WORDS);
	if ((err = ops_keys_whole(w, "a flush", keys, key_bits, spent)))
		return err;
	if (r->credited_bits != credited + got || ops_energy(r) != before + (int)got - debit)
		OPS_FAIL("flush returned %u but credited_bits grew by %llu and the pools by %d", got,
			(unsigned long long)(r->credited_bits - credited), ops_energy(r) - before);
	return NULL;
}

const char *ops_step(struct ops_world *w, uint8_t op, uint32_t a, uint32_t b)
{
	const char *err = NULL;
	unsigned i;

	switch (op % OPS_KINDS) {
	case 0: case 1: case 2: case 3: case 4:
		ops_sample(w, op, a, b);
		break;
	case 5:
		err = ops_flush(w);
		break;
	case 6:
		err = w->apart ? ops_pass(w) : ops_flush(w);
		break;
	case 7:
		err = ops_read_random(w, a);
		break;
	case 8:
		err = ops_read_urandom(w, a);
		break;
	case 9:
		i = a % OPS_SOURCES;
		if (w->src[i].capture)
			rng_capture_stop(&w->src[i]);
		else
			rng_capture_start(&w->src[i], &w->cap[i]);
		break;
	case 10:
		w->r.estimator = (enum rng_estimator)(b % 3);
		for (i = 0; i < OPS_SOURCES; i++) {
			uint32_t raw, shifted;

			while (rng_capture_read(&w->cap[i], &raw, &shifted))
				;
		}
		break;
	case 11:
		for (i = 0; i < (a & 1023); i++) {
			stub_time += b & 0xff;
			add_timing_entropy(&w->src[2], i);
		}
		break;
	case 12:
		err = ops_aux(w, a);
		break;
	case 13:
		err = ops_fill(w, a, b);
		break;
	}
	return err ? err : ops_check(w);
}
