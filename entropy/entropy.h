/* rand86 entropy core: the public interface (portable C, no hardware). */
#ifndef RAND86_ENTROPY_H
#define RAND86_ENTROPY_H

#include <stdint.h>
#include <stddef.h>
#include "lib/credit.h"             /* enum rng_estimator */

/* Pool geometry (v1.89 random.c, see docs/ENTROPY.md). */
#define RNG_PRIMARY_WORDS   128     /* 4096 bits */
#define RNG_SECONDARY_WORDS 32      /* 1024 bits */
#define RNG_BATCH_WORDS     256     /* patch 4/4: power of two */
#define RNG_SEC_XFER_BYTES  340
#define RNG_RESEED_BYTES    1024    /* catastrophic reseed interval */
#define RNG_READ_WAKEUP_BITS  8     /* v1.89 random_read_wakeup_thresh */
#define RNG_WRITE_WAKEUP_BITS 128   /* v1.89 random_write_wakeup_thresh */
#define RNG_EXTRACT_BYTES   10      /* one extraction round: 160-bit hash folded to 80 */
/* /dev/urandom leaves this much in the primary's count for /dev/random
 * readers (a departure from v1.89, see random.c): one 256-bit key. */
#define RNG_URANDOM_RESERVE_BITS 256
/* credit=measured: /dev/urandom serves nothing until the primary has been
 * credited this much in all since boot (random.c, "Seeded before serving"). */
#define RNG_SEED_BITS       256
#define RNG_AUX_REKEY       64      /* rng_aux_bytes: blocks between new keys */
/* credit=measured: urandom's ChaCha20 generator (random.c, "urandom's generator") */
#define RNG_CRNG_KEY_BITS   256     /* credited bits debited for each key */
#define RNG_CRNG_READ_MAX   65536   /* longer reads are several reads, each erasing */
#define RNG_CRNG_MIN_S      1       /* reseed interval: uptime/2 within [1 s, 60 s] */
#define RNG_CRNG_MAX_S      60


/* ---- Live measurement of a trusted source (measure.c; SP 800-90B) ----
 * Numbers and their reasons are in measure.c's opening comment. */
#define RNG_METER_W        1024    /* sliding window and APT window (4.4.2, non-binary) */
#define RNG_METER_LAGS     32      /* Lag predictor (6.3.8): lags 1..32 */
#define RNG_METER_HIST     (RNG_METER_W + RNG_METER_LAGS + 1)
#define RNG_METER_MIN      64      /* symbols in the window before any credit */
#define RNG_METER_INQ      64      /* IRQ -> flush queue per source (power of two) */
#define RNG_METER_RCT_C    16      /* 4.4.1 cutoff, H = 2, alpha = 2^-30 */
#define RNG_METER_APT_C    343     /* 4.4.2 cutoff, H = 2, alpha = 2^-30, W = 1024 */
#define RNG_METER_MAX_MILLI 8000   /* the symbol is 8 bits wide */
#define RNG_METER_FULL_EVERY 512   /* symbols between full assessments, once the window is full */
#define RNG_METER_PERIODIC_FLOOR_MILLI 2000  /* the health tests' H (measure.c): periodic sources */
/* The credit rule (measure.c rng_meter_paid, docs/ENTROPY.md "What a window
 * is paid"): per mille of the estimate paid, by the estimate's level (from
 * RNG_PAY_LEVEL_MILLI) and the window's fill (64, 128, 256, 512, 1024),
 * as build/host/credit_derive prints it from tests/vectors/credit/. */
#define RNG_PAY_LEVEL_MILLI { 0, 1500, 3000 }
#define RNG_PAY_PERMILLE { { 869, 733, 661, 661, 679 }, { 790, 834, 812, 750, 656 }, { 1000, 985, 865, 767, 814 } }

enum rng_health { RNG_HEALTH_WARMUP = 0, RNG_HEALTH_OK = 1, RNG_HEALTH_FAIL = 2 };

