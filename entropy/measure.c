/* Live min-entropy of a trusted source: SP 800-90B health tests and estimates. */
/*
 * What is measured
 * ================
 *
 * Each trusted sample gives one SYMBOL: the low 8 bits of its shifted
 * delta (clock delta >> the source's shift), the byte tools/samples2bin.py
 * writes by default, so h_milli on the appliance and NIST's ea_non_iid on
 * a `samples` capture judge the same symbols. Xymoron's per-sample rule
 * guesses entropy from one delta and its predecessor; these estimators
 * look at the source's recent history instead, and catch what the guess
 * cannot: a typist's press/release rhythm alternates ~1 ms and ~49 ms, so
 * |delta - last delta| is never small, yet every other symbol repeats.
 *
 * Numbers (all from NIST SP 800-90B, January 2018)
 * ================================================
 *
 *   Health tests (4.4). The standard derives the cutoffs from a claimed
 *   min-entropy H per sample and a false-positive rate alpha:
 *     - H = 2 bits: the least a symbol must carry to be worth crediting
 *       at all (Xymoron's Benford table gives 2 bits to a delta of 16
 *       units). A source whose commonest symbol has probability 1/4 or
 *       more fails, as it should: it is not the source we think it is.
 *     - alpha = 2^-30, inside the 2^-20..2^-40 the standard suggests
 *       (4.4): the timer source at hz=1000 would see one false alarm in
 *       about 12 days at 2^-30, every 17 minutes at 2^-20.
 *     - Repetition Count Test (4.4.1): C = 1 + ceil(30 / 2) = 16.
 *     - Adaptive Proportion Test (4.4.2), W = 1024 (non-binary):
 *       C = 1 + CRITBINOM(1024, 2^-2, 1 - 2^-30) = 343 (the smallest k
 *       with P(Binomial(1024, 1/4) <= k - 1) >= 1 - 2^-30, computed
 *       exactly with rational arithmetic).
 *   A failure makes the source credit nothing until RNG_METER_W further
 *   samples have passed both tests; each failure episode is counted once
 *   (RCT: when the run reaches C; APT: once per window).
 *
 *   Estimates over a sliding window of the last RNG_METER_W = 1024
 *   symbols (the APT's window, so both judge the same stretch):
 *     - Most Common Value (6.3.1): p_u = min(1, p + 2.576 sqrt(p(1-p) /
 *       (N-1))), H = -log2 p_u.
 *     - Lag prediction (6.3.8), lags 1..32 (the standard uses 128; 32
 *       covers every press/release or packet rhythm of period <= 32 at a
 *       quarter of the cost): each symbol is predicted by the lag with
 *       the most hits over the window; with C correct out of N, the
 *       global bound is P = C/N raised like MCV's (with no hit at all,
 *       ln(100)/N, an upper bound of the standard's 1 - 0.01^(1/N)).
 *       The local bound from the longest run of correct predictions
 *       (6.3.8 step 5) is approximated (see rng_local_bound_q32); it is
 *       what catches a metronome typist whose jitter spreads the symbols
 *       (on one capture: global 1.51 bits, local 0.66, ea_non_iid's
 *       literal Lag estimate 0.69).
 *     - The full assessment (rng_meter_full_milli): every estimator
 *       ea_non_iid's minimum came from on this appliance's captures, run
 *       on a copy of the window as the tool runs them: t-tuple (6.3.5)
 *       and LRS (6.3.6) on the symbols; collision (6.3.2), Markov
 *       (6.3.3), compression (6.3.4), t-tuple and LRS on their bits, MSB
 *       first, times 8 (est_stat.c; each within 2% below the tool's
 *       figure and never above it on stored vectors). On captures of
 *       steady and burst typing t-tuple set the tool's minimum (a rhythm
 *       that repeats whole tuples), on the timer the bitstring collision
 *       estimate, on irregular typing, the mouse and a 486 the bitstring
 *       compression estimate or MCV; on a metronome typist over QMP,
 *       literal LZ78Y and MultiMMC (6.3.9, 6.3.10), so those two run on
 *       the symbols too (est_pred.c). MultiMCW on symbols the tool runs
 *       only from 4,096 samples up; the bits' predictors never bit.
 *       It costs ~5.7 M host instructions on a full window (3.8 M of
 *       them the estimators of 6.3.2-6.3.6, ~10 M at worst, a period-3
 *       bitstring), so it runs at 64, 128, 256, 512
 *       and 1024 symbols and then every RNG_METER_FULL_EVERY = 512 (for
 *       a periodic source faster than 512 a second, once a second: the
 *       rtc at 4096 Hz would otherwise run it 7 times a second, ~35 M
 *       instructions, a third of a Pentium's), and
 *       its last result is held (`full_milli` and `full_age` in
 *       `sources`). A source that turns predictable is caught at once by
 *       the health tests, MCV and Lag, and by the full assessment within
 *       512 samples.
 *   The estimate is min(MCV, Lag, the held full assessment), at most 8
 *   bits (the symbol's width), never negative; MCV and Lag are capped
 *   below at 1/256 as the standard does (max(P, 1/k)).
 *
 *   Window size: 1024 symbols. For an ideal 8-bit source the MCV bound
 *   over 1024 symbols comes out near 5.7 bits (the confidence term costs
 *   more on fewer), comfortably above what Xymoron's rule gives typing
 *   (2-4 bits), so the cap bites only where the history says the source
 *   is worse than the rule thinks. It costs ~7 KiB per source (history,
 *   counts, lag scores, hit bits), and at a typist's 5-10 events a second
 *   it covers the last two or three minutes: long enough to see a
 *   rhythm, short enough to follow a change of typist or of habit.
 *   No credit before RNG_METER_MIN = 64 symbols are in the window: the
 *   99% upper bounds above already shrink with few symbols (an ideal
 *   source scores ~3.3 bits at 64), and 64 symbols hold two full
 *   periods of the longest lag, so a rhythm is seen before it is paid.
 *
 * This differs from ea_non_iid on a capture: the tool asks for 1,000,000
 * symbols, this judges the last 1024, so its confidence terms are wider
 * and it comes out lower on a steady source. tools/h_estimate runs this
 * code on a capture so the two can be compared (docs/ENTROPY.md).
 *
 * Cost (docs/ENTROPY.md, "What the meter costs"): rng_meter_add() runs
 * in the tick flush, never in interrupt context, and does no work per lag
 * or per symbol value: Lag's matches come from near[] (where each value
 * sits among the last 32), the scores move only for lags that match, the
 * winner is compared with those alone, MCV's top count and the longest
 * run of hits are kept as they change (a rescan only when the one symbol
 * at the top, or a hit, leaves the window). rng_meter_estimate() is then
 * a few compares once per flush per source that had samples, plus
 * logarithms only when a count moved (cached) and the local bound's
 * bisection only where it can be the least figure. Both are held to the
 * plain compare-everything form in tests/unit/test_entropy_measure.c.
 * The full assessment runs apart from the flush where the kernel says so
 * (rng_defer_full_assessments: kern/assess.c runs it in the main loop's
 * idle time, within a CPU budget), else in the estimate that finds it
 * due. Integer only: the kernel has no FPU
 * code (-mgeneral-regs-only).
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "entropy_internal.h"

static void rng_run_tables(void);

void rng_meter_init(struct rng_meter *m)
{
	rng_run_tables();                    /* once, at a source's start, not in a flush */
	memset(m, 0, sizeof(*m));
	m->full_milli = RNG_METER_MAX_MILLI;
	m->full_every = RNG_METER_FULL_EVERY;
	m->winner = RNG_METER_LAGS - 1;      /* all scores 0: ties go to the longer lag */
}

