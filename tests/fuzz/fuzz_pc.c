/* The host PC under the fuzz targets (fuzz_pc.h): fakes of arch/x86's io.h, cpu.h, irq.h and clock.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_pc.h"
#include "arch/x86/cpu.h"
#include "arch/x86/pic.h"
#include "lib/kprintf.h"

int (*pc_dev_in)(uint16_t port, uint8_t *v);
int (*pc_dev_out)(uint16_t port, uint8_t v);
void (*pc_dev_insw)(uint16_t port, uint16_t *buf, uint32_t count);
uint64_t pc_us;
int pc_iflag_depth;
static irq_handler_t handlers[IRQ_COUNT];

char pc_log[1 << 16];
size_t pc_log_len, pc_log_total;

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "invariant broken: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

/* ---- the 16550 pair (National PC16550D datasheet, table II) ---- */
#define UART_FIFO 16
static const uint16_t uart_base[2] = { 0x3F8, 0x2F8 };
static const int uart_irq[2] = { 4, 3 };
static struct {
	uint8_t fifo[UART_FIFO];
	unsigned n;
	uint8_t scr, ier, lcr;
} uart[2];
uint8_t pc_uart_out[2][1 << 16];
size_t pc_uart_out_len[2];

static int uart_of(uint16_t port)
{
	for (int i = 0; i < 2; i++)
		if (port >= uart_base[i] && port < uart_base[i] + 8)
			return i;
	return -1;
}

static uint8_t uart_in(int u, unsigned reg)
{
	switch (reg) {
	case 0: {                                        /* RBR */
		uint8_t c = uart[u].n ? uart[u].fifo[0] : 0;
		if (uart[u].n)
			memmove(uart[u].fifo, uart[u].fifo + 1, --uart[u].n);
		return c;
	}
	case 1: return uart[u].ier;
	case 2: return uart[u].n ? 0xC4 : 0xC1;          /* FIFOs on; RDI or none */
	case 5: return (uart[u].n ? 0x01 : 0) | 0x60;    /* DR, THRE, TEMT */
	case 7: return uart[u].scr;
	default: return 0;
	}
}

static void uart_out(int u, unsigned reg, uint8_t v)
{
	if (reg == 0 && !(uart[u].lcr & 0x80)) {
		if (pc_uart_out_len[u] < sizeof(pc_uart_out[u]))
			pc_uart_out[u][pc_uart_out_len[u]++] = v;
	} else if (reg == 1 && !(uart[u].lcr & 0x80)) {
		uart[u].ier = v;
	} else if (reg == 3) {
		uart[u].lcr = v;
	} else if (reg == 7) {
		uart[u].scr = v;
	}
}

void pc_uart_send(int port, const uint8_t *p, size_t n)
{
	while (n) {
		while (n && uart[port].n < UART_FIFO) {
			uart[port].fifo[uart[port].n++] = *p++;
			n--;
		}
		pc_raise(uart_irq[port]);
		uart[port].n = 0;          /* a FIFO the handler did not empty overran */
	}
}

/* ---- port I/O ---- */
uint8_t inb(uint16_t port)
{
	uint8_t v = 0xFF;
	int u = uart_of(port);
	if (u >= 0)
		return uart_in(u, port - uart_base[u]);
	if (pc_dev_in && pc_dev_in(port, &v))
		return v;
	return 0xFF;
}

void outb(uint16_t port, uint8_t v)
{
	int u = uart_of(port);
	if (u >= 0)
		uart_out(u, port - uart_base[u], v);
	else if (pc_dev_out)
		pc_dev_out(port, v);
}

uint16_t inw(uint16_t port) { return (uint16_t)(inb(port) | inb(port) << 8); }
uint32_t inl(uint16_t port) { (void)port; return 0xFFFFFFFFu; }
void outw(uint16_t port, uint16_t v) { (void)port; (void)v; }
void outl(uint16_t port, uint32_t v) { (void)port; (void)v; }

void insw(uint16_t port, void *buf, uint32_t count)
{
	if (pc_dev_insw)
		pc_dev_insw(port, buf, count);
	else
		memset(buf, 0xFF, 2 * (size_t)count);
}

/* ---- interrupts ---- */
unsigned long irq_save(void) { return (unsigned long)++pc_iflag_depth; }
void irq_restore(unsigned long f) { (void)f; pc_iflag_depth--; }
void cpu_cli(void) {}
void cpu_sti(void) {}

int irq_register(int irq, irq_handler_t h)
{
	if (irq < 0 || irq >= IRQ_COUNT || handlers[irq])
		return -1;
	handlers[irq] = h;
	return 0;
}

int irq_in_use(int irq) { return irq < 0 || irq >= IRQ_COUNT || handlers[irq] != NULL; }
irq_handler_t pc_handler(int irq) { return handlers[irq]; }
uint16_t pic_irr(void) { return 0; }

void pc_raise(int irq)
{
	if (handlers[irq])
		handlers[irq](irq);
}

/* ---- the clock: a microsecond per read and 100 per deadline check, so
 * every wait on it ends, and a 1 s one in 10,000 polls ---- */
uint32_t clock_khz(void) { return 1000; }
uint64_t clock_now(void) { return pc_us++; }
uint64_t clock_ms(void) { return pc_us / 1000; }
void clock_delay_us(uint32_t us) { pc_us += us; }
int clock_is_tsc(void) { return 1; }
struct deadline deadline_in_ms(uint32_t ms) { return (struct deadline){ pc_us + 1000ull * ms }; }
int deadline_passed(struct deadline d)
{
	pc_us += 100;
	return pc_us >= d.at;
}

/* ---- kprintf's writer ---- */
void pc_log_write(const char *s, size_t n)
{
	pc_log_total += n;
	if (n > sizeof(pc_log) - pc_log_len)
		pc_log_len = 0;
	if (n > sizeof(pc_log))
		return;
	memcpy(pc_log + pc_log_len, s, n);
	pc_log_len += n;
}

void pc_reset(void)
{
	memset(handlers, 0, sizeof(handlers));
	memset(uart, 0, sizeof(uart));
	pc_uart_out_len[0] = pc_uart_out_len[1] = 0;
	pc_us = 0;
	pc_iflag_depth = 0;
	pc_dev_in = NULL;
	pc_dev_out = NULL;
	pc_dev_insw = NULL;
	pc_log_len = pc_log_total = 0;
	kprintf_set_writers(pc_log_write, pc_log_write);
}
