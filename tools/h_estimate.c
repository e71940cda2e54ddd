/* h_estimate: the meter's estimate and a full SP 800-90B 6.3 assessment of a `samples` capture.
 *
 *   build/host/h_estimate [--raw] [CAPTURE.txt | -]
 *
 * Reads the console text of `samples NAME N` (lines "RAW SHIFTED" in hex;
 * anything else is skipped, as tools/samples2bin.py does), feeds the low
 * 8 bits of the shifted delta (or of the raw delta with --raw, matching
 * samples2bin.py's --raw) through entropy/measure.c, the same code the
 * appliance runs in its tick flush, and prints the health-test results
 * and the MCV, Lag and combined estimates over the last window, plus the
 * lowest and mean estimate over every full window of the capture.
 *
 * Then the full assessment of tools/full_assess.h, every non-IID
 * estimator of SP 800-90B 6.3 on the symbols and on their bits,
 * min(H_original, 8 x H_bitstring). The estimators are verified on, and
 * hold at most, RNG_EST_NMAX_LIT = 1024 symbols (8192 bits), the meter's
 * window; so the capture is cut into consecutive blocks of 1024 (a last
 * partial block is left out; a capture shorter than 1024 is one block)
 * and each block is assessed alone. The `assessment` line gives the mean
 * over the blocks, the figure to set against credit per sample (a mean
 * too), and the lowest block. A block is judged with wider confidence
 * bounds than ea_non_iid gives the whole capture, and the tool's
 * estimators see structure longer than a block: the two differ either
 * way (docs/compare.md prints both). Compare with `ea_non_iid -v
 * FILE.bin 8` on samples2bin.py's output (docs/ENTROPY.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "entropy/entropy_internal.h"   /* the meter, and entropy_hooks.h */
#include "tools/full_assess.h"

static struct rng_meter m;

#define CAPTURE_MAX 200000                   /* samples kept for the assessment */
#define BLOCK RNG_EST_NMAX_LIT

static uint8_t cap[CAPTURE_MAX];

static void print_pair(const char *key, uint64_t sum, uint32_t blocks, uint32_t low)
{
	uint32_t mean = (uint32_t)(sum / blocks);

	printf("%s: %u.%03u bits/sample (lowest block %u.%03u)\n", key, mean / 1000, mean % 1000,
	       low / 1000, low % 1000);
}

/* The full assessment of cap[0..n-1], block by block (see the top). */
static void assess(uint32_t n)
{
	static struct full_tally t;
	uint64_t total = 0;
	uint32_t len = n < BLOCK ? n : BLOCK, h, lowest = 0;
	char key[64];

	for (uint32_t at = 0; at + len <= n; at += len) {
		h = full_assess_block(cap + at, len, &t);
		if (t.blocks == 0 || h < lowest)
			lowest = h;
		total += h;
		t.blocks++;
	}
	printf("full assessment (SP 800-90B 6.3, every estimator): %u block(s) of %u symbols\n",
	       t.blocks, len);
	for (unsigned k = 0; k < 2; k++) {
		for (unsigned e = 0; e < FULL_ASSESS_NEST; e++) {
			snprintf(key, sizeof(key), "  %s %s", k ? "8 x bitstring" : "literal",
				 full_assess_name[e]);
			print_pair(key, t.sum[k][e], t.blocks, t.low[k][e]);
		}
	}
	print_pair("assessment, min(H_original, 8 x H_bitstring), mean", total, t.blocks, lowest);
}

static int parse_line(const char *line, uint32_t *raw, uint32_t *shifted)
{
	char a[16], b[16], extra;

	if (sscanf(line, " %15[0-9a-f] %15[0-9a-f] %c", a, b, &extra) != 2)
		return 0;
	if (strlen(a) != 8 || strlen(b) != 8)
		return 0;
	sscanf(a, "%x", raw);
	sscanf(b, "%x", shifted);
	return 1;
}

static void print_milli(const char *key, uint32_t v)
{
	printf("%s: %u.%03u bits/sample (%u milli)\n", key, v / 1000, v % 1000, v);
}

/* One symbol: to the meter, and kept for the full assessment. */
static void add(uint32_t delta)
{
	if (m.n < CAPTURE_MAX)
		cap[m.n] = (uint8_t)delta;
	rng_meter_add(&m, (uint8_t)delta);
}

/* --raw and an optional path; -1 (usage printed) on anything else. */
static int parse_args(int argc, char **argv, int *raw_sym, const char **path)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--raw") == 0) {
			*raw_sym = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "usage: %s [--raw] [CAPTURE.txt | -]\n", argv[0]);
			return -1;
		} else {
			*path = argv[i];
		}
	}
	return 0;
}

/* What the meter said at the end and over each full window, then the
 * full assessment of the capture. */
static void report(int raw_sym, uint32_t low, uint32_t windows, uint64_t sum)
{
	uint32_t h = rng_meter_estimate(&m);
	printf("samples: %llu (symbols: low 8 bits of the %s delta)\n", (unsigned long long)m.n,
		raw_sym ? "raw" : "shifted");
	printf("window: last %u symbols\n", (unsigned)(m.n < RNG_METER_W ? m.n : RNG_METER_W));
	print_milli("mcv", rng_meter_mcv_milli(&m));
	print_milli("lag", rng_meter_lag_milli(&m));
	print_milli("full assessment (6.3.2-6.3.6, held)", m.full_milli);
	print_milli("h_milli (min, as on board)", h);
	if (windows) {
		print_milli("lowest full-window estimate", low);
		print_milli("mean full-window estimate", (uint32_t)(sum / windows));
	}
	printf("health: %s rct_fail=%u apt_fail=%u\n", rng_health_name(rng_meter_health(&m)),
		m.rct_fail, m.apt_fail);
	assess(m.n < CAPTURE_MAX ? (uint32_t)m.n : CAPTURE_MAX);
}

int main(int argc, char **argv)
{
	const char *path = "-";
	int raw_sym = 0;
	FILE *f = stdin;
	char line[512];
	uint32_t raw, sh, h, low = 8000, windows = 0;
	uint64_t sum = 0;

	if (parse_args(argc, argv, &raw_sym, &path) < 0)
		return 2;
	if (strcmp(path, "-") != 0 && !(f = fopen(path, "r"))) {
		perror(path);
		return 2;
	}
	rng_meter_init(&m);
	while (fgets(line, sizeof(line), f)) {
		if (!parse_line(line, &raw, &sh))
			continue;
		add(raw_sym ? raw : sh);
		if (m.n % RNG_METER_W == 0) {
			h = rng_meter_estimate(&m);
			windows++;
			sum += h;
			if (h < low)
				low = h;
		}
	}
	if (f != stdin)
		fclose(f);
	if (m.n == 0) {
		fprintf(stderr, "h_estimate: no samples in %s\n", path);
		return 1;
	}
	report(raw_sym, low, windows, sum);
	return 0;
}
