/* libFuzzer target: frames and rings from the wire, through drivers/ne2000.c on the DP8390 model. */
/*
 * The real driver on tests/unit/ne2k_model.c (a DP8390 + NE2000 written
 * from the datasheet). Input: records of an op byte and two argument
 * bytes a, b (then data for frames):
 *   op % 5 == 0: a frame of (a | b << 8) % 1600 + 1 bytes (data from the
 *                input) stored the chip's way; a full ring overflows it
 *   op % 5 == 1: the same, QEMU's way: written over whatever is there
 *   op % 5 == 2: a header that is no header at CURR (status op, next a,
 *                count from b and the next byte) and CURR moved past it
 *                to anywhere the chip could have put it
 *   op % 5 == 3: a * 4 us pass with interrupts on
 *   op % 5 == 4: the interrupt is delivered, no main-loop pass
 * After a record with op & 0x80 a main-loop pass (interrupt, then the
 * poller); without one frames pile up and the ring overflows. The
 * model fails the run on a wait that cannot end, a masked section past
 * its bound or a data read past the remote byte count. Invariants: BNRY,
 * CURR and the driver's next page stay in the ring; no more frames are
 * counted than were stored (the chip's, QEMU's way or a header by hand); the driver reads headers only where the
 * chip started a frame while the ring is the chip's alone; at the end,
 * with time, the ring is empty, the receiver running and its interrupts on.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include "ne2k_model.h"
#include "drivers/ne2000.c"

static void fail(const char *what)
{
	fprintf(stderr, "invariant broken: %s (BNRY 0x%02x CURR 0x%02x next 0x%02x)\n", what, M.bnry,
		M.curr, nic.next);
	abort();
}

/* Frames the chip's count misses: stored QEMU's way, and for a header
 * written by hand a page each of what it opens (the driver rightly counts
 * a consistent header, and what it points to is stale ring data). */
static uint64_t overwritten;

static int in_ring(uint8_t p) { return p >= RX_START && p < RX_STOP; }

static int pass(void)
{
	M.call_budget_end = M.t_us + 20000;
	model_deliver();
	M.call_budget_end = M.t_us + 50000;
	int r = ne2000_poll();
	M.call_budget_end = 0;
	return r;
}

static void check(int tainted)
{
	if (!in_ring(M.bnry) || !in_ring(M.curr) || !in_ring(nic.next))
		fail("a ring pointer left the ring");
	if (M.dma_overreads)
		fail("data port read past the remote byte count");
	if (nic.frames + nic.runts + nic.oversize + nic.errors > M.rx_stored + overwritten)
		fail("more frames counted than the chip stored");
	if (!tainted && M.hdr_misplaced)
		fail("a header read where no frame starts");
	if (M.samples != nic.frames)
		fail("entropy samples are not the good frames");
}

/* A header that is no header at CURR, CURR moved on (the unit tests' rule:
 * past the header, at most to BNRY). */
static void bad_header(uint8_t status, uint8_t a, uint16_t count)
{
	unsigned room = (unsigned)(M.bnry + RX_PAGES - M.curr) % RX_PAGES;
	if (room < 1 || M.halted)
		return;
	uint8_t curr = (uint8_t)(RX_START + (M.curr - RX_START + 1 + count % room) % RX_PAGES);
	/* what lies between the old CURR and the new one now reads as
	 * received: stale headers there may pass as frames, a page each */
	overwritten += (unsigned)(curr + RX_PAGES - M.curr) % RX_PAGES;
	model_fake_header(M.curr, status, a, count, curr);
}

/* One operation of the input at data[*i]: a frame, an overwritten
 * frame, a hand-made header, time passing, or the interrupt delivered.
 * Returns 1 once what the ring holds is no longer the driver's alone. */
static int one_op(const uint8_t *data, size_t size, size_t *i)
{
	uint8_t op = data[*i], a = data[*i + 1], b = data[*i + 2];
	unsigned len = (unsigned)(a | b << 8) % 1600 + 1;
	int tainted = 0;
	*i += 3;
	switch (op % 5) {
	case 0: case 1: {
		uint8_t frame[1600];
		size_t k = len < size - *i ? len : size - *i;
		memset(frame, op, len);
		memcpy(frame, data + *i, k);
		*i += k;
		if (op % 5 == 0) {
			model_rx(frame, len);
		} else if (!M.halted) {
			model_rx_overwrite(frame, len);
			overwritten++;
			tainted = 1;
		}
		break;
	}
	case 2:
		bad_header(op, a, (uint16_t)(b << 8 | (*i < size ? data[(*i)++] : 0)));
		tainted = 1;
		break;
	case 3:
		M.call_budget_end = M.t_us + 20000 + 4u * a;
		model_idle(4u * a);
		M.call_budget_end = 0;
		break;
	default:
		M.call_budget_end = M.t_us + 20000;
		model_deliver();
		M.call_budget_end = 0;
		break;
	}
	if (op & 0x80)
		pass();                  /* else frames pile up: the ring can overflow */
	return tainted;
}

/* The rest of the recovery: 1.6 ms, then the reset's own wait; then one
 * more frame must be taken. The model keeps an overflowed chip halted
 * until BNRY changes value, also after the driver wrote the ring afresh
 * (which may leave BNRY where it was): no frame then. */
static void check_recovers(int tainted)
{
	int ready = 0;
	for (int n = 0; n < 100 && !ready; n++) {
		int busy = pass();
		check(tainted);
		ready = !busy && !model_ring_used() && !nic.restart_pending && !nic.restarting;
		M.call_budget_end = M.t_us + 20000;
		model_idle(100);
		M.call_budget_end = 0;
	}
	if (!ready || M.imr != IMR_BITS)
		fail("the receiver is not running again after 10 ms of passes");
	uint8_t probe[60] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	if (M.halted && !(M.halted_stopped && M.halted_bnry_moved))
		return;
	if (model_rx(probe, sizeof(probe)) != 1)
		fail("the chip takes no frame after the recovery");
	pass();
	if (model_ring_used())
		fail("a frame after the recovery was not taken");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rng the_rng;
	struct boot_options o;
	int tainted = 0;
	overwritten = 0;
	model_reset(1000, 1);
	memset(&nic, 0, sizeof(nic));
	memset(&ne_src, 0, sizeof(ne_src));
	options_defaults(&o);
	M.call_budget_end = M.t_us + 100000;
	if (ne2000_init(&the_rng, &o) != 0)
		fail("ne2000_init on the model");
	M.call_budget_end = 0;
	for (size_t i = 0; i + 3 <= size;) {
		tainted |= one_op(data, size, &i);
		check(tainted);
	}
	check_recovers(tainted);
	return 0;
}
