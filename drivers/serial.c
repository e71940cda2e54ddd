/* National Semiconductor 16550 UART (8250 family): COM1 and COM2. */
#include <string.h>
#include "serial.h"
#include "arch/x86/cpu.h"
#include "arch/x86/io.h"
#include "arch/x86/irq.h"
#include "lib/kprintf.h"
#include "entropy/entropy.h"
#include "lib/uart_tx.h"


/* 16550 registers, offsets from the port's base (National PC16550D
 * datasheet, 8.0 "Registers", table II); bits under each. */
#define UART_RBR 0      /* receive buffer (read) */
#define UART_THR 0      /* transmit holding (write) */
#define UART_DLL 0      /* divisor latch low, DLAB=1 */
#define UART_IER 1      /* interrupt enable */
#define   UART_IER_RDI    0x01      /* received data available */
#define   UART_IER_THRI   0x02      /* transmit holding register empty */
#define UART_DLM 1      /* divisor latch high, DLAB=1 */
#define UART_IIR 2      /* interrupt identification (read) */
#define   UART_IIR_NO_INT 0x01      /* no interrupt pending */
#define   UART_IIR_ID     0x0E      /* the pending cause: */
#define   UART_IIR_MSI    0x00      /*   modem status */
#define   UART_IIR_THRI   0x02      /*   transmit holding register empty */
#define   UART_IIR_RDI    0x04      /*   received data available */
#define   UART_IIR_RLSI   0x06      /*   receiver line status */
#define   UART_IIR_CTI    0x0C      /*   character timeout (FIFO mode) */
#define   UART_IIR_FIFO_MASK 0xC0   /* 11: FIFOs enabled (16550A); 00: none (16450) */
#define UART_FCR 2      /* FIFO control (write) */
#define   UART_FCR_ENABLE_FIFO 0x01
#define   UART_FCR_CLEAR_RCVR  0x02
#define   UART_FCR_CLEAR_XMIT  0x04
#define   UART_FCR_TRIGGER_8   0x80 /* receive interrupt at 8 bytes */
#define UART_LCR 3      /* line control */
#define   UART_LCR_WLEN8  0x03      /* 8 data bits; with 1 stop bit, no parity: 8N1 */
#define   UART_LCR_DLAB   0x80      /* divisor latch access */
#define UART_MCR 4      /* modem control */
#define   UART_MCR_DTR    0x01
#define   UART_MCR_RTS    0x02
#define   UART_MCR_OUT2   0x08      /* gates the IRQ line on PCs */
#define UART_LSR 5      /* line status */
#define   UART_LSR_DR     0x01      /* data ready */
#define   UART_LSR_THRE   UART_TX_LSR_THRE   /* 0x20, lib/uart_tx.h */
#define   UART_LSR_TEMT   0x40      /* transmitter empty */
#define UART_MSR 6      /* modem status */
#define UART_SCR 7      /* scratch */
#define   UART_SCR_TEST1  0x5A      /* two patterns an empty bus (0xFF) cannot keep */
#define   UART_SCR_TEST2  0xA5

#define UART_FIFO_DEPTH 16                  /* 16550A transmit FIFO */
#define UART_CLOCK_DIV_BASE 115200          /* 1.8432 MHz / 16 */
/* The PC's COM1 and COM2 (IBM PC/AT Technical Reference). */
#define COM1_BASE 0x3F8
#define COM1_IRQ  4
#define COM2_BASE 0x2F8
#define COM2_IRQ  3
/* Bounds: bytes taken per receive interrupt, causes read per interrupt,
 * and LSR polls per byte before interrupts are on (~0.2 s at ISA speed). */
#define UART_RX_MAX_PER_IRQ 64
#define UART_IIR_MAX_ROUNDS 16
#define UART_POLL_THRE_MAX  200000u

/* The bytes queued ahead of the line, a power of two. Small on purpose:
 * where the UART takes bytes as fast as the CPU gives them (QEMU, Bochs)
 * its THRE interrupts drain the ring back to back, a 16-byte burst each,
 * and at 4 MIPS a 4 KiB ring took ~45 ms of CPU to empty, the main loop
 * getting almost none of it meanwhile. 512 bytes drain in ~5 ms there,
 * and on a real line last 44 ms at 115200, longer than any pass. */
#define TX_RING 512
#define RX_RING 1024
#define RX_NO_MARK 0x100

