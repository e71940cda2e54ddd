/* Host tests: the real drivers/ne2000.c against a DP8390 + NE2000 model
 * (tests/unit/ne2k_model.c): the receive ring, the overflow recovery
 * QEMU's ne2000 never reaches (it never raises OVW), corrupt rings, the
 * port-access bounds of the masked sections and dead cards.
 *
 * NE2K_SEED=0x... repeats a run; the seed is printed, and every failure
 * the model raises names it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "ne2k_model.h"
#include "arch/x86/io.h"
#include "drivers/ne2000.h"
#include "lib/options.h"
#include "entropy/entropy.h"

/* What the driver defines (drivers/ne2000.c): header count = frame + 4 */
#define RX_START 0x46
#define RX_STOP  0x80
#define RX_PAGES (RX_STOP - RX_START)
#define COUNT_MIN (60 + 4)
#define COUNT_MAX (1518 + 4)
#define IMR_BITS 0x15                /* PRX | RXE | OVW */
#define RDC_MAX_POLLS 1000
#define FRAMES_PER_IRQ 16
/* ne_irq's comment: 2 rounds of at most 16 headers, each about 25 port
 * accesses: under 1 ms, i.e. 1000 accesses at ISA's 1 us */
#define IRQ_CLAIM_PORTS 1000
/* a restart: 1.6 ms, then at most 10 ms for RST ("at most ~12 ms") */
#define RESTART_CLAIM_US 12000

static uint64_t seed;

