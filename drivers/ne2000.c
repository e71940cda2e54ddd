/* NE2000 driver (National DP8390 core + NE2000 remote-DMA data port),
 * receive only. Each received frame's arrival is a timing sample of the
 * untrusted source "ne2k0": mixed, never credited. Frames are validated
 * and dropped; nothing is ever transmitted.
 *
 * Card memory (NE2000, 16 KiB at 0x4000): pages 0x40..0x45 are left for a
 * transmit buffer, 0x46..0x7F are the receive ring. */
#include <stdint.h>
#include <stdio.h>
#include "drivers/ne2000.h"
#include "drivers/pci.h"
#include "lib/kprintf.h"
#include "lib/options.h"
#include "entropy/entropy.h"
#include "lib/fmt.h"
#include "arch/x86/cpu.h"
#include "arch/x86/io.h"
#include "arch/x86/irq.h"
#include "arch/x86/pic.h"
#include "arch/x86/clock.h"

/* DP8390D registers, offsets from the I/O base (National DP8390D
 * datasheet, 7.0 "Register Descriptions"); bits under each. CR is on
 * every page; page 0 holds the rest unless CR selects page 1. */
#define NE_CR     0x00   /* command */
#define   NE_CR_STP  0x01     /* stop */
#define   NE_CR_STA  0x02     /* start */
#define   NE_CR_TXP  0x04     /* transmit packet */
#define   NE_CR_RD0  0x08     /* RD2:RD0 001: remote read */
#define   NE_CR_RD2  0x20     /* RD2:RD0 1xx: abort/complete remote DMA */
#define   NE_CR_PS0  0x40     /* PS1:PS0 01: page 1 */
/* Page 0 */
#define NE_PSTART 0x01   /* W: first receive ring page */
#define NE_PSTOP  0x02   /* W: page past the ring */
#define NE_BNRY   0x03   /* boundary: last page the host has read */
#define NE_ISR    0x07   /* interrupt status; write 1 to clear */
#define NE_IMR    0x0F   /* W: interrupt mask, ISR's bits */
#define   NE_ISR_PRX 0x01     /* packet received */
#define   NE_ISR_PTX 0x02     /* packet transmitted */
#define   NE_ISR_RXE 0x04     /* receive error */
#define   NE_ISR_TXE 0x08     /* transmit error */
#define   NE_ISR_OVW 0x10     /* receive ring overwrite warning */
#define   NE_ISR_CNT 0x20     /* tally counter overflow */
#define   NE_ISR_RDC 0x40     /* remote DMA complete */
#define   NE_ISR_RST 0x80     /* reset state (stopped, or ring overflow) */
#define   NE_ISR_ALL 0xFF
#define NE_RSAR0  0x08   /* W: remote start address */
#define NE_RSAR1  0x09   /* W */
#define NE_RBCR0  0x0A   /* W: remote byte count */
#define NE_RBCR1  0x0B   /* W */
#define NE_RCR    0x0C   /* W: receive configuration */
#define   NE_RCR_AB  0x04     /* accept broadcast (physical matches always) */
#define   NE_RCR_MON 0x20     /* monitor: check, count, store nothing */
#define NE_TCR    0x0D   /* W: transmit configuration */
#define   NE_TCR_LB0 0x02     /* LB1:LB0 01: internal loopback */
#define NE_DCR    0x0E   /* W: data configuration */
#define   NE_DCR_WTS 0x01     /* word-wide remote DMA */
#define   NE_DCR_LS  0x08     /* normal operation (not loopback) */
#define   NE_DCR_FT1 0x40     /* FT1:FT0 10: FIFO threshold 8 bytes */
/* Page 1 */
#define NE_PAR0   0x01   /* physical address, 6 registers */
#define NE_CURR   0x07   /* current page: where the next frame goes */
#define NE_MAR0   0x08   /* multicast filter, 8 registers */
#define NE_MAR_COUNT 8
/* NE2000 board (not the DP8390): the remote DMA data port and the reset port. */
#define NE_DATA   0x10
#define NE_RESET  0x1F   /* read, then write back: resets the card */

/* Receive ring header, the 4 bytes before each frame (DP8390D, 11.0
 * "Receive buffer ring"): receive status (RSR), next page, count. */
#define NE_RSR_PRX 0x01  /* received intact */

