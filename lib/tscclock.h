/* The TSC uptime's arithmetic for arch/x86/clock.c, pure (no ports, no
 * globals; the CMOS clock is a function passed in) and in lib/ so the host
 * tests build it as it is, without fakes: uptime from the TSC, checked
 * against the PIT's tick count and, when the two disagree, settled by the
 * CMOS clock. */
#ifndef RAND86_TSCCLOCK_H
#define RAND86_TSCCLOCK_H
#include <stdint.h>

/*
 * The TSC is the finer clock, but not one to trust blindly: under
 * emulation it is the host's counter, which can leap when the emulator's
 * thread lands elsewhere (QEMU TCG reads the host's rdtsc; a soak on a
 * cloud VM saw uptime_ms leap 5.4 days ahead at once) or differ a little
 * from core to core; on real PCs it stops or restarts across suspend and
 * SMM. The tick count cannot leap, but it falls behind: a loaded emulator
 * merges ticks (a third lost at hz=1000 under TCG), and an emulator that
 * was stopped or descheduled for seconds delivers them as one. So neither
 * alone can tell a leap of the TSC from a stall of the machine. The CMOS
 * clock can: it keeps wall time through both (QEMU's follows the host's
 * clock; a PC's runs on its battery), at one-second resolution.
 *
 * The TSC's advance is taken from a base, not from the last call, so a
 * TSC that steps back a little (another core) only holds uptime still
 * until it has caught up, and stepping forward again adds nothing. While
 * it stays within TSC_LEAP_FACTOR times the ticks' advance since the base
 * plus TSC_LEAP_SLACK_MS, it is believed without further question. Beyond
 * that, below the base, or more than TSC_LEAP_SLACK_MS behind the uptime
 * already given, the CMOS clock is read: if it agrees with the
 * TSC within TSC_RTC_SLACK_MS (two one-second steps), the machine stalled
 * and the TSC is right; else the TSC leapt and the CMOS clock's advance
 * (or, with no CMOS clock, the ticks') is counted. Either way the base
 * moves to now. The value never goes back.
 */
#define TSC_LEAP_FACTOR   4
#define TSC_LEAP_SLACK_MS 1000
#define TSC_RTC_SLACK_MS  2000
#define TSC_NO_RTC        0xFFFFFFFFu   /* what rtc() returns without a CMOS clock */

struct tsc_uptime {
	uint64_t tsc0;         /* TSC at the base */
	uint64_t j0;           /* ticks at the base */
	uint64_t ms0;          /* uptime at the base */
	uint64_t ms;           /* the last value returned */
	uint32_t rtc0;         /* CMOS clock seconds at the base, or TSC_NO_RTC */
	uint32_t leaps;        /* advances of the TSC not believed */
};

static inline void tsc_uptime_base(struct tsc_uptime *u, uint64_t tsc, uint64_t j,
	uint64_t ms, uint32_t rtc_now)
{
	u->tsc0 = tsc;
	u->j0 = j;
	u->ms0 = ms;
	u->rtc0 = rtc_now;
}

/* rtc() is called only when the TSC and the ticks disagree (it may wait
 * out a CMOS update, ~2 ms). */
static inline uint64_t tsc_uptime_ms(struct tsc_uptime *u, uint64_t tsc, uint64_t j,
	uint32_t khz, uint32_t hz, uint32_t (*rtc)(void))
{
	uint64_t jd = (j - u->j0) * 1000 / hz;
	uint64_t d = tsc >= u->tsc0 ? (tsc - u->tsc0) / khz : 0;
	uint64_t ms = u->ms0 + d;
	if (tsc < u->tsc0 || d > TSC_LEAP_FACTOR * jd + TSC_LEAP_SLACK_MS ||
	    ms + TSC_LEAP_SLACK_MS < u->ms) {
		uint32_t now = rtc();
		uint64_t truth = jd;
		if (now != TSC_NO_RTC && u->rtc0 != TSC_NO_RTC && now >= u->rtc0)
			truth = (uint64_t)(now - u->rtc0) * 1000;
		if (tsc < u->tsc0 || d > truth + TSC_RTC_SLACK_MS || d + TSC_RTC_SLACK_MS < truth) {
			u->leaps++;
			ms = u->ms0 + truth;
		}
		tsc_uptime_base(u, tsc, j, ms > u->ms ? ms : u->ms, now);
	}
	if (ms > u->ms)
		u->ms = ms;
	return u->ms;
}
#endif
