/* SP 800-90B estimators 6.3.2-6.3.6 (collision, Markov, compression, t-tuple, LRS) in fixed point. */
/*
 * What these are for
 * ==================
 *
 * NIST's ea_non_iid credits the minimum over all its estimators, on the
 * 8-bit symbols ("literal") and on their bitstring (8 x the per-bit
 * figure). The meter (measure.c) runs two of them; this file adds five
 * more, each giving what the tool's estimator gives on the same input
 * (commit 68ed165 of usnistgov/SP800-90B_EntropyAssessment), rounded
 * toward LESS entropy: every probability is an upper bound of the tool's,
 * every logarithm of a probability rounded up. No floating point (the
 * kernel is built -mgeneral-regs-only): probabilities are Q32 (p * 2^32),
 * logarithms Q16 (log2 * 2^16), results thousandths of a bit.
 *
 * Inputs follow the tool's conventions:
 *   - literal (bits = 8): one symbol a byte. The tool renumbers the
 *     alphabet first; t-tuple and LRS only compare symbols, so that
 *     changes nothing here.
 *   - bitstring (bits = 1): one bit a byte, each 8-bit symbol expanded
 *     most significant bit first, from the symbols as captured (not
 *     renumbered): rng_est_bits() below.
 *   - The tool runs collision, Markov and compression on the bitstring
 *     only (its literal alphabet has more than two symbols); so do these,
 *     and with bits = 8 they return 8000, "no estimate". Where the tool
 *     skips an estimator (t-tuple: no tuple seen 35 times; LRS: v < u;
 *     compression: 1000 or fewer 6-bit blocks, i.e. n < 6006 bits) the
 *     function returns bits * 1000, which never lowers a minimum.
 *   - Caveat: a capture with exactly two distinct symbols makes the tool
 *     skip the bitstring and run 6.3.2-6.3.4 on the renumbered literal.
 *
 * Cost (host instructions, one call, `make bench-host`; n = 8192 bits or
 * 1024 symbols): collision ~43k, Markov ~106k, compression ~780k (16
 * bisection steps, each two sums over the 1365 blocks). t-tuple and LRS
 * share one suffix array (rng_est_tuple_lrs_milli): prefix doubling with
 * a counting sort, LCP by Kasai et al., the tuple counts from one stack
 * pass over the LCP intervals; 2.0M (uniform bits) to 3.4M (keyboard
 * captures) on 8192 bits, 0.25-0.45M on 1024 symbols, ~9.6M at worst
 * (a period-3 bitstring: every doubling round runs). Scratch: 80 KiB.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "entropy_internal.h"

/* ZALPHA * 0.5907 (6.3.4 step 4's sigma factor), Q20, rounded up */
#define RNG_EST_ZS_Q20 1595453ull

/**********************************************************************
 * The bitstring the tool assesses
 **********************************************************************/

/* The tool's H_bitstring input: each 8-bit symbol, most significant bit first. */
void rng_est_bits(const uint8_t *s, uint32_t n, uint8_t *out)
{
	uint32_t i;
	unsigned j;

	for (i = 0; i < n; i++)
		for (j = 0; j < 8; j++)
			*out++ = (uint8_t)((s[i] >> (7 - j)) & 1);
}

/**********************************************************************
 * Collision estimate (6.3.2), bitstring only
 **********************************************************************/

/*
 * The tool's reading of 6.3.2: walk the bits, a collision is two equal
 * bits (t = 2) or, failing that, three bits (t = 3, as two of any three
 * bits are equal). With v collisions summing to T, X' = X - z sigma /
 * sqrt(v), X = T / v; then p solves X' = 2 + 2p - 2p^2 (the tool's
 * simplification of step 7): p = 1/2 + sqrt(5/4 - X'/2), X' held >= 2.
 */
