/* The DP8390 + NE2000 model and the host platform of test_drv_ne2000.c
 * (ne2k_model.h says what is modelled). Written from the DP8390D
 * datasheet's register descriptions; behaviour QEMU's hw/net/ne2000.c
 * shows (PROM layout, remote DMA wrap at PSTOP, RDC at once for a zero
 * count, frames written over their own header) is noted where used. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "ne2k_model.h"
#include "arch/x86/io.h"
#include "drivers/pci.h"
#include "lib/kprintf.h"
#include "entropy/entropy.h"

struct ne2k_model M;

#define CR_STP 0x01
#define CR_STA 0x02
#define CR_TXP 0x04
#define CR_RDMASK 0x38
#define CR_RD_READ 0x08
#define ISR_PRX 0x01
#define ISR_OVW 0x10
#define ISR_RDC 0x40
#define ISR_RST 0x80
#define TCR_LB 0x06
#define RCR_MON 0x20

static void runaway(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void runaway(const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (M.trap) {
		M.trapped = 1;
		M.iflag = 1;
		M.cur.kind = SEC_NONE;
		longjmp(*M.trap, 1);
	}
	fail_msg("%s (NE2K_SEED=0x%llx)", msg, (unsigned long long)M.seed);
}

uint64_t model_rand(void)
{
	/* xorshift64* */
	M.rng ^= M.rng >> 12;
	M.rng ^= M.rng << 25;
	M.rng ^= M.rng >> 27;
	return M.rng * 0x2545F4914F6CDD1Dull;
}

/* ---- the interrupt line and the flag ---- */

static void update_line(void)
{
	int line = (M.isr & M.imr & 0x7F) != 0;
	if (line && !M.line)
		M.irr = 1;                   /* edge triggered: latched on the rising edge */
	M.line = line;
}

static void section_begin(int kind)
{
	memset(&M.cur, 0, sizeof(M.cur));
	M.cur.kind = kind;
}

static void section_end(void)
{
	struct m_section *mx = &M.max[M.cur.kind];
	M.sections[M.cur.kind]++;
	if (M.cur.ports > mx->ports)
		mx->ports = M.cur.ports;
	if (M.cur.clock_polls > mx->clock_polls)
		mx->clock_polls = M.cur.clock_polls;
	if (M.cur.headers > mx->headers)
		mx->headers = M.cur.headers;
	M.cur.kind = SEC_NONE;
}

void model_section_reset(void)
{
	memset(M.max, 0, sizeof(M.max));
	memset(M.sections, 0, sizeof(M.sections));
	M.masked_clock_polls = 0;
}

void model_deliver(void)
{
	while (M.iflag && M.irr && M.handler[M.irq]) {
		M.irr = 0;
		M.iflag = 0;
		M.irq_calls++;
		section_begin(SEC_IRQ);
		M.handler[M.irq](M.irq);
		section_end();
		M.iflag = 1;
	}
}

unsigned long irq_save(void)
{
	unsigned long f = (unsigned long)M.iflag;
	if (M.iflag) {
		M.iflag = 0;
		section_begin(SEC_SAVE);
	}
	return f;
}

void irq_restore(unsigned long f)
{
	if (f && !M.iflag) {
		section_end();
		M.iflag = 1;
		model_deliver();
	}
}

void cpu_cli(void) { (void)irq_save(); }
void cpu_sti(void) { irq_restore(1); }

/* ---- time ---- */

static void wire_traffic(void);

static void advance(void)
{
	M.t_us++;
	if (M.iflag)
		M.jiffies = M.t_us / M.tick_us;
	if (M.rst_at && M.t_us >= M.rst_at) {
		M.rst_at = 0;
		if (M.stopped && !M.rst_dead)
			M.isr |= ISR_RST;
	}
	if (M.call_budget_end && M.t_us > M.call_budget_end)
		runaway("a driver call ran past its time budget (t=%llu us): it hangs",
			(unsigned long long)M.t_us);
	wire_traffic();
}

/* One port access: an interrupt may come in before it, then 1 us passes. */
static void port_step(void)
{
	model_deliver();
	advance();
	if (M.cur.kind != SEC_NONE && ++M.cur.ports > M.section_port_limit)
		runaway("a masked section passed %u port accesses: it never ends",
			M.section_port_limit);
}

/* What the PIT clock shows: with the flag cleared no tick is taken, and
 * the count within the tick (plus one tick latched in the IRR) is all it
 * can add: it stops at the edge after next. */
