/* libFuzzer target: EGD requests on COM2, through drivers/serial.c's ring into app/egd.c's answers. */
/*
 * The real driver, parser and entropy core (SHA-1 extraction included:
 * this target is slow per byte). Input: records, each an op byte and its
 * arguments:
 *   op % 4 == 0: the client sends the next (arg % 64) + 1 bytes
 *   op % 4 == 1: a trusted source interrupts arg times (entropy arrives)
 *   op % 4 == 2: arg * 8 ms pass (partial requests go stale)
 *   op % 4 == 3: bit 2 of op: the client stops reading; bit 3: a console
 *                reader waits for entropy (EGD must yield)
 * After each record EGD is polled until it has nothing to do. Invariants,
 * per poll: the answer is exactly what the request at the ring's head
 * asks (0x00: 4 bytes, the primary's bits; 0x04: the id; 0x01 n: a count
 * k <= n then k bytes; 0x02 n: nothing now, n bytes owed, then never more
 * than is owed; 0x03: nothing, and not a bit credited), nothing while the
 * client does not read; every random byte sent is 8 bits debited; the
 * accounting identity (credited = primary + secondary + spent) holds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_pc.h"
#include "drivers/serial.c"
#include "app/egd.c"

struct rng rng_live;
volatile int console_random_waiting;
uint64_t stream_port_bytes;

/* tests/unit/entropy_platform_stub.c */
extern uint64_t stub_time;
extern uint32_t stub_switches;
void stub_reset(void);
void sample_at(struct entropy_source *src, uint64_t t, uint32_t passes, uint32_t datum);

static struct entropy_source src_storage, *src;
static int client_reads;
static uint64_t owed_total;         /* bytes 0x02 requests asked for */
static uint64_t owed_sent;          /* bytes sent against them */

static void check_identity(void)
{
	FUZZ_CHECK(rng_live.credited_bits == (uint64_t)rng_live.primary.entropy_count +
		(uint64_t)rng_live.secondary.entropy_count + rng_live.spent_bits,
		"identity: credited %llu != primary %d + secondary %d + spent %llu",
		(unsigned long long)rng_live.credited_bits, rng_live.primary.entropy_count,
		rng_live.secondary.entropy_count, (unsigned long long)rng_live.spent_bits);
	FUZZ_CHECK(rng_live.random_bytes * 8 <= rng_live.spent_bits, "bytes served that no pool gave up");
}

/* Bytes EGD has handed the driver: still in the ring, or already sent. */
static size_t tx_queued(void)
{
	return TX_RING - 1 - serial_tx_space(COM2) + pc_uart_out_len[COM2];
}

/* What the poll wrote: delta bytes from the transmit ring's old head. */
static void answered(uint32_t head, size_t delta, uint8_t *out)
{
	for (size_t i = 0; i < delta; i++)
		out[i] = uarts[COM2].tx[(head + i) & (TX_RING - 1)];
}

static void check_answer(int cmd, int n, unsigned have, const uint8_t *out, size_t delta,
	int primary_bits, uint64_t bytes_sent)
{
	unsigned need = cmd == 3 ? (have >= 4 ? 4u + (unsigned)serial_rx_peek(COM2, 3) : 4u) :
		cmd == 1 || cmd == 2 ? 2u : 1u;
	if (cmd < 0 || cmd > 4 || have < need) {
		FUZZ_CHECK(delta == 0, "%zu bytes answered to no request (head 0x%02x, %u bytes)",
			delta, cmd, have);
		return;
	}
	if (cmd == 0) {
		uint32_t bits = (uint32_t)(primary_bits > 0 ? primary_bits : 0);
		FUZZ_CHECK(delta == 4 && out[0] == (uint8_t)(bits >> 24) && out[1] == (uint8_t)(bits >> 16)
			&& out[2] == (uint8_t)(bits >> 8) && out[3] == (uint8_t)bits,
			"0x00 answered %zu bytes, not the %u bits", delta, bits);
	} else if (cmd == 4) {
		FUZZ_CHECK(delta == 7 && memcmp(out, "\x06rand86", 7) == 0, "0x04 answered %zu bytes", delta);
	} else if (cmd == 1) {
		FUZZ_CHECK(delta >= 1 && out[0] <= n && delta == 1u + out[0] && bytes_sent == out[0],
			"0x01 %d answered %zu bytes, count byte %d, %llu random", n, delta,
			delta ? out[0] : -1, (unsigned long long)bytes_sent);
	} else if (cmd == 2) {
		FUZZ_CHECK(delta == 0 && egd_left == (unsigned)n, "0x02 %d: %zu bytes now, %u owed", n,
			delta, egd_left);
		owed_total += (unsigned)n;
	} else {
		FUZZ_CHECK(delta == 0, "0x03 answered %zu bytes", delta);
	}
}