struct rng_meter {
	/* health tests (4.4.1, 4.4.2) */
	uint8_t rct_a, apt_a;
	uint16_t rct_b, apt_b, apt_i;
	uint32_t clean_left;                 /* samples to pass before a failed source is ok */
	uint32_t rct_fail, apt_fail;         /* failures (one per episode / per window) */
	/* the window: last RNG_METER_HIST symbols, of which the last W are counted */
	uint64_t n;                          /* symbols seen since creation */
	uint32_t pos;                        /* n % RNG_METER_HIST: where symbol n goes */
	uint8_t hist[RNG_METER_HIST];
	uint16_t count[256];                 /* MCV counts over the window */
	uint16_t count_max, count_at_max;    /* the largest count, how many symbols have it */
	uint16_t score[RNG_METER_LAGS];      /* lag d+1 hits over the window */
	/* Lag's matches without a compare per lag: bit k % 32 of near[v] is
	 * set when symbol k, one of the last 32, is v; match[] keeps each
	 * window symbol's matches in the same form, for when it leaves. */
	uint32_t near[256];
	uint32_t match[RNG_METER_W];
	uint8_t hit[RNG_METER_W / 8];        /* did the winning lag predict symbol i? */
	uint16_t hits;                       /* ones in hit[] over the window */
	uint16_t run_max, run_tail;          /* longest run of ones in hit[], the last run */
	uint8_t run_stale;                   /* a one left the window: run_max to recount */
	uint8_t winner;                      /* index of the best lag (0 = lag 1) */
	uint32_t h_milli;                    /* last estimate, thousandths of a bit */
	uint32_t local_r, local_n, local_milli;  /* cache of the Lag local bound */
	/* caches of the two bounds from counts (rng_ucb_milli's logarithms),
	 * and of the last cap the local bound was found to clear */
	uint32_t mcv_c, mcv_n, mcv_milli, glob_c, glob_n, glob_milli;
	uint32_t clear_r, clear_n, clear_cap;
	uint32_t full_milli;                 /* last full assessment (8000 before the first) */
	uint64_t full_n;                     /* n when its window was taken (0: never) */
	uint32_t full_fails;                 /* rct_fail + apt_fail then: a later failure voids it */
	uint32_t full_every;                 /* symbols between runs on a full window */
	uint8_t full_deferred;               /* run by rng_full_job_* elsewhere, not in the estimate */
	uint8_t full_wanted;                 /* deferred: due, waiting for rng_full_job_take */
};

/* One full assessment taken from a meter and run apart from it: the
 * window is copied out when taken, so the meter can go on adding symbols
 * while it runs, and the result is the one-shot rng_meter_full_milli()'s
 * on the same window. One job at a time (it has one work area). */
struct rng_full_job {
	struct rng_meter *m;
	uint64_t at_n;
	uint32_t n, fails, result;
};

/* One trusted sample queued by the interrupt path for the flush: the
 * symbol in bits 0..7, Xymoron's bits in 8..11, bit 12 set by the flush
 * when the source was healthy and past warm-up after this symbol. */
#define RNG_MQ_SYM(e)   ((e) & 0xffu)
#define RNG_MQ_BITS(e)  (((e) >> 8) & 0xfu)
#define RNG_MQ_OK       0x1000u

struct rng_pool {
	uint32_t words[RNG_PRIMARY_WORDS];   /* only poolwords used */
	unsigned poolwords;                  /* 128 or 32 */
	unsigned add_ptr;
	unsigned input_rotate;
	int entropy_count;                   /* bits, clamped to [0, poolwords*32] */
};

/* Captured raw samples for `samples NAME N` (raw delta, shifted delta).
 * 4096 (32 KiB): the rtc's 4096 samples a second arrive six times faster
 * than COM1 prints them, and a capture for ea_non_iid must hold
 * consecutive samples, as the meter sees them, not one in six. */