static uint64_t visible_now(void)
{
	if (M.iflag)
		return M.t_us;
	uint64_t cap = (M.jiffies + 2) * M.tick_us - 1;
	return M.t_us < cap ? M.t_us : cap;
}

static uint64_t clock_poll(void)
{
	if (!M.iflag) {
		M.masked_clock_polls++;
		M.cur.clock_polls++;
		if (M.masked_clock_polls > M.clock_poll_limit)
			runaway("the clock was polled %llu times with interrupts masked: "
				"a masked wait on the PIT clock never ends",
				(unsigned long long)M.masked_clock_polls);
	}
	model_deliver();
	advance();
	return visible_now();
}

uint32_t clock_khz(void) { return 1000; }          /* model ticks are microseconds */
uint64_t clock_now(void) { return clock_poll(); }
uint64_t clock_ms(void) { return clock_poll() / 1000; }

void clock_delay_us(uint32_t us)
{
	uint64_t end = clock_poll() + us;
	while (clock_poll() < end)
		;
}

struct deadline deadline_in_ms(uint32_t ms)
{
	struct deadline d = { clock_poll() + (uint64_t)ms * 1000 };
	return d;
}

int deadline_passed(struct deadline d)
{
	return clock_poll() >= d.at;
}

/* ---- the 8259 and the IRQ table ---- */

int irq_register(int irq, irq_handler_t handler)
{
	if (irq < 0 || irq >= IRQ_COUNT || irq == 2 || M.handler[irq])
		return -1;
	M.handler[irq] = handler;
	return 0;
}

int irq_in_use(int irq)
{
	return irq < 0 || irq >= IRQ_COUNT || irq == 2 || irq == 4 || irq == 14 ||
		M.handler[irq] != NULL;
}

uint16_t pic_irr(void)
{
	port_step();                     /* a read of the 8259 */
	return (M.irr || M.line) ? (uint16_t)(1u << M.irq) : 0;
}

/* ---- the chip ---- */

static unsigned ring_pages(void)
{
	return M.pstop > M.pstart ? (unsigned)(M.pstop - M.pstart) : 0;
}

static int ring_sane(void)
{
	return M.pstart >= 0x40 && M.pstop <= 0x80 && M.pstart < M.pstop &&
		M.curr >= M.pstart && M.curr < M.pstop && M.bnry >= M.pstart && M.bnry < M.pstop;
}

static uint8_t *ram_at(uint32_t addr)
{
	if (addr < M_RAM_BASE || addr >= M_RAM_BASE + M_RAM_SIZE)
		return NULL;
	return &M.ram[addr - M_RAM_BASE];
}

/* Write len bytes at a ring address, wrapping at PSTOP. Returns the end. */
static uint32_t ring_write(uint32_t addr, const uint8_t *p, unsigned len)
{
	for (unsigned i = 0; i < len; i++) {
		if (addr >= (uint32_t)M.pstop << 8)
			addr = (uint32_t)M.pstart << 8;
		uint8_t *m = ram_at(addr);
		if (m)
			*m = p[i];
		addr++;
	}
	return addr;
}

static void chip_reset(void)
{
	M.cr = CR_STP | 0x20;
	M.stopped = 1;
	M.dma_read = 0;
	M.imr = 0;
	M.isr = M.rst_dead ? 0 : ISR_RST;
	M.rst_at = 0;
	M.halted = 0;
	update_line();
}

static void q_push(uint8_t page)
{
	M.q[M.q_tail++ % sizeof(M.q)] = page;
}

static void cr_write(uint8_t v)
{
	if (v & CR_STP) {
		if (!M.stopped) {
			M.t_stp = M.t_us;
			M.rst_at = M.t_us + M.rst_delay_us;
			if (!M.rst_delay_us && !M.rst_dead)
				M.isr |= ISR_RST;
		}
		M.stopped = 1;
		if (M.halted)
			M.halted_stopped = 1;
	} else if (v & CR_STA) {
		if (M.stopped)
			M.t_sta = M.t_us;
		M.stopped = 0;
		M.isr &= (uint8_t)~ISR_RST;
		M.rst_at = 0;
	}
	if (v & CR_TXP)
		M.tx_attempts++;
	switch (v & CR_RDMASK) {
	case CR_RD_READ:
		M.dma_read = !M.stopped;
		if (M.dma_read && M.rbcr == 20 && (M.rsar & 0xFF) == 0) {
			uint8_t page = (uint8_t)(M.rsar >> 8);
			M.hdr_reads++;
			M.cur.headers++;
			if (M.q_head != M.q_tail && M.q[M.q_head % sizeof(M.q)] == page)
				M.q_head++;
			else
				M.hdr_misplaced++;
			if (M.on_header)
				M.on_header(page);
		}
		if (M.dma_read && M.rbcr == 0 && !M.rdc_dead)
			M.isr |= ISR_RDC;         /* a zero count completes at once (ne.c's autoirq) */
		break;
	case 0x00:                       /* "not allowed": keep the DMA state */
		break;
	default:                         /* RD2 abort, remote write, send packet */
		M.dma_read = 0;
		break;
	}
	M.cr = (uint8_t)((v & ~(CR_TXP | CR_STP | CR_STA)) | (M.stopped ? CR_STP : CR_STA));
}