/* The station address PROM, at card address 0: 32 bytes, each byte
 * doubled in word mode. */
#define NE_PROM_WORDS 16
#define ETH_ALEN 6

/* RTL8029, the PCI NE2000 (QEMU's ne2k_pci). */
#define NE_PCI_VENDOR 0x10EC
#define NE_PCI_DEVICE 0x8029
#define ISA_FLOATING 0xFF          /* what an empty I/O range reads */
#define ISA_CASCADE_IRQ 2         /* an 8-bit card's IRQ 2 is the AT's IRQ 9 */
#define ISA_IRQ2_ON_AT  9

#define RX_START 0x46
#define RX_STOP  0x80
#define RX_PAGES (RX_STOP - RX_START)
/* What drain_ring reads of a frame, in words: the 4-byte header (DP8390D,
 * 11.0: receive status and next page, then the count) and the first 16
 * frame bytes; 20 bytes never cross the page, so never the ring's end. */
#define RX_W_STATUS_NEXT 0     /* low byte: receive status (RSR); high byte: next page */
#define RX_W_COUNT       1     /* header and frame bytes */
#define RX_W_FRAME       2     /* frame bytes 0 and 1 */
#define RX_W(byte) (RX_W_FRAME + (byte) / 2)   /* the word holding frame byte `byte` (even) */
#define RX_PEEK_FRAME_BYTES 16
#define RX_PEEK_WORDS RX_W(RX_PEEK_FRAME_BYTES)
/* Ethernet header (IEEE 802.3, 3.1.1): destination at byte 0, source at
 * 6, type or length at 12, the payload from 14. */
#define ETH_SRC     ETH_ALEN
#define ETH_TYPE    (2 * ETH_ALEN)
#define ETH_PAYLOAD (ETH_TYPE + 2)

#define FRAME_MIN 60     /* without CRC; header count = frame (+ CRC on real chips) + 4 */
#define FRAME_MAX 1518   /* with CRC */
#define COUNT_MIN (FRAME_MIN + 4)
#define COUNT_MAX (FRAME_MAX + 4)
#define MAX_FRAMES_PER_PASS 64  /* poller, in masked sections of MAX_FRAMES_PER_IRQ */
#define MAX_FRAMES_PER_IRQ  16  /* headers per masked section */
#define NE_IRQ_ROUNDS        2  /* ISR reads per interrupt */
#define IMR_BITS (NE_ISR_PRX | NE_ISR_RXE | NE_ISR_OVW)
/* The chip sets RDC as soon as the data port has delivered the last word; a
 * count of ISR reads, not a clock, bounds the wait for it, because it runs
 * with interrupts masked (where PIT-clock deadlines never pass): 1000 reads
 * is about 1 ms at ISA speed, far more than a working chip needs. */
#define RDC_MAX_POLLS 1000
/* The receiver restart's waits, on the clock with interrupts on. DP8390D
 * datasheet, "Buffer ring overflow": after the stop command wait at least
 * 1.6 ms, the longest frame (1.2 ms at 10 Mbit/s) and a guard band, for a
 * reception in progress to end. Then ISR.RST, which later datasheets call
 * "not a reliable indicator": Linux's 8390.c ignores it and waits 10 ms,
 * and at most that long is waited for it here. */
#define NE_STOP_WAIT_US 1600
#define NE_RST_WAIT_MS  10
/* A board reset (the reset port) ends with ISR.RST set; Linux's ne.c
 * allows it 20 ms (2*HZ/100) before it calls the card absent. */
#define NE_RESET_WAIT_MS 20
/* The test interrupt's way to the 8259: ne.c's autoirq waits 10 ms. */
#define NE_IRQ_TEST_WAIT_MS 10
/* Probe and set-up code runs once per boot: built for size, as the
 * Makefile's COLD_OBJS are (the interrupt and poller paths stay -O2). */
#define NE_BOOT __attribute__((cold))
/* Free ISA lines a card can be jumpered to (NE2000 clones: 3, 4, 5, 9..12, 15). */
#define ISA_NIC_IRQS ((1u << 3) | (1u << 4) | (1u << 5) | (1u << 7) | (1u << 9) | \
	(1u << 10) | (1u << 11) | (1u << 12) | (1u << 15))

