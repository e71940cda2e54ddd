/* credit_derive: what a window of n samples may be paid, from stored captures.
 *
 *   build/host/credit_derive [--check] CAPTURE.txt...
 *
 * Each CAPTURE holds consecutive samples of one source, a line each as
 * `samples` prints them (tests/vectors/credit/, scripts/credit_vectors.py);
 * the symbol is the low 8 bits of the shifted delta, the meter's. For each band n of
 * the meter's window (64, 128, 256, 512, 1024: the fills at which it runs
 * its assessment, entropy/measure.c) and each start s, STRIDE apart,
 * with s + n + 1024 symbols in the file:
 *
 *   r = (the meter's estimate after a fresh meter is fed s..s+n-1)
 *       / (the full assessment, tools/full_assess.h, of the next 1024)
 *
 * which is what a source would be paid per sample at fill n over what
 * the standard finds in the stretch that follows. Per file and band,
 * the mean of r and its upper 99% confidence bound (SP 800-90B's
 * confidence, z = 2.576) over the starts, counting as independent only
 * windows of n that do not overlap. The windows are sorted by the level
 * of the estimate itself (RNG_PAY_LEVEL_MILLI: the meter knows it when
 * it pays), a level with under K_MIN windows in a file joining the one
 * below. A cell's bound is the largest over the files, its factor
 * 1000 / bound, at most 1000 per mille; a cell no file fills takes the
 * largest bound of its band. docs/ENTROPY.md ("What a window is paid") gives the table.
 *
 * --check: exit 1 unless the factors equal RNG_PAY_PERMILLE
 * (entropy/entropy.h), so the table cannot drift from its derivation.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "entropy/entropy_internal.h"
#include "tools/full_assess.h"

#define BANDS 5
#define NEXT 1024
#define STRIDE 64
#define MAXLEN 65536
#define Z99 2.576
#define RATIO_MAX 8.0                        /* a window whose next stretch has nothing */

#define LEVELS 3
#define K_MIN 8                              /* windows a file needs in a cell to bound it */

static const uint32_t band_n[BANDS] = { 64, 128, 256, 512, 1024 };
static const uint32_t level_from[LEVELS] = RNG_PAY_LEVEL_MILLI;
static const uint32_t table[LEVELS][BANDS] = RNG_PAY_PERMILLE;

static struct rng_meter m;
static uint8_t sym[MAXLEN];

/* The meter's estimate after n fresh symbols: what rng_pay_milli starts from. */
static uint32_t meter_after(const uint8_t *s, uint32_t n)
{
	rng_meter_init(&m);
	for (uint32_t i = 0; i < n; i++)
		rng_meter_add(&m, s[i]);
	return rng_meter_estimate(&m);
}

struct stat {
	double sum, sq, max;
	uint32_t k;
};

static void stat_add(struct stat *st, double r)
{
	st->sum += r;
	st->sq += r * r;
	st->k++;
	if (r > st->max)
		st->max = r;
}

static void stat_merge(struct stat *into, struct stat *from)
{
	into->sum += from->sum;
	into->sq += from->sq;
	into->k += from->k;
	if (from->max > into->max)
		into->max = from->max;
	memset(from, 0, sizeof(*from));
}

/* The upper 99% bound of the mean ratio, with k_eff independent windows. */
static double stat_upper(const struct stat *st, double k_eff)
{
	double mean = st->sum / st->k, var = st->sq / st->k - mean * mean;

	if (var < 0)
		var = 0;
	if (k_eff < 1)
		k_eff = 1;
	return mean + Z99 * sqrt(var * st->k / (st->k > 1 ? st->k - 1 : 1) / k_eff);
}

/* The symbols of a capture: lines "RAW SHIFTED" in hex, the low 8 bits of SHIFTED. */
static long load(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned raw, shifted;
	long len = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	while (len < MAXLEN && fscanf(f, "%8x %8x", &raw, &shifted) == 2)
		sym[len++] = (uint8_t)shifted;
	fclose(f);
	return len;
}

/* One file's line per band and level; the cells' bounds raised to it. */
static int derive_file(const char *path, double bound[LEVELS][BANDS])
{
	long len = load(path);

	if (len < 0)
		return -1;
	for (unsigned b = 0; b < BANDS; b++) {
		struct stat st[LEVELS] = { { 0 } };
		uint32_t n = band_n[b], k = 0;

		for (uint32_t s = 0; s + n + NEXT <= (uint32_t)len; s += STRIDE, k++) {
			uint32_t h = meter_after(sym + s, n);
			uint32_t next = full_assess_block(sym + s + n, NEXT, NULL);
			stat_add(&st[rng_meter_pay_level(h)], next ? (double)h / next : h ? RATIO_MAX : 0.0);
		}
		if (k == 0) {
			fprintf(stderr, "%s: %ld symbols, too few for n = %u\n", path, len, n);
			return -1;
		}
		/* a level with too few windows joins the one below */
		for (unsigned l = LEVELS - 1; l > 0; l--)
			if (st[l].k < K_MIN)
				stat_merge(&st[l - 1], &st[l]);
		for (unsigned l = 0; l < LEVELS; l++) {
			double up;

			if (st[l].k < K_MIN)
				continue;
			/* independent: windows of n that do not overlap */
			up = stat_upper(&st[l], (double)(st[l].k - 1) * STRIDE / n + 1);
			printf("%-34s n=%-5u h>=%4u windows %3u  mean %.3f  max %.3f  upper99 %.3f\n",
			       path, n, level_from[l], st[l].k, st[l].sum / st[l].k, st[l].max, up);
			if (up > bound[l][b])
				bound[l][b] = up;
		}
	}
	return 0;
}

/* A cell no file bounds takes its band's largest bound over every level. */
static uint32_t factor(double bound[LEVELS][BANDS], unsigned l, unsigned b)
{
	double up = bound[l][b];

	if (up == 0.0)
		for (unsigned j = 0; j < LEVELS; j++)
			if (bound[j][b] > up)
				up = bound[j][b];
	return up <= 1.0 ? 1000 : (uint32_t)(1000.0 / up);
}

int main(int argc, char **argv)
{
	double bound[LEVELS][BANDS] = { { 0 } };
	int check = 0, files = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--check") == 0) {
			check = 1;
			continue;
		}
		if (derive_file(argv[i], bound) < 0)
			return 2;
		files++;
	}
	if (!files) {
		fprintf(stderr, "usage: %s [--check] CAPTURE.txt...\n", argv[0]);
		return 2;
	}
	printf("#define RNG_PAY_PERMILLE {");
	for (unsigned l = 0; l < LEVELS; l++) {
		printf(" {");
		for (unsigned b = 0; b < BANDS; b++) {
			uint32_t f = factor(bound, l, b);
			printf(" %u%s", f, b + 1 < BANDS ? "," : " }");
			bad |= f != table[l][b];
		}
		printf("%s", l + 1 < LEVELS ? "," : " }\n");
	}
	if (check && bad) {
		fprintf(stderr, "credit_derive: RNG_PAY_PERMILLE in entropy/entropy.h differs from "
			"the derivation above: put the line above there (docs/ENTROPY.md)\n");
		return 1;
	}
	return 0;
}