static uint8_t data_byte(void)
{
	uint32_t a = M.rsar;
	uint8_t b;
	if (a < M_RAM_BASE)
		b = M.prom[a & 0x1F];
	else
		b = ram_at(a) ? *ram_at(a) : 0xFF;
	M.rsar++;
	if (M.rsar == (uint16_t)(M.pstop << 8) && M.pstop)
		M.rsar = (uint16_t)(M.pstart << 8);   /* remote DMA wraps at PSTOP */
	return b;
}

static uint16_t data_read(int word)
{
	if (!M.dma_read)
		return 0xFFFF;                        /* no remote read running */
	if (M.rbcr == 0)
		M.dma_overreads++;
	uint16_t v = data_byte();
	if (word)
		v |= (uint16_t)data_byte() << 8;
	unsigned n = word ? 2 : 1;
	if (M.rbcr) {
		M.rbcr = M.rbcr > n ? (uint16_t)(M.rbcr - n) : 0;
		if (M.rbcr == 0 && !M.rdc_dead)
			M.isr |= ISR_RDC;
	}
	return v;
}

static uint8_t reg_read(unsigned off)
{
	unsigned page = M.cr >> 6;
	if (off == 0)
		return M.cr;
	if (page == 1) {
		if (off >= 1 && off <= 6)
			return M.par[off - 1];
		if (off == 7) {
			uint8_t c = M.curr;
			if (M.on_curr_read)
				M.on_curr_read(c);
			return c;
		}
		return M.mar[off - 8];
	}
	if (page == 2) {
		switch (off) {
		case 1: return M.pstart;
		case 2: return M.pstop;
		case 0xC: return M.rcr;
		case 0xD: return M.tcr;
		case 0xE: return M.dcr;
		case 0xF: return M.imr;
		default: return 0xFF;
		}
	}
	switch (off) {
	case 3: return M.bnry;
	case 7:
		if ((M.isr & ISR_RST) && M.stopped)
			M.rst_seen_stopped = 1;
		return M.isr;
	case 0xA: return 0x50;                    /* 8029ID, as RTL8029 answers */
	case 0xB: return 0x43;
	default: return 0;
	}
}

static void page1_write(unsigned off, uint8_t v)
{
	if (off >= 1 && off <= 6) {
		M.par[off - 1] = v;
	} else if (off == 7) {
		M.curr = v;
		M.q_head = M.q_tail = 0;          /* a new ring */
	} else {
		M.mar[off - 8] = v;
	}
}

static void bnry_write(uint8_t v)
{
	if (v != M.bnry && M.halted)
		M.halted_bnry_moved = 1;
	if (M.halted && !M.t_bnry)
		M.t_bnry = M.t_us;
	M.bnry = v;
	M.bnry_writes++;
}

static void rbcr_write(unsigned off, uint8_t v)
{
	if (off == 0xA)
		M.rbcr = (uint16_t)((M.rbcr & 0xFF00) | v);
	else
		M.rbcr = (uint16_t)((M.rbcr & 0x00FF) | v << 8);
	if (M.rbcr == 0 && M.t_ovw && !M.t_rbcr0 && M.stopped)
		M.t_rbcr0 = M.t_us;
}

static void tcr_write(uint8_t v)
{
	if ((v & TCR_LB) && M.t_ovw && !M.t_loopback)
		M.t_loopback = M.t_us;
	if (!(v & TCR_LB) && M.t_ovw && M.t_ovw_ack && !M.t_tcr0)
		M.t_tcr0 = M.t_us;
	M.tcr = v;
}