/**********************************************************************
 * Health tests (4.4.1 and 4.4.2)
 **********************************************************************/

static void rng_meter_health_add(struct rng_meter *m, uint8_t sym)
{
	if (m->clean_left)
		m->clean_left--;
	/* Repetition Count Test */
	if (m->n == 0 || sym != m->rct_a) {
		m->rct_a = sym;
		m->rct_b = 1;
	} else if (m->rct_b < UINT16_MAX) {
		m->rct_b++;
	}
	if (m->rct_b >= RNG_METER_RCT_C) {
		if (m->rct_b == RNG_METER_RCT_C)
			m->rct_fail++;
		m->clean_left = RNG_METER_W;
	}
	/* Adaptive Proportion Test: windows of W, the first symbol counted */
	if (m->apt_i == 0) {
		m->apt_a = sym;
		m->apt_b = 1;
	} else if (sym == m->apt_a) {
		m->apt_b++;
		if (m->apt_b >= RNG_METER_APT_C) {
			if (m->apt_b == RNG_METER_APT_C)
				m->apt_fail++;
			m->clean_left = RNG_METER_W;
		}
	}
	if (++m->apt_i == RNG_METER_W)
		m->apt_i = 0;
}

/*
 * Start-up (4.3 item 8 asks for start-up tests over the first 1024
 * samples before any output). rand86 credits from 64 symbols on, so that
 * a TCG boot seeds from the timer in seconds; over the first window the
 * APT's question is asked of every prefix instead: does any symbol occur
 * more often than H = 2 bits allows in n samples, at the same alpha? The
 * cutoff is the normal bound n/4 + z sqrt(3n/16) + 1, z = 6.109 for
 * 2^-30 one-sided (341 at n = 1024, against the exact binomial 343).
 * It caught the timer of a deterministic emulator (-icount, sleep=off):
 * 80% one symbol, which the APT proper sees only after ~430 samples and
 * the full assessment only at 256, while MCV over the first 64 still
 * paid 0.13 bits a sample.
 */
