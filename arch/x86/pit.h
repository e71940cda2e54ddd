/* Intel 8254 PIT: channel 0 is the tick (IRQ 0), channel 2 a ruler the clock borrows. */
#ifndef RAND86_PIT_H
#define RAND86_PIT_H
#include <stdint.h>

#define PIT_HZ 1193182u             /* input clock, Hz (8254 datasheet; PC/AT: 14.31818 MHz / 12) */

void pit_init(unsigned hz);
extern volatile uint64_t jiffies;
unsigned pit_hz(void);
uint16_t pit_read_counter0(void);
/* Reload value in use on channel 0. */
uint32_t pit_reload(void);
/* fn runs in every tick's interrupt, after jiffies moved: the kernel layer
 * decides what a tick means; the PIT knows nothing of sources or pools. */
void pit_set_tick_hook(void (*fn)(uint32_t jiffies));

/* Channel 2 is pit.c's: only it programs channel 2 and its gate in port
 * 0x61. It serves one user at a time: TSC calibration at clock_init (a
 * one-shot countdown), then, only on the PIT clock, merged-tick tracking
 * (running free). */
void pit_ch2_oneshot_start(uint16_t count);   /* gate on, speaker off, count down once */
int pit_ch2_oneshot_done(void);               /* OUT2 high: the count reached 0 */
void pit_ch2_oneshot_stop(void);              /* port 0x61 as it was before the start */
/* PIT clock only (channel 2 is the TSC's ruler otherwise): count ticks the
 * 8259 merged into jiffies, timed by channel 2 running free. */
void pit_track_merged_ticks(void);
/* Ticks channel 2 found merged and added to jiffies (0 unless tracking):
 * the tick handler ran more than a tick late. 64 bits: read it with
 * interrupts off. */
uint64_t pit_lost_ticks(void);
#endif