static void page0_write(unsigned off, uint8_t v)
{
	switch (off) {
	case 1: M.pstart = v; break;
	case 2: M.pstop = v; break;
	case 3: bnry_write(v); break;
	case 7:
		if ((v & ISR_OVW) && (M.isr & ISR_OVW))
			M.t_ovw_ack = M.t_us;
		M.isr &= (uint8_t)~(v & 0x7F);    /* write 1 to clear; RST is the chip's */
		break;
	case 8: M.rsar = (uint16_t)((M.rsar & 0xFF00) | v); break;
	case 9: M.rsar = (uint16_t)((M.rsar & 0x00FF) | v << 8); break;
	case 0xA: case 0xB: rbcr_write(off, v); break;
	case 0xC: M.rcr = v; break;
	case 0xD: tcr_write(v); break;
	case 0xE: M.dcr = v; break;
	case 0xF: M.imr = v & 0x7F; break;
	default: break;
	}
}

static void reg_write(unsigned off, uint8_t v)
{
	unsigned page = M.cr >> 6;
	if (off == 0)
		cr_write(v);
	else if (page == 1)
		page1_write(off, v);
	else if (page == 0)
		page0_write(off, v);
}

static int card_port(uint16_t port)
{
	return port >= M_IO && port < M_IO + 0x20;
}

uint8_t inb(uint16_t port)
{
	port_step();
	if (M.absent || !card_port(port))
		return 0xFF;
	unsigned off = port - M_IO;
	uint8_t v;
	if (off == 0x1F) {
		chip_reset();
		v = 0;
	} else if (off >= 0x10) {
		v = (uint8_t)data_read(0);
	} else {
		v = reg_read(off);
	}
	update_line();
	return v;
}

uint16_t inw(uint16_t port)
{
	port_step();
	if (M.absent || !card_port(port))
		return 0xFFFF;
	uint16_t v = (port - M_IO >= 0x10 && port - M_IO < 0x18) ? data_read(M.dcr & 1) : 0xFFFF;
	update_line();
	return v;
}

uint32_t inl(uint16_t port) { port_step(); (void)port; return 0xFFFFFFFFu; }

void insw(uint16_t port, void *buf, uint32_t count)
{
	uint8_t *p = buf;
	for (uint32_t i = 0; i < count; i++) {
		uint16_t w = inw(port);
		memcpy(p + 2 * i, &w, 2);
	}
}

void outb(uint16_t port, uint8_t v)
{
	port_step();
	if (M.absent || !card_port(port))
		return;
	unsigned off = port - M_IO;
	if (off == 0x1F)
		chip_reset();
	else if (off < 0x10)
		reg_write(off, v);
	update_line();
}

void outw(uint16_t port, uint16_t v) { port_step(); (void)port; (void)v; }
void outl(uint16_t port, uint32_t v) { port_step(); (void)port; (void)v; }

/* ---- the wire ---- */

static int can_receive(void)
{
	if (M.stopped || (M.tcr & TCR_LB) || (M.rcr & RCR_MON) || !ring_sane())
		return 0;
	if (M.halted) {
		if (!(M.halted_stopped && M.halted_bnry_moved))
			return 0;
		M.halted = 0;
	}
	return 1;
}

int model_rx(const uint8_t *frame, unsigned len)
{
	if (!can_receive()) {
		M.rx_missed++;
		return 0;
	}
	unsigned ring = ring_pages();
	unsigned count = len + 4;
	unsigned need = (count + 255) >> 8;
	if (M.crc_skip && ((count & 0xFF) == 0 || (count & 0xFF) > 0xFB))
		need++;
	unsigned free = ((unsigned)M.bnry + ring - M.curr) % ring;
	if (need > free) {
		/* the local DMA reached BNRY: frame dropped, OVW (and RST, says
		 * the datasheet), nothing more until the recovery */
		M.isr |= ISR_OVW | ISR_RST;
		M.halted = 1;
		M.halted_stopped = M.halted_bnry_moved = 0;
		M.t_ovw = M.t_us;
		M.t_stp = M.t_rbcr0 = M.t_loopback = M.t_sta = M.t_bnry = M.t_ovw_ack = M.t_tcr0 = 0;
		M.rst_seen_stopped = 0;
		M.rx_overflows++;
		M.rx_missed++;
		update_line();
		return -1;
	}
	uint8_t next = (uint8_t)(M.pstart + (M.curr - M.pstart + need) % ring);
	uint8_t hdr[4] = { 0x01, next, (uint8_t)(count & 0xFF), (uint8_t)(count >> 8) };
	uint32_t a = (uint32_t)M.curr << 8;
	ring_write(ring_write(a, hdr, 4), frame, len);
	q_push(M.curr);
	M.curr = next;
	M.isr |= ISR_PRX;
	M.rx_stored++;
	update_line();
	return 1;
}

