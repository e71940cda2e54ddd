/* Intel 8254 PIT: channel 0 ticks at `hz` (IRQ 0), counting jiffies. */
#include "cpu.h"
#include "io.h"

#define PIT_CH0       0x40
#define PIT_CMD       0x43
#define PIT_CMD_CH0_LOHI_MODE2 0x34     /* channel 0, lobyte/hibyte, rate generator */
#define PIT_CMD_LATCH_CH0      0x00
#define PIT_CH2       0x42
#define PIT_CMD_CH2_LOHI_MODE2 0xB4     /* channel 2, lobyte/hibyte, rate generator */
#define PIT_CMD_LATCH_CH2      0x80
#define PIT_CH2_PERIOD         65536u

volatile uint64_t jiffies;
volatile int tick_flush_due;
static unsigned pit_cur_hz;
static uint32_t pit_reload_value;
static void (*volatile pit_hook)(uint32_t jiffies);
static int pit_ch2_tracking;
static uint16_t pit_ch2_last;
volatile uint64_t pit_lost_ticks;

static uint16_t pit_read_counter2(void)
{
	outb(PIT_CMD, PIT_CMD_LATCH_CH2);
	uint8_t lo = inb(PIT_CH2);
	uint8_t hi = inb(PIT_CH2);
	return (uint16_t)(lo | (hi << 8));
}

/* The 8259 merges a tick whose edge comes while the last one is still
 * requested; QEMU under load (TCG, hz=1000) delivers edges late and in
 * bursts, and the PIT clock lost up to a third of wall time. Channel 2
 * counting freely (period 65536) measures the time between two handler
 * runs; jiffies is kept from falling behind the whole ticks it adds up to
 * (never pushed ahead of them: a late handler followed by an early one
 * must not count twice). */
static uint64_t pit_ch2_ticks;       /* whole ticks by channel 2 since tracking began */
static uint32_t pit_ch2_rem;

static void pit_count_merged_ticks(void)
{
	uint16_t c = pit_read_counter2();
	pit_ch2_rem += (uint16_t)(pit_ch2_last - c);
	pit_ch2_last = c;
	while (pit_ch2_rem >= pit_reload_value) {   /* at most 55 rounds (hz=1000) */
		pit_ch2_rem -= pit_reload_value;
		pit_ch2_ticks++;
	}
	if (jiffies < pit_ch2_ticks) {
		pit_lost_ticks += pit_ch2_ticks - jiffies;
		jiffies = pit_ch2_ticks;
	}
}

static void pit_tick(int irq)
{
	(void)irq;
	jiffies++;
	if (pit_ch2_tracking)
		pit_count_merged_ticks();
	tick_flush_due = 1;      /* the main loop flushes the batch (patch 4/4's tq_timer) */
	if (pit_hook)
		pit_hook((uint32_t)jiffies);
}

void pit_set_tick_hook(void (*fn)(uint32_t jiffies))
{
	pit_hook = fn;
}

/* Channel 2's gate must be on (port 0x61, clock.c). Only where two ticks
 * fit in channel 2's period (hz >= 37): below, a late tick could not be
 * told from an early one, and at 55 ms a tick no host delays so long. */
void pit_track_merged_ticks(void)
{
	if (pit_reload_value * 2 > PIT_CH2_PERIOD)
		return;
	outb(PIT_CMD, PIT_CMD_CH2_LOHI_MODE2);
	outb(PIT_CH2, 0);
	outb(PIT_CH2, 0);
	unsigned long f = irq_save();    /* bound: three port accesses */
	pit_ch2_last = pit_read_counter2();
	pit_ch2_ticks = jiffies;
	pit_ch2_rem = 0;
	pit_ch2_tracking = 1;
	irq_restore(f);
}

void pit_init(unsigned hz)
{
	pit_cur_hz = hz;
	/* Rounded to the nearest count; at 18 Hz the count (66288) exceeds 16 bits
	 * and is capped at 65536 (written as 0), i.e. 18.2 Hz. */
	uint32_t reload = (PIT_HZ + hz / 2) / hz;
	if (reload > 65536)
		reload = 65536;
	pit_reload_value = reload;
	outb(PIT_CMD, PIT_CMD_CH0_LOHI_MODE2);
	outb(PIT_CH0, reload & 0xFF);
	outb(PIT_CH0, (reload >> 8) & 0xFF);
	irq_register(0, pit_tick);
}

unsigned pit_hz(void) { return pit_cur_hz; }
uint32_t pit_reload(void) { return pit_reload_value; }

uint16_t pit_read_counter0(void)
{
	outb(PIT_CMD, PIT_CMD_LATCH_CH0);
	uint8_t lo = inb(PIT_CH0);
	uint8_t hi = inb(PIT_CH0);
	return (uint16_t)(lo | (hi << 8));
}
