/* 16550 UART: COM1 console and COM2 stream port, interrupt-driven rings. */
#ifndef RAND86_SERIAL_H
#define RAND86_SERIAL_H
#include <stddef.h>
#include <stdint.h>

#define COM1 0
#define COM2 1

int serial_init(int port, uint32_t baud);          /* 0 ok, -1 absent */
int serial_present(int port);
void serial_enable_irq(int port);                    /* after the IDT and PIC are up */
/* The untrusted sources `serial` (COM1) and `serial2` (COM2) on r; after clock_init. */
struct rng;
void serial_sources_init(struct rng *r);
/* Queue what fits without waiting; returns the count queued (all of n
 * when the port is absent, or polled before its interrupt is on). */
size_t serial_write_some(int port, const void *buf, size_t n);
size_t serial_tx_space(int port);
int serial_getc(int port);                           /* -1 if none */
int serial_rx_pending(int port);
/* The receive ring, for a reader that looks ahead: bytes waiting, byte i
 * from the oldest (-1 past the end), drop the n oldest. */
unsigned serial_rx_count(int port);
int serial_rx_peek(int port, unsigned i);
void serial_rx_discard(int port, unsigned n);
/* Count arrivals of byte c on port, also those dropped on a full ring. */
void serial_set_rx_mark(int port, uint8_t c);
uint32_t serial_rx_marks(int port);
/* 1 when everything queued has left the UART (or there is no UART). */
int serial_tx_done(int port);
/* Polled output with interrupts off, for faults. */
void serial_poll_write(int port, const char *s, size_t n);

/* Bytes lost to a full receive ring (each still a timing sample). 64
 * bits: read it with interrupts off. */
uint64_t serial_rx_dropped(int port);
#endif
