/* The "now" clock (TSC, or the PIT without one) and the one timeout helper. */
#ifndef RAND86_CLOCK_H
#define RAND86_CLOCK_H
#include <stdint.h>

void clock_init(void);
int clock_is_tsc(void);
uint32_t clock_khz(void);        /* cpu_khz, or 1193 for the PIT clock */
uint64_t clock_now(void);        /* free-running ticks at clock_khz kHz */
uint64_t clock_ms(void);         /* milliseconds since clock_init */
void clock_delay_us(uint32_t us);
int clock_counts_instructions(void); /* guest time is the instruction count (clock.c) */

/* One timeout helper for every wait on hardware. */
struct deadline { uint64_t at; };
struct deadline deadline_in_ms(uint32_t ms);
int deadline_passed(struct deadline d);
#endif