#define RNG_METER_Z_MILLI_2_30 6109u

static int rng_meter_startup_fails(const struct rng_meter *m, uint8_t sym)
{
	uint32_t n = (uint32_t)m->n + 1;   /* symbols in the window with sym */
	uint32_t c = m->count[sym] + 1u, s;

	if (4 * c <= n)
		return 0;                     /* within n/4: no root needed (the usual case) */
	s = rng_isqrt64((uint64_t)3 * n * 1000000u);
	return c >= 1 + (1000u * n + RNG_METER_Z_MILLI_2_30 * s / 1000u) / 4000u;
}

enum rng_health rng_meter_health(const struct rng_meter *m)
{
	if (m->clean_left)
		return RNG_HEALTH_FAIL;
	if (m->n < RNG_METER_MIN)
		return RNG_HEALTH_WARMUP;
	return RNG_HEALTH_OK;
}

const char *rng_health_name(enum rng_health h)
{
	return h == RNG_HEALTH_OK ? "ok" : h == RNG_HEALTH_FAIL ? "fail" : "warmup";
}

/**********************************************************************
 * The window: MCV counts and the Lag predictor
 **********************************************************************/

/* MCV's count, and the largest one kept as it moves (a rescan of the 256
 * only when the one symbol at the top leaves it). */
static void rng_count_up(struct rng_meter *m, uint8_t sym)
{
	uint16_t c = ++m->count[sym];

	if (c > m->count_max) {
		m->count_max = c;
		m->count_at_max = 1;
	} else if (c == m->count_max) {
		m->count_at_max++;
	}
}

static void rng_count_down(struct rng_meter *m, uint8_t sym)
{
	unsigned i;

	if (m->count[sym]-- != m->count_max || --m->count_at_max)
		return;
	m->count_max--;                     /* sym itself is there now */
	for (i = 0; i < 256; i++)
		m->count_at_max += m->count[i] == m->count_max;
}

/* The lag index d (0 = lag 1) of a match of symbol k found at bit q. */
static unsigned rng_lag_of(uint64_t k, unsigned q)
{
	return (unsigned)(k - 1 - q) & (RNG_METER_LAGS - 1);
}

/* The lag with the most hits, ties to the longer lag; the old winner
 * keeps its place unless another lag scored past it, or it lost a hit
 * (then all 32 are compared). Same choice as comparing all 32 each time. */
static void rng_lag_rescan(struct rng_meter *m)
{
	unsigned d, best = 0;

	for (d = 1; d < RNG_METER_LAGS; d++)
		if (m->score[d] >= m->score[best])
			best = d;
	m->winner = (uint8_t)best;
}

