/* The EGD protocol on COM2 (stream=egd): requests in, /dev/random bytes out. */
/*
 * What QEMU's rng-egd backend and EGD clients speak (the Entropy Gathering
 * Daemon's socket protocol; docs/PROTOCOL.md "Stream port"):
 *   0x00            -> 4 bytes: the entropy available, in bits, big-endian
 *   0x01 n          -> a count byte k <= n, then k bytes, at once
 *   0x02 n          -> exactly n bytes, as entropy allows (blocking)
 *   0x03 hi lo n .. -> the n data bytes are mixed, never credited; no reply
 *   0x04            -> a length byte and an ASCII id
 * Every byte sent is a /dev/random byte (rng_read_random: 8 credited bits
 * each), and only what was asked is sent, so nothing credited is thrown
 * away in a client's buffer. Requests are answered in order: a blocking
 * 0x02 holds the ones behind it until it is done.
 *
 * The parser is bounded: it looks only at the receive ring and takes a
 * request when all of its bytes are there (at most 4 + 255 of the ring's
 * 1024). A byte that starts no request is dropped; a request left
 * incomplete with nothing more arriving for EGD_STALE_MS (a client gone
 * mid-request, or a stray byte that looked like a command) is dropped
 * whole, and the next byte to come starts a request: that is how the
 * port resynchronises.
 */
#include <string.h>
#include "app/serve.h"
#include "kern/kernel.h"
#include "arch/x86/clock.h"
#include "drivers/serial.h"

#define EGD_GET_BITS     0x00
#define EGD_READ_NOWAIT  0x01
#define EGD_READ_WAIT    0x02
#define EGD_WRITE        0x03
#define EGD_GET_ID       0x04
#define EGD_ID           "rand86"
#define EGD_STALE_MS     1000u
#define EGD_CHUNK        64

uint32_t egd_requests;          /* requests answered (status: egd_requests) */
uint64_t egd_bytes;             /* random bytes sent (status: egd_bytes) */

static unsigned egd_left;       /* bytes a blocking 0x02 still owes */
static unsigned egd_seen;       /* ring bytes when the partial request was last looked at */
static struct deadline egd_stale;

/* Bytes the request at the ring's head needs in all; 0: not a command. */
static unsigned egd_request_len(void)
{
	switch (serial_rx_peek(COM2, 0)) {
	case EGD_GET_BITS: case EGD_GET_ID: return 1;
	case EGD_READ_NOWAIT: case EGD_READ_WAIT: return 2;
	case EGD_WRITE: {
		int n = serial_rx_peek(COM2, 3);
		return n < 0 ? 4 : 4 + (unsigned)n;
	}
	default: return 0;
	}
}

static void egd_send(const void *p, size_t n)
{
	serial_write_some(COM2, p, n);
	stream_port_bytes += n;
}

/* Up to n random bytes now (n <= EGD_CHUNK); returns how many were sent. */
static size_t egd_send_random(size_t n)
{
	uint8_t buf[EGD_CHUNK];
	size_t k = rng_read_random(&rng_live, buf, n);

	egd_send(buf, k);
	egd_bytes += k;
	memset(buf, 0, sizeof(buf));
	return k;
}

static void egd_get_bits(void)
{
	struct rng_stats st;
	uint32_t bits;
	uint8_t be[4];

	rng_stats(&rng_live, &st);
	bits = st.primary_bits > 0 ? (uint32_t)st.primary_bits : 0;
	be[0] = (uint8_t)(bits >> 24);
	be[1] = (uint8_t)(bits >> 16);
	be[2] = (uint8_t)(bits >> 8);
	be[3] = (uint8_t)bits;
	egd_send(be, 4);
}

/* 0x01 n: k <= n bytes that can be had now, preceded by k. "Now" is
 * at most EGD_NOWAIT_SLICE_MS of making them: on a 4 MIPS 386 each
 * /dev/random read of RNG_APART_BYTES costs ~3 ms, and 255 bytes made in
 * one pass would hold it for ~80 ms (docs/PROTOCOL.md, "Responsiveness").
 * The client asks again for the rest, as it does when the pool is dry. */
#define EGD_NOWAIT_SLICE_MS 2u

static void egd_read_nowait(unsigned n)
{
	uint8_t buf[256], k = 0;
	struct deadline slice = deadline_in_ms(EGD_NOWAIT_SLICE_MS);

	while (k < n && !deadline_passed(slice)) {
		size_t want = n - k < EGD_CHUNK ? n - k : EGD_CHUNK;
		size_t got = console_random_waiting ? 0 : rng_read_random(&rng_live, buf + k, want);
		if (!got)
			break;
		k = (uint8_t)(k + got);
	}
	egd_send(&k, 1);
	egd_send(buf, k);
	egd_bytes += k;
	memset(buf, 0, sizeof(buf));
}

static void egd_write(unsigned n)
{
	uint8_t data[255];

	for (unsigned i = 0; i < n; i++)
		data[i] = (uint8_t)serial_rx_peek(COM2, 4 + i);
	rng_mix_uncredited(&rng_live, data, n);  /* a client's bytes earn nothing */
}

/* Answer the complete request at the ring's head (len bytes), drop it. */
static void egd_answer(unsigned len)
{
	int cmd = serial_rx_peek(COM2, 0);
	unsigned n = len > 1 ? (unsigned)serial_rx_peek(COM2, 1) : 0;

	if (cmd == EGD_GET_BITS) {
		egd_get_bits();
	} else if (cmd == EGD_GET_ID) {
		uint8_t l = sizeof(EGD_ID) - 1;
		egd_send(&l, 1);
		egd_send(EGD_ID, l);
	} else if (cmd == EGD_READ_NOWAIT) {
		egd_read_nowait(n);
	} else if (cmd == EGD_READ_WAIT) {
		egd_left = n;                        /* answered as entropy comes */
		egd_requests += n == 0;
		serial_rx_discard(COM2, len);
		return;
	} else {
		egd_write((unsigned)serial_rx_peek(COM2, 3));
	}
	serial_rx_discard(COM2, len);
	egd_requests++;
}

/* The next request, if all of it has come; stale partial ones lose a byte. */
static int egd_parse(void)
{
	unsigned have = serial_rx_count(COM2), len;

	if (!have)
		return 0;
	len = egd_request_len();
	if (!len || have >= len) {
		if (len)
			egd_answer(len);
		else
			serial_rx_discard(COM2, 1);      /* starts no request: dropped */
		egd_seen = 0;                        /* the next partial one starts its own clock */
		return 1;
	}
	if (have != egd_seen) {                  /* still arriving: wait */
		egd_seen = have;
		egd_stale = deadline_in_ms(EGD_STALE_MS);
	} else if (deadline_passed(egd_stale)) {
		serial_rx_discard(COM2, have);       /* silent for a second: all of it is stale */
		egd_seen = 0;
		return 1;
	}
	return 0;
}

/* The COM2 poller under stream=egd: nonzero when it did something. */
int egd_poll(void)
{
	if (serial_tx_space(COM2) < 1 + 255)
		return 0;                        /* the client is not reading: wait */
	if (egd_left) {
		size_t n = egd_left < EGD_CHUNK ? egd_left : EGD_CHUNK;
		if (console_random_waiting)
			return 0;                    /* a console reader goes first */
		n = egd_send_random(n);
		egd_left -= (unsigned)n;
		egd_requests += egd_left == 0;
		return n != 0;
	}
	return egd_parse();
}