struct ne2k {
	uint16_t io;
	int irq;
	int pci;
	uint8_t mac[ETH_ALEN];
	uint8_t next;                    /* next page to read (BNRY + 1) */
	volatile int rx_pending;         /* frames left in the ring for the poller */
	/* Set with the card's IMR cleared; while either is set the ring is the
	 * poller's and ne_irq keeps off it. */
	volatile int restart_pending;    /* overflow or corrupt ring: restart the receiver */
	volatile int restarting;         /* the poller is restarting it */
	volatile int overflowed;         /* the restart follows an overflow (keep the frames) */
	uint64_t frames, runts, oversize, overflows, errors, resets;
};

static struct ne2k nic;
static struct entropy_source ne_src;

/* Remote DMA read of len bytes (even) from card address addr into buf.
 * Returns 0, or -1 if the chip did not signal completion in time. */
static int dma_read(uint16_t addr, uint16_t *buf, uint16_t len)
{
	uint16_t io = nic.io;
	outb(io + NE_CR, NE_CR_STA | NE_CR_RD2);
	outb(io + NE_RBCR0, len & 0xFF);
	outb(io + NE_RBCR1, len >> 8);
	outb(io + NE_RSAR0, addr & 0xFF);
	outb(io + NE_RSAR1, addr >> 8);
	outb(io + NE_CR, NE_CR_STA | NE_CR_RD0);
	insw(io + NE_DATA, buf, len / 2);
	for (int i = 0; i < RDC_MAX_POLLS; i++) {
		if (inb(io + NE_ISR) & NE_ISR_RDC) {
			outb(io + NE_ISR, NE_ISR_RDC);
			return 0;
		}
	}
	outb(io + NE_CR, NE_CR_STA | NE_CR_RD2);
	return -1;
}

static uint8_t read_curr(void)
{
	outb(nic.io + NE_CR, NE_CR_PS0 | NE_CR_STA | NE_CR_RD2);
	uint8_t c = inb(nic.io + NE_CURR);
	outb(nic.io + NE_CR, NE_CR_STA | NE_CR_RD2);
	return c;
}

static void set_bnry_before(uint8_t page)
{
	uint8_t b = (page == RX_START) ? RX_STOP - 1 : page - 1;
	outb(nic.io + NE_BNRY, b);
}

/* The ring cannot be trusted (a header that is no header): stop taking
 * interrupts from the card and leave the receiver restart to the poller. */
static void ring_corrupt(void)
{
	outb(nic.io + NE_IMR, 0);
	nic.restart_pending = 1;
}

static int page_in_ring(unsigned page)
{
	return page >= RX_START && page < RX_STOP;
}

/* 1 if the header at nic.next is no header. Every header, runt, giant or
 * good, must point where its count says (the chip rounds up and may skip
 * one page for the CRC), at least one page on and at most to CURR (the
 * frame was complete when CURR was read). One that does not is frame data
 * read as a header (a frame longer than the ring wrote over its own
 * header): following it loops, or steps over CURR and walks the ring
 * forever. */
static int header_is_bad(uint8_t curr, uint8_t nextpg, uint16_t count)
{
	unsigned span = ((unsigned)nextpg + RX_PAGES - nic.next) % RX_PAGES;
	unsigned avail = ((unsigned)curr + RX_PAGES - nic.next) % RX_PAGES;
	unsigned need = ((unsigned)count + 255) >> 8;
	return !page_in_ring(nextpg) || span - 1 >= avail || span - need > 1;
}

/* Count a frame by its header; a good one is a timing sample, its datum
 * the count and frame bytes 6..15 (source address, type, two bytes more). */
static void take_frame(uint8_t status, uint16_t count, const uint16_t w[RX_PEEK_WORDS])
{
	if (count < COUNT_MIN) {
		nic.runts++;
	} else if (count > COUNT_MAX) {
		nic.oversize++;
	} else if (!(status & NE_RSR_PRX)) {
		nic.errors++;                /* receive error status */
	} else {
		nic.frames++;
		uint32_t datum = count ^ ((uint32_t)w[RX_W(ETH_SRC)] << 16 | w[RX_W(ETH_SRC + 2)]) ^
			((uint32_t)w[RX_W(ETH_SRC + 4)] << 8) ^ ((uint32_t)w[RX_W(ETH_TYPE)] << 16) ^
			w[RX_W(ETH_PAYLOAD)];
		add_timing_entropy(&ne_src, datum);
	}
}

