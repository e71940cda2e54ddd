/* The 8250-family transmit decision for drivers/serial.c, pure (the LSR
 * value is an argument) and in lib/ so the host tests build it as it is,
 * without fakes: how many bytes to write now. */
#ifndef RAND86_UART_TX_H
#define RAND86_UART_TX_H
#include <stdint.h>

#define UART_TX_LSR_THRE 0x20      /* LSR bit 5: holding register (FIFO) empty */

/* The LSR alone decides, never IIR: THRE set means the holding register (or
 * the whole FIFO, 16550A) is empty, so a FIFO's worth fits. IIR reports one
 * cause at a time and some UARTs (Bochs) drop a pending THRE when IIR is
 * read for received data; Linux's 8250 driver checks LSR the same way.
 * fifo: 16 on a 16550A, 1 on a 16450. queued: bytes waiting in the ring. */
static inline unsigned uart_tx_burst(uint8_t lsr, unsigned fifo, uint32_t queued)
{
	if (!(lsr & UART_TX_LSR_THRE))
		return 0;
	return queued < fifo ? (unsigned)queued : fifo;
}
#endif
