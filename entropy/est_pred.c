/* SP 800-90B predictor estimates (6.3.7-6.3.10) over a buffer, integer only. */
/*
 * Each function returns what NIST's ea_non_iid (68ed165) returns for the
 * same symbols, as thousandths of a bit per symbol, rounded toward less
 * entropy. Literal input (bits = 8) holds at most RNG_EST_NMAX_LIT
 * symbols, bitstring input (bits = 1, one bit a byte) RNG_EST_NMAX_BIT;
 * longer input is judged on its last (most recent) symbols.
 *
 * The dictionaries of MultiMMC (6.3.9) and LZ78Y (6.3.10) are counts of
 * (j+1)-grams: for these sizes neither reaches its cap (100,000 and
 * 65,536 entries; at most 16 new entries a symbol, and for bits at most
 * sum(min(2^j, n)) < 41,000), so a dictionary entry (x, y) holds exactly
 * how often the string x.y ended at an earlier position. Rather than a
 * tree of maps, each context length j is a pass over the buffer: every
 * position gets the class number of the j symbols ending there (equal
 * strings, equal numbers, all < n), counts are arrays indexed by class,
 * and the classes of length j+1 come from those of length j and one more
 * symbol (a direct table for bits, a hash table for bytes).
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "entropy_internal.h"

#define RNG_PRED_D 16                   /* D of 6.3.9 and B of 6.3.10 */
#define RNG_LIT_HASH 2048               /* >= 2 * RNG_EST_NMAX_LIT slots */

/**********************************************************************
 * The prediction estimate (6.3.7 steps 3-6, shared by 6.3.7-6.3.10)
 **********************************************************************/

/*
 * 6.3.7 steps 3-6 (the tool's predictionEstimate): C correct out of N,
 * longest run r, alphabet k. P_global' = C/N + 2.576 sqrt(C/N (1-C/N) /
 * (N-1)) (1 - 0.01^(1/N) for C = 0, bounded above by ln(100)/N), at least
 * 1/k; the local bound only where the run is too long for that p.
 * Every step rounds p up.
 */
uint32_t rng_pred_estimate_milli(uint32_t c, uint32_t n, uint32_t r, uint32_t k)
{
	uint64_t p, pk;

	if (n < 2 || k < 2)
		return 0;
	if (c == 0) {
		p = (19779055342ull + n - 1) / n;       /* ceil(ln(100) 2^32) / N */
	} else if (c >= n) {
		return 0;
	} else {
		uint64_t s = rng_isqrt64(((uint64_t)c * (n - c) << 32) / (n - 1)) + 1;
		p = (((uint64_t)c << 32) + s * 168810u + n - 1) / n;   /* z = 2.5758 in Q16, up */
	}
	pk = ((1ull << 32) + k - 1) / k;
	if (p < pk)
		p = pk;
	if (p >= 1ull << 32)
		return 0;
	p = rng_local_p_q32(p, r + 1, n);
	return rng_milli_of_q32(p);
}

/**********************************************************************
 * Context classes and the per-length passes (6.3.9, 6.3.10)
 **********************************************************************/

struct rng_pred_work {
	const uint8_t *s;
	uint32_t n, bits;
	uint16_t *ctx;          /* class of the j symbols ending at each position */
	uint16_t *gram;         /* bytes: class of the j+1 symbols ending there */
	uint16_t *cnt;          /* bits: [2 class + y]; bytes: [class of j+1] */
	uint16_t *bestc;        /* bytes: best count after each context class */
	uint8_t *besty;         /* bytes: its symbol (ties: the larger) */
	uint32_t *hkey;         /* bytes: renumbering hash, key + 1 */
	uint16_t *hval;
	uint16_t *o1, *o2;      /* per position: the estimator's results */
	uint8_t *o3;
	uint32_t pstart, cstart; /* first position predicted / counted */
	int mmc;
};

/*
 * Classes of length j+1 at positions e >= j from those of length j (in
 * from[]) and the symbol j back: to[e] = number of (from[e], s[e-j]).
 * from == NULL: length 0, every position in one class. Returns the
 * number of classes (< n + 1).
 */