uint32_t rng_est_collision_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch)
{
	uint64_t v = 0, t = 0, sq = 0, i = 0, num, w, dev, x, r;

	(void)scratch;
	if (bits != 1)
		return bits * 1000;
	while (i + 1 < n) {
		unsigned tv = s[i] == s[i + 1] ? 2 : 3;

		if (tv == 3 && i + 2 >= n)
			break;
		v++;
		sq += tv * tv;
		i += tv;
	}
	t = i;
	if (v < 2)
		return 1000;
	/* sigma^2 / v = (v sum t^2 - T^2) / (v^2 (v - 1)), rounded up, Q32 */
	num = sq * v - t * t;
	w = ((num << 32) + v * v * (v - 1) - 1) / (v * v * (v - 1));
	if (w >= RNG_Q32_ONE)
		w = RNG_Q32_ONE - 1;
	dev = rng_isqrt64(w << 32) + 1;                     /* sigma / sqrt(v), Q32 */
	x = (t << 32) / v;
	dev = (dev * RNG_EST_Z_Q20 + (1u << 20) - 1) >> 20;
	x = x > dev ? x - dev : 0;
	if (x < 2 * RNG_Q32_ONE)
		x = 2 * RNG_Q32_ONE;
	if (x >= 5 * RNG_Q32_ONE / 2)
		return 1000;
	r = 5 * RNG_Q32_ONE / 4 - (x >> 1);                 /* 5/4 - X'/2, rounded up */
	return rng_neglog2_milli(RNG_Q32_ONE / 2 + rng_isqrt64(r << 32) + 1);
}

/**********************************************************************
 * Markov estimate (6.3.3), bitstring only
 **********************************************************************/

/* A lower bound of -log2(a / b), Q16, for 0 < a <= b. */
static int64_t rng_neglog2_ratio(uint64_t a, uint64_t b)
{
	int64_t l;

	if (a == b)
		return 0;
	l = (int64_t)rng_log2_q16(b) - rng_log2_up(a);
	return l > 0 ? l : 0;
}

/* min(h, -log2(P_first) - k1 log2(P_a) - k2 log2(P_b)) over valid terms. */
static int64_t rng_markov_path(int64_t h, const uint32_t c[2][3], unsigned first,
			       unsigned a0, unsigned a1, uint32_t k1,
			       unsigned b0, unsigned b1, uint32_t k2, uint32_t n)
{
	int64_t e;

	if (c[a0][a1] == 0 || (k2 && c[b0][b1] == 0))
		return h;
	e = rng_neglog2_ratio(c[first][2], n);
	e += k1 * rng_neglog2_ratio(c[a0][a1], c[a0][0] + c[a0][1]);
	if (k2)
		e += k2 * rng_neglog2_ratio(c[b0][b1], c[b0][0] + c[b0][1]);
	return e < h ? e : h;
}

/*
 * The most likely 128-bit sequence under the first-order chain fitted to
 * the bits, as the tool scores six candidate paths (6.3.3 step 3); no
 * confidence term in the standard. c[x][y]: transitions x -> y over bits
 * 0..n-2; c[x][2]: occurrences of x over all n bits (P_x = c[x][2] / n).
 */
uint32_t rng_est_markov_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch)
{
	uint32_t c[2][3] = { { 0, 0, 0 }, { 0, 0, 0 } }, i;
	int64_t h = (int64_t)128 << 16;

	(void)scratch;
	if (bits != 1)
		return bits * 1000;
	if (n < 2)
		return 1000;
	for (i = 0; i + 1 < n; i++)
		c[s[i] & 1][s[i + 1] & 1]++;
	c[0][2] = c[0][0] + c[0][1] + ((s[n - 1] & 1) == 0);
	c[1][2] = n - c[0][2];
	h = rng_markov_path(h, c, 0, 0, 0, 127, 0, 0, 0, n);        /* 00...0 */
	h = rng_markov_path(h, c, 0, 0, 1, 64, 1, 0, 63, n);        /* 0101...01 */
	h = rng_markov_path(h, c, 0, 0, 1, 1, 1, 1, 126, n);        /* 011...1 */
	h = rng_markov_path(h, c, 1, 1, 0, 1, 0, 0, 126, n);        /* 100...0 */
	h = rng_markov_path(h, c, 1, 1, 0, 64, 0, 1, 63, n);        /* 1010...10 */
	h = rng_markov_path(h, c, 1, 1, 1, 127, 0, 0, 0, n);        /* 11...1 */
	h = h * 1000 / (128 << 16);
	return h < 1000 ? (uint32_t)h : 1000;
}

