/* Kernel-wide services: console output, the main loop, boot options. */
#ifndef RAND86_KERNEL_H
#define RAND86_KERNEL_H
#include <stdint.h>
#include <stddef.h>
#include "lib/options.h"
#include "entropy.h"

extern volatile uint32_t kernel_passes;      /* main-loop passes: the core's "context switches" */
extern struct boot_options boot_opts;
extern struct rng rng_live;                  /* the appliance's pools (entropy/) */
extern uint32_t boot_to_prompt_ms;

/* Console: COM1 and the VGA mirror. */
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void console_write(const char *s, size_t n);
void console_write_raw(const void *buf, size_t n);    /* COM1 only (binary) */
/* Report a fault with interrupts off, by polling; never returns control to callers that wait. */
void panic_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One pass of the main loop's background work (tick flush, stream port,
 * disk reads, dashboard). Long commands call it so the loop keeps passing. */
void kernel_poll(void);
/* A poller that made progress and has more to do: the loop must not sleep. */
void kernel_more_work(void);
/* kernel_poll, then sleep until the next interrupt (unless work is pending). */
void kernel_idle(void);
#endif