#define RNG_CAPTURE_RING 4096
struct rng_capture {
	volatile uint32_t head, tail;        /* head written in IRQ, tail by reader */
	uint32_t raw[RNG_CAPTURE_RING];
	uint32_t shifted[RNG_CAPTURE_RING];
	volatile uint32_t dropped;           /* ring full: sample not recorded */
};

struct rng;

struct entropy_source {
	struct rng *rng;
	const char *name;
	int irq;                             /* for display; -1 if none */
	int trusted;
	unsigned shift;                      /* from clock_khz / granularity_khz */
	/* Xymoron (2002) estimator state */
	uint32_t last_time, last_delta;
	int have_last;
	/* Ts'o (1999, v1.89) estimator state */
	uint32_t tso_last_time, tso_last_delta, tso_last_delta2;
	/* statistics (64-bit: a flood must not wrap them within a day) */
	uint64_t events, bits, tso_bits;
	uint64_t credited;                   /* bits the policy in force granted (before batch caps) */
	/* credit=measured (and, for display, under every policy): trusted
	 * samples queue (symbol, Xymoron bits) for the flush, which runs the
	 * meter and grants credit from a budget of h_milli per sample */
	volatile uint32_t mq_head;           /* written in IRQ */
	uint32_t mq_tail;                    /* written by the flush */
	uint32_t mq_snap;                    /* head as the flush took the batch */
	uint16_t mq[RNG_METER_INQ];
	volatile uint32_t mq_dropped;        /* queue full: sample measured and credited never */
	uint64_t skipped;                    /* mixed, never measured: busy, or not one period */
	uint64_t est_at, est_n, est_full_n;  /* when, at what meter.n and full_n, h_milli was made */
	uint32_t est_fails;                  /* health failures then (rng_pay_milli) */
	uint32_t period;                     /* a periodic source's nominal clock ticks per sample; 0 */
	uint32_t budget_milli;               /* unspent credit, < one sample's estimate + 1 bit */
	uint64_t est_milli;                  /* sum of h_milli over the samples that could earn */
	struct rng_meter meter;
	/* own back-to-back check instead of the instance's shared one (timer) */
	int own_pass_check;
	/* its events are caused outside the machine (a person's key or hand),
	 * not scheduled by the machine's own clock (rng_source_outside_timed) */
	int outside_timed;
	uint32_t own_last_switches;
	/* capture: while capture != NULL, samples are mixed but credit nothing */
	struct rng_capture *volatile capture;
	/* record=N (docs/PROTOCOL.md): the first rec_max samples from boot that
	 * the meter would see, raw deltas, uncredited as a capture is */
	uint32_t *rec;
	volatile uint32_t rec_n;
	uint32_t rec_max;
	struct entropy_source *next;         /* registry list in creation order */
};

