/* Uptime from the TSC, held to the PIT's tick count, without hardware so
 * the host can test it. */
#ifndef RAND86_TSCCLOCK_H
#define RAND86_TSCCLOCK_H
#include <stdint.h>

/*
 * The TSC is the finer clock, but not the one to trust blindly: under
 * emulation it is the host's counter, which can leap when the emulator's
 * thread lands on another host (QEMU TCG reads the host's rdtsc; a soak on
 * a cloud VM saw uptime_ms leap 5.4 days ahead at once), and on real PCs
 * it stops or restarts across suspend and SMM. The PIT tick count cannot
 * leap, but it can fall behind (ticks merged under a loaded emulator:
 * up to a third lost at hz=1000 under TCG). So between two calls the TSC's
 * advance is believed unless it exceeds the ticks' advance by more than
 * the ticks can have lost (TSC_LEAP_FACTOR times, plus TSC_LEAP_SLACK_MS
 * for a call soon after a long masked stretch); then, or when the TSC went
 * back, the ticks' advance is counted instead and the TSC rebased.
 * The value never goes back.
 */
#define TSC_LEAP_FACTOR   4
#define TSC_LEAP_SLACK_MS 1000

struct tsc_uptime {
	uint64_t tsc;          /* TSC at the last whole millisecond counted */
	uint64_t ms;           /* milliseconds counted */
	uint64_t jiffies;      /* ticks at the last call */
	uint32_t leaps;        /* advances not believed */
};

static inline uint64_t tsc_uptime_ms(struct tsc_uptime *u, uint64_t tsc, uint64_t j,
	uint32_t khz, uint32_t hz)
{
	uint64_t d = (tsc - u->tsc) / khz;      /* a TSC that went back: a huge d */
	uint64_t jd = (j - u->jiffies) * 1000 / hz;
	if (d > TSC_LEAP_FACTOR * jd + TSC_LEAP_SLACK_MS) {
		u->leaps++;
		d = jd;
		u->tsc = tsc;
	} else {
		u->tsc += d * khz;                  /* keep the fraction for next time */
	}
	u->ms += d;
	u->jiffies = j;
	return u->ms;
}
#endif