/**********************************************************************
 * Compression estimate (6.3.4), bitstring only
 **********************************************************************/

#define RNG_CMP_B 6             /* bits a block (6.3.4 step 1) */
#define RNG_CMP_D 1000          /* dictionary-building blocks (step 3) */

/* (a * z) >> 32 for a < 2^56, z <= 2^32, without a 128-bit product. */
static uint64_t rng_mul_q32(uint64_t a, uint64_t z)
{
	return (a >> 32) * z + (((a & 0xffffffffu) * z) >> 32);
}

/*
 * G(z) of 6.3.4 step 7 over L blocks, Q32, with log2(i) from lg (Q16):
 * G = z (z F + A_{L+1} - A_{d+1}) / (L - d), where a_i = log2(i) (1-z)^(i-1),
 * A_k = sum of a_i for 2 <= i < k, and F = (L - d) A_{d+1} + sum over
 * d < i < L of (L - i) a_i (the tool's regrouping of the double sum).
 */
static uint64_t rng_cmp_g(uint64_t z, const uint32_t *lg, uint32_t nb)
{
	uint64_t bt = RNG_Q32_ONE - z, b = bt, a = 0, ad1, f = 0, ai;
	uint32_t i;

	for (i = 2; i <= RNG_CMP_D; i++) {
		a += (lg[i] * b) >> 16;
		b = (b * bt) >> 32;
	}
	ad1 = a;
	for (i = RNG_CMP_D + 1; i < nb && b; i++) {
		ai = (lg[i] * b) >> 16;
		a += ai;
		f += (nb - i) * ai;
		b = (b * bt) >> 32;
	}
	f += (uint64_t)(nb - RNG_CMP_D) * ad1;
	if (b)
		a += (lg[nb] * b) >> 16;
	return rng_mul_q32(rng_mul_q32(f, z) + a - ad1, z) / (nb - RNG_CMP_D);
}

/* The expected statistic when one block has probability p (step 7), Q32. */
static uint64_t rng_cmp_expect(uint64_t p, const uint32_t *lg, uint32_t nb)
{
	uint64_t q = (RNG_Q32_ONE - p) / 63;

	return rng_cmp_g(p, lg, nb) + 63 * rng_cmp_g(q, lg, nb);
}

/* X' = mean - z 0.5907 sigma / sqrt(v) of the log2 distances (steps 4-5), Q32. */
static uint64_t rng_cmp_statistic(const uint8_t *s, uint32_t nb, const uint32_t *lg)
{
	uint16_t dict[1 << RNG_CMP_B];
	uint64_t sum = 0, sq = 0, v = nb - RNG_CMP_D, m, var, dev;
	uint32_t i, l;
	unsigned j, blk;

	memset(dict, 0, sizeof(dict));
	for (i = 0; i < nb; i++) {
		for (j = 0, blk = 0; j < RNG_CMP_B; j++)
			blk = (blk << 1) | (s[i * RNG_CMP_B + j] & 1);
		if (i >= RNG_CMP_D) {
			l = lg[i + 1 - dict[blk]];
			sum += l;
			sq += (uint64_t)l * l;
		}
		dict[blk] = (uint16_t)(i + 1);
	}
	m = (sum << 16) / v;
	/* sigma^2 = sum l^2 / (v - 1) - mean^2, rounded up (Q32) */
	var = (sq + v - 2) / (v - 1);
	var = var > (sum * sum) / (v * v) ? var - (sum * sum) / (v * v) : 0;
	dev = rng_isqrt64(((var << 24) + v - 1) / v) + 1;   /* sigma / sqrt(v), Q28 */
	dev = (dev * RNG_EST_ZS_Q20 + (1u << 16) - 1) >> 16;
	return m > dev ? m - dev : 0;
}

