/* The clock: CPUID, TSC calibrated against PIT channel 2, or a PIT-derived clock. */
#include <stdint.h>
#include "cpu.h"
#include "io.h"
#include "lib/kprintf.h"
#include "entropy.h"
#include "lib/pitclock.h"
#include "lib/tscclock.h"
#include "cmos.h"

#define PIT_CH2        0x42
#define PIT_CMD        0x43
#define PIT_CMD_CH2_LOHI_MODE0 0xB0
#define PORT_B         0x61            /* bit 0: ch2 gate, bit 1: speaker, bit 5: ch2 OUT */
#define PORT_B_GATE2   0x01
#define PORT_B_SPEAKER 0x02
#define PORT_B_OUT2    0x20

#define CPUID_TSC      (1u << 4)
#define EFLAGS_ID      (1u << 21)

/* Calibration window: 50 ms of PIT channel 2 (59659 counts, as Linux's
 * CALIBRATE_LATCH). We read the TSC, let channel 2 count down in mode 0 and
 * poll OUT2 in port 0x61. The error is the poll granularity at both ends:
 * one port read, about 1 us on ISA hardware and a few us when a hypervisor
 * traps the port, against 50 ms: under 0.01% on hardware and KVM, well inside
 * the 1% we promise. Rounding to whole kHz adds under 1 ppm. */
#define CAL_MS     50
#define CAL_LATCH  ((PIT_HZ * CAL_MS) / 1000)
/* Give up on channel 2 after four windows by the tick (interrupts are on
 * and channel 0 runs), or, should IRQ 0 not tick either, after 5 M polls:
 * 5 s at ISA's 1 us a port read, far past the window anywhere. */
#define CAL_MAX_WINDOWS 4
#define CAL_MAX_POLLS 5000000u
/* Windows measured back to back must agree within 1% (the accuracy
 * promised), else the boot log warns. A disturbed window (an SMI, a
 * preempted vCPU that sees OUT2 late) only ever looks long, so the
 * shortest of CAL_RUNS is kept. */
#define CAL_RUNS 3
#define CAL_AGREE_PERCENT 1

static int have_tsc;
static uint32_t khz;
static uint64_t clock_origin;
static struct tsc_uptime tsc_up;       /* uptime on the TSC (lib/tscclock.h) */

int cpu_has_cpuid(void)
{
	uint32_t a, b;
	__asm__ volatile(
		"pushfl\n\t popl %0\n\t movl %0, %1\n\t xorl %2, %0\n\t"
		"pushl %0\n\t popfl\n\t pushfl\n\t popl %0\n\t pushl %1\n\t popfl"
		: "=&r"(a), "=&r"(b) : "i"(EFLAGS_ID));
	return ((a ^ b) & EFLAGS_ID) != 0;
}

static void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

static uint32_t calibrate_tsc_khz(uint64_t *start)
{
	uint8_t b = inb(PORT_B);
	outb(PORT_B, (b & ~PORT_B_SPEAKER) | PORT_B_GATE2);
	outb(PIT_CMD, PIT_CMD_CH2_LOHI_MODE0);
	outb(PIT_CH2, CAL_LATCH & 0xFF);
	outb(PIT_CH2, CAL_LATCH >> 8);
	uint64_t t0 = rdtsc(), t1;
	*start = t0;
	uint64_t j0 = jiffies;
	uint64_t max_ticks = (uint64_t)pit_hz() * CAL_MS * CAL_MAX_WINDOWS / 1000 + 2;
	uint32_t polls = 0;
	int out2;
	while (!(out2 = inb(PORT_B) & PORT_B_OUT2) && ++polls < CAL_MAX_POLLS &&
	       jiffies - j0 <= max_ticks)
		;
	t1 = rdtsc();
	outb(PORT_B, b);
	if (!out2)
		return 0;
	return (uint32_t)((t1 - t0) / CAL_MS);
}