static void failf(const char *cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failf(const char *cond, const char *fmt, ...)
{
	char m[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	fail_msg("%s: %s (NE2K_SEED=0x%llx)", cond, m, (unsigned long long)seed);
}
#define check(cond, ...) do { if (!(cond)) failf(#cond, __VA_ARGS__); } while (0)

struct ctr { unsigned long long frames, runts, oversize, overflows, errors, resets; };

static struct ctr counters(void)
{
	char buf[256] = "";
	struct ctr c;
	ne2000_source_fields(M.src, buf, sizeof(buf));
	int n = sscanf(buf, "frames=%llu runts=%llu oversize=%llu overflows=%llu errors=%llu resets=%llu",
		&c.frames, &c.runts, &c.oversize, &c.overflows, &c.errors, &c.resets);
	check(n == 6, "source fields '%s'", buf);
	return c;
}

static struct ctr delta(struct ctr a)
{
	struct ctr b = counters();
	struct ctr d = { b.frames - a.frames, b.runts - a.runts, b.oversize - a.oversize,
		b.overflows - a.overflows, b.errors - a.errors, b.resets - a.resets };
	return d;
}

/* Driver calls run under a time budget: past it the model fails the test
 * ("it hangs") instead of spinning. */
static void deliver(void)
{
	M.call_budget_end = M.t_us + 20000;
	model_deliver();
	M.call_budget_end = 0;
}

static uint64_t pass_headers_max, pass_us_max;

/* One main-loop pass: interrupts in, then the poller. */
static int pass(void)
{
	deliver();
	uint64_t h = M.hdr_reads, t = M.t_us;
	M.call_budget_end = M.t_us + 50000;
	int r = ne2000_poll();
	M.call_budget_end = 0;
	if (M.hdr_reads - h > pass_headers_max)
		pass_headers_max = M.hdr_reads - h;
	if (M.t_us - t > pass_us_max)
		pass_us_max = M.t_us - t;
	return r;
}

static void settle(void)
{
	int i = 0;
	while (pass() && i < 1000)
		i++;
	check(i < 1000, "the poller still has work after 1000 passes");
}

static uint8_t ring_next(uint8_t p) { return p + 1 >= RX_STOP ? RX_START : p + 1; }

/* At every header the driver reads, BNRY is one page behind it. */
static uint64_t bnry_behind_bad;
static void header_hook(uint8_t page)
{
	if (page != ring_next(M.bnry))
		bnry_behind_bad++;
}

static struct rng the_rng;
static struct ctr base;

/* A fresh chip, the driver (re)initialised on it, counters as a baseline. */
static void up(unsigned hz)
{
	model_reset(hz, seed);
	struct boot_options o;
	options_defaults(&o);
	M.call_budget_end = M.t_us + 100000;
	int r = ne2000_init(&the_rng, &o);
	M.call_budget_end = 0;
	check(r == 0, "ne2000_init on a working card: %s", M.log);
	check(M.handler[M_IRQ] != NULL, "no handler on irq %d", M_IRQ);
	check(M.imr == IMR_BITS, "IMR 0x%02x after init", M.imr);
	settle();
	base = counters();
	model_section_reset();
	M.hdr_misplaced = 0;
	M.on_header = header_hook;
	bnry_behind_bad = 0;
	pass_headers_max = pass_us_max = 0;
}

static void check_ring_at_rest(const char *when)
{
	check(model_ring_used() == 0, "%s: %u pages left between BNRY 0x%02x and CURR 0x%02x", when,
		model_ring_used(), M.bnry, M.curr);
	check(M.curr == ring_next(M.bnry), "%s: BNRY 0x%02x not one behind CURR 0x%02x", when,
		M.bnry, M.curr);
	check(M.pstart == RX_START && M.pstop == RX_STOP, "%s: ring 0x%02x..0x%02x", when,
		M.pstart, M.pstop);
}

static void check_no_masked_wait(void)
{
	check(M.masked_clock_polls == 0, "the clock was read %llu times with interrupts masked",
		(unsigned long long)M.masked_clock_polls);
}

static void classify(unsigned len, struct ctr *e)
{
	unsigned count = len + 4;
	if (count < COUNT_MIN)
		e->runts++;
	else if (count > COUNT_MAX)
		e->oversize++;
	else
		e->frames++;
}

/* Free pages the chip may write into (it stops short of BNRY). */
static unsigned ring_free(void)
{
	return (unsigned)(M.bnry + RX_PAGES - M.curr) % RX_PAGES;
}

/* ---- 1. every length ---- */

static void every_length(int crc_skip)
{
	up(100);
	M.crc_skip = crc_skip;
	struct ctr e = { 0 };
	for (unsigned len = 1; len <= 1600; len++) {
		check(model_rx_random(len) == 1, "a %u-byte frame into an empty ring was not stored", len);
		classify(len, &e);
		deliver();
		check(!pass(), "len %u: the poller has work left", len);
		check_ring_at_rest("after one frame");
	}
	/* bursts: as many frames as fit, random lengths, taken by ne_irq and the poller */
	for (int burst = 0; burst < 300; burst++) {
		unsigned n = 1 + (unsigned)(model_rand() % 60);
		for (unsigned i = 0; i < n; i++) {
			unsigned len = 1 + (unsigned)(model_rand() % 1600);
			if ((len + 4 + 255) / 256 + 1 > ring_free())
				break;
			check(model_rx_random(len) == 1, "burst %d: frame %u not stored", burst, i);
			classify(len, &e);
		}
		if (model_rand() & 1)
			deliver();                       /* else the interrupt waits for a pass */
		settle();
		check_ring_at_rest("after a burst");
	}
	struct ctr d = delta(base);
	check(d.frames == e.frames && d.runts == e.runts && d.oversize == e.oversize,
		"frames/runts/oversize %llu/%llu/%llu, want %llu/%llu/%llu", d.frames, d.runts,
		d.oversize, e.frames, e.runts, e.oversize);
	check(d.errors == 0 && d.resets == 0 && d.overflows == 0, "errors %llu resets %llu overflows %llu",
		d.errors, d.resets, d.overflows);
	check(M.samples == e.frames, "%llu entropy samples for %llu good frames",
		(unsigned long long)M.samples, e.frames);
	check(M.hdr_misplaced == 0, "%llu headers read where no frame starts",
		(unsigned long long)M.hdr_misplaced);
	check(bnry_behind_bad == 0, "%llu headers read with BNRY not one behind",
		(unsigned long long)bnry_behind_bad);
	check(M.dma_overreads == 0, "%llu data port reads past the remote byte count",
		(unsigned long long)M.dma_overreads);
	check(M.tx_attempts == 0, "the driver transmitted");
	check_no_masked_wait();
}

static void test_every_length_counted_ring_consistent(void **state)
{
	(void)state;
	every_length(0);
}

static void test_every_length_with_the_crc_page_skip(void **state)
{
	(void)state;
	every_length(1);
}

/* ---- 2. overflow ---- */

static unsigned fill_until_overflow(struct ctr *e)
{
	unsigned stored = 0;
	for (;;) {
		unsigned len = 60 + (unsigned)(model_rand() % 1455);
		int r = model_rx_random(len);
		if (r < 0)
			break;
		check(r == 1, "frame not stored before the overflow");
		classify(len, e);
		stored++;
	}
	return stored;
}

static void check_recovery_sequence(void)
{
	/* DP8390D "buffer ring overflow": stop, 1.6 ms or RST, clear RBCR,
	 * loopback, start, remove frames, ack OVW, leave loopback */
	check(M.t_stp > M.t_ovw, "no STP after the overflow");
	check(M.t_rbcr0 > M.t_stp, "RBCR not cleared after STP (%llu, %llu)",
		(unsigned long long)M.t_rbcr0, (unsigned long long)M.t_stp);
	check(M.t_sta - M.t_stp >= 1600 || M.rst_seen_stopped,
		"started %llu us after the stop, no RST seen", (unsigned long long)(M.t_sta - M.t_stp));
	check(M.t_loopback > M.t_rbcr0 && M.t_loopback < M.t_sta, "loopback not between RBCR and STA");
	check(M.t_bnry > M.t_sta, "no frame removed after the start");
	check(M.t_ovw_ack > M.t_bnry, "OVW acked before a frame was removed");
	check(M.t_tcr0 >= M.t_ovw_ack, "loopback left before OVW was acked");
}

static void test_overflow_recovered_by_the_poller_frames_kept(void **state)
{
	(void)state;
	up(100);
	struct ctr e = { 0 };
	unsigned stored = fill_until_overflow(&e);
	check(M.isr & 0x10, "the model did not overflow");
	check(stored > 8, "only %u frames before the overflow", stored);
	uint64_t irqs = M.irq_calls;
	deliver();                                   /* ne_irq via irq_register's handler */
	check(M.irq_calls == irqs + 1, "the interrupt was not taken");
	check_no_masked_wait();
	unsigned ovw_irq_ports = M.max[SEC_IRQ].ports;
	check(ovw_irq_ports <= 2, "ne_irq took %u port accesses to hand an overflow on", ovw_irq_ports);
	check(M.imr == 0, "ne_irq left IMR 0x%02x on an overflow", M.imr);
	for (int i = 0; i < 3; i++)
		check(model_rx_random(100) == 0, "the overflowed chip took a frame");
	check(pass() == 0, "the poller has work after the restart");
	check_no_masked_wait();
	struct ctr d = delta(base);
	check(d.overflows == 1 && d.resets == 0, "overflows %llu resets %llu", d.overflows, d.resets);
	check(d.frames == e.frames, "%llu frames taken of the %llu in the ring", d.frames, e.frames);
	check(!(M.isr & 0x10), "OVW not acked");
	check(M.tcr == 0, "TCR 0x%02x after the recovery", M.tcr);
	check(M.imr == IMR_BITS, "IMR 0x%02x after the recovery", M.imr);
	check(M.hdr_misplaced == 0 && bnry_behind_bad == 0, "ring walked wrong: %llu/%llu",
		(unsigned long long)M.hdr_misplaced, (unsigned long long)bnry_behind_bad);
	check_recovery_sequence();
	check_ring_at_rest("after the recovery");
	/* new frames are counted within one pass */
	for (int i = 0; i < 5; i++)
		check(model_rx_random(200) == 1, "the chip takes no frames after the recovery");
	pass();
	d = delta(base);
	check(d.frames == e.frames + 5, "%llu of 5 new frames counted in one pass", d.frames - e.frames);
	check_ring_at_rest("after new frames");
	print_message("overflow: %u frames kept; stop to start %llu us; ne_irq on OVW %u ports; "
		"restart pass %llu us\n", stored, (unsigned long long)(M.t_sta - M.t_stp), ovw_irq_ports,
		(unsigned long long)pass_us_max);
}

/* Traffic on the wire the whole time (including the masked sections and
 * the recovery), the main loop sometimes held off with interrupts masked
 * (another driver's section) so the ring overflows again and again. */
static void test_overflows_under_traffic(void **state)
{
	(void)state;
	up(1000);
	M.traffic_us = 40;
	M.next_frame_at = M.t_us;
	for (int i = 0; i < 400; i++) {
		unsigned r = (unsigned)(model_rand() % 8);
		if (r == 0) {
			unsigned long f = irq_save();
			for (unsigned us = 0; us < 3000; us++)
				outb(0x80, 0);                  /* 3 ms masked elsewhere: no clock read */
			irq_restore(f);
		} else {
			model_idle((unsigned)(model_rand() % 2000));
		}
		pass();
		check_no_masked_wait();
	}
	M.traffic_us = 0;
	settle();
	check_ring_at_rest("after the traffic");
	struct ctr d = delta(base);
	check(M.rx_overflows > 3, "only %llu overflows: the test did not test",
		(unsigned long long)M.rx_overflows);
	check(d.overflows == M.rx_overflows, "%llu overflows counted, the chip had %llu",
		d.overflows, (unsigned long long)M.rx_overflows);
	check(d.frames == M.rx_stored, "%llu frames counted, the chip stored %llu", d.frames,
		(unsigned long long)M.rx_stored);
	check(d.resets == 0 && d.errors == 0, "resets %llu errors %llu", d.resets, d.errors);
	check(M.hdr_misplaced == 0 && bnry_behind_bad == 0, "ring walked wrong: %llu/%llu",
		(unsigned long long)M.hdr_misplaced, (unsigned long long)bnry_behind_bad);
	check(M.max[SEC_IRQ].ports <= IRQ_CLAIM_PORTS, "ne_irq took %u port accesses",
		M.max[SEC_IRQ].ports);
	check(M.max[SEC_SAVE].ports <= IRQ_CLAIM_PORTS + 3000 + 2, "a poller section took %u",
		M.max[SEC_SAVE].ports);
	print_message("traffic: %llu frames, %llu overflows, %llu missed; ne_irq max %u ports %u headers; "
		"pass max %llu us\n", (unsigned long long)M.rx_stored, (unsigned long long)M.rx_overflows,
		(unsigned long long)M.rx_missed, M.max[SEC_IRQ].ports, M.max[SEC_IRQ].headers,
		(unsigned long long)pass_us_max);
}

/* ---- 3. corrupt rings ---- */

/* After a corrupt header: a reset counted, the ring programmed afresh and
 * frames flowing in the next pass. */
static void check_reset_and_flow(const char *what, unsigned long long frames_before)
{
	deliver();
	check(M.max[SEC_IRQ].headers <= 2 * FRAMES_PER_IRQ, "%s: ne_irq read %u headers", what,
		M.max[SEC_IRQ].headers);
	check(M.imr == 0, "%s: IMR 0x%02x: the corrupt ring was not noticed", what, M.imr);
	pass();
	struct ctr d = delta(base);
	check(d.resets == 1, "%s: %llu resets", what, d.resets);
	check(d.frames == frames_before, "%s: %llu frames counted, want %llu", what, d.frames,
		frames_before);
	check(M.imr == IMR_BITS && M.tcr == 0, "%s: IMR 0x%02x TCR 0x%02x", what, M.imr, M.tcr);
	check(M.curr == RX_START + 1 && M.bnry == RX_START, "%s: ring not programmed afresh: "
		"CURR 0x%02x BNRY 0x%02x", what, M.curr, M.bnry);
	check_ring_at_rest(what);
	for (int i = 0; i < 3; i++)
		check(model_rx_random(300) == 1, "%s: the chip takes no frames", what);
	pass();
	d = delta(base);
	check(d.frames == frames_before + 3, "%s: %llu of 3 frames after the reset", what,
		d.frames - frames_before);
	check(pass_headers_max <= 64 * RX_PAGES, "%s: a pass read %llu headers", what,
		(unsigned long long)pass_headers_max);
	check_no_masked_wait();
}

/* A 15,000-byte frame (QEMU takes one from a jumbo-frame backend) wraps
 * the 58-page ring and writes over its own header: with 01 50 ff ff at
 * every offset = 252 mod 256 the header read is frame data. */
static void test_frame_longer_than_the_ring_read_as_headers(void **state)
{
	(void)state;
	up(100);
	static uint8_t f[15000];
	for (unsigned i = 0; i < sizeof(f); i++)
		f[i] = (uint8_t)model_rand();
	for (unsigned i = 252; i + 3 < sizeof(f); i += 256) {
		f[i] = 0x01; f[i + 1] = 0x50; f[i + 2] = 0xFF; f[i + 3] = 0xFF;
	}
	model_rx_overwrite(f, sizeof(f));
	check_reset_and_flow("01 50 ff ff", 0);
}

/* The same, but every page's fake header is self-consistent and points two
 * pages on: the ring is 58 pages and CURR is one page past the frame's
 * start, so a walk that follows them steps over CURR forever. */
static void test_consistent_fake_headers_that_step_over_curr(void **state)
{
	(void)state;
	up(100);
	static uint8_t f[15000];
	uint8_t start = M.curr;
	for (unsigned i = 0; i < sizeof(f); i++)
		f[i] = (uint8_t)model_rand();
	for (unsigned m = 0; 252 + 256 * m + 3 < sizeof(f); m++) {
		unsigned i = 252 + 256 * m;
		uint8_t page = (uint8_t)(RX_START + (start - RX_START + m + 1) % RX_PAGES);
		f[i] = 0x01;
		f[i + 1] = (uint8_t)(RX_START + (page - RX_START + 2) % RX_PAGES);
		f[i + 2] = 0x2C; f[i + 3] = 0x01;        /* 300 bytes: two pages */
	}
	model_rx_overwrite(f, sizeof(f));
	check(M.curr == ring_next(start), "the model put CURR at 0x%02x", M.curr);
	check_reset_and_flow("headers past CURR", 0);
}

/* Independent of the driver's rule: a header at page p, with CURR at curr,
 * is one the chip could have written iff its next page lies in the ring,
 * at most at CURR, and spans what its count needs (or one page more). */
static int header_possible(uint8_t p, uint8_t next, uint16_t count, uint8_t curr)
{
	if (next < RX_START || next >= RX_STOP)
		return 0;
	unsigned span = (unsigned)(next + RX_PAGES - p) % RX_PAGES;
	unsigned avail = (unsigned)(curr + RX_PAGES - p) % RX_PAGES;
	unsigned need = (count + 255u) / 256u;
	return span >= 1 && span <= avail && span >= need && span <= need + 1;
}

static void test_random_bad_headers(void **state)
{
	(void)state;
	up(100);
	unsigned long long want = 0, resets = 0;
	for (int round = 0; round < 300; round++) {
		unsigned k = (unsigned)(model_rand() % 5);
		for (unsigned i = 0; i < k; i++) {
			check(model_rx_random(100 + (unsigned)(model_rand() % 1000)) == 1, "frame not stored");
			want++;
		}
		/* the bad header at CURR; the new CURR anywhere the chip could have
		 * put it: past the header, at most at BNRY */
		uint8_t p = M.curr, next, curr;
		uint16_t count;
		unsigned room = (unsigned)(M.bnry + RX_PAGES - p) % RX_PAGES;
		check(room >= 1, "no room in the ring");
		do {
			uint64_t r = model_rand();
			next = (uint8_t)r;
			if (r & 0x100)                 /* mostly in the ring, to test the subtle cases */
				next = (uint8_t)(RX_START + (r >> 9) % RX_PAGES);
			count = (uint16_t)(r >> 20);
			if (r & 0x200)
				count &= 0x7FF;
			curr = (uint8_t)(RX_START + (p - RX_START + 1 + (r >> 40) % room) % RX_PAGES);
			if ((r & 0xC00) == 0xC00 && next >= RX_START && next < RX_STOP) {
				/* a count that fits its span: only CURR can tell it is bad */
				unsigned span = (unsigned)(next + RX_PAGES - p) % RX_PAGES;
				count = (uint16_t)(span * 256 - (r >> 56));
			}
		} while (header_possible(p, next, count, curr));
		model_fake_header(p, (uint8_t)model_rand(), next, count, curr);
		deliver();
		pass();
		resets++;
		struct ctr d = delta(base);
		check(d.resets == resets, "round %d: header at 0x%02x next 0x%02x count %u CURR 0x%02x "
			"taken as good (%llu resets)", round, p, next, count, curr, d.resets);
		check(d.frames == want, "round %d: %llu frames, want %llu", round, d.frames, want);
		check(M.imr == IMR_BITS && M.curr == RX_START + 1, "round %d: not reprogrammed", round);
		check(M.max[SEC_IRQ].headers <= 2 * FRAMES_PER_IRQ, "ne_irq read %u headers",
			M.max[SEC_IRQ].headers);
	}
	for (int i = 0; i < 3; i++)
		check(model_rx_random(300) == 1, "the chip takes no frames");
	pass();
	check(delta(base).frames == want + 3, "frames do not flow after the resets");
	check_no_masked_wait();
}

/* ---- 4. masked-section bounds ---- */

static void test_masked_sections_within_their_claims(void **state)
{
	(void)state;
	/* a full ring of one-page frames: ne_irq takes 16, the poller the rest */
	up(1000);
	unsigned n = 0;
	while (ring_free() >= 1 && model_rx_random(60) == 1)
		n++;
	deliver();
	unsigned irq_full = M.max[SEC_IRQ].ports, irq_full_h = M.max[SEC_IRQ].headers;
	settle();
	check(delta(base).frames == n, "%llu of %u frames", delta(base).frames, n);
	unsigned save_drain = M.max[SEC_SAVE].ports, save_h = M.max[SEC_SAVE].headers;
	check(irq_full <= IRQ_CLAIM_PORTS, "ne_irq on a full ring: %u port accesses", irq_full);
	check(irq_full_h <= FRAMES_PER_IRQ, "ne_irq read %u headers", irq_full_h);
	check(save_drain <= IRQ_CLAIM_PORTS && save_h <= FRAMES_PER_IRQ,
		"a poller drain section: %u accesses, %u headers", save_drain, save_h);
	check_no_masked_wait();
	print_message("full ring (%u frames): ne_irq %u ports %u headers; poller section %u ports %u headers\n",
		n, irq_full, irq_full_h, save_drain, save_h);
}

/* The worst case for ne_irq: round 1 empties the ring with 15 headers, then
 * a burst arrives just after its last CURR read, so round 2 reads 16 more. */
static int inject_armed, inject_headers;
static void count_header(uint8_t page)
{
	header_hook(page);
	inject_headers++;
}
static void inject_after_empty(uint8_t curr)
{
	(void)curr;
	if (inject_armed && inject_headers == 15) {
		inject_armed = 0;
		for (int i = 0; i < 20; i++)
			model_rx_random(60);
	}
}

static void worst_irq(int rdc_dead, unsigned *ports, unsigned *headers)
{
	up(1000);
	for (int i = 0; i < 15; i++)
		check(model_rx_random(60) == 1, "frame not stored");
	M.on_header = count_header;
	M.on_curr_read = inject_after_empty;
	inject_armed = 1;
	inject_headers = 0;
	M.rdc_dead = rdc_dead;
	deliver();
	M.on_curr_read = NULL;
	*ports = M.max[SEC_IRQ].ports;
	*headers = M.max[SEC_IRQ].headers;
	M.rdc_dead = 0;
	settle();
	check_no_masked_wait();
}

static void test_ne_irq_worst_case_two_rounds(void **state)
{
	(void)state;
	unsigned ports, headers;
	worst_irq(0, &ports, &headers);
	check(headers == 2 * FRAMES_PER_IRQ - 1, "the worst case read %u headers, not 31", headers);
	check(ports <= IRQ_CLAIM_PORTS, "ne_irq's two rounds: %u port accesses (claim: under 1 ms)",
		ports);
	check(delta(base).frames == 35, "%llu of 35 frames", delta(base).frames);
	print_message("ne_irq worst case: %u headers, %u port accesses (%.1f per header)\n",
		headers, ports, (double)ports / headers);
}

static void test_poller_sections_and_restart_section(void **state)
{
	(void)state;
	up(1000);
	/* frames left for the poller: 60 one-page frames, no ne_irq */
	unsigned n = 0;
	while (ring_free() >= 1 && model_rx_random(60) == 1)
		n++;
	deliver();                                     /* ne_irq takes 16, leaves the rest */
	model_section_reset();
	settle();
	check(M.max[SEC_SAVE].headers <= FRAMES_PER_IRQ, "a poller section read %u headers",
		M.max[SEC_SAVE].headers);
	check(M.max[SEC_SAVE].ports <= IRQ_CLAIM_PORTS, "a poller section took %u accesses",
		M.max[SEC_SAVE].ports);
	unsigned drain = M.max[SEC_SAVE].ports;
	/* the restart's last section: "five flag/port writes", one of them a port */
	model_section_reset();
	fill_until_overflow(&(struct ctr){ 0 });
	deliver();
	model_section_reset();
	pass();
	check(M.sections[SEC_SAVE] >= 1, "no masked section in the restart pass");
	check(M.max[SEC_SAVE].ports <= 1, "the restart's masked section took %u port accesses",
		M.max[SEC_SAVE].ports);
	check_no_masked_wait();
	print_message("poller: drain section max %u ports; restart section %u port(s)\n",
		drain, M.max[SEC_SAVE].ports);
}

/* ---- 5. dead cards ---- */

static int init_on(int absent, int rdc_dead, int rst_dead, uint64_t *us)
{
	model_reset(100, seed);
	M.absent = absent;
	M.rdc_dead = rdc_dead;
	M.rst_dead = rst_dead;
	if (rst_dead)
		M.isr = 0;
	struct boot_options o;
	options_defaults(&o);
	uint64_t t = M.t_us;
	M.call_budget_end = M.t_us + 200000;
	int r = ne2000_init(&the_rng, &o);
	M.call_budget_end = 0;
	*us = M.t_us - t;
	check_no_masked_wait();
	return r;
}

static void test_dead_cards_at_init_end(void **state)
{
	(void)state;
	uint64_t us;
	check(init_on(1, 0, 0, &us) == -1, "an empty I/O range was taken for a card");
	check(us < 100, "an empty range took %llu us", (unsigned long long)us);
	check(init_on(0, 0, 1, &us) == -1, "a card that never resets was used");
	check(us >= 20000 && us < 25000, "no RST: init took %llu us (20 ms deadline)",
		(unsigned long long)us);
	print_message("dead at init: no RST %llu us\n", (unsigned long long)us);
	check(init_on(0, 1, 0, &us) == -1, "a card that never completes a remote read was used");
	check(us < 5000, "no RDC: init took %llu us", (unsigned long long)us);
}

static void test_rdc_never_comes_after_init(void **state)
{
	(void)state;
	up(1000);
	M.rdc_dead = 1;
	for (int i = 0; i < 20; i++) {
		for (int k = 0; k < 3; k++)
			model_rx_random(200);
		deliver();
		pass();
		pass();
	}
	struct ctr d = delta(base);
	check(d.errors >= 20 && d.resets >= 20, "errors %llu resets %llu", d.errors, d.resets);
	check(d.frames == 0, "%llu frames taken with no RDC", d.frames);
	check(M.max[SEC_IRQ].ports <= IRQ_CLAIM_PORTS + RDC_MAX_POLLS,
		"ne_irq with no RDC: %u port accesses", M.max[SEC_IRQ].ports);
	check(M.max[SEC_IRQ].ports > RDC_MAX_POLLS, "the RDC wait did not run (%u)",
		M.max[SEC_IRQ].ports);
	check_no_masked_wait();
	unsigned irq_ports = M.max[SEC_IRQ].ports;
	M.rdc_dead = 0;
	settle();
	for (int i = 0; i < 3; i++)
		check(model_rx_random(300) == 1, "the chip takes no frames");
	pass();
	check(delta(base).frames == 3, "frames do not flow once RDC works again");
	print_message("no RDC: ne_irq %u port accesses\n", irq_ports);
}

static void test_rst_never_comes_in_the_recovery(void **state)
{
	(void)state;
	up(100);
	M.rst_dead = 1;
	M.isr &= 0x7F;
	struct ctr e = { 0 };
	fill_until_overflow(&e);
	M.isr &= 0x7F;                                 /* the dead chip shows no RST for OVW either */
	deliver();
	uint64_t t = M.t_us;
	pass();
	uint64_t us = M.t_us - t;
	check(us >= 1600 + 10000 && us <= RESTART_CLAIM_US + 500,
		"the recovery took %llu us (1.6 ms + 10 ms for RST)", (unsigned long long)us);
	struct ctr d = delta(base);
	check(d.overflows == 1 && d.frames == e.frames, "overflows %llu frames %llu/%llu",
		d.overflows, d.frames, e.frames);
	check_no_masked_wait();
	print_message("no RST: the restart pass took %llu us\n", (unsigned long long)us);
}

/* ---- the model's own trap: a masked wait on its clock cannot end ---- */

static void test_model_traps_a_masked_clock_wait(void **state)
{
	(void)state;
	model_reset(1000, seed);
	jmp_buf jb;
	M.trap = &jb;
	uint64_t t0 = M.t_us;
	clock_delay_us(1600);                          /* interrupts on: ends */
	check(M.t_us - t0 >= 1600 && M.t_us - t0 < 1700, "a 1.6 ms wait took %llu us",
		(unsigned long long)(M.t_us - t0));
	unsigned long f = irq_save();
	if (!setjmp(jb)) {
		clock_delay_us(1600);
		fail_msg("a masked 1.6 ms wait on the PIT clock ended");
	}
	check(M.trapped, "not trapped");
	(void)f;
	M.trap = NULL;
}

int main(void)
{
	const char *s = getenv("NE2K_SEED");
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	seed = s ? strtoull(s, NULL, 0)
		: (((uint64_t)ts.tv_sec << 30 ^ (uint64_t)ts.tv_nsec) * 0x9E3779B97F4A7C15ull) | 1;
	printf("test_drv_ne2000: NE2K_SEED=0x%llx\n", (unsigned long long)seed);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_traps_a_masked_clock_wait),
		cmocka_unit_test(test_every_length_counted_ring_consistent),
		cmocka_unit_test(test_every_length_with_the_crc_page_skip),
		cmocka_unit_test(test_overflow_recovered_by_the_poller_frames_kept),
		cmocka_unit_test(test_overflows_under_traffic),
		cmocka_unit_test(test_frame_longer_than_the_ring_read_as_headers),
		cmocka_unit_test(test_consistent_fake_headers_that_step_over_curr),
		cmocka_unit_test(test_random_bad_headers),
		cmocka_unit_test(test_masked_sections_within_their_claims),
		cmocka_unit_test(test_ne_irq_worst_case_two_rounds),
		cmocka_unit_test(test_poller_sections_and_restart_section),
		cmocka_unit_test(test_dead_cards_at_init_end),
		cmocka_unit_test(test_rdc_never_comes_after_init),
		cmocka_unit_test(test_rst_never_comes_in_the_recovery),
	};
	return cmocka_run_group_tests_name("drivers/ne2000 (model)", tests, NULL, NULL);
}
