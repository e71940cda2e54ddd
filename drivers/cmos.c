/* MC146818 CMOS real-time clock: the time-of-day registers (boot seeding, no credit). */
#include "drivers/cmos.h"
#include "cpu.h"
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
}
