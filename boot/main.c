/* rand86 boot: the init sequence, in order, and the main loop. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "kern/kernel.h"
#include "boot/multiboot.h"
#include "app/shell.h"
#include "drivers/cmos.h"
#include "app/serve.h"
#include "app/dashboard.h"
#include "cpu.h"
#include "io.h"
#include "drivers/serial.h"
#include "drivers/vga.h"
#include "kern/devices.h"
#include "app/commands.h"

volatile uint32_t kernel_passes;
struct boot_options boot_opts;
struct rng rng_live;
uint32_t boot_to_prompt_ms;

#define MAX_POLLERS 8
static void (*pollers[MAX_POLLERS])(void);
static int npollers;

void kernel_add_poller(void (*fn)(void))
{
	if (npollers < MAX_POLLERS)
		pollers[npollers++] = fn;
}

void console_write(const char *s, size_t n)
{
	serial_write(COM1, s, n);
	vga_write(s, n);
}

void console_write_raw(const void *buf, size_t n)
{
	serial_write(COM1, buf, n);
}

int kprintf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return n;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	console_write(buf, (size_t)n);
	return n;
}

void panic_printf(const char *fmt, ...)
{
	static char buf[1024];
	va_list ap;
	cpu_cli();                      /* for good: the machine halts after a panic */
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	serial_poll_write(COM1, buf, (size_t)n);
	vga_set_mirror(1);
	vga_write(buf, (size_t)n);
}

static volatile int more_work;

void kernel_more_work(void)
{
	more_work = 1;
}

void kernel_poll(void)
{
	kernel_passes++;
	if (tick_flush_due) {
		tick_flush_due = 0;
		rng_batch_flush(&rng_live);
	}
	for (int i = 0; i < npollers; i++)
		pollers[i]();
}

void kernel_idle(void)
{
	more_work = 0;
	kernel_poll();
	cpu_cli();                      /* bound: three flag tests, then sti (and hlt) */
	if (tick_flush_due || more_work || shell_input_pending())
		cpu_sti();
	else
		cpu_sti_hlt();
}

/* The `timer` source (docs/PROTOCOL.md, "Devices"): the PIT's tick timed by the TSC, two
 * oscillators. Under credit=measured only; with no TSC the clock IS the
 * PIT, the count between ticks is the reload value, and the source is
 * created untrusted so `sources` says it earns nothing. */
static struct entropy_source timer_src;

static void timer_fields(char *buf, size_t n)
{
	snprintf(buf, n, "timed_by=%s", clock_is_tsc() ? "tsc" : "pit");
}

static void timer_source_init(void)
{
	int tsc = clock_is_tsc();
	if (boot_opts.credit != CREDIT_MEASURED)
		return;
	create_entropy_source(&rng_live, &timer_src, "timer", 0, tsc, 0);
	rng_source_own_pass_check(&timer_src);
	sources_add_fields(&timer_src, timer_fields);
	pit_set_entropy_source(&timer_src);
	kprintf("timer: PIT tick timed by the %s: %s\r\n", tsc ? "TSC" : "PIT itself",
		tsc ? "trusted, capped by measurement" : "untrusted (one oscillator)");
}

static void warn_option(const char *word, void *ctx)
{
	(void)ctx;
	kprintf("warning: ignoring boot option '%s'\r\n", word);
}

static void ignore_option(const char *word, void *ctx) { (void)word; (void)ctx; }

void kmain(uint32_t magic, struct multiboot_info *mbi)
{
	const char *cmdline = "";
	if (magic == MULTIBOOT_LOADER_MAGIC && (mbi->flags & MB_INFO_CMDLINE))
		cmdline = (const char *)mbi->cmdline;

	gdt_init();
	idt_init();
	pic_init();
	options_defaults(&boot_opts);
	options_parse(&boot_opts, cmdline, ignore_option, NULL);   /* baud first; warnings below */

	int com1 = serial_init(COM1, boot_opts.baud);
	int vga = vga_init();
	kprintf("rand86 %s\r\n", RAND86_VERSION);
	if (magic != MULTIBOOT_LOADER_MAGIC)
		kprintf("warning: not started by a multiboot loader (magic 0x%08lx)\r\n", (unsigned long)magic);
	struct boot_options check;
	options_defaults(&check);
	options_parse(&check, cmdline, warn_option, NULL);
	if (com1 < 0)
		kprintf("com1: no 16550 at 0x3f8: no console\r\n");
	if (vga < 0)
		kprintf("vga: no text memory at 0xb8000: no screen\r\n");
	if (serial_init(COM2, boot_opts.baud) < 0)
		kprintf("com2: no 16550 at 0x2f8: stream port absent\r\n");

	rng_init(&rng_live, boot_opts.credit == CREDIT_TSO ? RNG_CREDIT_TSO :
		boot_opts.credit == CREDIT_XYMORON ? RNG_CREDIT_XYMORON : RNG_CREDIT_MEASURED);
	rng_set_default(&rng_live);
	/* Power-on known-answer test: every byte served passes through SHA-1. */
	if (rng_sha1_selftest() != 0) {
		panic_printf("entropy: SHA-1 known-answer test failed: this build must not serve random bytes; halted\r\n");
		cpu_halt_forever();
	}
	pit_init(boot_opts.hz);
	serial_enable_irq(COM1);
	serial_enable_irq(COM2);
	cpu_sti();
	clock_init();
	kprintf("clock: %s, cpu_khz %lu, hz %lu\r\n", clock_is_tsc() ? "tsc" : "pit",
		(unsigned long)clock_khz(), (unsigned long)boot_opts.hz);
	serial_sources_init();
	seed_boot_pools(&rng_live, magic == MULTIBOOT_LOADER_MAGIC ? mbi : NULL);
	devices_init();
	timer_source_init();
	stream_port_init();
	dashboard_init();

	boot_to_prompt_ms = (uint32_t)clock_ms();
	shell_start();
	for (;;) {
		shell_poll();
		kernel_idle();
	}
}
