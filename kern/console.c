/* Console output: COM1 and its VGA mirror, the writers behind kprintf and panic_printf. */
#include "kern/kernel.h"
#include "arch/x86/cpu.h"
#include "drivers/serial.h"
#include "drivers/vga.h"

/* All of buf onto port's ring; while it is full (the host is slow or not
 * reading), wait in main-loop passes so the appliance keeps working. */
static void serial_write_all(int port, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	for (;;) {
		size_t k = serial_write_some(port, p, n);
		p += k;
		n -= k;
		if (!n)
			return;
		kern_idle();
	}
}

/* A reply of many lines (status, sources) costs ~0.5 ms of a 4 MIPS CPU
 * a line to format: between lines the loop gets its pass when one is due. */
void console_write(const char *s, size_t n)
{
	serial_write_all(COM1, s, n);
	vga_write(s, n);
	kern_pass_if_due();
}

void console_write_raw(const void *buf, size_t n)
{
	serial_write_all(COM1, buf, n);
}

/* A fault: interrupts off, COM1 polled, the screen shows it again. */
static void console_panic_write(const char *s, size_t n)
{
	cpu_cli();
	serial_poll_write(COM1, s, n);
	vga_set_mirror(1);
	vga_write(s, n);
}

static int console_sent(void)
{
	return serial_tx_done(COM1);
}

void console_drain(uint32_t timeout_ms)
{
	(void)kern_wait_until(console_sent, timeout_ms);
}

void console_init(uint32_t baud)
{
	int com1 = serial_init(COM1, baud);
	int vga = vga_init();
	kprintf_set_writers(console_write, console_panic_write);
	if (com1 < 0)
		kprintf("com1: no 16550 at 0x3f8: no console\r\n");
	if (vga < 0)
		kprintf("vga: no text memory at 0xb8000: no screen\r\n");
	if (serial_init(COM2, baud) < 0)
		kprintf("com2: no 16550 at 0x2f8: stream port absent\r\n");
}