/* The symbol W back leaves the window as sym comes in: undo its hit and
 * lag scores, move both counts (the new one first: the top then seldom
 * needs a rescan). 1 if the winning lag lost a hit. */
static int rng_meter_forget(struct rng_meter *m, uint8_t sym, unsigned bitpos, uint8_t mask)
{
	uint64_t j = m->n - RNG_METER_W;
	uint32_t mk = m->match[j & (RNG_METER_W - 1)];
	unsigned jp = m->pos + RNG_METER_LAGS + 1, d;
	int lost = 0;

	if (jp >= RNG_METER_HIST)
		jp -= RNG_METER_HIST;
	if (m->hist[jp] != sym) {
		rng_count_up(m, sym);
		rng_count_down(m, m->hist[jp]);
	}
	if (m->hit[bitpos >> 3] & mask) {
		m->hits--;
		m->run_stale = 1;               /* it may have been in the longest run */
	}
	for (; mk; mk &= mk - 1) {
		d = rng_lag_of(j, (unsigned)__builtin_ctz(mk));
		m->score[d]--;
		lost |= d == m->winner;
	}
	return lost;
}

/* Lag (6.3.8): predict sym with the current winner, score every lag that
 * matches (near[]: no compare for the others), then pick the winner. */
static void rng_meter_predict(struct rng_meter *m, uint8_t sym, unsigned bitpos, uint8_t mask,
	int rescan)
{
	uint64_t k = m->n;
	uint32_t mk = m->near[sym], q = (uint32_t)k & (RNG_METER_LAGS - 1);
	unsigned d, w = m->winner;
	unsigned old = m->pos + RNG_METER_HIST - RNG_METER_LAGS;

	m->match[k & (RNG_METER_W - 1)] = mk;
	if (mk >> rng_lag_of(k, w) & 1) {     /* the winner's bit: d = w at q = k-1-w */
		m->hit[bitpos >> 3] |= mask;
		m->hits++;
		if (++m->run_tail > m->run_max)
			m->run_max = m->run_tail;   /* while not stale: ones only came in */
	} else {
		m->run_tail = 0;
	}
	for (; mk; mk &= mk - 1) {
		d = rng_lag_of(k, (unsigned)__builtin_ctz(mk));
		m->score[d]++;
		if (!rescan && (m->score[d] > m->score[w] || (m->score[d] == m->score[w] && d > w)))
			w = d;
	}
	/* symbol k - 32 leaves near[] (its bit is k's), symbol k comes in */
	if (k >= RNG_METER_LAGS)
		m->near[m->hist[old >= RNG_METER_HIST ? old - RNG_METER_HIST : old]] &= ~(1u << q);
	m->near[sym] |= 1u << q;
	if (rescan)
		rng_lag_rescan(m);
	else
		m->winner = (uint8_t)w;
}

void rng_meter_add(struct rng_meter *m, uint8_t sym)
{
	unsigned bitpos = (unsigned)m->n & (RNG_METER_W - 1);
	uint8_t mask = (uint8_t)(1u << (bitpos & 7));
	int rescan = 0;

	rng_meter_health_add(m, sym);
	if (m->n < RNG_METER_W && rng_meter_startup_fails(m, sym)) {
		if (!m->clean_left)
			m->apt_fail++;
		m->clean_left = RNG_METER_W;
	}
	if (m->n >= RNG_METER_W)
		rescan = rng_meter_forget(m, sym, bitpos, mask);
	else
		rng_count_up(m, sym);
	m->hit[bitpos >> 3] &= (uint8_t)~mask;
	rng_meter_predict(m, sym, bitpos, mask, rescan);
	m->hist[m->pos] = sym;
	if (++m->pos == RNG_METER_HIST)
		m->pos = 0;
	m->n++;
}

static uint32_t rng_meter_window(const struct rng_meter *m)
{
	return m->n < RNG_METER_W ? (uint32_t)m->n : RNG_METER_W;
}

/* rng_ucb_milli(c, n) through a one-entry cache: c and n move seldom once
 * the window is full. (cc == 0 && cn == 0 never caches a real call: the
 * bound of 0 in 0 is asked of nobody.) */