static uint32_t rng_renumber(struct rng_pred_work *w, const uint16_t *from, uint16_t *to, uint32_t j)
{
	uint32_t e, key, h, next = 0;

	if (w->bits == 1)
		memset(w->cnt, 0, 2 * w->n * sizeof(uint16_t));
	else
		memset(w->hkey, 0, RNG_LIT_HASH * sizeof(uint32_t));
	for (e = j; e < w->n; e++) {
		key = ((from ? (uint32_t)from[e] : 0) << w->bits) | w->s[e - j];
		if (w->bits == 1) {
			if (!w->cnt[key])
				w->cnt[key] = (uint16_t)++next;
			to[e] = (uint16_t)(w->cnt[key] - 1);
			continue;
		}
		h = (key * 2654435761u) >> 21;  /* log2(RNG_LIT_HASH) = 11 */
		while (w->hkey[h] && w->hkey[h] != key + 1)
			h = (h + 1) & (RNG_LIT_HASH - 1);
		if (!w->hkey[h]) {
			w->hkey[h] = key + 1;
			w->hval[h] = (uint16_t)next++;
		}
		to[e] = w->hval[h];
	}
	return next;
}

/* Record one prediction: count bc (0: none) of symbol by, context length j. */
static void rng_pred_emit(struct rng_pred_work *w, uint32_t i, uint32_t j, uint32_t bc, uint32_t by)
{
	if (!bc)
		return;
	if (w->mmc) {
		/* 6.3.9: every length predicts; keep found and correct bits */
		w->o1[i] |= (uint16_t)(1u << (j - 1));
		if (by == w->s[i])
			w->o2[i] |= (uint16_t)(1u << (j - 1));
	} else if (bc >= w->o1[i]) {
		/* 6.3.10: the highest count; on a tie the longer context */
		w->o1[i] = (uint16_t)bc;
		w->o3[i] = (uint8_t)by;
	}
}

/* One context length j over bytes: predict, then count. */
static void rng_pred_pass(struct rng_pred_work *w, uint32_t j)
{
	uint32_t i, x, y, c, ps = w->pstart;

	if (w->mmc)
		ps = j + 1 < 2 ? 2 : j + 1;     /* 6.3.9: d = j - 1 <= i - 2 */
	for (i = j; i < w->n; i++) {
		x = w->ctx[i - 1];
		y = w->s[i];
		if (i >= ps)
			rng_pred_emit(w, i, j, w->bestc[x], w->besty[x]);
		if (i < w->cstart)
			continue;
		c = ++w->cnt[w->gram[i]];
		if (c > w->bestc[x] || (c == w->bestc[x] && y > w->besty[x])) {
			w->bestc[x] = (uint16_t)c;
			w->besty[x] = (uint8_t)y;
		}
	}
}

/*
 * The same over bits, the hot loop (16 x 8192 steps): a context of j
 * bits with 2^j <= n is its own class (the pattern, no renumbering);
 * longer ones use ctx[]. Counts of followers 0 and 1 sit side by side;
 * the prediction is 1 on a tie (the larger symbol, as the tool).
 */
static void rng_pred_pass_bits(struct rng_pred_work *w, uint32_t j, int direct)
{
	const uint8_t *s = w->s;
	const uint16_t *ctx = w->ctx;
	uint16_t *cnt = w->cnt, *o1 = w->o1, *o2 = w->o2;
	uint8_t *o3 = w->o3;
	uint32_t i, x, c0, c1, by, pat = 0, mask = (1u << j) - 1, n = w->n;
	uint32_t cs = w->cstart, mmc = (uint32_t)w->mmc, bit = 1u << (j - 1);
	uint32_t ps = mmc ? (j + 1 < 2 ? 2 : j + 1) : w->pstart;

	for (i = 0; i + 1 < j; i++)
		pat = (pat << 1) | s[i];
	for (i = j; i < n; i++) {
		pat = ((pat << 1) | s[i - 1]) & mask;
		x = 2 * (direct ? pat : ctx[i - 1]);
		c0 = cnt[x];
		c1 = cnt[x + 1];
		if (i >= cs)
			cnt[x + s[i]]++;
		if (i < ps || !(c0 | c1))
			continue;
		by = c0 <= c1;
		if (mmc) {
			o1[i] |= (uint16_t)bit;
			o2[i] |= (uint16_t)(by == s[i] ? bit : 0);
		} else if ((by ? c1 : c0) >= o1[i]) {
			o1[i] = (uint16_t)(by ? c1 : c0);
			o3[i] = (uint8_t)by;
		}
	}
}