/*
 * Maurer's universal statistic over 6-bit blocks: the first 1000 blocks
 * fill a dictionary of last positions, the rest score log2 of the
 * distance back to their previous occurrence; p is where the expectation
 * under a source with one likely block meets the lower bound of the
 * observed mean, found by bisection between 1/64 and 1 (the expectation
 * falls as p grows); 16 halvings keep the upper end within 2^-16 of the
 * tool's p. scratch: log2(i) for i <= n / 6, Q16.
 */
uint32_t rng_est_compression_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch)
{
	uint32_t *lg = scratch, nb = n / RNG_CMP_B, i, h;
	uint64_t x, lo = RNG_Q32_ONE >> RNG_CMP_B, hi = RNG_Q32_ONE, mid;

	if (bits != 1)
		return bits * 1000;
	if (nb <= RNG_CMP_D || nb > RNG_EST_MAX_N)
		return 1000;
	if (nb == RNG_CMP_D + 1)
		return 0;               /* one scored block: the tool's sigma is infinite */
	for (i = 1; i <= nb; i++)
		lg[i] = rng_log2_q16(i);
	x = rng_cmp_statistic(s, nb, lg);
	if (rng_cmp_expect(lo, lg, nb) <= x)
		return 1000;
	for (i = 0; i < 16; i++) {
		mid = (lo + hi) / 2;
		if (rng_cmp_expect(mid, lg, nb) > x)
			lo = mid;
		else
			hi = mid;
	}
	h = rng_neglog2_milli(hi) / RNG_CMP_B;
	return h < 1000 ? h : 1000;
}

/**********************************************************************
 * Suffix array, LCP and tuple counts (for 6.3.5 and 6.3.6)
 **********************************************************************/

/*
 * Scratch layout, in arrays of RNG_EST_MAX_N 16-bit words:
 *   0-1: suffix array and rank; later the LRS pair sums (32-bit)
 *   2:   spare rank (prefix doubling swaps), later the interval stack
 *   3:   counting-sort buckets, later the LCP array
 *   4:   largest tuple count of each length
 */
#define RNG_SA_WORDS(k) ((uint16_t *)scratch + (k) * RNG_EST_MAX_N)

/*
 * Sort the suffixes by their first k = 8 / bits symbols (one byte's
 * worth) with one counting sort: key = packed symbols, zero-padded past
 * the end, then the count of real symbols, so a suffix shorter than k
 * sorts before the longer ones it prefixes. Returns the number of ranks.
 */
static uint32_t rng_sa_first(const uint8_t *s, uint32_t n, unsigned bits,
			     uint16_t *sa, uint16_t *key, uint16_t *rank, uint16_t *cnt)
{
	unsigned k = 8 / bits, j, c;
	uint32_t i, sum = 0, r = 0;

	for (j = 0, c = 0; j < k; j++)
		c = (c << bits) | (j < n ? s[j] : 0);
	for (i = 0; i < n; i++) {                   /* a window sliding by one */
		key[i] = (uint16_t)(c << 4 | (n - i < k ? n - i : k));
		c = ((c << bits) | (i + k < n ? s[i + k] : 0)) & 0xff;
	}
	memset(cnt, 0, sizeof(uint16_t) << 12);
	for (i = 0; i < n; i++)
		cnt[key[i]]++;
	for (c = 0; c < 1u << 12; c++) {
		sum += cnt[c];
		cnt[c] = (uint16_t)sum;
	}
	for (i = n; i-- > 0;)
		sa[--cnt[key[i]]] = (uint16_t)i;
	for (i = 0; i < n; i++) {
		if (i && key[sa[i]] != key[sa[i - 1]])
			r++;
		rank[sa[i]] = (uint16_t)r;
	}
	return r + 1;
}