/* One poll and everything it must have done. */
static int poll_checked(void)
{
	uint8_t out[1 + 255 + 64];
	unsigned have = serial_rx_count(COM2), left = egd_left;
	int cmd = serial_rx_peek(COM2, 0), n = serial_rx_peek(COM2, 1);
	uint64_t credited = rng_live.credited_bits, spent = rng_live.spent_bits, sent = egd_bytes;
	int primary_bits = rng_live.primary.entropy_count;
	size_t queued = tx_queued(), space = serial_tx_space(COM2);
	uint32_t head = uarts[COM2].tx_head;
	int busy = egd_poll();
	size_t delta = tx_queued() - queued;
	uint64_t bytes_sent = egd_bytes - sent;

	FUZZ_CHECK(delta <= sizeof(out), "one poll sent %zu bytes", delta);
	answered(head, delta, out);
	FUZZ_CHECK(bytes_sent * 8 <= rng_live.spent_bits - spent, "%llu random bytes sent, %llu bits debited",
		(unsigned long long)bytes_sent, (unsigned long long)(rng_live.spent_bits - spent));
	if (space < 1 + 255) {
		FUZZ_CHECK(delta == 0 && !busy, "answered a client that does not read");
	} else if (left) {
		FUZZ_CHECK(delta == bytes_sent && delta <= left && delta <= EGD_CHUNK && egd_left == left - delta,
			"0x02 owed %u: sent %zu, %u owed after", left, delta, egd_left);
		FUZZ_CHECK(!console_random_waiting || delta == 0, "EGD took entropy from a console reader");
		owed_sent += delta;
	} else {
		check_answer(cmd, n, have, out, delta, primary_bits, bytes_sent);
		if (cmd == EGD_WRITE)
			FUZZ_CHECK(rng_live.credited_bits == credited, "a 0x03 write credited %llu bits",
				(unsigned long long)(rng_live.credited_bits - credited));
	}
	FUZZ_CHECK(owed_sent <= owed_total, "sent %llu bytes against %llu asked with 0x02",
		(unsigned long long)owed_sent, (unsigned long long)owed_total);
	check_identity();
	FUZZ_CHECK(serial_rx_count(COM2) < RX_RING, "ring count %u", serial_rx_count(COM2));
	if (client_reads)
		while (uarts[COM2].tx_tail != uarts[COM2].tx_head)
			pc_raise(3);               /* THRE: the UART sends, the client reads */
	pc_uart_out_len[COM2] = 0;
	return busy;
}

static void setup(void)
{
	pc_reset();
	stub_reset();
	memset(uarts, 0, sizeof(uarts));
	rng_init(&rng_live, RNG_CREDIT_XYMORON);
	src = create_entropy_source(&rng_live, &src_storage, "fz", 1, 1, 1000);
	FUZZ_CHECK(serial_init(COM2, 115200) == 0, "no COM2");
	serial_enable_irq(COM2);
	egd_left = egd_seen = 0;
	egd_requests = 0;
	egd_bytes = 0;
	console_random_waiting = 0;
	client_reads = 1;
	owed_total = owed_sent = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	for (size_t i = 0; i + 1 < size;) {
		uint8_t op = data[i], arg = data[i + 1];
		i += 2;
		if (op % 4 == 0) {
			size_t k = (size_t)arg % 64 + 1;
			if (k > size - i)
				k = size - i;
			pc_uart_send(COM2, data + i, k);
			i += k;
		} else if (op % 4 == 1) {
			for (unsigned j = 0; j < arg; j++)
				sample_at(src, stub_time + 1000 + (uint64_t)(op * 7919u + j * 104729u) % 50000,
					1, op ^ j);
		} else if (op % 4 == 2) {
			pc_us += (uint64_t)arg * 8000;
		} else {
			client_reads = !(op & 4);
			console_random_waiting = !!(op & 8);
		}
		for (int p = 0; p < 64 && poll_checked(); p++)
			;
	}
	return 0;
}
