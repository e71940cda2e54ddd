/* `bench`: in-kernel measurements on scratch state (docs/PROTOCOL.md "Console").
 *
 * Everything runs on a private `struct rng` with its own sources; the live
 * pools (rng_live), their sources and counters are never touched, and the
 * scratch instance is never made the default, so no fake sample is ever
 * credited to what `random` serves.
 *
 * Unit: TSC cycles (rdtsc) when the clock is the TSC, else PIT ticks
 * (1.193 MHz, clock_now()). With cycles, each operation is timed alone and
 * the median is printed, minus the median cost of an empty bracket. PIT
 * ticks are far coarser than one operation, so there the per-sample
 * figures time groups of calls and print the mean, rounded up (never 0
 * when anything was measured). No floating point, no %llu.
 */
#include <stdint.h>
#include <string.h>
#include "app/commands.h"
#include "app/shell.h"
#include "kern/kernel.h"
#include "entropy/entropy_hooks.h"
#include "arch/x86/cpu.h"
#include "arch/x86/clock.h"
#include "arch/x86/rtc.h"
#include "lib/fmt.h"

#define SAMPLE_REPS   255        /* timed samples (cycles) */
#define PIT_GROUPS    16         /* PIT: groups of PIT_GROUP calls */
#define PIT_GROUP     64
#define FLUSH_REPS    31
#define EXTRACT_REPS  5
#define EXTRACT_BYTES 1000
#define BENCH_WAIT_MS 600000u    /* the full assessment: 10 minutes at the least speed */

static struct rng scratch;
static struct entropy_source bench_src, est_src;
static struct rng_pool pool1999;
static struct rng_meter bench_meter;  /* full_assessment's window */     /* the 1999 path mixes into the pool itself */
static uint32_t vals[SAMPLE_REPS];
static uint8_t out[EXTRACT_BYTES];
static int use_tsc;

static inline uint64_t bench_now(void)
{
	return use_tsc ? rdtsc() : clock_now();
}

