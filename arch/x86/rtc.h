/* MC146818 periodic interrupt (IRQ 8): the RTC's crystal as a second oscillator. */
#ifndef RAND86_RTC_H
#define RAND86_RTC_H
#include <stdint.h>

/* Runs in every period's interrupt, after register C was read. clean is 1
 * when this interrupt and the one before both woke the CPU from its halt:
 * the time between them was set by the oscillators alone. */
typedef void (*rtc_hook_fn)(int clean);

/* Register A (divider and rate select), the CMOS index left on D: the
 * same CMOS access as the handler's read of C, which `bench` times
 * without taking a live period's flag. */
uint8_t rtc_read_a(void);

/* Register A's rate select for hz, a power of two 2..8192; 0 for any other hz. */
unsigned rtc_rate_select(uint32_t hz);

enum {
	RTC_ERR_RATE = -1,      /* hz is no rate the RTC has */
	RTC_ERR_ABSENT = -2,    /* register A reads 0xFF: no RTC answers */
	RTC_ERR_DIVIDER = -3,   /* the divider is not on the 32.768 kHz time base */
	RTC_ERR_IRQ = -4,       /* IRQ 8 has a handler already */
};
/* Program the rate and PIE, take IRQ 8 (0, or an RTC_ERR_). */
int rtc_periodic_start(uint32_t hz, rtc_hook_fn hook);
/* Main-loop work: recover from a missed acknowledgement (rtc.c). */
int rtc_periodic_poll(void);

struct rtc_stats {
	uint32_t hz, periods, strays, rearms;
};
void rtc_periodic_stats(struct rtc_stats *st);
#endif