struct rng {
	struct rng_pool primary, secondary;
	enum rng_estimator estimator;
	/* batch pool (patch 4/4): written in interrupt context */
	uint32_t batch[RNG_BATCH_WORDS];
	volatile uint32_t batch_pos, batch_credit, batch_samples_pending;
	struct rng_pool *batch_target;       /* pool the next flush fills */
	/* counters for `status` */
	uint64_t credited_bits, random_bytes, urandom_bytes;
	uint64_t batch_samples, batch_flushes, batch_overwrites;
	uint32_t extracted_since_reseed;
	/* main-loop pass count at the previous trusted sample of ANY source
	 * (patch 1/4's single last_ctxt): the back-to-back check */
	uint32_t last_trusted_switches;
	struct entropy_source *sources;
	uint32_t *rec_pool;                  /* record=N: slots left for trusted sources */
	unsigned rec_slots;
	uint32_t rec_max;
	struct entropy_source *untrusted_sink; /* optional: add_untrusted_entropy() samples are
	                                        * counted on this source (events, tso_bits) and
	                                        * never credited, whatever its trusted flag */
	/* transfer accounting (patch 1/4): xfer_credited_bits <= xfer_taken_bits always */
	uint64_t xfer_taken_bits, xfer_credited_bits, reseeds;
	/* seeding: bits the flushes credited to the primary since init, and the
	 * latch set once they reach RNG_SEED_BITS (never cleared) */
	uint64_t primary_credited_bits;
	int seeded;
	/* the machine's clock counts instructions (rng_clock_counts_instructions) */
	int instruction_clock;
	/* every bit removed from a pool count: credited_bits == primary +
	 * secondary + spent_bits, exactly, at every moment between calls */
	uint64_t spent_bits;
	/* rng_aux_bytes' generator: outside the accounting */
	uint32_t aux_key[5], aux_blocks;
	/* credit=measured: urandom's ChaCha20 key, the keys made (first and
	 * reseeds) and the bits they debited (in spent_bits too), the clock at
	 * rng_init, at the last key and when the next is due; crng_due: a key
	 * is owed and /dev/random waits for it */
	uint32_t crng_key[8];
	uint64_t crng_keys, crng_key_bits, crng_t0, crng_at, crng_next;
	int crng_due;
	int crng_apart;                      /* keys made by rng_crng_poll(), not in the flush */
	/* a key made apart: the extraction rounds done (0: none under way),
	 * the key's start, and the bytes of the pool being extracted */
	unsigned crng_round;
	uint64_t crng_begun;
	uint8_t crng_part[32];
	/* reads apart (rng_reads_apart): at most RNG_APART_BYTES a read, and
	 * the catastrophic reseed in rounds: rounds left (0: none under way)
	 * and the primary's bytes extracted so far */
	int reads_apart;
	unsigned reseed_left;
	uint32_t reseed_buf[(RNG_SEC_XFER_BYTES + 3) / 4];
	/* the meter: full assessments run apart (rng_defer_full_assessments),
	 * the source assessed last, and time spent measuring in the flush
	 * (rng_plat->now() ticks) */
	int full_deferred;
	struct entropy_source *full_last;
	uint64_t meter_ticks;
};

/* One consistent copy of the counters (`status`, the dashboard). */
struct rng_stats {
	enum rng_estimator estimator;
	int primary_bits, secondary_bits, primary_max, secondary_max;
	uint64_t credited_bits, spent_bits, random_bytes, urandom_bytes;
	uint64_t batch_samples, batch_flushes, batch_overwrites, reseeds;
	uint64_t primary_credited_bits;      /* credited to the primary since init */
	int seeded;                          /* primary_credited_bits reached RNG_SEED_BITS */
	uint64_t crng_keys, crng_key_bits;   /* urandom's ChaCha20 keys made, bits they spent */
	uint64_t crng_keyed_ms, crng_reseed_ms;  /* since rng_init: last key, next reseed due */
};

/* One consistent copy of a source's counters (`sources`, the dashboard). */
struct rng_source_stats {
	const char *name;
	int irq, trusted, capture;
	uint64_t events, bits, tso_bits, credited;
	uint32_t h_milli, rct_fail, apt_fail;  /* the meter (trusted sources) */
	uint32_t full_milli, full_age;       /* held full assessment, symbols since it ran */
	uint32_t unmeasured;                 /* samples its full queue dropped: never credited */
	uint64_t skipped;                    /* busy, or a delta not one period: never measured */
	int health;                          /* enum rng_health */
	int clock_bound;                     /* credits nothing: its time is the machine's instruction count */
};

/* ---- The seam: what the core needs of the platform, handed to it once
 * at init (kern/seam.c fills it on the appliance, tests/unit/ on the
 * host). The core names no function defined outside entropy/. ---- */
struct rng_platform {
	uint64_t (*now)(void);              /* free-running clock, clock_khz() ticks a ms */
	uint32_t (*clock_khz)(void);        /* cpu_khz, or 1193 for the PIT clock */
	uint32_t (*passes)(void);           /* main-loop passes: the "context switches" */
	unsigned long (*irq_save)(void);    /* mask interrupts, return the previous state */
	void (*irq_restore)(unsigned long flags);
};
/* Before any other call; the platform must outlive every instance. */
void rng_platform_init(const struct rng_platform *p);