static uint32_t median(uint32_t *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		uint32_t x = v[i];
		unsigned j = i;
		while (j > 0 && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	return v[n / 2];
}

static uint32_t sat32(uint64_t v)
{
	return v > 0xffffffffu ? 0xffffffffu : (uint32_t)v;
}

/* ceil(total / n) */
static uint32_t mean_up(uint64_t total, uint32_t n)
{
	return sat32((total + n - 1) / n);
}

/* Median minus the bracket overhead; at least 1 (an operation is never free). */
static uint32_t net(uint32_t med, uint32_t overhead)
{
	return med > overhead ? med - overhead : 1;
}

enum op { OP_EMPTY, OP_ADD, OP_1999, OP_XYMORON, OP_TSO, OP_RTC };

static void run_op(enum op op, uint32_t i)
{
	switch (op) {
	case OP_EMPTY:
		break;
	case OP_ADD:
		add_timing_entropy(&bench_src, 0x1c ^ i);
		break;
	case OP_1999:
		rng_sample_1999(&pool1999, &bench_src, 0x1c ^ i);
		break;
	case OP_XYMORON:
		rng_xymoron_estimate(&est_src, (uint32_t)clock_now(), kern_passes());
		break;
	case OP_TSO:
		rng_tso_estimate(&est_src, (uint32_t)clock_now());
		break;
	case OP_RTC:
		/* the rtc handler's own work (arch/x86/rtc.c, kern/devices.c): a
		 * CMOS read, the index left on D, a sample. */
		(void)rtc_read_a();
		add_timing_entropy(&bench_src, i);
		break;
	}
}

/* Per-call cost of op: median of single calls (cycles), or grouped mean (PIT). */
static uint32_t measure(enum op op, uint32_t overhead)
{
	if (use_tsc) {
		for (uint32_t i = 0; i < SAMPLE_REPS; i++) {
			uint64_t t0 = rdtsc();
			run_op(op, i);
			vals[i] = sat32(rdtsc() - t0);
			kern_pass_if_due();       /* outside the bracket: the loop keeps its bound */
		}
		uint32_t m = median(vals, SAMPLE_REPS);
		return op == OP_EMPTY ? m : net(m, overhead);
	}
	uint64_t total = 0;
	for (uint32_t g = 0; g < PIT_GROUPS; g++) {
		uint64_t t0 = clock_now();
		for (uint32_t i = 0; i < PIT_GROUP; i++)
			run_op(op, i);
		total += clock_now() - t0;
		kern_pass_if_due();
	}
	return mean_up(total, PIT_GROUPS * PIT_GROUP);
}

static void print_u32(const char *key, uint32_t v)
{
	kprintf("%s: %lu\r\n", key, (unsigned long)v);
}

/* A fresh scratch instance with warmed sources (the live pools are never touched). */
static void bench_setup(void)
{
	rng_init(&scratch, RNG_CREDIT_MEASURED);    /* the default policy's path */
	create_entropy_source(&scratch, &bench_src, "bench", -1, 1, 1);
	create_entropy_source(&scratch, &est_src, "bench-est", -1, 1, 1);
	rng_pool_init(&pool1999, RNG_PRIMARY_WORDS);
	for (uint32_t i = 0; i < 4; i++)          /* warm the sources' state */
		add_timing_entropy(&bench_src, i);
	rng_batch_flush(&scratch);
}

/* A full batch: 256 samples, then one timed flush into the primary. */
static uint32_t measure_flush(uint32_t overhead)
{
	uint64_t flush_total = 0;
	for (uint32_t r = 0; r < FLUSH_REPS; r++) {
		for (uint32_t j = 0; j < RNG_BATCH_WORDS; j++)
			add_timing_entropy(&bench_src, j);
		/* An empty primary, so every flush fills it (as the tick's does):
		 * reads take what the last flush credited, outside the bracket. */
		while (rng_read_random(&scratch, out, sizeof(out)))
			;
		uint64_t t0 = bench_now();
		rng_batch_flush(&scratch);
		uint64_t d = bench_now() - t0;
		vals[r] = sat32(d);
		flush_total += d;
		kern_pass_if_due();
	}
	return use_tsc ? net(median(vals, FLUSH_REPS), overhead) : mean_up(flush_total, FLUSH_REPS);
}

/* urandom: reads of `len` bytes; the median read gives the per-byte cost
 * (returned) and the rate (*bps, bytes per second). */
static uint32_t measure_reads(uint32_t khz, size_t len, uint64_t *bps)
{
	for (uint32_t r = 0; r < EXTRACT_REPS; r++) {
		uint64_t t0 = bench_now();
		rng_read_urandom(&scratch, out, len);
		vals[r] = sat32(bench_now() - t0);
		kern_pass_if_due();
	}
	memset(out, 0, sizeof(out));
	uint32_t read_units = median(vals, EXTRACT_REPS);
	if (read_units == 0)
		read_units = 1;
	/* bytes/s = bytes * (units per second) / units */
	*bps = (uint64_t)len * khz * 1000u / read_units;
	return mean_up(read_units, len);
}

/* The default policy's urandom (ChaCha20, key erasure included, in reads
 * of 256 bytes as the console and COM2 take them) and v1.89's (the seed
 * rules', reads of EXTRACT_BYTES). Samples timed by this loop cannot
 * honestly seed a measured instance (the meter fails them), so the
 * scratch generator is keyed from its pools without credit, and v1.89's
 * runs on a fresh scratch instance under the 2002 rule, which serves at
 * once. */
static uint32_t measure_urandom(uint32_t khz, uint64_t *bps, uint32_t *per_v189,
	uint64_t *bps_v189)
{
	rng_init(&scratch, RNG_CREDIT_MEASURED);
	rng_bench_crng_key(&scratch);
	uint32_t per = measure_reads(khz, 256, bps);
	rng_init(&scratch, RNG_CREDIT_XYMORON);
	*per_v189 = measure_reads(khz, EXTRACT_BYTES, bps_v189);
	return per;
}

/* One full assessment of a full window of uniform symbols (xorshift32,
 * fixed seed), run where the live ones run, in the background task
 * (kern/assess.c): its task time, in the bench's unit when that is the
 * clock's (cycles with a TSC, else PIT ticks). */
static uint32_t measure_full_assessment(void)
{
	uint32_t x = 0x2545f491u, result;

	rng_meter_init(&bench_meter);
	for (uint32_t i = 0; i < RNG_METER_W; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		rng_meter_add(&bench_meter, (uint8_t)(x >> 24));
	}
	if (kern_wait_until(kern_assess_bench_wanted, BENCH_WAIT_MS) == 0) {
		kern_assess_bench_start(&bench_meter);
		(void)kern_wait_until(kern_assess_bench_done, BENCH_WAIT_MS);
	}
	return sat32(kern_assess_bench_end(&result));
}

int cmd_bench(int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return cmd_error("usage: bench");

	use_tsc = clock_is_tsc();
	uint32_t khz = clock_khz();
	bench_setup();
	kprintf("unit: %s\r\n", use_tsc ? "cycles" : "pit_ticks");
	print_u32("cpu_khz", khz);

	uint32_t overhead = use_tsc ? measure(OP_EMPTY, 0) : 0;
	uint32_t add = measure(OP_ADD, overhead);
	rng_batch_flush(&scratch);
	uint32_t add1999 = measure(OP_1999, overhead);
	uint32_t xym = measure(OP_XYMORON, overhead);
	uint32_t tso = measure(OP_TSO, overhead);
	uint32_t rtc = measure(OP_RTC, overhead);
	uint32_t flush = measure_flush(overhead);
	uint64_t bps, bps_v189;
	uint32_t per_v189, per_byte = measure_urandom(khz, &bps, &per_v189, &bps_v189);
	uint32_t full = measure_full_assessment();

	print_u32("add_timing_entropy", add);
	print_u32("add_timing_entropy_1999", add1999);
	print_u32("xymoron_estimate", xym);
	print_u32("tso_estimate", tso);
	print_u32("rtc_period", rtc);
	print_u32("batch_flush", flush);
	print_u32("extract_per_byte", per_byte);        /* ChaCha20: credit=measured */
	char b[U64_STR_LEN];
	kprintf("urandom_bytes_per_s: %s\r\n", u64_str(b, bps));
	print_u32("extract_per_byte_v189", per_v189);  /* SHA-1: credit=xymoron, tso */
	kprintf("urandom_v189_bytes_per_s: %s\r\n", u64_str(b, bps_v189));
	print_u32("bracket_overhead", overhead);
	print_u32("boot_to_prompt_ms", boot_to_prompt_ms);
	print_u32("full_assessment", full);     /* 0: it did not finish in time */
	return 0;
}
