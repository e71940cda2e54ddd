/* Operation driver for entropy/ property and fuzz tests (entropy_ops.c). */
#ifndef ENTROPY_OPS_H
#define ENTROPY_OPS_H

#include <stdint.h>

#include "entropy/entropy.h"

#define OPS_SOURCES 4
#define OPS_BUF 4096
#define OPS_KINDS 14      /* ops_step: op % OPS_KINDS picks the operation */

struct ops_world {
	struct rng r;
	struct entropy_source src[OPS_SOURCES];   /* keyboard, mouse, ne2k0 (untrusted), ata0 */
	struct rng_capture cap[OPS_SOURCES];
	uint8_t buf[OPS_BUF];
	char msg[200];
	uint32_t full_both;                       /* random reads that found both pools full */
	uint64_t primary_credited;                /* what flushes raised the primary count by */
	int apart;                                /* the appliance's form: kern/assess.c's */
	int job_taken, job_ran;                   /* apart: the one full assessment in hand */
	struct rng_full_job job;
};

void ops_init(struct ops_world *w, uint32_t seed);
/* Apply one operation; NULL if every invariant still holds, else why not. */
const char *ops_step(struct ops_world *w, uint8_t op, uint32_t a, uint32_t b);

#endif