/* ---- Core API ---- */
void rng_init(struct rng *r, enum rng_estimator est);
/* Mix without credit (boot-time seeding: RTC, TSC, multiboot info). */
void rng_mix_uncredited(struct rng *r, const void *buf, size_t len);

/* patch 1/4 API. name and irq are for statistics; trusted=0 makes a source
 * whose samples are mixed and never credited. Sources are static storage
 * owned by the caller, so this works without malloc in interrupt-free init. */
struct entropy_source *create_entropy_source(struct rng *r, struct entropy_source *storage,
	const char *name, int irq, int trusted, uint32_t granularity_khz);
void free_entropy_source(struct entropy_source *src);   /* unlink from registry */

/* credit=measured: urandom's keys (~15 ms of a 4 MIPS CPU each, a pool
 * extraction) are made when the kernel calls rng_crng_poll(), in a pass
 * of its own, instead of in the flush. */
void rng_crng_keys_apart(struct rng *r);
int rng_crng_poll(struct rng *r);            /* 1 if it made a key */

/* The v1.89 extraction paths in bounded steps, for a kernel whose passes
 * must stay short: each read (rng_read_random, and rng_read_urandom under
 * credit=xymoron and tso) serves at most RNG_APART_BYTES, and the
 * catastrophic reseed (a 340-byte extraction of the primary, ~340 k
 * instructions) is made one round a call of rng_apart_poll(), reads
 * serving 0 bytes meanwhile. rng_apart_poll() also makes urandom's key
 * rounds when keys are apart. 1 if it did a round of either. */
#define RNG_APART_BYTES RNG_EXTRACT_BYTES
void rng_reads_apart(struct rng *r);
int rng_apart_poll(struct rng *r);
/* A round of either is under way: the main loop must not halt. */
int rng_apart_pending(const struct rng *r);

/* Full assessments apart from the flush (docs/ENTROPY.md, "What the meter
 * costs"): from now on, and for every source created later, a due full
 * assessment waits for rng_full_job_next() instead of running in the
 * flush, and a source is paid nothing until its first one is held. */
void rng_defer_full_assessments(struct rng *r);
/* Take the window of the next source (in turn) whose assessment is due:
 * 1 if one was taken into j. Then rng_full_job_run(j) anywhere, once. */
int rng_full_job_next(struct rng *r, struct rng_full_job *j);
void rng_full_job_run(struct rng_full_job *j);
/* Hold j's result in its source's meter, unless the source went away. */
void rng_full_job_finish(struct rng *r, const struct rng_full_job *j);
/* Interrupt context. src may be NULL: mixed into r's batch, never credited. */
void add_timing_entropy(struct entropy_source *src, uint32_t datum);
/* A sample of a trusted source whose time is not the source's alone (an
 * interrupt that found the CPU running our code, whose progress set when
 * it was taken): mixed, counted in `skipped`, its time kept as the reference
 * for the next delta so that one is a single period; never measured,
 * captured or credited. */
void add_busy_timing_entropy(struct entropy_source *src, uint32_t datum);

/* NULL-handle samples (add_timing_entropy(NULL, d)) go to this instance;
 * before it is set they are dropped. The appliance sets its live rng once;
 * bench's scratch instance must not be made the default. */
void rng_set_default(struct rng *r);

/* The `timer` source: compare main-loop passes with its own previous
 * sample, never with (nor updating) the shared last_trusted_switches, so
 * a tick cannot make the next key press look back to back. */
void rng_source_own_pass_check(struct entropy_source *src);
/* A source that ticks on a clock of its own (timer, rtc), period_ticks of
 * the core's clock apart: only deltas within a quarter of one period are
 * measured, and its live estimate credits nothing below
 * RNG_METER_PERIODIC_FLOOR_MILLI (random.c, "Sources that need no person"). */