int model_rx_random(unsigned len)
{
	static uint8_t f[16384];
	for (unsigned i = 0; i < len && i < sizeof(f); i++)
		f[i] = (uint8_t)model_rand();
	for (unsigned i = 0; i < 6 && i < len; i++)
		f[i] = 0xFF;
	return model_rx(f, len < sizeof(f) ? len : sizeof(f));
}

void model_rx_overwrite(const uint8_t *frame, unsigned len)
{
	unsigned ring = ring_pages();
	unsigned count = len + 4;
	unsigned need = (count + 255) >> 8;
	uint8_t next = (uint8_t)(M.pstart + (M.curr - M.pstart + need) % ring);
	uint8_t hdr[4] = { 0x01, next, (uint8_t)(count & 0xFF), (uint8_t)(count >> 8) };
	uint32_t a = (uint32_t)M.curr << 8;
	ring_write(ring_write(a, hdr, 4), frame, len);
	M.curr = next;
	M.isr |= ISR_PRX;
	update_line();
}

void model_fake_header(uint8_t page, uint8_t status, uint8_t next, uint16_t count, uint8_t curr_after)
{
	uint8_t hdr[4] = { status, next, (uint8_t)(count & 0xFF), (uint8_t)(count >> 8) };
	ring_write((uint32_t)page << 8, hdr, 4);
	M.curr = curr_after;
	M.isr |= ISR_PRX;
	update_line();
}

unsigned model_ring_used(void)
{
	unsigned ring = ring_pages();
	unsigned first = M.bnry + 1u >= M.pstop ? M.pstart : M.bnry + 1u;
	return ((unsigned)M.curr + ring - first) % ring;
}

static void wire_traffic(void)
{
	static int busy;
	if (!M.traffic_us || busy || M.t_us < M.next_frame_at)
		return;
	busy = 1;
	M.next_frame_at = M.t_us + M.traffic_us;
	model_rx_random(60 + (unsigned)(model_rand() % 1455));
	busy = 0;
}

void model_idle(unsigned us)
{
	for (unsigned i = 0; i < us; i++) {
		model_deliver();
		advance();
	}
	model_deliver();
}

void model_reset(unsigned hz, uint64_t seed)
{
	memset(&M, 0, sizeof(M));
	M.rng = M.seed = seed ? seed : 1;
	M.irq = M_IRQ;
	M.tick_us = 1000000u / hz;
	M.iflag = 1;
	M.clock_poll_limit = 100;           /* the driver reads no clock masked at all */
	M.section_port_limit = 100000;
	const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	for (int i = 0; i < 16; i++) {
		uint8_t b = i < 6 ? mac[i] : (i >= 14 ? 0x57 : 0x00);
		M.prom[2 * i] = M.prom[2 * i + 1] = b;     /* word mode: each byte doubled */
	}
	for (size_t i = 0; i < sizeof(M.ram); i++)
		M.ram[i] = (uint8_t)model_rand();
	chip_reset();
}

/* ---- the rest of the platform ---- */

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(M.log + M.log_len, sizeof(M.log) - M.log_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		M.log_len += (unsigned)n < sizeof(M.log) - M.log_len ? (unsigned)n
			: (unsigned)(sizeof(M.log) - M.log_len - 1);
	return n;
}

int pci_find(uint16_t vendor, uint16_t device, struct pci_loc *out)
{
	(void)vendor; (void)device; (void)out;
	return -1;                       /* no PCI card: the ISA one is the model */
}
uint32_t pci_read32(struct pci_loc l, uint8_t off) { (void)l; (void)off; return 0xFFFFFFFFu; }
void pci_write32(struct pci_loc l, uint8_t off, uint32_t v) { (void)l; (void)off; (void)v; }

struct entropy_source *create_entropy_source(struct rng *r, struct entropy_source *storage,
	const char *name, int irq, int trusted, uint32_t granularity_khz)
{
	(void)granularity_khz;
	memset(storage, 0, sizeof(*storage));
	storage->rng = r;
	storage->name = name;
	storage->irq = irq;
	storage->trusted = trusted;
	M.src = storage;
	return storage;
}

void add_timing_entropy(struct entropy_source *src, uint32_t datum)
{
	(void)datum;
	if (src != M.src)
		fail_msg("add_timing_entropy on a source ne2000_init did not create");
	M.samples++;
}
