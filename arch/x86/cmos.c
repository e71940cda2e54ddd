/* MC146818 CMOS real-time clock: the time-of-day registers (boot seeding,
 * no credit; the uptime clock's arbiter). */
#include "cmos.h"
#include "io.h"

#include "cpu.h"

#define CMOS_INDEX 0x70
#define   CMOS_NMI_OFF 0x80         /* index bit 7: NMI masked while set */
#define CMOS_DATA  0x71
/* MC146818 registers (Motorola MC146818A datasheet, "Address map"); bits under each. */
#define CMOS_SECONDS 0x00
#define CMOS_MINUTES 0x02
#define CMOS_HOURS   0x04
#define   CMOS_HOURS_PM  0x80       /* 12-hour mode: afternoon */
#define CMOS_WEEKDAY 0x06
#define CMOS_DAY     0x07
#define CMOS_MONTH   0x08
#define CMOS_YEAR    0x09
#define CMOS_CENTURY 0x32           /* IBM PC/AT's century byte (no MC146818 register) */
#define CMOS_NO_TIME 0xFFFFFFFFu
#define CMOS_UIP_POLLS 10000        /* an update lasts < 2 ms; a missing RTC reads 0xFF */

/* One register, NMI masked for the access (the index write's bit 7), with
 * interrupts off: the RTC's handler selects register C between any two
 * other accesses. */
uint8_t cmos_read(uint8_t reg)
{
	unsigned long f = irq_save();
	outb(CMOS_INDEX, CMOS_NMI_OFF | reg);
	uint8_t v = inb(CMOS_DATA);
	irq_restore(f);
	return v;
}

void cmos_write(uint8_t reg, uint8_t v)
{
	unsigned long f = irq_save();
	outb(CMOS_INDEX, CMOS_NMI_OFF | reg);
	outb(CMOS_DATA, v);
	irq_restore(f);
}

/* Select register D, which no access changes, with NMIs enabled: how
 * rand86 leaves the index after every run of accesses. */
void cmos_release(void)
{
	outb(CMOS_INDEX, CMOS_REG_D);
}

int cmos_wait_no_update(void)
{
	for (int i = 0; i < CMOS_UIP_POLLS; i++) {
		if (!(cmos_read(CMOS_REG_A) & CMOS_A_UIP))
			return 0;
		io_delay();
	}
	return -1;
}

void cmos_read_rtc(uint8_t out[CMOS_RTC_BYTES])
{
	static const uint8_t regs[CMOS_RTC_BYTES] = {
		[CMOS_RTC_SEC] = CMOS_SECONDS, [CMOS_RTC_MIN] = CMOS_MINUTES,
		[CMOS_RTC_HOUR] = CMOS_HOURS, [CMOS_RTC_WEEKDAY] = CMOS_WEEKDAY,
		[CMOS_RTC_DAY] = CMOS_DAY, [CMOS_RTC_MONTH] = CMOS_MONTH,
		[CMOS_RTC_YEAR] = CMOS_YEAR, [CMOS_RTC_CENTURY] = CMOS_CENTURY,
		[CMOS_RTC_A] = CMOS_REG_A, [CMOS_RTC_B] = CMOS_REG_B,
	};
	(void)cmos_wait_no_update();
	for (int i = 0; i < CMOS_RTC_BYTES; i++)
		out[i] = cmos_read(regs[i]);
	cmos_release();
}

static unsigned rtc_field(uint8_t v, int binary)
{
	return binary ? v : (v >> 4) * 10u + (v & 0x0F);
}

/* Status B says binary or BCD, 24- or 12-hour (then the hour's bit 7 is
 * PM). Years 00..99 are 2000..2099. */
uint32_t cmos_rtc_seconds(void)
{
	static const uint16_t days_before_month[12] = {
		0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334,
	};
	uint8_t t[CMOS_RTC_BYTES];
	cmos_read_rtc(t);
	int bin = t[CMOS_RTC_B] & CMOS_B_BINARY;
	unsigned s = rtc_field(t[CMOS_RTC_SEC], bin), m = rtc_field(t[CMOS_RTC_MIN], bin);
	unsigned h = rtc_field(t[CMOS_RTC_HOUR] & ~CMOS_HOURS_PM, bin);
	unsigned d = rtc_field(t[CMOS_RTC_DAY], bin), mo = rtc_field(t[CMOS_RTC_MONTH], bin);
	unsigned y = rtc_field(t[CMOS_RTC_YEAR], bin);
	if (!(t[CMOS_RTC_B] & CMOS_B_24H))
		h = h % 12 + (t[CMOS_RTC_HOUR] & CMOS_HOURS_PM ? 12 : 0);
	if (s > 59 || m > 59 || h > 23 || d < 1 || d > 31 || mo < 1 || mo > 12 || y > 99)
		return CMOS_NO_TIME;
	uint32_t days = y * 365 + (y + 3) / 4 + days_before_month[mo - 1] + (d - 1) + (mo > 2 && y % 4 == 0);
	return ((days * 24 + h) * 60 + m) * 60 + s;
}