void rng_source_periodic(struct entropy_source *src, uint32_t period_ticks);
/* A source whose events a person causes (keyboard, mouse): on a machine
 * whose clock counts instructions it alone may still be credited. */
void rng_source_outside_timed(struct entropy_source *src);
/* The platform's clock counts instructions, not time (a deterministic
 * emulator): under credit=measured, only outside-timed sources earn
 * credit from now on (random.c, "A clock that counts instructions"). */
void rng_clock_counts_instructions(struct rng *r);

/* The name `sources` and the dashboard print for a source's health. */
const char *rng_health_name(enum rng_health h);

/* Timer tick, outside the hard-IRQ path. Returns bits credited by this flush. */
unsigned rng_batch_flush(struct rng *r);

/* /dev/random: returns bytes written (0 = must wait), n <= min(len, 340, primary_bits/8). */
size_t rng_read_random(struct rng *r, void *buf, size_t len);
/* /dev/urandom: len bytes, or 0 (nothing written, nothing counted) while
 * rng_urandom_ready() is false. credit=measured: ChaCha20, one erasing
 * read per call (per RNG_CRNG_READ_MAX bytes), no pool count touched;
 * otherwise v1.89's, never taking the primary below
 * RNG_URANDOM_RESERVE_BITS. */
size_t rng_read_urandom(struct rng *r, void *buf, size_t len);
/* True once the primary has been credited RNG_SEED_BITS in all since
 * rng_init (any policy); it never becomes false again. */
int rng_seeded(const struct rng *r);
/* True when /dev/urandom serves: the generator has its first key (so the
 * pools were seeded), or a seed rule (credit=xymoron, credit=tso) that
 * never waits. */
int rng_urandom_ready(const struct rng *r);
/* Bytes for the appliance's own use (the disk driver's read addresses):
 * from a generator keyed by the pools, outside the accounting: no pool
 * count changes, no transfer, no reseed, not counted as bytes served. */
void rng_aux_bytes(struct rng *r, void *buf, size_t len);

/* Snapshots with interrupts masked: the only way callers outside entropy/
 * read counters. */
void rng_stats(const struct rng *r, struct rng_stats *st);
void rng_source_stats(const struct entropy_source *src, struct rng_source_stats *st);
/* Registry walk in creation order: prev NULL gives the first source. */
struct entropy_source *rng_source_next(struct rng *r, struct entropy_source *prev);
/* True while the primary pool is full (a disk need not be read for more). */
int rng_primary_full(const struct rng *r);

/* True when /dev/random can serve at least one byte now (primary >= 8 bits).
 * A reader that got 0 from rng_read_random waits until this is true
 * (after a batch flush) and retries. */
int rng_random_ready(const struct rng *r);

/* Capture control for `samples`. start resets cap and then attaches it. */
void rng_capture_start(struct entropy_source *src, struct rng_capture *cap);
void rng_capture_stop(struct entropy_source *src);
/* Main loop side: pop one captured sample; returns 0 when the ring is empty. */
int rng_capture_read(struct rng_capture *cap, uint32_t *raw, uint32_t *shifted);
/* Record the first n samples of each trusted source created from now on
 * into pool (slots sources of n words each): SP 800-90B 3.1.4's restart
 * test needs the samples from boot, taken with no console input. */
static inline void rng_record_from_boot(struct rng *r, uint32_t *pool, unsigned slots, uint32_t n)
{
	r->rec_pool = pool;
	r->rec_slots = slots;
	r->rec_max = n;
}

struct entropy_source *rng_find_source(struct rng *r, const char *name);

/* Boot-time known-answer test of the SHA-1 compression as compiled for
 * this machine: 0 when SHA-1("abc") comes out as published, else -1. */
int rng_sha1_selftest(void);

/* Struct fields above are for entropy/ and its tests (entropy_internal.h):
 * everything else goes through these functions. The pieces bench and the
 * tests call alone are in entropy_hooks.h. */

#endif
