/* h_estimate: the appliance's live min-entropy estimate, run on a `samples` capture.
 *
 *   build/host/h_estimate [--raw] [CAPTURE.txt | -]
 *
 * Reads the console text of `samples NAME N` (lines "RAW SHIFTED" in hex;
 * anything else is skipped, as tools/samples2bin.py does), feeds the low
 * 8 bits of the shifted delta (or of the raw delta with --raw, matching
 * samples2bin.py's --raw) through entropy/measure.c, the same code the
 * appliance runs in its tick flush, and prints the health-test results
 * and the MCV, Lag and combined estimates over the last window, plus the
 * lowest and mean estimate over every full window of the capture. Compare
 * with `ea_non_iid -v FILE.bin 8` on samples2bin.py's output (docs/ENTROPY.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "entropy/entropy_hooks.h"

static struct rng_meter m;

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
		rng_meter_add(&m, (uint8_t)(raw_sym ? raw : sh));
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
	h = rng_meter_estimate(&m);
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
	return 0;
}
