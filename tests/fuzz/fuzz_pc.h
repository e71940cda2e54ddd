/* The host PC under the fuzz targets: port I/O, IRQ lines, a clock, a 16550 pair. */
#ifndef FUZZ_PC_H
#define FUZZ_PC_H
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/io.h"
#include "arch/x86/irq.h"
#include "arch/x86/clock.h"

/* Stop the run: an invariant of the path broke (libFuzzer keeps the input). */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#define FUZZ_CHECK(cond, ...) do { if (!(cond)) fuzz_fail(__VA_ARGS__); } while (0)

/* A fresh machine: no handlers, the clock at 0, empty UARTs, no output. */
void pc_reset(void);

/* Ports a target's device answers (every other port reads 0xFF, writes
 * go nowhere); 1 if it took the access. */
extern int (*pc_dev_in)(uint16_t port, uint8_t *v);
extern int (*pc_dev_out)(uint16_t port, uint8_t v);
extern void (*pc_dev_insw)(uint16_t port, uint16_t *buf, uint32_t count);

/* The clock: microseconds (clock_khz() is 1000). */
extern uint64_t pc_us;
/* The handler irq_register put on a line, or NULL; run it once. */
irq_handler_t pc_handler(int irq);
void pc_raise(int irq);
extern int pc_iflag_depth;    /* irq_save without its irq_restore */

/* 16550s at COM1 (irq 4) and COM2 (irq 3) for drivers/serial.c: bytes a
 * client sends arrive in the receive FIFO (16 deep, as a 16550A: the
 * rest waits on the wire), an IRQ each time; what the driver transmits
 * lands in pc_uart_out. */
void pc_uart_send(int port, const uint8_t *p, size_t n);
extern uint8_t pc_uart_out[2][1 << 16];
extern size_t pc_uart_out_len[2];

/* kprintf's writer: everything printed, in order (the oldest is lost
 * past the buffer; pc_log_total counts it all). */
extern char pc_log[1 << 16];
extern size_t pc_log_len, pc_log_total;
void pc_log_write(const char *s, size_t n);
#endif