/* Take up to max frames off the ring. Returns 1 if frames may remain, 0 if
 * the ring is empty or corrupt (then restart_pending is set). Called in
 * interrupt context or by the poller while the ring is the poller's. */
static int drain_ring(int max)
{
	uint8_t curr = read_curr();
	for (int n = 0; n < max; n++) {
		if (nic.next == curr) {
			curr = read_curr();          /* frames that arrived meanwhile */
			if (nic.next == curr)
				return 0;
		}
		if (!page_in_ring(nic.next) || !page_in_ring(curr)) {
			ring_corrupt();
			return 0;
		}
		uint16_t w[RX_PEEK_WORDS];
		if (dma_read((uint16_t)nic.next << 8, w, sizeof(w)) < 0) {
			nic.errors++;
			ring_corrupt();
			return 0;
		}
		uint8_t status = w[RX_W_STATUS_NEXT] & 0xFF, nextpg = w[RX_W_STATUS_NEXT] >> 8;
		uint16_t count = w[RX_W_COUNT];
		if (header_is_bad(curr, nextpg, count)) {
			ring_corrupt();
			return 0;
		}
		take_frame(status, count, w);
		nic.next = nextpg;
		set_bnry_before(nextpg);
	}
	return 1;
}

/* Interrupt context (interrupts masked). Bound: 2 rounds of at most
 * MAX_FRAMES_PER_IRQ headers, each about 25 port accesses (~25 us at ISA
 * speed; an RDC that never comes costs RDC_MAX_POLLS once and ends it):
 * under 1 ms, a tick at hz=1000. Frames left over go to the poller; the
 * overflow recovery and its 1.6 ms wait go to the poller with the card's
 * IMR cleared. */
static void ne_irq(int irq)
{
	(void)irq;
	uint16_t io = nic.io;
	if (nic.restart_pending || nic.restarting)
		return;                      /* latched before the card was masked: the poller's */
	for (int round = 0; round < NE_IRQ_ROUNDS; round++) {
		uint8_t isr = inb(io + NE_ISR) & IMR_BITS;
		if (!isr)
			break;
		if (isr & NE_ISR_OVW) {
			outb(io + NE_IMR, 0);
			nic.overflowed = 1;
			nic.restart_pending = 1;
			return;
		}
		if (isr & NE_ISR_RXE)
			nic.errors++;
		outb(io + NE_ISR, isr & (NE_ISR_PRX | NE_ISR_RXE));   /* ack before draining */
		if (drain_ring(MAX_FRAMES_PER_IRQ)) {
			nic.rx_pending = 1;
			return;
		}
		if (nic.restart_pending)
			return;
	}
}

/* Write the ring registers afresh: an empty ring at RX_START. Chip stopped. */
static void ring_program(void)
{
	uint16_t io = nic.io;
	outb(io + NE_PSTART, RX_START);
	outb(io + NE_PSTOP, RX_STOP);
	outb(io + NE_CR, NE_CR_PS0 | NE_CR_STP | NE_CR_RD2);
	outb(io + NE_CURR, RX_START + 1);
	outb(io + NE_CR, NE_CR_STP | NE_CR_RD2);
	nic.next = RX_START + 1;
	set_bnry_before(nic.next);
}

/* DP8390D datasheet, "Buffer ring overflow" recovery: stop, wait 1.6 ms
 * and for ISR.RST (NE_STOP_WAIT_US, NE_RST_WAIT_MS), clear the remote
 * byte count, internal loopback, start, remove frames, acknowledge, leave
 * loopback. After an overflow the frames in the ring are good and are
 * taken; after a corrupt header the ring is not and is emptied
 * (rewritten). Poller only, interrupts on: its waits are bounded by the
 * clock (at most ~12 ms). */