/* One doubling round: sort by (rank[i], rank[i + h]) into sa, new ranks into nr. */
static uint32_t rng_sa_round(uint32_t n, uint32_t h, uint32_t m, uint16_t *sa,
			     const uint16_t *rank, uint16_t *nr, uint16_t *cnt)
{
	uint32_t i, p = 0, sum = 0, r = 0, a, b;

	/* by second key: suffixes with nothing h on first, then sa's order */
	for (i = n - h; i < n; i++)
		nr[p++] = (uint16_t)i;
	for (i = 0; i < n; i++)
		if (sa[i] >= h)
			nr[p++] = (uint16_t)(sa[i] - h);
	memset(cnt, 0, m * sizeof(uint16_t));
	for (i = 0; i < n; i++)
		cnt[rank[i]]++;
	for (i = 0; i < m; i++) {
		sum += cnt[i];
		cnt[i] = (uint16_t)sum;
	}
	for (i = n; i-- > 0;)
		sa[--cnt[rank[nr[i]]]] = nr[i];
	for (i = 0; i < n; i++) {
		a = sa[i ? i - 1 : 0];
		b = sa[i];
		if (i && (rank[a] != rank[b] ||
			  (a + h < n ? rank[a + h] + 1u : 0) != (b + h < n ? rank[b + h] + 1u : 0)))
			r++;
		nr[b] = (uint16_t)r;
	}
	return r + 1;
}

/* The suffix array into sa; returns its inverse (one of the two rank arrays). */
static uint16_t *rng_sa_build(const uint8_t *s, uint32_t n, unsigned bits, void *scratch)
{
	uint16_t *sa = RNG_SA_WORDS(0), *rank = RNG_SA_WORDS(1), *spare = RNG_SA_WORDS(2);
	uint16_t *cnt = RNG_SA_WORDS(3), *t;
	uint32_t h = 8 / bits, m;

	m = rng_sa_first(s, n, bits, sa, spare, rank, cnt);
	for (; m < n && h < n; h <<= 1) {
		m = rng_sa_round(n, h, m, sa, rank, spare, cnt);
		t = rank;
		rank = spare;
		spare = t;
	}
	return rank;
}

/* Kasai et al.: lcp[r] = longest common prefix of suffixes sa[r - 1], sa[r]. */
static uint32_t rng_sa_lcp(const uint8_t *s, uint32_t n, const uint16_t *sa,
			   const uint16_t *rank, uint16_t *lcp)
{
	uint32_t i, j, h = 0, v = 0;

	lcp[0] = 0;
	for (i = 0; i < n; i++) {
		if (rank[i] == 0) {
			h = 0;
			continue;
		}
		j = sa[rank[i] - 1];
		while (i + h < n && j + h < n && s[i + h] == s[j + h])
			h++;
		lcp[rank[i]] = (uint16_t)h;
		if (h > v)
			v = h;
		if (h)
			h--;
	}
	return v;
}

/*
 * One pass over the LCP intervals (Abouelhoda et al.'s bottom-up walk):
 * an interval of lcp value l, whose parent has value lp, holding c
 * suffixes, is one tuple seen c times at every length lp < t <= l. So
 * big[l] = max c (the largest count at length t is the largest c of
 * value >= t), and pairs[t - 1] = sum of C(c, 2) at length t, kept as
 * differences (+ at lp, - at l) and summed by the caller. The stack
 * holds lcp values; each entry's left bound goes into lcp[] at the
 * entry's depth, a slot the walk has already read (depth <= i).
 */
static void rng_sa_intervals(uint16_t *lcp, uint32_t n, uint16_t *stk,
			     uint16_t *big, uint32_t *pairs)
{
	uint32_t i, top = 0, cur, lb, l, lp, c, cc;

	stk[0] = 0;
	lcp[0] = 0;
	for (i = 1; i <= n; i++) {
		cur = i < n ? lcp[i] : 0;
		lb = i - 1;
		while (cur < stk[top]) {
			l = stk[top];
			lb = lcp[top--];
			c = i - lb;
			lp = cur > stk[top] ? cur : stk[top];
			if (c > big[l])
				big[l] = (uint16_t)c;
			cc = c * (c - 1) / 2;
			pairs[lp] += cc;
			pairs[l] -= cc;
		}
		if (cur > stk[top]) {
			stk[++top] = (uint16_t)cur;
			lcp[top] = (uint16_t)lb;
		}
	}
}