struct uart {
	uint16_t base;
	int irq;
	int present;
	int irq_on;
	unsigned fifo;                          /* bytes per THRE: 16, or 1 on a 16450 */
	uint8_t ier;
	unsigned rx_mark;                       /* a byte value counted on arrival, kept or not */
	volatile uint32_t rx_marks;
	volatile uint64_t rx_dropped;           /* bytes lost to a full receive ring */
	struct entropy_source src;              /* untrusted: bytes anyone can send */
	struct entropy_source *srcp;            /* &src once registered, NULL before */
	volatile uint32_t tx_head, tx_tail;     /* head: writer, tail: IRQ */
	volatile uint32_t rx_head, rx_tail;     /* head: IRQ, tail: reader */
	uint8_t tx[TX_RING];
	uint8_t rx[RX_RING];
};

/* In BSS (set up by serial_init), so the rings do not weigh on the image's data. */
static struct uart uarts[2];
static const uint16_t uart_base[2] = { COM1_BASE, COM2_BASE };
static const int uart_irq[2] = { COM1_IRQ, COM2_IRQ };

static const char *const uart_src_name[2] = { "serial", "serial2" };

int serial_init(int port, uint32_t baud)
{
	struct uart *u = &uarts[port];
	u->base = uart_base[port];
	u->irq = uart_irq[port];
	uint16_t b = u->base;
	/* Scratch-register test: an empty ISA bus reads 0xFF and keeps nothing. */
	outb(b + UART_SCR, UART_SCR_TEST1);
	if (inb(b + UART_SCR) != UART_SCR_TEST1)
		return -1;
	outb(b + UART_SCR, UART_SCR_TEST2);
	if (inb(b + UART_SCR) != UART_SCR_TEST2)
		return -1;
	uint16_t div = UART_CLOCK_DIV_BASE / baud;
	outb(b + UART_IER, 0);
	outb(b + UART_LCR, UART_LCR_DLAB);
	outb(b + UART_DLL, div & 0xFF);
	outb(b + UART_DLM, div >> 8);
	outb(b + UART_LCR, UART_LCR_WLEN8);
	outb(b + UART_FCR, UART_FCR_ENABLE_FIFO | UART_FCR_CLEAR_RCVR | UART_FCR_CLEAR_XMIT |
		UART_FCR_TRIGGER_8);
	/* A 16450 (or an 8250) has no FCR: IIR bits 7:6 stay 00 and every
	 * THRE interrupt takes one byte, not a FIFO's worth. */
	u->fifo = (inb(b + UART_IIR) & UART_IIR_FIFO_MASK) == UART_IIR_FIFO_MASK ? UART_FIFO_DEPTH : 1;
	u->rx_mark = RX_NO_MARK;
	outb(b + UART_MCR, UART_MCR_DTR | UART_MCR_RTS | UART_MCR_OUT2);
	(void)inb(b + UART_LSR);
	(void)inb(b + UART_RBR);
	(void)inb(b + UART_MSR);
	u->present = 1;
	return 0;
}

int serial_present(int port) { return uarts[port].present; }

static void uart_rx(int port, struct uart *u)
{
	for (int i = 0; i < UART_RX_MAX_PER_IRQ && (inb(u->base + UART_LSR) & UART_LSR_DR); i++) {
		uint8_t c = inb(u->base + UART_RBR);
		/* before serial_sources_init, mixed uncredited into the default pool */
		add_timing_entropy(u->srcp, c | (uint32_t)port << 8);
		if (c == u->rx_mark)
			u->rx_marks++;
		uint32_t next = (u->rx_head + 1) % RX_RING;
		if (next == u->rx_tail) {
			u->rx_dropped++;
			continue;
		}
		u->rx[u->rx_head] = c;
		u->rx_head = next;
	}
}

/* Interrupts masked (IRQ handler, or uart_kick's section). Bound: one
 * LSR read and at most a FIFO's worth (16) of THR writes. */
