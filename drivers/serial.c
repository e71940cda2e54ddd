/* National Semiconductor 16550 UART (8250 family): COM1 and COM2. */
#include <string.h>
#include "serial.h"
#include "io.h"
#include "cpu.h"
#include "boot/kernel.h"
#include "entropy.h"


#define UART_RBR 0      /* receive buffer (read) */
#define UART_THR 0      /* transmit holding (write) */
#define UART_DLL 0      /* divisor latch, DLAB=1 */
#define UART_IER 1
#define UART_DLM 1
#define UART_IIR 2
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_MSR 6
#define UART_SCR 7

#define UART_IER_RDI   0x01
#define UART_IER_THRI  0x02
#define UART_IIR_NO_INT 0x01
#define UART_IIR_ID    0x0E
#define UART_IIR_MSI   0x00
#define UART_IIR_THRI  0x02
#define UART_IIR_RDI   0x04
#define UART_IIR_RLSI  0x06
#define UART_IIR_CTI   0x0C
#define UART_FCR_ENABLE_CLEAR_TRIG8 0x87   /* enable, clear both FIFOs, RX trigger 8 */
#define UART_LCR_8N1   0x03
#define UART_LCR_DLAB  0x80
#define UART_MCR_DTR_RTS_OUT2 0x0B         /* OUT2 gates the IRQ line on PCs */
#define UART_LSR_DR    0x01
#define UART_LSR_THRE  0x20
#define UART_LSR_TEMT  0x40
#define UART_FIFO_DEPTH 16
#define UART_CLOCK_DIV_BASE 115200

#define TX_RING 4096                        /* power of two */
#define RX_RING 1024
#define CH_CTRL_C 0x03

struct uart {
	uint16_t base;
	int irq;
	int present;
	int irq_on;
	uint8_t ier;
	volatile uint32_t tx_head, tx_tail;     /* head: writer, tail: IRQ */
	volatile uint32_t rx_head, rx_tail;     /* head: IRQ, tail: reader */
	uint8_t tx[TX_RING];
	uint8_t rx[RX_RING];
};

/* In BSS (set up by serial_init), so the rings do not weigh on the image's data. */
static struct uart uarts[2];
static const uint16_t uart_base[2] = { 0x3F8, 0x2F8 };
static const int uart_irq[2] = { 4, 3 };

volatile int console_break;
volatile int console_command_running;
volatile uint64_t serial_rx_bytes[2], serial_rx_dropped[2];

static struct entropy_source serial_src;   /* untrusted: bytes anyone can send */

int serial_init(int port, uint32_t baud)
{
	struct uart *u = &uarts[port];
	u->base = uart_base[port];
	u->irq = uart_irq[port];
	uint16_t b = u->base;
	/* Scratch-register test: an empty ISA bus reads 0xFF and keeps nothing. */
	outb(b + UART_SCR, 0x5A);
	if (inb(b + UART_SCR) != 0x5A)
		return -1;
	outb(b + UART_SCR, 0xA5);
	if (inb(b + UART_SCR) != 0xA5)
		return -1;
	uint16_t div = UART_CLOCK_DIV_BASE / baud;
	outb(b + UART_IER, 0);
	outb(b + UART_LCR, UART_LCR_DLAB);
	outb(b + UART_DLL, div & 0xFF);
	outb(b + UART_DLM, div >> 8);
	outb(b + UART_LCR, UART_LCR_8N1);
	outb(b + UART_FCR, UART_FCR_ENABLE_CLEAR_TRIG8);
	outb(b + UART_MCR, UART_MCR_DTR_RTS_OUT2);
	(void)inb(b + UART_LSR);
	(void)inb(b + UART_RBR);
	(void)inb(b + UART_MSR);
	u->present = 1;
	return 0;
}

int serial_present(int port) { return uarts[port].present; }

static void uart_rx(int port, struct uart *u)
{
	for (int i = 0; i < 64 && (inb(u->base + UART_LSR) & UART_LSR_DR); i++) {
		uint8_t c = inb(u->base + UART_RBR);
		serial_rx_bytes[port]++;
		add_timing_entropy(&serial_src, c | (uint32_t)port << 8);
		if (port == COM1 && c == CH_CTRL_C && console_command_running) {
			console_break = 1;
			continue;
		}
		uint32_t next = (u->rx_head + 1) % RX_RING;
		if (next == u->rx_tail) {
			serial_rx_dropped[port]++;
			continue;
		}
		u->rx[u->rx_head] = c;
		u->rx_head = next;
	}
}

