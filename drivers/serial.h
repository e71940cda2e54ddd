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
/* Queue bytes for transmission; waits (running the main loop) while the ring is full. */
void serial_write(int port, const void *buf, size_t n);
/* Queue what fits without waiting; returns the count queued. */
size_t serial_write_some(int port, const void *buf, size_t n);
size_t serial_tx_space(int port);
int serial_getc(int port);                           /* -1 if none */
int serial_rx_pending(int port);
/* Wait (bounded) until everything queued has left the UART. */
void serial_drain(int port, uint32_t timeout_ms);
/* Polled output with interrupts off, for faults. */
void serial_poll_write(int port, const char *s, size_t n);

/* Ctrl-C on COM1 while a command runs: the byte is taken out of the input
 * stream and this flag is set instead. */
extern volatile int console_break;
extern volatile int console_command_running;
extern volatile uint64_t serial_rx_bytes[2], serial_rx_dropped[2];
#endif
