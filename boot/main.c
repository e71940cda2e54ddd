/* rand86 boot: kmain, the init sequence in order; then the main loop. */
#include <string.h>
#include "boot/multiboot.h"
#include "kern/kernel.h"
#include "app/shell.h"
#include "app/serve.h"
#include "app/dashboard.h"
#include "arch/x86/cpu.h"
#include "arch/x86/irq.h"
#include "arch/x86/gdt.h"
#include "arch/x86/pic.h"
#include "arch/x86/clock.h"
#include "arch/x86/cmos.h"
#include "drivers/serial.h"

/* Mixed without credit (what 1999's rand_initialize mixed, and what the
 * loader left): the RTC, the clock, the multiboot info, its command line
 * and memory map. */
static void seed_pools(const struct multiboot_info *mb)
{
	uint8_t rtc[CMOS_RTC_BYTES];
	cmos_read_rtc(rtc);
	rng_mix_uncredited(&rng_live, rtc, sizeof(rtc));
	uint64_t now = clock_now();
	rng_mix_uncredited(&rng_live, &now, sizeof(now));
	if (!mb)
		return;
	rng_mix_uncredited(&rng_live, mb, sizeof(*mb));
	if (mb->flags & MB_INFO_CMDLINE) {
		const char *c = (const char *)mb->cmdline;
		rng_mix_uncredited(&rng_live, c, strnlen(c, 4096));
	}
	if ((mb->flags & MB_INFO_MMAP) && mb->mmap_length < 4096)
		rng_mix_uncredited(&rng_live, (const void *)mb->mmap_addr, mb->mmap_length);
}

void kmain(uint32_t magic, struct multiboot_info *mbi)
{
	const struct multiboot_info *mb = magic == MULTIBOOT_LOADER_MAGIC ? mbi : NULL;

	gdt_init();
	idt_init();
	pic_init();
	kprintf("rand86 %s\r\n", RAND86_VERSION);           /* held until the console is up */
	if (!mb)
		kprintf("warning: not started by a multiboot loader (magic 0x%08lx)\r\n", (unsigned long)magic);
	kern_options_init(mb && (mb->flags & MB_INFO_CMDLINE) ? (const char *)mb->cmdline : "");
	console_init(boot_opts.baud);                       /* COM1, VGA, COM2 */
	kern_options_warn();
	rng_live_init(boot_opts.credit);
	kern_tick_init(boot_opts.hz);                       /* the PIT, its tick hooked to kern/ */
	serial_enable_irq(COM1);
	serial_enable_irq(COM2);
	cpu_sti();
	clock_init();
	kern_assess_init(&rng_live);                        /* the meter's assessments, in idle time */
	serial_sources_init(&rng_live);
	seed_pools(mb);
	devices_init(&rng_live, &boot_opts);
	stream_port_init();
	dashboard_init();
	kern_loop(shell_start, shell_poll, shell_input_pending);
}