static void receiver_restart(void)
{
	uint16_t io = nic.io;
	int keep = nic.overflowed;
	if (keep)
		nic.overflows++;
	else
		nic.resets++;
	outb(io + NE_CR, NE_CR_STP | NE_CR_RD2);
	clock_delay_us(NE_STOP_WAIT_US);
	struct deadline d = deadline_in_ms(NE_RST_WAIT_MS);
	while (!(inb(io + NE_ISR) & NE_ISR_RST) && !deadline_passed(d))
		;
	outb(io + NE_RBCR0, 0);
	outb(io + NE_RBCR1, 0);
	outb(io + NE_TCR, NE_TCR_LB0);
	if (!keep)
		ring_program();
	outb(io + NE_CR, NE_CR_STA | NE_CR_RD2);
	nic.restart_pending = 0;
	for (int i = 0; keep && i < RX_PAGES && drain_ring(MAX_FRAMES_PER_PASS); i++)
		;
	if (nic.restart_pending) {           /* the ring went bad while taking it */
		nic.resets++;
		outb(io + NE_CR, NE_CR_STP | NE_CR_RD2);
		clock_delay_us(NE_STOP_WAIT_US);
		ring_program();
		outb(io + NE_CR, NE_CR_STA | NE_CR_RD2);
	}
	outb(io + NE_ISR, NE_ISR_OVW | NE_ISR_PRX | NE_ISR_RXE | NE_ISR_RST);
	outb(io + NE_TCR, 0);
}

/* The restart runs with interrupts on (the card's IMR is clear, ne_irq
 * keeps off). Left-over frames are taken in masked sections of at most
 * MAX_FRAMES_PER_IRQ headers each (the same bound as ne_irq), so ne_irq
 * can run between them and sees the ring consistent. */
int ne2000_poll(void)
{
	if (nic.restart_pending) {
		nic.restarting = 1;
		receiver_restart();
		unsigned long f = irq_save();    /* bound: five flag/port writes */
		nic.overflowed = 0;
		nic.rx_pending = 0;
		nic.restart_pending = 0;
		nic.restarting = 0;
		outb(nic.io + NE_IMR, IMR_BITS);
		irq_restore(f);
		return 0;
	}
	for (int i = 0; i < MAX_FRAMES_PER_PASS / MAX_FRAMES_PER_IRQ && nic.rx_pending; i++) {
		unsigned long f = irq_save();    /* bound: ne_irq's one round (see above) */
		nic.rx_pending = drain_ring(MAX_FRAMES_PER_IRQ);
		irq_restore(f);
	}
	return nic.rx_pending || nic.restart_pending;     /* more frames, or a restart, next pass */
}

void ne2000_source_fields(const struct entropy_source *src, char *buf, size_t n)
{
	if (src != &ne_src)
		return;
	unsigned long f = irq_save();        /* bound: six loads, one snapshot */
	uint64_t v[6] = { nic.frames, nic.runts, nic.oversize, nic.overflows, nic.errors, nic.resets };
	irq_restore(f);
	char s[6][U64_STR_LEN];
	snprintf(buf, n, "frames=%s runts=%s oversize=%s overflows=%s errors=%s resets=%s",
		u64_str(s[0], v[0]), u64_str(s[1], v[1]), u64_str(s[2], v[2]),
		u64_str(s[3], v[3]), u64_str(s[4], v[4]), u64_str(s[5], v[5]));
}

/* Reset and recognise a DP8390 at io. Leaves it stopped. */
NE_BOOT static int ne_probe(uint16_t io)
{
	if (inb(io + NE_CR) == ISA_FLOATING && inb(io + NE_ISR) == ISA_FLOATING)
		return -1;                   /* empty I/O range */
	uint8_t v = inb(io + NE_RESET);
	outb(io + NE_RESET, v);
	struct deadline d = deadline_in_ms(NE_RESET_WAIT_MS);
	while (!(inb(io + NE_ISR) & NE_ISR_RST))
		if (deadline_passed(d))
			return -1;
	outb(io + NE_CR, NE_CR_STP | NE_CR_RD2);
	if (inb(io + NE_CR) != (NE_CR_STP | NE_CR_RD2))
		return -1;
	outb(io + NE_ISR, NE_ISR_ALL);
	return 0;
}

