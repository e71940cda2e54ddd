/* The full SP 800-90B 6.3 assessment of one block, for the host tools and tests.
 *
 * Every non-IID estimator (MCV, collision, Markov, compression, t-tuple,
 * LRS, MultiMCW, Lag, MultiMMC, LZ78Y; entropy/est_stat.c and est_pred.c,
 * each checked against stored ea_non_iid figures by the unit tests) on
 * the symbols and on their bits, combined as ea_non_iid combines them:
 * min(H_original, 8 x H_bitstring). A block holds at most
 * RNG_EST_NMAX_LIT = 1024 symbols, the meter's window. Not built into
 * the appliance: its meter runs a subset (entropy/measure.c).
 */
#ifndef RAND86_FULL_ASSESS_H
#define RAND86_FULL_ASSESS_H

#include <stdint.h>

#define FULL_ASSESS_NEST 10                  /* estimators, in ea_non_iid's order */

/* Per estimator, over the blocks assessed into it: [literal, 8 x bitstring], milli. */
struct full_tally {
	uint64_t sum[2][FULL_ASSESS_NEST];
	uint32_t low[2][FULL_ASSESS_NEST], blocks;
};

extern const char *const full_assess_name[FULL_ASSESS_NEST];

/* min(H_original, 8 x H_bitstring) of s[0..n-1], n <= 1024, in millibits a
 * symbol; each estimator's figure added to t unless t is NULL. */
uint32_t full_assess_block(const uint8_t *s, uint32_t n, struct full_tally *t);

#endif
