/* The credit policies: one enum for the boot option (lib/options.c) and the entropy core. */
#ifndef RAND86_CREDIT_H
#define RAND86_CREDIT_H

/* xymoron and tso are the 2002 and 1999 rules exactly, with the seed's
 * sources; measured is Xymoron's capped by the live SP 800-90B meter
 * (docs/PROTOCOL.md "Boot options", docs/ENTROPY.md). */
enum rng_estimator { RNG_CREDIT_XYMORON = 0, RNG_CREDIT_TSO = 1, RNG_CREDIT_MEASURED = 2 };

#endif