/* Classes of the j bits ending at each e >= j - 1, from their pattern. */
static uint32_t rng_classes_of_bits(struct rng_pred_work *w, uint32_t j)
{
	uint32_t e, pat = 0, next = 0, mask = (1u << j) - 1;

	memset(w->cnt, 0, 2 * w->n * sizeof(uint16_t));
	for (e = 0; e < w->n; e++) {
		pat = ((pat << 1) | w->s[e]) & mask;   /* < 2^j <= 2n */
		if (e + 1 < j)
			continue;
		if (!w->cnt[pat])
			w->cnt[pat] = (uint16_t)++next;
		w->ctx[e] = (uint16_t)(w->cnt[pat] - 1);
	}
	return next;
}

/* Bits: contexts of 2^j <= n bits are patterns; longer ones get classes. */
static void rng_pred_run_bits(struct rng_pred_work *w)
{
	uint32_t j, nc;

	for (j = 1; j <= RNG_PRED_D && j < w->n; j++) {
		if ((1u << j) <= w->n)
			nc = 1u << j;
		else if ((1u << (j - 1)) <= w->n)
			nc = rng_classes_of_bits(w, j);
		else
			nc = rng_renumber(w, w->ctx, w->ctx, j - 1);
		memset(w->cnt, 0, 2 * nc * sizeof(uint16_t));
		rng_pred_pass_bits(w, j, (1u << j) <= w->n);
	}
}

/* All context lengths 1..16, shortest first (the emit rules expect it). */
static void rng_pred_counts_clear(struct rng_pred_work *w, uint32_t ng, uint32_t nc)
{
	memset(w->cnt, 0, ng * sizeof(uint16_t));
	memset(w->bestc, 0, nc * sizeof(uint16_t));
	memset(w->besty, 0, nc);
}

/* Bytes: the classes (the costly half) once a length; `v`, when not
 * NULL, is a second estimator's work whose passes share them. */
static void rng_pred_run(struct rng_pred_work *w, struct rng_pred_work *v)
{
	uint32_t j, nc, ng;
	uint16_t *t;

	if (w->bits == 1) {
		rng_pred_run_bits(w);
		return;
	}
	nc = rng_renumber(w, NULL, w->ctx, 0);
	for (j = 1; j <= RNG_PRED_D && j < w->n; j++) {
		ng = rng_renumber(w, w->ctx, w->gram, j);
		rng_pred_counts_clear(w, ng, nc);
		rng_pred_pass(w, j);
		if (v) {
			v->ctx = w->ctx;
			v->gram = w->gram;
			rng_pred_counts_clear(v, ng, nc);
			rng_pred_pass(v, j);
		}
		t = w->ctx;
		w->ctx = w->gram;
		w->gram = t;
		nc = ng;
	}
}

/*
 * Carve the scratch area. Bits: ctx[n], cnt[2n] (also the renumbering
 * table), o1[n], o2[n] (o3 shares o2): 10n bytes. Bytes: the hash table
 * (12 KiB), then 13n bytes. Clamps n to the last RNG_EST_NMAX_* symbols.
 */
/* Bytes: one estimator's counts and results from u on, 9n bytes (cnt,
 * bestc, o1, o2, then besty), the results cleared. */
static void rng_pred_carve_counts(struct rng_pred_work *w, uint16_t *u)
{
	uint32_t n = w->n;

	w->cnt = u;
	w->bestc = u + n;
	w->o1 = u + 2 * n;
	w->o2 = u + 3 * n;
	w->besty = (uint8_t *)(u + 4 * n);
	w->o3 = (uint8_t *)w->o2;
	memset(w->o1, 0, 2 * n * sizeof(uint16_t));
}

static void rng_pred_setup(struct rng_pred_work *w, const uint8_t *s, uint32_t n,
			   unsigned bits, void *scratch)
{
	uint32_t max = bits == 1 ? RNG_EST_NMAX_BIT : RNG_EST_NMAX_LIT;
	uint16_t *u;

	memset(w, 0, sizeof(*w));
	if (n > max) {
		s += n - max;
		n = max;
	}
	w->s = s;
	w->n = n;
	w->bits = bits == 1 ? 1 : 8;
	if (w->bits == 1) {
		u = scratch;
		w->ctx = u;
		w->cnt = u + n;
		w->o1 = u + 3 * n;
		w->o2 = u + 4 * n;
		w->o3 = (uint8_t *)w->o2;
		memset(w->o1, 0, 2 * n * sizeof(uint16_t));
		return;
	}
	w->hkey = scratch;
	w->hval = (uint16_t *)(w->hkey + RNG_LIT_HASH);
	u = w->hval + RNG_LIT_HASH;
	w->ctx = u;
	w->gram = u + n;
	rng_pred_carve_counts(w, u + 2 * n);
}

