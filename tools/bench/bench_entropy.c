/* Host benchmark of entropy/: exact instruction counts under callgrind. */
/*
 * Run by `make bench-host` as
 *   valgrind --tool=callgrind --instr-atstart=no ./bench_entropy
 * Each measured operation is bracketed by CALLGRIND_ZERO_STATS and
 * CALLGRIND_DUMP_STATS_AT("name/reps"); tools/bench/callgrind_table.py
 * reads the dumps, subtracts the bracket's own cost (the "empty" dump)
 * and prints a table. Outside valgrind the requests are no-ops.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

#include "entropy/entropy_internal.h"

extern uint64_t stub_time;
extern uint32_t stub_switches, stub_clock_khz;
void stub_reset(void);

#define BENCH_REPS 9
#define BENCH_URANDOM_BYTES 4096      /* the longest read benched */

static struct rng r;
static struct entropy_source kbd, shadow, kbd1999;
static struct rng_pool pool1999;
static uint8_t buf[BENCH_URANDOM_BYTES];
static uint32_t est_scratch[RNG_EST_STAT_SCRATCH / 4];
static uint8_t est_sym[1024], est_bits[8192], est_per[8192];

/* A keyboard-like sequence of times: irregular gaps of ~0.1 s. */
static uint64_t bench_time(unsigned i)
{
	return 1000000ull + (uint64_t)i * 97003u + (uint64_t)((i * 7919u) % 40009u) * 13u;
}

/* Inputs of the SP 800-90B estimators: 1024 noisy timing-like symbols
 * (a steady base, 5 noisy low bits) and their bitstring; and the tuple
 * estimators' worst case, a period-3 bitstring (prefix doubling runs
 * all its rounds). */
static void bench_est_inputs(void)
{
	uint32_t x = 2463534242u;
	unsigned i;

	for (i = 0; i < 1024; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		est_sym[i] = (uint8_t)(0x60 + (x & 31));
	}
	rng_est_bits(est_sym, 1024, est_bits);
	for (i = 0; i < 8192; i++)
		est_per[i] = i % 3 == 0;
}

/* The name is a literal "operation/reps": nothing but the request itself
 * runs inside the bracket besides the operation. */
#define bench_dump(name) CALLGRIND_DUMP_STATS_AT(name)

static void bench_empty(void)
{
	unsigned i;

	for (i = 0; i < BENCH_REPS; i++) {
		CALLGRIND_ZERO_STATS;
		bench_dump("empty/1");
	}
}

static void bench_sample_paths(uint32_t tso_times[BENCH_REPS])
{
	unsigned i;

	/* one trusted sample through the whole interrupt-side path */
	for (i = 0; i < BENCH_REPS; i++) {
		stub_switches++;
		stub_time = bench_time(4 + i);
		tso_times[i] = (uint32_t)stub_time;
		CALLGRIND_ZERO_STATS;
		add_timing_entropy(&kbd, 0x1c);
		bench_dump("add_timing_entropy/1");
	}
	/* the v1.89 sample path on the same times */
	for (i = 0; i < BENCH_REPS; i++) {
		stub_time = tso_times[i];
		CALLGRIND_ZERO_STATS;
		rng_sample_1999(&pool1999, &kbd1999, 0x1c);
		bench_dump("add_timing_entropy_1999/1");
	}
}

static void bench_flush_measure(void)
{
	unsigned i;

	/* the flush's measurement of queued trusted samples, per sample */
	for (i = 0; i < BENCH_REPS; i++) {
		unsigned j;

		CALLGRIND_STOP_INSTRUMENTATION;
		for (j = 0; j < 32; j++) {
			stub_switches++;
			stub_time += 50000000 + (j * 7919u) % 40000000u;
			add_timing_entropy(&kbd, j);
		}
		CALLGRIND_START_INSTRUMENTATION;
		CALLGRIND_ZERO_STATS;
		rng_batch_flush(&r);
		bench_dump("flush_measure_32_samples/32");
	}
}

static void bench_estimators(uint32_t tso_times[BENCH_REPS])
{
	unsigned i;

	/* each estimator alone on the same samples */
	for (i = 0; i < BENCH_REPS; i++) {
		struct entropy_source x = shadow;

		CALLGRIND_ZERO_STATS;
		rng_xymoron_estimate(&shadow, tso_times[i], stub_switches - BENCH_REPS + i + 1);
		bench_dump("xymoron_estimate/1");
		shadow = x;
		CALLGRIND_ZERO_STATS;
		rng_tso_estimate(&shadow, tso_times[i]);
		bench_dump("tso_estimate/1");
		shadow.last_time = tso_times[i];
	}
}

static void bench_batch_flush(void)
{
	unsigned i;

	/* flushing a full batch (256 words mixed, credit capped) */
	for (i = 0; i < BENCH_REPS; i++) {
		unsigned j;

		CALLGRIND_STOP_INSTRUMENTATION;
		for (j = 0; j < RNG_BATCH_WORDS; j++) {
			stub_switches++;
			stub_time += 50000 + j * 31;
			add_timing_entropy(&kbd, j);
		}
		r.primary.entropy_count = 0;
		CALLGRIND_START_INSTRUMENTATION;
		CALLGRIND_ZERO_STATS;
		rng_batch_flush(&r);
		bench_dump("batch_flush/1");
	}
}

/* A v1.89 instance beside it: credit=xymoron keeps the seeds' urandom. */
static struct rng r189;

