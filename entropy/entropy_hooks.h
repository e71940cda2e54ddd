/* rand86 entropy core: its bench and test hooks, the pieces called alone outside the flow of samples. */
#ifndef RAND86_ENTROPY_HOOKS_H
#define RAND86_ENTROPY_HOOKS_H
#include "entropy.h"

/*
 * Users of the core (kern/, drivers/, app/) need only entropy.h. These
 * are for what times or checks one piece of it by itself: `bench`
 * (app/cmd_bench.c, on its own scratch state), tools/, tests/unit and
 * tests/fuzz. The core's own files share them through entropy_internal.h.
 */

/* ---- The per-sample estimates and the 1999 path, for `bench` ---- */
/* The Ts'o (1999, v1.89) delta-of-deltas estimate of one sample; updates
 * src's 1999 state. */
unsigned rng_tso_estimate(struct entropy_source *src, uint32_t now);
/* Xymoron (patch 1/4) estimate of one sample; updates src's Xymoron state. */
unsigned rng_xymoron_estimate(struct entropy_source *src, uint32_t now, uint32_t switches);
/* Pool setup: zeroed words, 128 or 32 of them. */
void rng_pool_init(struct rng_pool *p, unsigned poolwords);
/* v1.89's add_timer_randomness: estimate, mix into p and credit it at once
 * (bench_hooks.c, as rng_bench_crng_key). */
void rng_sample_1999(struct rng_pool *p, struct entropy_source *src, uint32_t datum);

/* ---- The meter (measure.c) on its own: portable, integer-only, no seam
 * needed ---- */
void rng_meter_init(struct rng_meter *m);
/* Add one symbol: health tests, window counts, Lag predictor. */
void rng_meter_add(struct rng_meter *m, uint8_t sym);
/* Recompute and return h_milli = min(MCV, Lag, the held full assessment)
 * over the window, 0..8000 (0 from RNG_METER_MIN symbols on while no
 * assessment is held that postdates the last health failure); runs the
 * full assessment when it is due, or marks it wanted if deferred. */
uint32_t rng_meter_estimate(struct rng_meter *m);
/* h (milli) times the share a window of the meter's fill is paid:
 * docs/ENTROPY.md, "What a window is paid". */
uint32_t rng_meter_paid(const struct rng_meter *m, uint32_t h);
/* The row of RNG_PAY_PERMILLE an estimate h (milli) is paid from. */
unsigned rng_meter_pay_level(uint32_t h);
/* The full assessment (6.3.2-6.3.6 on the window's symbols and bits) now;
 * its result is also held in m->full_milli. */
uint32_t rng_meter_full_milli(struct rng_meter *m);
/* The deferred form's other halves (rng_full_job_run is in entropy.h). */
void rng_full_job_take(struct rng_full_job *j, struct rng_meter *m);
void rng_full_job_post(const struct rng_full_job *j);
enum rng_health rng_meter_health(const struct rng_meter *m);
/* The two estimates alone (thousandths of a bit). */
uint32_t rng_meter_mcv_milli(struct rng_meter *m);
uint32_t rng_meter_lag_milli(struct rng_meter *m);   /* caches its local bound */

/* Key a SCRATCH instance's urandom generator from its pools, no credit
 * taken or checked: bench times ChaCha20 without honest samples. Never on
 * the live instance (urandom would serve unseeded). */
void rng_bench_crng_key(struct rng *r);

/* ---- Instance plumbing the appliance does not use ---- */
/* A sample counted on r->untrusted_sink (events, tso_bits), never
 * credited, whatever the sink's trusted flag. */
void add_untrusted_entropy(struct rng *r, uint32_t datum);
/* The instance NULL-handle samples go to (rng_set_default), or NULL. */
struct rng *rng_get_default(void);
#endif