static uint32_t rng_ucb_cached(uint32_t c, uint32_t n, uint32_t *cc, uint32_t *cn, uint32_t *h)
{
	if (c != *cc || n != *cn || (c == 0 && n == 0)) {
		*h = rng_ucb_milli(c, n);
		*cc = c;
		*cn = n;
	}
	return *h;
}

uint32_t rng_meter_mcv_milli(struct rng_meter *m)
{
	return rng_ucb_cached(m->count_max, rng_meter_window(m), &m->mcv_c, &m->mcv_n,
		&m->mcv_milli);
}

/*
 * The local bound of 6.3.8 from the longest run r of correct predictions
 * in n: the p for which a run longer than r shows up in n trials with
 * probability 1%. The standard solves its exact run-length equation;
 * this uses the usual approximation P(no run of r+1) ~ exp(-n q p^(r+1)),
 * i.e. p^(r+1) * n * (1 - p) = -ln(0.99) = 0.01005, solved by bisection
 * in the log2 domain (Q16) below the maximum of the left side at
 * p = (r+1)/(r+2). It lands a little ABOVE the standard's p (on a
 * metronome capture of 639 predictions with r = 21: 0.633 against
 * ea_non_iid's 0.619), so it errs low on entropy. Returns p * 2^32.
 */
#define RNG_LOG2_Q16_0_01005 (-434941)     /* floor(2^16 * log2(0.01005)) */

/* At p (Q32): is p^(r+1) n (1 - p) at least 0.01005, i.e. p at or above
 * the bound? log2n is rng_log2_q16(n), taken once by the caller. */
static int rng_local_at_or_above(uint64_t p, uint32_t r, uint32_t log2n)
{
	int64_t f = (int64_t)(r + 1) * ((int64_t)rng_log2_q16(p) - (32 << 16))
		+ (int64_t)log2n + (int64_t)rng_log2_q16((1ull << 32) - p) - (32 << 16);

	return f >= RNG_LOG2_Q16_0_01005;
}

static uint64_t rng_local_top_q32(uint32_t r)
{
	return ((uint64_t)(r + 1) << 32) / (r + 2);
}