/* Per-byte cost of `len`-byte urandom reads on x, each read bracketed. */
static void bench_reads(struct rng *x, size_t len, const char *name)
{
	unsigned i;

	for (i = 0; i < 3; i++) {
		CALLGRIND_ZERO_STATS;
		rng_read_urandom(x, buf, len);
		CALLGRIND_DUMP_STATS_AT(name);
	}
}

static void bench_urandom(void)
{
	/* urandom waits for seeding under credit=measured: seed it first, as
	 * 256 bits of the meter's grants would (outside the brackets); the
	 * flush that seeds makes the generator's first key */
	CALLGRIND_STOP_INSTRUMENTATION;
	r.primary.entropy_count = 0;
	r.batch_credit = RNG_SEED_BITS;
	r.batch_samples_pending = 1;
	rng_batch_flush(&r);
	if (!rng_urandom_ready(&r)) {
		fprintf(stderr, "bench_entropy: the scratch instance has no urandom key\n");
		exit(1);
	}
	rng_init(&r189, RNG_CREDIT_XYMORON);
	memcpy(r189.primary.words, r.primary.words, sizeof(r189.primary.words));
	r189.primary.entropy_count = RNG_PRIMARY_WORDS * 32;
	r189.secondary.entropy_count = RNG_SECONDARY_WORDS * 32;
	CALLGRIND_START_INSTRUMENTATION;
	/* the default policy's urandom (ChaCha20, key erasure included) */
	bench_reads(&r, 256, "urandom_per_byte_256/256");
	bench_reads(&r, 4096, "urandom_per_byte_4096/4096");
	/* v1.89's, as credit=xymoron and tso still serve it */
	bench_reads(&r189, 256, "urandom_v189_per_byte_256/256");
	bench_reads(&r189, 4096, "urandom_v189_per_byte_4096/4096");
}

static void bench_round(void)
{
	unsigned i;

	/* one extraction round from the secondary alone (10 bytes) */
	for (i = 0; i < BENCH_REPS; i++) {
		CALLGRIND_ZERO_STATS;
		rng_pool_extract(&r.secondary, buf, RNG_EXTRACT_BYTES);
		bench_dump("secondary_round_10_bytes/1");
	}
}

static void bench_est(void)
{
	unsigned i;

	/* SP 800-90B 6.3.2-6.3.6 (est_stat.c), one call each */
	bench_est_inputs();
	/* the meter's full assessment of a full window (every 512 samples) */
	for (i = 0; i < 3; i++) {
		static struct rng_meter m;
		unsigned j;

		CALLGRIND_STOP_INSTRUMENTATION;
		rng_meter_init(&m);
		for (j = 0; j < 1024; j++)
			rng_meter_add(&m, est_sym[j]);
		CALLGRIND_START_INSTRUMENTATION;
		CALLGRIND_ZERO_STATS;
		rng_meter_full_milli(&m);
		bench_dump("meter_full_assessment/1");
	}
	for (i = 0; i < 3; i++) {
		uint32_t tt, lrs;

		CALLGRIND_ZERO_STATS;
		rng_est_collision_milli(est_bits, 8192, 1, est_scratch);
		bench_dump("est_collision_bits8192/1");
		CALLGRIND_ZERO_STATS;
		rng_est_markov_milli(est_bits, 8192, 1, est_scratch);
		bench_dump("est_markov_bits8192/1");
		CALLGRIND_ZERO_STATS;
		rng_est_compression_milli(est_bits, 8192, 1, est_scratch);
		bench_dump("est_compression_bits8192/1");
		CALLGRIND_ZERO_STATS;
		rng_est_tuple_lrs_milli(est_bits, 8192, 1, est_scratch, &tt, &lrs);
		bench_dump("est_tuple_lrs_bits8192/1");
		CALLGRIND_ZERO_STATS;
		rng_est_tuple_lrs_milli(est_sym, 1024, 8, est_scratch, &tt, &lrs);
		bench_dump("est_tuple_lrs_literal1024/1");
		CALLGRIND_ZERO_STATS;
		rng_est_tuple_lrs_milli(est_per, 8192, 1, est_scratch, &tt, &lrs);
		bench_dump("est_tuple_lrs_period3_bits8192/1");
	}
}

int main(void)
{
	uint32_t tso_times[BENCH_REPS];
	unsigned i;

	stub_reset();
	stub_clock_khz = 1000000;            /* 1 GHz TSC, keyboard at 1 kHz */
	rng_init(&r, RNG_CREDIT_MEASURED);     /* the default policy's path */
	create_entropy_source(&r, &kbd, "keyboard", 1, 1, 1);
	create_entropy_source(&r, &kbd1999, "keyboard-1999", 1, 1, 1);
	rng_pool_init(&pool1999, RNG_PRIMARY_WORDS);
	for (i = 0; i < 4; i++) {           /* warm the source's state */
		stub_switches++;
		stub_time = bench_time(i);
		add_timing_entropy(&kbd, 0x1c);
	}
	memcpy(&shadow, &kbd, sizeof(shadow));

	CALLGRIND_START_INSTRUMENTATION;
	bench_empty();
	bench_sample_paths(tso_times);
	rng_batch_flush(&r);
	bench_flush_measure();
	bench_estimators(tso_times);
	bench_batch_flush();
	bench_urandom();
	bench_round();
	bench_est();
	CALLGRIND_STOP_INSTRUMENTATION;
	printf("bench done: %u urandom bytes, primary %d bits\n", BENCH_URANDOM_BYTES, r.primary.entropy_count);
	return 0;
}
