/* kprintf and panic_printf for every layer; the kernel layer says where the bytes go. */
#ifndef RAND86_KPRINTF_H
#define RAND86_KPRINTF_H
#include <stddef.h>

/*
 * arch/ and drivers/ print their boot-log lines and faults through these
 * without knowing the console (kern/console.c), which sits above them:
 * it plugs in its writers once the serial port and the screen are up.
 * Lines printed before that are held (KPRINTF_EARLY_BYTES) and written
 * when the writer arrives, so the boot log keeps its order.
 */
#define KPRINTF_EARLY_BYTES 2048

typedef void (*kprintf_writer)(const char *s, size_t n);
/* write: the console (may wait for room); panic: polled, interrupts off. */
void kprintf_set_writers(kprintf_writer write, kprintf_writer panic);

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report a fault: formats, then hands the text to the panic writer, which
 * masks interrupts and polls; callers halt after it. */
void panic_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