NE_BOOT static int ne_setup(uint16_t io, int irq, int pci)
{
	nic.io = io;
	nic.irq = irq;
	nic.pci = pci;
	outb(io + NE_CR, NE_CR_STP | NE_CR_RD2);
	outb(io + NE_DCR, NE_DCR_FT1 | NE_DCR_LS | NE_DCR_WTS);
	outb(io + NE_RBCR0, 0);
	outb(io + NE_RBCR1, 0);
	outb(io + NE_RCR, NE_RCR_MON);   /* monitor while setting up */
	outb(io + NE_TCR, NE_TCR_LB0);
	outb(io + NE_IMR, 0);
	outb(io + NE_ISR, NE_ISR_ALL);
	uint16_t prom[NE_PROM_WORDS];
	outb(io + NE_CR, NE_CR_STA | NE_CR_RD2);            /* remote DMA needs a running chip */
	if (dma_read(0, prom, sizeof(prom)) < 0)
		return -1;
	outb(io + NE_CR, NE_CR_STP | NE_CR_RD2);
	for (int i = 0; i < ETH_ALEN; i++)
		nic.mac[i] = prom[i] & 0xFF;
	outb(io + NE_PSTART, RX_START);
	outb(io + NE_PSTOP, RX_STOP);
	outb(io + NE_BNRY, RX_START);
	outb(io + NE_CR, NE_CR_PS0 | NE_CR_STP | NE_CR_RD2);
	for (int i = 0; i < ETH_ALEN; i++)
		outb(io + NE_PAR0 + i, nic.mac[i]);
	for (int i = 0; i < NE_MAR_COUNT; i++)
		outb(io + NE_MAR0 + i, 0);
	outb(io + NE_CURR, RX_START + 1);
	outb(io + NE_CR, NE_CR_STP | NE_CR_RD2);
	nic.next = RX_START + 1;
	set_bnry_before(nic.next);
	outb(io + NE_ISR, NE_ISR_ALL);
	outb(io + NE_CR, NE_CR_STA | NE_CR_RD2);
	outb(io + NE_TCR, 0);
	outb(io + NE_RCR, NE_RCR_AB);
	return 0;
}

/* Which line does the card pull? Old ne.c's autoirq: enable only RDC in the
 * IMR, start a zero-length remote read (the chip completes it at once and
 * raises RDC) and watch the 8259 request register, where a masked line's
 * request shows too. Returns the new requests among the free ISA lines. */
NE_BOOT static uint16_t ne_irq_test(void)
{
	uint16_t io = nic.io, free = 0, seen = 0;
	for (int i = 0; i < IRQ_COUNT; i++)
		if ((ISA_NIC_IRQS & (1u << i)) && !irq_in_use(i))
			free |= (uint16_t)(1u << i);
	outb(io + NE_IMR, 0);
	outb(io + NE_ISR, NE_ISR_ALL);
	uint16_t before = pic_irr();
	outb(io + NE_IMR, NE_ISR_RDC);
	outb(io + NE_RBCR0, 0);
	outb(io + NE_RBCR1, 0);
	outb(io + NE_CR, NE_CR_STA | NE_CR_RD0);
	/* interrupts are on here, so the clock bounds the wait */
	struct deadline d = deadline_in_ms(NE_IRQ_TEST_WAIT_MS);
	while (!(seen = pic_irr() & ~before & free) && !deadline_passed(d))
		;
	outb(io + NE_CR, NE_CR_STA | NE_CR_RD2);
	outb(io + NE_IMR, 0);
	outb(io + NE_ISR, NE_ISR_ALL);
	return seen;
}

/* The ISA card's line, verified: the configured one if the test interrupt
 * arrives there, else the one it did arrive on (a card jumpered elsewhere),
 * else -1 and the card is not used (documented in docs/PROTOCOL.md, "Boot options"). */
NE_BOOT static int ne_isa_irq(int irq)
{
	uint16_t seen = ne_irq_test();
	if (seen & (1u << irq)) {
		kprintf("ne2k0: test interrupt seen on irq %d\r\n", irq);
		return irq;
	}
	for (int i = 0; i < IRQ_COUNT; i++) {
		if (seen & (1u << i)) {
			kprintf("ne2k0: no test interrupt on irq %d; the card raised irq %d: using irq %d\r\n",
				irq, i, i);
			return i;
		}
	}
	kprintf("ne2k0: no test interrupt on irq %d nor on any free ISA line: card at 0x%x not used\r\n",
		irq, (unsigned)nic.io);
	return -1;
}