/*
 * t-tuple (6.3.5): Q[t] = the count of the commonest t-tuple, for every
 * t up to the first with Q[t] < 35; p = max (Q[t] / (n - t + 1))^(1/t).
 * The tool (Kaufer's algorithm) counts overlapping occurrences, as here.
 */
static uint32_t rng_est_ttuple_q(uint16_t *big, uint32_t n, uint32_t v,
				 unsigned bits, uint32_t *u)
{
	uint32_t t, q = 1;
	int64_t l, best = INT64_MIN;

	for (t = v; t >= 1; t--) {
		if (big[t] > q)
			q = big[t];
		big[t] = (uint16_t)q;
	}
	for (t = 1; t <= v && big[t] >= 35; t++) {
		l = rng_root_log2_up(big[t], n - t + 1, t);
		if (l > best)
			best = l;
	}
	*u = t;
	if (t == 1)
		return bits * 1000;     /* no tuple seen 35 times: the tool skips */
	return rng_neglog2_milli(rng_upper_q32(rng_exp2_up_q32(best), n));
}

/*
 * LRS (6.3.6): for u <= t <= v (v the longest repeated length), P[t] =
 * sum over t-tuples of C(count, 2) / C(n - t + 1, 2); p = max P[t]^(1/t).
 */
static uint32_t rng_est_lrs_p(uint32_t *pairs, uint32_t n, uint32_t u, uint32_t v,
			      unsigned bits)
{
	uint32_t t, sum = 0;
	uint64_t den;
	int64_t l, best = INT64_MIN;

	if (v < u)
		return bits * 1000;     /* the tool: "v<u. Can't Run LRS Test." */
	for (t = 1; t <= v; t++) {
		sum += pairs[t - 1];
		if (t < u || sum == 0)
			continue;
		den = (uint64_t)(n - t + 1) * (n - t) / 2;
		l = rng_root_log2_up(sum, den, t);
		if (l > best)
			best = l;
	}
	return rng_neglog2_milli(rng_upper_q32(rng_exp2_up_q32(best), n));
}

/* Both tuple estimates from one suffix array (the costly part): 6.3.5, 6.3.6. */
void rng_est_tuple_lrs_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch,
			     uint32_t *ttuple, uint32_t *lrs)
{
	uint16_t *rank, *lcp = RNG_SA_WORDS(3), *big = RNG_SA_WORDS(4);
	uint32_t v, u, h;

	*ttuple = *lrs = bits * 1000;
	if (n < 2 || n > RNG_EST_MAX_N || (bits != 1 && bits != 8))
		return;
	rank = rng_sa_build(s, n, bits, scratch);
	v = rng_sa_lcp(s, n, RNG_SA_WORDS(0), rank, lcp);
	if (v == 0)
		return;                 /* nothing repeats (the tool asserts) */
	memset(big, 0, (v + 1) * sizeof(uint16_t));
	memset(scratch, 0, (v + 1) * sizeof(uint32_t));
	rng_sa_intervals(lcp, n, RNG_SA_WORDS(2), big, scratch);
	h = rng_est_ttuple_q(big, n, v, bits, &u);
	if (h < *ttuple)
		*ttuple = h;
	h = rng_est_lrs_p(scratch, n, u, v, bits);
	if (h < *lrs)
		*lrs = h;
}

uint32_t rng_est_ttuple_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch)
{
	uint32_t t, l;

	rng_est_tuple_lrs_milli(s, n, bits, scratch, &t, &l);
	return t;
}

uint32_t rng_est_lrs_milli(const uint8_t *s, uint32_t n, unsigned bits, void *scratch)
{
	uint32_t t, l;

	rng_est_tuple_lrs_milli(s, n, bits, scratch, &t, &l);
	return l;
}