/* Distinct symbols: the tool's k after it maps the alphabet down. */
static uint32_t rng_pred_alphabet(const uint8_t *s, uint32_t n, unsigned bits)
{
	uint32_t seen[8] = { 0 }, i, k = 0;

	if (bits == 1)
		return 2;               /* the tool's bitstring k is always 2 */
	for (i = 0; i < n; i++)
		seen[s[i] >> 5] |= 1u << (s[i] & 31);
	for (i = 0; i < 8; i++)
		k += (uint32_t)__builtin_popcount(seen[i]);
	return k;
}

/*
 * 6.3.9 MultiMMC: D = 16 Markov models of orders 1..16, each predicting
 * the symbol that most often followed its context; the model with the
 * most correct predictions so far (ties: the last to reach the top)
 * gives the prediction. N = n - 2. A winner that has no prediction
 * leaves the run as it is (the tool's behaviour).
 */
static uint32_t rng_mmc_result(const struct rng_pred_work *w)
{
	uint32_t score[RNG_PRED_D] = { 0 }, i, d, cw, m, winner = 0, c = 0, run = 0, maxrun = 0;

	for (i = 2; i < w->n; i++) {
		cw = winner;
		if (w->o1[i] >> cw & 1) {
			if (w->o2[i] >> cw & 1) {
				c++;
				if (++run > maxrun)
					maxrun = run;
			} else {
				run = 0;
			}
		}
		for (m = w->o2[i]; m; m &= m - 1) {
			d = (uint32_t)__builtin_ctz(m);
			if (++score[d] >= score[winner])
				winner = d;
		}
	}
	return rng_pred_estimate_milli(c, w->n - 2, maxrun, rng_pred_alphabet(w->s, w->n, w->bits));
}

uint32_t rng_est_multimmc_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch)
{
	struct rng_pred_work w;

	rng_pred_setup(&w, s, n, bits, scratch);
	if (w.n < 4)
		return w.bits * 1000;
	w.mmc = 1;
	rng_pred_run(&w, NULL);
	return rng_mmc_result(&w);
}

/*
 * 6.3.10 LZ78Y: contexts of lengths 1..16 in one dictionary; the
 * prediction is the follower with the highest count over all lengths
 * (ties: the longest context). The dictionary starts at symbol B = 16
 * and predicts from B + 1: N = n - 17.
 */
static uint32_t rng_lz78y_result(const struct rng_pred_work *w)
{
	uint32_t i, c = 0, run = 0, maxrun = 0;

	for (i = RNG_PRED_D + 1; i < w->n; i++) {
		if (w->o1[i] && w->o3[i] == w->s[i]) {
			c++;
			if (++run > maxrun)
				maxrun = run;
		} else {
			run = 0;
		}
	}
	return rng_pred_estimate_milli(c, w->n - RNG_PRED_D - 1, maxrun,
				       rng_pred_alphabet(w->s, w->n, w->bits));
}

static void rng_lz78y_setup(struct rng_pred_work *w)
{
	w->pstart = RNG_PRED_D + 1;
	w->cstart = RNG_PRED_D;
}

uint32_t rng_est_lz78y_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch)
{
	struct rng_pred_work w;

	rng_pred_setup(&w, s, n, bits, scratch);
	if (w.n < RNG_PRED_D + 3)
		return w.bits * 1000;
	rng_lz78y_setup(&w);
	rng_pred_run(&w, NULL);
	return rng_lz78y_result(&w);
}

/*
 * MultiMMC and LZ78Y on the same symbols, as the two calls above give
 * them, with the context classes found once for both (they are half
 * the cost). scratch: RNG_EST_PRED_LIT_SCRATCH bytes; the second
 * estimator's counts and results follow the first's 13n bytes.
 */