static void uart_tx(struct uart *u)
{
	int n = 0;
	while (n < UART_FIFO_DEPTH && u->tx_tail != u->tx_head) {
		outb(u->base + UART_THR, u->tx[u->tx_tail]);
		u->tx_tail = (u->tx_tail + 1) & (TX_RING - 1);
		n++;
	}
	if (u->tx_tail == u->tx_head && (u->ier & UART_IER_THRI)) {
		u->ier &= ~UART_IER_THRI;
		outb(u->base + UART_IER, u->ier);
	}
}

static void serial_irq(int irq)
{
	int port = (irq == uart_irq[COM1]) ? COM1 : COM2;
	struct uart *u = &uarts[port];
	/* Bounded: a UART that keeps claiming an interrupt cannot hold the CPU. */
	for (int i = 0; i < 16; i++) {
		uint8_t iir = inb(u->base + UART_IIR);
		if (iir & UART_IIR_NO_INT)
			break;
		switch (iir & UART_IIR_ID) {
		case UART_IIR_RLSI: (void)inb(u->base + UART_LSR); break;
		case UART_IIR_RDI:
		case UART_IIR_CTI: uart_rx(port, u); break;
		case UART_IIR_THRI: uart_tx(u); break;
		case UART_IIR_MSI: (void)inb(u->base + UART_MSR); break;
		}
	}
}

void serial_enable_irq(int port)
{
	struct uart *u = &uarts[port];
	if (!u->present)
		return;
	if (!serial_src.rng)
		create_entropy_source(&rng_live, &serial_src, "serial", 4, 0, 1);
	u->ier = UART_IER_RDI;
	outb(u->base + UART_IER, u->ier);
	u->irq_on = 1;
	irq_register(u->irq, serial_irq);
}

size_t serial_tx_space(int port)
{
	struct uart *u = &uarts[port];
	return (TX_RING - 1) - ((u->tx_head - u->tx_tail) & (TX_RING - 1));
}

/* Start the transmitter if it is idle: the THRE interrupt then keeps it going. */
static void uart_kick(struct uart *u)
{
	unsigned long f = irq_save();
	if (!(u->ier & UART_IER_THRI)) {
		u->ier |= UART_IER_THRI;
		outb(u->base + UART_IER, u->ier);
		if (inb(u->base + UART_LSR) & UART_LSR_THRE)
			uart_tx(u);
	}
	irq_restore(f);
}

/* Before interrupts are on: poll THRE, bounded, so a stalled host cannot hang the boot. */
static void uart_poll_putc(struct uart *u, uint8_t c)
{
	for (uint32_t i = 0; i < 200000 && !(inb(u->base + UART_LSR) & UART_LSR_THRE); i++)
		;
	outb(u->base + UART_THR, c);
}

size_t serial_write_some(int port, const void *buf, size_t n)
{
	struct uart *u = &uarts[port];
	const uint8_t *p = buf;
	if (!u->present)
		return n;
	if (!u->irq_on) {
		for (size_t i = 0; i < n; i++)
			uart_poll_putc(u, p[i]);
		return n;
	}
	size_t room = serial_tx_space(port), k = n < room ? n : room;
	uint32_t head = u->tx_head;
	for (size_t i = 0; i < k; i++) {
		u->tx[head] = p[i];
		head = (head + 1) & (TX_RING - 1);
	}
	/* The bytes must be in the ring before the IRQ side can see the new head. */
	__asm__ volatile("" ::: "memory");
	u->tx_head = head;
	if (k)
		uart_kick(u);
	return k;
}

void serial_write(int port, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	while (n) {
		size_t k = serial_write_some(port, p, n);
		p += k;
		n -= k;
		if (n)
			kernel_idle();       /* the host is slow or not reading: wait, keep the loop passing */
	}
}

int serial_getc(int port)
{
	struct uart *u = &uarts[port];
	if (u->rx_tail == u->rx_head)
		return -1;
	int c = u->rx[u->rx_tail];
	u->rx_tail = (u->rx_tail + 1) % RX_RING;
	return c;
}

void serial_drain(int port, uint32_t timeout_ms)
{
	struct uart *u = &uarts[port];
	if (!u->present)
		return;
	struct deadline d = deadline_in_ms(timeout_ms);
	while (!deadline_passed(d)) {
		if (u->tx_tail == u->tx_head && (inb(u->base + UART_LSR) & UART_LSR_TEMT))
			return;
		kernel_poll();
	}
}

void serial_poll_write(int port, const char *s, size_t n)
{
	struct uart *u = &uarts[port];
	if (!u->present)
		return;
	for (size_t i = 0; i < n; i++)
		uart_poll_putc(u, (uint8_t)s[i]);
}

int serial_rx_pending(int port)
{
	return uarts[port].rx_tail != uarts[port].rx_head;
}