static uint64_t rng_local_bound_q32(uint32_t r, uint32_t n)
{
	uint64_t lo = 0, hi = rng_local_top_q32(r), mid;
	uint32_t log2n = rng_log2_q16(n);
	int i;

	for (i = 0; i < 24; i++) {
		mid = (lo + hi) / 2;
		if (mid == 0)
			mid = 1;
		if (rng_local_at_or_above(mid, r, log2n))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/*
 * Can the local bound be skipped because min(it, cap) is cap? Yes when
 * the p of cap + RNG_LOCAL_MARGIN_MILLI already lies at or above the
 * bound's p: the bisection's p is then no larger (it ends within 2^-24
 * of the top of the branch of its root, a change of under 10^-4 milli
 * where this is asked), so its figure is at least cap. One test instead
 * of the bisection's 24, asked only in the lower half of the branch,
 * where the test's left side rises steeply enough that the logarithms'
 * truncation cannot move the root by a milli. Same result as running it.
 */
#define RNG_LOCAL_MARGIN_MILLI 3u

static int rng_local_above_cap(uint32_t cap, uint32_t r, uint32_t n)
{
	int64_t l = -(((int64_t)(cap + RNG_LOCAL_MARGIN_MILLI) << 16) + 999) / 1000;
	uint64_t p = rng_exp2_up_q32(l);

	return p <= rng_local_top_q32(r) / 2 && rng_local_at_or_above(p, r, rng_log2_q16(n));
}

/*
 * Longest run of correct predictions in the window, oldest to newest. A
 * whole byte of hit[] at a time (bit 0 the oldest) through three tables:
 * the run of hits it starts with, the one it ends with, the longest in
 * it; partial bytes at the window's two ends a bit at a time. ~10
 * instructions a byte: a rescan of the full window on a 386 costs what
 * ~2,000 instructions do, where a bit at a time cost ~15,000.
 */
static uint8_t run_head[256], run_tail[256], run_most[256];

/* Each byte from one before it, ~5,000 instructions once (rng_meter_init) */
static void rng_run_tables(void)
{
	unsigned b;

	if (run_most[0xff])
		return;
	for (b = 1; b < 256; b++) {
		/* b >> 1 and (b << 1) & 0xff (below b when bit 7 is set) are done */
		run_head[b] = (uint8_t)(b & 1 ? run_head[b >> 1] + 1 : 0);
		run_tail[b] = (uint8_t)(b & 0x80 ? run_tail[(b << 1) & 0xff] + 1 : 0);
		/* the runs of b >> 1, and the one that b's bit 0 starts */
		run_most[b] = run_most[b >> 1] > run_head[b] ? run_most[b >> 1] : run_head[b];
	}
}

static uint32_t rng_meter_longest_run(const struct rng_meter *m, uint32_t n)
{
	uint32_t i = 0, run = 0, best = 0;
	unsigned p = (unsigned)((m->n - n) & (RNG_METER_W - 1)), b;

	rng_run_tables();
	while (i < n) {
		if ((p & 7) == 0 && n - i >= 8) {
			b = m->hit[p >> 3];
			if (b == 0xff) {
				run += 8;
			} else {
				run += run_head[b];
				if (run > best)
					best = run;
				if (run_most[b] > best)
					best = run_most[b];
				run = run_tail[b];
			}
			i += 8;
			p = (p + 8) & (RNG_METER_W - 1);
		} else {
			run = m->hit[p >> 3] & (1u << (p & 7)) ? run + 1 : 0;
			i++;
			p = (p + 1) & (RNG_METER_W - 1);
		}
		if (run > best)
			best = run;
	}
	return best;
}

/* min(Lag, cap), as min(rng_meter_lag_milli(m), cap) but without the
 * local bound's bisection where it cannot be the least (most flushes of
 * a window still filling, where n moves with every symbol). */
static uint32_t rng_meter_lag_capped(struct rng_meter *m, uint32_t cap)
{
	uint32_t n = rng_meter_window(m), g, r, h;
	uint64_t pl;

	/* the very first symbol had nothing to be predicted from */
	if (m->n <= RNG_METER_W && n)
		n--;
	if (n == 0)
		return cap < RNG_METER_MAX_MILLI ? cap : RNG_METER_MAX_MILLI;
	g = rng_ucb_cached(m->hits, n, &m->glob_c, &m->glob_n, &m->glob_milli);
	if (g < cap)
		cap = g;
	if (m->run_stale) {
		/* the last run is within the window (a run as long as it would
		 * have lost its first one, and then the count starts anew) */
		m->run_max = (uint16_t)rng_meter_longest_run(m, n);
		if (m->run_tail > m->run_max)
			m->run_tail = m->run_max;
		m->run_stale = 0;
	}
	r = m->run_max;
	if (r == 0)
		return cap;
	if (r != m->local_r || n != m->local_n) {
		if (r == m->clear_r && n == m->clear_n && cap <= m->clear_cap)
			return cap;
		if (rng_local_above_cap(cap, r, n)) {
			m->clear_r = r;
			m->clear_n = n;
			m->clear_cap = cap;
			return cap;
		}
	}
	if (r != m->local_r || n != m->local_n) {
		/* the bisection costs ~70 logarithms: only when r or n moved */
		pl = rng_local_bound_q32(r, n);
		if (pl < 1ull << 24)
			pl = 1ull << 24;
		m->local_milli = rng_milli_of_q32(pl);
		m->local_r = r;
		m->local_n = n;
	}
	h = m->local_milli;
	return h < cap ? h : cap;
}

uint32_t rng_meter_lag_milli(struct rng_meter *m)
{
	return rng_meter_lag_capped(m, RNG_METER_MAX_MILLI);
}

/**********************************************************************
 * The full assessment: the rest of 6.3 over the window, now and then
 **********************************************************************/

/* A work area: the window's symbols, their bits, the estimators'
 * scratch. Two of them: one for the one-shot form (tools, tests, bench's
 * scratch meters), one for the deferred job, which a main loop can stop
 * between any two instructions while it runs the one-shot form. */
struct rng_full_area {
	uint8_t sym[RNG_METER_W];
	uint8_t bit[RNG_METER_W * 8];
	uint32_t work[RNG_EST_STAT_SCRATCH / 4];
};
_Static_assert(sizeof(((struct rng_full_area *)0)->work) >= RNG_EST_PRED_LIT_SCRATCH,
	       "the predictors on a window's symbols need more work area");
static struct rng_full_area rng_full_now, rng_full_job_area;

static uint32_t rng_min3(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t m = a < b ? a : b;

	return m < c ? m : c;
}

static uint32_t rng_meter_fails(const struct rng_meter *m)
{
	return m->rct_fail + m->apt_fail;
}

/* Copy the window into a->sym, oldest first, as captured; its length. */
static uint32_t rng_full_copy(const struct rng_meter *m, struct rng_full_area *a)
{
	uint32_t n = rng_meter_window(m), i;
	unsigned p = (unsigned)((m->pos + RNG_METER_HIST - n) % RNG_METER_HIST);

	for (i = 0; i < n; i++, p = p + 1 == RNG_METER_HIST ? 0 : p + 1)
		a->sym[i] = m->hist[p];
	return n;
}

/* The estimators on a->sym[0..n): the least figure, 0..8000. Touches
 * nothing but *a, so it may run anywhere, and be stopped anywhere. */
static uint32_t rng_full_assess(struct rng_full_area *a, uint32_t n)
{
	uint32_t nb = n * 8, t, l, h;
	void *w = a->work;

	rng_est_bits(a->sym, n, a->bit);
	/* H_original: t-tuple and LRS on the symbols (MCV and Lag run live),
	 * and the two dictionary predictors */
	rng_est_tuple_lrs_milli(a->sym, n, 8, w, &t, &l);
	h = t < l ? t : l;
	rng_est_mmc_lz78y_milli(a->sym, n, w, &t, &l);
	h = rng_min3(h, t, l);
	/* 8 x H_bitstring: every estimator the tool runs on the bits but
	 * MCV, MultiMCW, Lag and the predictors (never the minimum on this
	 * appliance's captures: docs/ENTROPY.md; the bits' dictionaries
	 * would cost eight times the symbols') */
	rng_est_tuple_lrs_milli(a->bit, nb, 1, w, &t, &l);
	h = rng_min3(h, 8 * t, 8 * l);
	h = rng_min3(h, 8 * rng_est_collision_milli(a->bit, nb, 1, w),
		8 * rng_est_markov_milli(a->bit, nb, 1, w));
	return rng_min3(h, 8 * rng_est_compression_milli(a->bit, nb, 1, w), RNG_METER_MAX_MILLI);
}

static void rng_full_hold(struct rng_meter *m, uint32_t h, uint64_t at_n, uint32_t fails)
{
	m->full_milli = h;
	m->full_n = at_n;
	m->full_fails = fails;
}

uint32_t rng_meter_full_milli(struct rng_meter *m)
{
	uint32_t h = rng_full_assess(&rng_full_now, rng_full_copy(m, &rng_full_now));

	rng_full_hold(m, h, m->n, rng_meter_fails(m));
	return h;
}

void rng_full_job_take(struct rng_full_job *j, struct rng_meter *m)
{
	j->m = m;
	j->at_n = m->n;
	j->fails = rng_meter_fails(m);
	j->n = rng_full_copy(m, &rng_full_job_area);
	m->full_wanted = 0;
}

void rng_full_job_run(struct rng_full_job *j)
{
	j->result = rng_full_assess(&rng_full_job_area, j->n);
}

void rng_full_job_post(const struct rng_full_job *j)
{
	rng_full_hold(j->m, j->result, j->at_n, j->fails);
	j->m->full_wanted = 0;              /* asked again while it ran: judged anew */
}

/* The held figure speaks for the source now: it was taken, and no health
 * failure came after its window (a source that failed is judged afresh,
 * on a window taken after it passed again, before it is paid). */
static int rng_meter_full_current(const struct rng_meter *m)
{
	return m->full_n != 0 && m->full_fails == rng_meter_fails(m);
}

/* Due at 64, 128, 256, 512 and 1024 symbols, then every full_every
 * (RNG_METER_FULL_EVERY; a periodic source's rate in a second if that is
 * more, rng_source_periodic), and after a health failure once the tests
 * pass again: a full window's assessment costs ~6 M host instructions, so
 * it cannot run every flush. Not while the health tests fail: nothing is
 * credited then. (A deterministic emulator's timer fails them for good;
 * assessing it every 512 ticks cost urandom at 16 MIPS a sixth of its
 * rate.) */
static int rng_meter_full_due(const struct rng_meter *m)
{
	if (m->n < RNG_METER_MIN || m->clean_left)
		return 0;
	if (!rng_meter_full_current(m))
		return 1;
	if (m->full_n < RNG_METER_W)
		return m->n >= 2 * m->full_n || m->n >= RNG_METER_W;
	return m->n - m->full_n >= m->full_every;
}

uint32_t rng_meter_estimate(struct rng_meter *m)
{
	uint32_t mcv = rng_meter_mcv_milli(m), h;

	if (rng_meter_full_due(m)) {
		if (m->full_deferred)
			m->full_wanted = 1;         /* rng_full_job_take() runs it apart */
		else
			rng_meter_full_milli(m);
	}
	h = mcv < m->full_milli ? mcv : m->full_milli;
	h = rng_meter_lag_capped(m, h);
	/* Nothing from the start of the window's use until the first
	 * assessment is held, nor after a failure until the next one. */
	if (m->n >= RNG_METER_MIN && !rng_meter_full_current(m))
		h = 0;

	if (h > RNG_METER_MAX_MILLI)
		h = RNG_METER_MAX_MILLI;
	m->h_milli = h;
	return h;
}

/* The per mille of its estimate a source is paid at window fill n:
 * bands 64, 128, 256, 512 and 1024 symbols, the fills at which the meter
 * runs its assessment (above). Each is derived, not chosen: on
 * stored captures of every kind of trusted source (tests/vectors/credit/),
 * the estimate after a fresh window of n over the full SP 800-90B 6.3
 * assessment of the 1,024 samples that follow, by the level of the
 * estimate (under 1.5 bits, 1.5 to 3, 3 and over), bounded above at 99%
 * confidence; the factor is 1 over the largest bound (tools/credit_derive.c,
 * docs/ENTROPY.md "What a window is paid"). It covers both what the
 * meter leaves out (the bitstring estimators and MultiMCW, 6.3) and how
 * far an estimate over n < 1024 samples runs above a longer one. */
static const uint16_t rng_pay_permille[3][5] = RNG_PAY_PERMILLE;
static const uint16_t rng_pay_level[3] = RNG_PAY_LEVEL_MILLI;
_Static_assert(RNG_METER_MIN << 4 == RNG_METER_W, "a band per assessment fill, the last the full window");

unsigned rng_meter_pay_level(uint32_t h)
{
	unsigned l = 0;

	while (l + 1 < 3 && h >= rng_pay_level[l + 1])
		l++;
	return l;
}

static uint16_t rng_pay_factor(uint64_t n, uint32_t h)
{
	unsigned b = 0;

	while (b + 1 < 5 && n >= (uint64_t)RNG_METER_MIN << (b + 1))
		b++;
	return rng_pay_permille[rng_meter_pay_level(h)][b];
}

/* What a source is paid of its estimate h (milli) at its meter's fill. */
uint32_t rng_meter_paid(const struct rng_meter *m, uint32_t h)
{
	h = h * rng_pay_factor(m->n, h) / 1000;   /* h <= 8000: no overflow */
	/* Short of a full window, also in proportion to the fill. The factor
	 * bounds a window's estimate against the stretch after it within a
	 * stored capture (worst window 1.54x); live, on a loaded host, the
	 * estimate over 256-512 samples of a metronome typist ran to 2.3x
	 * the full assessment of the next stretch, a drift no capture holds,
	 * and was credited 1.8x of it. The seed's n/1024 ramp covers that:
	 * a source gives up about half its credit over its first 1,024
	 * samples (docs/ENTROPY.md, "What a window is paid"). */
	if (m->n < RNG_METER_W)
		h = (uint32_t)(h * m->n / RNG_METER_W);
	return h;
}