NE_BOOT static int ne_find_pci(uint16_t *io, int *irq)
{
	struct pci_loc l;
	if (pci_find(NE_PCI_VENDOR, NE_PCI_DEVICE, &l) != 0)
		return -1;
	uint32_t bar = pci_read32(l, PCI_BAR0);
	int pirq = pci_read32(l, PCI_INTERRUPT_LINE) & PCI_INTERRUPT_LINE_MASK;
	if (!(bar & PCI_BAR_IO) || pirq < 1 || pirq >= IRQ_COUNT || pirq == ISA_CASCADE_IRQ) {
		kprintf("ne2k: PCI %02x:%02x.%x has no usable I/O BAR or IRQ\r\n", l.bus, l.dev, l.fn);
		return -1;
	}
	if (irq_in_use(pirq)) {
		kprintf("ne2k: PCI %02x:%02x.%x is on irq %d, already in use: not used\r\n",
			l.bus, l.dev, l.fn, pirq);
		return -1;
	}
	uint16_t pio = (uint16_t)(bar & PCI_BAR_IO_MASK);
	uint32_t cmd = pci_read32(l, PCI_COMMAND);
	pci_write32(l, PCI_COMMAND, (cmd & PCI_CMD_MASK) | PCI_CMD_IO);
	if (ne_probe(pio) != 0 || ne_setup(pio, pirq, 1) != 0)
		return -1;
	*io = pio;
	*irq = pirq;
	return 0;
}

/* The ISA card's io and irq as the options give them (IRQ 2 of an 8-bit
 * card is the AT's IRQ 9). A line a fixed device already has (COM1's 4,
 * the disk's 14), as any bad option, is warned about and the default kept;
 * *given is cleared then. */
NE_BOOT static void ne_isa_config(const struct boot_options *o, const struct boot_options *defaults,
	int *given, uint16_t *io, int *irq)
{
	*given = o->ne2k_given;
	*io = (uint16_t)o->ne2k_io;
	*irq = (int)o->ne2k_irq;
	if (*irq == ISA_CASCADE_IRQ)
		*irq = ISA_IRQ2_ON_AT;
	if (*given && irq_in_use(*irq)) {
		kprintf("warning: ignoring boot option '%s'\r\n", o->ne2k_word);
		*given = 0;
		*io = (uint16_t)defaults->ne2k_io;
		*irq = (int)defaults->ne2k_irq;
	}
}

/* The ISA card at io/irq, else (unless ne2k= named the card) the first
 * PCI one; set up and stopped. 0 and *io, *irq filled, or -1 (reported). */
NE_BOOT static int ne_find(const struct boot_options *o, const struct boot_options *defaults,
	int given, uint16_t *io, int *irq)
{
	int want_irq = *irq, found = 0, isa_seen = 0;
	if (ne_probe(*io) == 0 && ne_setup(*io, *irq, 0) == 0) {
		isa_seen = 1;
		*irq = ne_isa_irq(*irq);
		found = *irq >= 0;
		nic.irq = *irq;
	}
	if (!found && !given && ne_find_pci(io, irq) == 0)
		found = 1;
	if (found)
		return 0;
	if (given)
		kprintf("ne2k: no NE2000 at 0x%x irq %d: network source absent\r\n",
			(unsigned)o->ne2k_io, want_irq);
	else if (!isa_seen)
		kprintf("ne2k: no NE2000 at 0x%x irq %lu or on PCI: network source absent\r\n",
			(unsigned)defaults->ne2k_io, (unsigned long)defaults->ne2k_irq);
	return -1;
}

NE_BOOT int ne2000_init(struct rng *r, const struct boot_options *o)
{
	if (o->net == NET_OFF) {
		kprintf("ne2k: off\r\n");
		return -1;
	}
	struct boot_options defaults;
	options_defaults(&defaults);
	int given, irq;
	uint16_t io;
	ne_isa_config(o, &defaults, &given, &io, &irq);
	if (ne_find(o, &defaults, given, &io, &irq) < 0)
		return -1;
	if (irq_register(irq, ne_irq) < 0) {
		kprintf("ne2k: irq %d already in use: network source absent\r\n", irq);
		return -1;
	}
	kprintf("ne2k0: %s NE2000 at 0x%x irq %d, mac %02x:%02x:%02x:%02x:%02x:%02x, untrusted\r\n",
		nic.pci ? "PCI" : "ISA", (unsigned)io, irq, nic.mac[0], nic.mac[1], nic.mac[2],
		nic.mac[3], nic.mac[4], nic.mac[5]);
	create_entropy_source(r, &ne_src, "ne2k0", irq, 0, 1);
	outb(io + NE_IMR, IMR_BITS);
	return 0;
}
