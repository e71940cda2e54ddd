/* Seed the pools at boot: CMOS time of day, the clock, the multiboot info. No credit. */
#include <string.h>
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

void seed_boot_pools(struct rng *r, const struct multiboot_info *mbi)
{
	uint8_t rtc[10];
	static const uint8_t regs[10] = { 0x00, 0x02, 0x04, 0x06, 0x07, 0x08, 0x09, 0x32, 0x0A, 0x0B };
	for (int i = 0; i < CMOS_UIP_POLLS && (cmos_read(CMOS_STATUS_A) & CMOS_UIP); i++)
		io_delay();
	for (int i = 0; i < 10; i++)
		rtc[i] = cmos_read(regs[i]);
	rng_mix_uncredited(r, rtc, sizeof(rtc));

	uint64_t now = clock_now();
	rng_mix_uncredited(r, &now, sizeof(now));

	if (!mbi)
		return;
	rng_mix_uncredited(r, mbi, sizeof(*mbi));
	if (mbi->flags & MB_INFO_CMDLINE) {
		const char *c = (const char *)mbi->cmdline;
		rng_mix_uncredited(r, c, strnlen(c, 4096));
	}
	if ((mbi->flags & MB_INFO_MMAP) && mbi->mmap_length < 4096)
		rng_mix_uncredited(r, (const void *)mbi->mmap_addr, mbi->mmap_length);
}
