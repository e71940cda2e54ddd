/* MC146818 CMOS real-time clock: the time of day, read once to seed the
 * pools, and the wall clock that settles a disagreement between the TSC
 * and the tick count (lib/tscclock.h). */
#ifndef RAND86_CMOS_H
#define RAND86_CMOS_H
#include <stdint.h>

/* Seconds, minutes, hours, weekday, day, month, year, century, status A, B. */
#define CMOS_RTC_BYTES 10
/* Read the clock registers, after (bounded) waiting out an update in progress.
 * A missing RTC reads 0xFF. */
void cmos_read_rtc(uint8_t out[CMOS_RTC_BYTES]);
/* Seconds since 2000-01-01 00:00 by the clock, or 0xFFFFFFFF if what it
 * reads is no time of day (absent, or not set). */
uint32_t cmos_rtc_seconds(void);
#endif