void rng_est_mmc_lz78y_milli(const uint8_t *s, uint32_t n, void *scratch,
			     uint32_t *mmc, uint32_t *lz78y)
{
	struct rng_pred_work a, b;
	uint16_t *u;

	rng_pred_setup(&a, s, n, 8, scratch);
	*mmc = *lz78y = 8000;
	if (a.n < RNG_PRED_D + 3) {
		if (a.n >= 4)
			*mmc = rng_est_multimmc_milli(s, n, 8, scratch);
		return;
	}
	b = a;
	u = (uint16_t *)(a.besty + a.n);        /* past the first's 13n bytes */
	if ((uintptr_t)u & 1)
		u = (uint16_t *)((uint8_t *)u + 1);
	rng_pred_carve_counts(&b, u);
	a.mmc = 1;
	rng_lz78y_setup(&b);
	rng_pred_run(&a, &b);
	*mmc = rng_mmc_result(&a);
	*lz78y = rng_lz78y_result(&b);
}

/**********************************************************************
 * 6.3.7 MultiMCW
 **********************************************************************/

/*
 * Four windows (63, 255, 1023, 4095) each predict their most common
 * symbol; the window with the most hits so far predicts. The tool needs
 * n > 4095 and otherwise skips the estimate: so does this (returning the
 * symbol width, which bounds nothing), hence always for literal input,
 * capped at RNG_EST_NMAX_LIT. For bits the windows are odd, so the most
 * common bit is never a tie.
 */
uint32_t rng_est_multimcw_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch)
{
	static const uint32_t wl[4] = { 63, 255, 1023, 4095 };
	uint32_t ones[4] = { 0 }, score[4] = { 0 }, i, j, winner = 0, c = 0, run = 0, maxrun = 0;
	uint8_t freq[4];

	(void)scratch;
	if (bits != 1)
		return 8000;
	if (n > RNG_EST_NMAX_BIT) {
		s += n - RNG_EST_NMAX_BIT;
		n = RNG_EST_NMAX_BIT;
	}
	if (n <= wl[3])
		return 1000;
	for (j = 0; j < 4; j++)
		for (i = 0; i < wl[j]; i++)
			ones[j] += s[i];
	for (i = wl[0]; i < n; i++) {
		for (j = 0; j < 4; j++)
			freq[j] = 2 * ones[j] > wl[j];
		if (freq[winner] == s[i]) {
			c++;
			if (++run > maxrun)
				maxrun = run;
		} else {
			run = 0;
		}
		for (j = 0; j < 4; j++) {
			if (i < wl[j])
				continue;
			if (freq[j] == s[i] && ++score[j] >= score[winner])
				winner = j;
			ones[j] += s[i];
			ones[j] -= s[i - wl[j]];
		}
	}
	return rng_pred_estimate_milli(c, n - wl[0], maxrun, 2);
}

/**********************************************************************
 * 6.3.8 Lag, on a buffer
 **********************************************************************/

/*
 * 128 lags (the standard's D; measure.c's running meter uses 32 on bytes).
 * Each symbol is predicted by the lag with the most hits so far; on a tie,
 * the lag that reached that count last (lags scored in increasing order,
 * as the tool does). N = n - 1.
 */
uint32_t rng_est_lag_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch)
{
	uint32_t *score = scratch, i, d, top, high = 0, winner = 0, c = 0, run = 0, maxrun = 0;
	uint32_t max = bits == 1 ? RNG_EST_NMAX_BIT : RNG_EST_NMAX_LIT;
	const uint8_t *p;
	uint8_t y;

	if (n > max) {
		s += n - max;
		n = max;
	}
	if (n < 3)
		return bits == 1 ? 1000 : 8000;
	memset(score, 0, 128 * sizeof(uint32_t));
	for (i = 1; i < n; i++) {
		y = s[i];
		if (s[i - winner - 1] == y) {
			c++;
			if (++run > maxrun)
				maxrun = run;
		} else {
			run = 0;
		}
		top = i < 128 ? i : 128;
		for (d = 0, p = s + i - 1; d < top; d++, p--) {
			if (*p == y && ++score[d] >= high) {
				high = score[d];
				winner = d;
			}
		}
	}
	return rng_pred_estimate_milli(c, n - 1, maxrun, rng_pred_alphabet(s, n, bits));
}
