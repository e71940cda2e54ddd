/* Writes v1.89 urandom's bytes for the fixed scenario (scenario.h) to stdout. */
/*
 * Built against entropy/ of the tree named in README, once; `make test`
 * never runs it. Usage: gen xymoron|tso > v189.bin
 */
#include <stdio.h>
#include <string.h>

#include "scenario.h"

void stub_reset(void);

static struct rng r;
static uint8_t out[URANDOM_V189_BYTES];

int main(int argc, char **argv)
{
	enum rng_estimator est;

	if (argc != 2 || (strcmp(argv[1], "xymoron") && strcmp(argv[1], "tso"))) {
		fprintf(stderr, "usage: gen xymoron|tso\n");
		return 2;
	}
	est = argv[1][0] == 'x' ? RNG_CREDIT_XYMORON : RNG_CREDIT_TSO;
	stub_reset();
	if (urandom_v189_scenario(&r, est, out) < 0) {
		fprintf(stderr, "gen: a read came up short\n");
		return 1;
	}
	return fwrite(out, 1, sizeof(out), stdout) == sizeof(out) ? 0 : 1;
}
