/* MC146818 CMOS real-time clock: the time of day, read once to seed the
 * pools, and the wall clock that settles a disagreement between the TSC
 * and the tick count (lib/tscclock.h). */
#ifndef RAND86_CMOS_H
#define RAND86_CMOS_H
#include <stdint.h>

/* The status registers (Motorola MC146818A datasheet, "Address map"). */
#define CMOS_REG_A 0x0A
#define   CMOS_A_UIP     0x80       /* update in progress (read only) */
#define   CMOS_A_DIVIDER 0x70       /* DV2..DV0: the time base */
#define   CMOS_A_DV_32K  0x20       /* 010: a 32.768 kHz crystal, running */
#define   CMOS_A_RATE    0x0F       /* periodic rate select RS3..RS0 */
#define CMOS_REG_B 0x0B
#define   CMOS_B_PIE     0x40       /* periodic interrupt enable */
#define   CMOS_B_BINARY  0x04       /* binary, else BCD */
#define   CMOS_B_24H     0x02       /* 24-hour mode */
#define CMOS_REG_C 0x0C             /* flags; reading it acknowledges, clearing them */
#define   CMOS_C_IRQF    0x80       /* an enabled flag is set: IRQ 8 is asserted */
#define   CMOS_C_PF      0x40       /* a periodic interval ended */
#define CMOS_REG_D 0x0D
#define   CMOS_D_VRT     0x80       /* valid RAM and time: the battery is good */

/* Register access, NMI masked during it (port 0x70's bit 7), interrupts
 * off; afterwards cmos_release() selects D with NMIs enabled. */
uint8_t cmos_read(uint8_t reg);
void cmos_write(uint8_t reg, uint8_t v);
void cmos_release(void);
/* Wait (bounded: an update lasts under 2 ms) until no update is in
 * progress; -1 if UIP never cleared. */
int cmos_wait_no_update(void);

/* Where cmos_read_rtc puts each register it reads. */
enum {
	CMOS_RTC_SEC, CMOS_RTC_MIN, CMOS_RTC_HOUR, CMOS_RTC_WEEKDAY, CMOS_RTC_DAY,
	CMOS_RTC_MONTH, CMOS_RTC_YEAR, CMOS_RTC_CENTURY, CMOS_RTC_A, CMOS_RTC_B,
	CMOS_RTC_BYTES
};
/* Read the clock registers, after (bounded) waiting out an update in progress.
 * A missing RTC reads 0xFF. */
void cmos_read_rtc(uint8_t out[CMOS_RTC_BYTES]);
/* Seconds since 2000-01-01 00:00 by the clock, or 0xFFFFFFFF if what it
 * reads is no time of day (absent, or not set). */
uint32_t cmos_rtc_seconds(void);
#endif
