/* MC146818 CMOS real-time clock: the time of day, read once to seed the pools. */
#ifndef RAND86_CMOS_H
#define RAND86_CMOS_H
#include <stdint.h>

/* Seconds, minutes, hours, weekday, day, month, year, century, status A, B. */
#define CMOS_RTC_BYTES 10
/* Read the clock registers, after (bounded) waiting out an update in progress.
 * A missing RTC reads 0xFF. */
void cmos_read_rtc(uint8_t out[CMOS_RTC_BYTES]);
#endif
