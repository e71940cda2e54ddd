/* MC146818 CMOS real-time clock: the time-of-day registers (boot seeding,
 * no credit; the uptime clock's arbiter). */
#include "cmos.h"
#include "io.h"

#define CMOS_INDEX 0x70
#define CMOS_DATA  0x71
#define CMOS_NMI_OFF 0x80
#define CMOS_STATUS_A 0x0A
#define CMOS_UIP 0x80
#define CMOS_UIP_POLLS 10000        /* an update lasts < 2 ms; a missing RTC reads 0xFF */

static uint8_t cmos_read(uint8_t reg)
{
	outb(CMOS_INDEX, CMOS_NMI_OFF | reg);
	return inb(CMOS_DATA);
}

void cmos_read_rtc(uint8_t out[CMOS_RTC_BYTES])
{
	static const uint8_t regs[CMOS_RTC_BYTES] = { 0x00, 0x02, 0x04, 0x06, 0x07, 0x08, 0x09, 0x32, 0x0A, 0x0B };
	for (int i = 0; i < CMOS_UIP_POLLS && (cmos_read(CMOS_STATUS_A) & CMOS_UIP); i++)
		io_delay();
	for (int i = 0; i < CMOS_RTC_BYTES; i++)
		out[i] = cmos_read(regs[i]);
	cmos_read(0x0D);                /* leave the index with NMIs enabled */
}

static unsigned rtc_field(uint8_t v, int binary)
{
	return binary ? v : (v >> 4) * 10u + (v & 0x0F);
}

/* Status B bit 2: binary rather than BCD; bit 1: 24-hour (else bit 7 of
 * the hour is PM). Years 00..99 are 2000..2099. */
uint32_t cmos_rtc_seconds(void)
{
	static const uint16_t before[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
	uint8_t t[CMOS_RTC_BYTES];
	cmos_read_rtc(t);
	int bin = t[9] & 0x04;
	unsigned s = rtc_field(t[0], bin), m = rtc_field(t[1], bin), h = rtc_field(t[2] & 0x7F, bin);
	unsigned d = rtc_field(t[4], bin), mo = rtc_field(t[5], bin), y = rtc_field(t[6], bin);
	if (!(t[9] & 0x02))
		h = h % 12 + (t[2] & 0x80 ? 12 : 0);
	if (s > 59 || m > 59 || h > 23 || d < 1 || d > 31 || mo < 1 || mo > 12 || y > 99)
		return 0xFFFFFFFFu;
	uint32_t days = y * 365 + (y + 3) / 4 + before[mo - 1] + (d - 1) + (mo > 2 && y % 4 == 0);
	return ((days * 24 + h) * 60 + m) * 60 + s;
}
