/* libFuzzer target: arbitrary operation sequences against entropy/. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "entropy_ops.h"

static struct ops_world fuzz_world;

/* Input: 4 bytes of setup (clock, granularities, estimator), then records
 * of 9 bytes: op, a (4 bytes LE), b (4 bytes LE). See entropy_ops.c. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t seed = 0;
	size_t i;

	if (size < 4)
		return 0;
	for (i = 0; i < 4; i++)
		seed |= (uint32_t)data[i] << (8 * i);
	ops_init(&fuzz_world, seed);
	for (i = 4; i + 9 <= size; i += 9) {
		const uint8_t *p = data + i;
		uint32_t a = p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 24;
		uint32_t b = p[5] | (uint32_t)p[6] << 8 | (uint32_t)p[7] << 16 | (uint32_t)p[8] << 24;
		const char *err = ops_step(&fuzz_world, p[0], a, b);

		if (err) {
			fprintf(stderr, "invariant broken at record %zu: %s\n", (i - 4) / 9, err);
			abort();
		}
	}
	return 0;
}