void clock_init(void)
{
	uint32_t a, bx, c, d;
	have_tsc = 0;
	if (cpu_has_cpuid()) {
		cpuid(0, &a, &bx, &c, &d);
		if (a >= 1) {
			cpuid(1, &a, &bx, &c, &d);
			have_tsc = (d & CPUID_TSC) != 0;
		}
	}
	if (have_tsc) {
		uint32_t lo = 0, hi = 0;
		for (int i = 0; i < CAL_RUNS; i++) {
			uint64_t start;
			uint32_t k = calibrate_tsc_khz(&start);
			if (k == 0) {
				lo = 0;
				break;
			}
			if (i == 0)
				clock_origin = start;
			if (!lo || k < lo)
				lo = k;
			if (k > hi)
				hi = k;
		}
		khz = lo;
		if (khz == 0) {
			kprintf("clock: PIT channel 2 did not answer; TSC unused\r\n");
			have_tsc = 0;
		} else if ((uint64_t)(hi - lo) * 100 > (uint64_t)lo * CAL_AGREE_PERCENT) {
			kprintf("clock: warning: %d TSC calibrations disagree by over %d%%: %lu to %lu kHz; using %lu\r\n",
				CAL_RUNS, CAL_AGREE_PERCENT, (unsigned long)lo, (unsigned long)hi,
				(unsigned long)lo);
		}
		tsc_uptime_base(&tsc_up, clock_origin, jiffies, 0, cmos_rtc_seconds());
	}
	/* Uptime counts from the start of calibration (TSC) or from the PIT's
	 * first tick (PIT clock), so it includes the 50 ms calibration window. */
	if (!have_tsc) {
		khz = (PIT_HZ + 500) / 1000;   /* 1193 */
		clock_origin = 0;
		uint8_t b = inb(PORT_B);
		outb(PORT_B, (b & ~PORT_B_SPEAKER) | PORT_B_GATE2);
		pit_track_merged_ticks();
	}
	kprintf("clock: %s, cpu_khz %lu, hz %lu\r\n", have_tsc ? "tsc" : "pit",
		(unsigned long)khz, (unsigned long)pit_hz());
}

int clock_is_tsc(void) { return have_tsc; }
uint32_t clock_khz(void) { return khz; }

/* Without a TSC: jiffies times the reload plus the counts elapsed in this
 * tick (lib/pitclock.h says how a tick in flight is counted, and why the
 * value never goes back). Masked section bound: six port accesses. */
static struct pit_clock pit_clock_state;

static uint64_t pit_clock_now(void)
{
	unsigned long f = irq_save();
	uint64_t j = jiffies;
	uint32_t count = pit_read_counter0();
	int irr = pic_irr() & 0x01;
	uint64_t v = pit_clock_value(&pit_clock_state, j, count, irr, pit_reload());
	irq_restore(f);
	return v;
}

uint64_t clock_now(void)
{
	return have_tsc ? rdtsc() : pit_clock_now();
}

/* Uptime never believes a TSC leap (lib/tscclock.h). Main loop only:
 * the masked section is one rdtsc and two loads; the CMOS clock, read
 * only when TSC and ticks disagree, is read with interrupts on. */
uint64_t clock_ms(void)
{
	if (!have_tsc)
		return (pit_clock_now() - clock_origin) / khz;
	unsigned long f = irq_save();
	uint64_t t = rdtsc(), j = jiffies;
	irq_restore(f);
	return tsc_uptime_ms(&tsc_up, t, j, khz, pit_hz(), cmos_rtc_seconds);
}

struct deadline deadline_in_ms(uint32_t ms)
{
	struct deadline d = { clock_now() + (uint64_t)ms * khz };
	return d;
}

int deadline_passed(struct deadline d)
{
	return clock_now() >= d.at;
}

void clock_delay_us(uint32_t us)
{
	uint64_t end = clock_now() + ((uint64_t)us * khz) / 1000;
	while (clock_now() < end)
		;
}