static void uart_tx(struct uart *u, uint8_t lsr)
{
	uint32_t queued = (u->tx_head - u->tx_tail) & (TX_RING - 1);
	unsigned n = uart_tx_burst(lsr, u->fifo, queued);
	for (unsigned i = 0; i < n; i++) {
		outb(u->base + UART_THR, u->tx[u->tx_tail]);
		u->tx_tail = (u->tx_tail + 1) & (TX_RING - 1);
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
	for (int i = 0; i < UART_IIR_MAX_ROUNDS; i++) {
		uint8_t iir = inb(u->base + UART_IIR);
		if (iir & UART_IIR_NO_INT)
			break;
		switch (iir & UART_IIR_ID) {
		case UART_IIR_RLSI: (void)inb(u->base + UART_LSR); break;
		case UART_IIR_RDI:
		case UART_IIR_CTI: uart_rx(port, u); break;
		case UART_IIR_THRI: break;          /* LSR below decides */
		case UART_IIR_MSI: (void)inb(u->base + UART_MSR); break;
		}
	}
	/* As Linux's 8250: transmit whenever THRE is set, whatever IIR said.
	 * Bochs clears its pending THRE interrupt when IIR is read for
	 * received data; trusting IIR alone left the console silent for good. */
	uart_tx(u, inb(u->base + UART_LSR));
}

void serial_enable_irq(int port)
{
	struct uart *u = &uarts[port];
	if (!u->present)
		return;
	if (irq_register(u->irq, serial_irq) < 0)
		return;                      /* cannot happen at boot: the ports come first */
	u->ier = UART_IER_RDI;
	outb(u->base + UART_IER, u->ier);
	u->irq_on = 1;
}

/* After clock_init: the sources' shift comes from the clock's rate. */
void serial_sources_init(struct rng *r)
{
	for (int port = COM1; port <= COM2; port++) {
		struct uart *u = &uarts[port];
		if (!u->irq_on)
			continue;
		kprintf("com%d: %s, irq %d\r\n", port + 1,
			u->fifo > 1 ? "16550A, 16-byte FIFO" : "no FIFO (16450 or 8250), a byte per interrupt",
			u->irq);
		u->srcp = create_entropy_source(r, &u->src, uart_src_name[port], u->irq, 0, 1);
	}
}

size_t serial_tx_space(int port)
{
	struct uart *u = &uarts[port];
	return (TX_RING - 1) - ((u->tx_head - u->tx_tail) & (TX_RING - 1));
}

/* Send what fits now and arm the THRE interrupt for the rest, unless it
 * is armed already: then the transmitter is the handler's. An armed THRE
 * interrupt always comes (at once if THR is empty, else when the FIFO
 * empties), and the handler sends whenever LSR.THRE is set, also when
 * Bochs dropped the THRE cause on an IIR read, so the ring cannot stall.
 * The order matters: arming with THR empty raises the line at once, and
 * a THR write here, before the CPU has acknowledged it, drops it again,
 * which the 8259 answers with a spurious IRQ 7 (8259A datasheet: an IR
 * input must stay high until the first INTA); under Bochs, 128 in a few
 * seconds of console use. Masked section bound: an LSR read, uart_tx's
 * 16 writes and an IER write. */
static void uart_kick(struct uart *u)
{
	unsigned long f = irq_save();
	if (!(u->ier & UART_IER_THRI)) {
		uart_tx(u, inb(u->base + UART_LSR));
		if (u->tx_tail != u->tx_head) {
			u->ier |= UART_IER_THRI;
			outb(u->base + UART_IER, u->ier);
		}
	}
	irq_restore(f);
}

/* Before interrupts are on: poll THRE, bounded, so a stalled host cannot hang the boot. */
static void uart_poll_putc(struct uart *u, uint8_t c)
{
	for (uint32_t i = 0; i < UART_POLL_THRE_MAX && !(inb(u->base + UART_LSR) & UART_LSR_THRE); i++)
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

int serial_getc(int port)
{
	struct uart *u = &uarts[port];
	if (u->rx_tail == u->rx_head)
		return -1;
	int c = u->rx[u->rx_tail];
	u->rx_tail = (u->rx_tail + 1) % RX_RING;
	return c;
}

int serial_tx_done(int port)
{
	struct uart *u = &uarts[port];
	if (!u->present)
		return 1;
	return u->tx_tail == u->tx_head && (inb(u->base + UART_LSR) & UART_LSR_TEMT);
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

unsigned serial_rx_count(int port)
{
	struct uart *u = &uarts[port];
	return (u->rx_head + RX_RING - u->rx_tail) % RX_RING;
}

int serial_rx_peek(int port, unsigned i)
{
	struct uart *u = &uarts[port];
	if (i >= serial_rx_count(port))
		return -1;
	return u->rx[(u->rx_tail + i) % RX_RING];
}

void serial_rx_discard(int port, unsigned n)
{
	struct uart *u = &uarts[port];
	unsigned have = serial_rx_count(port);
	u->rx_tail = (u->rx_tail + (n < have ? n : have)) % RX_RING;
}

void serial_set_rx_mark(int port, uint8_t c)
{
	uarts[port].rx_mark = c;
}

uint32_t serial_rx_marks(int port)
{
	return uarts[port].rx_marks;
}

uint64_t serial_rx_dropped(int port)
{
	return uarts[port].rx_dropped;
}
