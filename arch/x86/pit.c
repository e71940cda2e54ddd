/* Intel 8254 PIT: channel 0 ticks at `hz` (IRQ 0), counting jiffies; the
 * owner of channel 2 and its gate (pit.h says who borrows it, and when). */
#include "pit.h"
#include "cpu.h"
#include "io.h"
#include "irq.h"

/* Intel 8254 datasheet, "Control Word Format" and "Read-Back/Counter Latch". */
#define PIT_CH0       0x40
#define PIT_CH2       0x42
#define PIT_CMD       0x43             /* control word */
#define   PIT_CMD_CH0    (0u << 6)     /* SC1:SC0 select counter */
#define   PIT_CMD_CH2    (2u << 6)
#define   PIT_CMD_LATCH  (0u << 4)     /* RW1:RW0 00: counter latch command */
#define   PIT_CMD_LOHI   (3u << 4)     /* RW1:RW0 11: low byte, then high byte */
#define   PIT_CMD_MODE0  (0u << 1)     /* M2:M0 mode 0: interrupt on terminal count */
#define   PIT_CMD_MODE2  (2u << 1)     /* M2:M0 mode 2: rate generator */
/* PC/AT system control port B (IBM PC/AT Technical Reference, 8255 port B). */
#define PORT_B        0x61
#define   PORT_B_GATE2   0x01          /* channel 2 gate */
#define   PORT_B_SPEAKER 0x02          /* channel 2 output to the speaker */
#define   PORT_B_OUT2    0x20          /* read: channel 2 OUT */
#define PIT_IRQ          0
#define PIT_CH2_PERIOD   65536u        /* channel 2 running free: a count of 0 */
#define PIT_RELOAD_MAX   65536u        /* the largest count, written as 0 */
/* Boot-only code, built for size (the tick handler stays -O2). */
#define PIT_BOOT __attribute__((cold))

volatile uint64_t jiffies;
static unsigned pit_cur_hz;
static uint32_t pit_reload_value;
static void (*volatile pit_hook)(uint32_t jiffies);
static int pit_ch2_tracking;
static uint16_t pit_ch2_last;
static volatile uint64_t lost_ticks;
static uint8_t pit_port_b_saved;      /* port 0x61 before a one-shot */

/* Counter latch command, then the latched count, low byte first. */
static uint16_t pit_latch_read(uint8_t select, uint16_t port)
{
	outb(PIT_CMD, select | PIT_CMD_LATCH);
	uint8_t lo = inb(port);
	uint8_t hi = inb(port);
	return (uint16_t)(lo | (hi << 8));
}

static uint16_t pit_read_counter2(void)
{
	return pit_latch_read(PIT_CMD_CH2, PIT_CH2);
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
		lost_ticks += pit_ch2_ticks - jiffies;
		jiffies = pit_ch2_ticks;
	}
}

static void pit_tick(int irq)
{
	(void)irq;
	jiffies++;
	if (pit_ch2_tracking)
		pit_count_merged_ticks();
	if (pit_hook)
		pit_hook((uint32_t)jiffies);
}

void pit_set_tick_hook(void (*fn)(uint32_t jiffies))
{
	pit_hook = fn;
}

/* Channel 2 counts only while its gate is on, and its speaker stays off.
 * Returns port 0x61 as it was. */
PIT_BOOT static uint8_t pit_ch2_gate_on(void)
{
	uint8_t b = inb(PORT_B);
	outb(PORT_B, (b & ~PORT_B_SPEAKER) | PORT_B_GATE2);
	return b;
}

/* Mode 0: OUT2 goes low at the write and high when the count reaches 0
 * (8254 datasheet, "Mode 0"). The gate is left on until the stop. */
PIT_BOOT void pit_ch2_oneshot_start(uint16_t count)
{
	pit_port_b_saved = pit_ch2_gate_on();
	outb(PIT_CMD, PIT_CMD_CH2 | PIT_CMD_LOHI | PIT_CMD_MODE0);
	outb(PIT_CH2, count & 0xFF);
	outb(PIT_CH2, count >> 8);
}

int pit_ch2_oneshot_done(void)
{
	return (inb(PORT_B) & PORT_B_OUT2) != 0;
}

PIT_BOOT void pit_ch2_oneshot_stop(void)
{
	outb(PORT_B, pit_port_b_saved);
}

/* Gate on, then only where two ticks fit in channel 2's period (hz >= 37):
 * below, a late tick could not be told from an early one, and at 55 ms a
 * tick no host delays so long. */
PIT_BOOT void pit_track_merged_ticks(void)
{
	pit_ch2_gate_on();
	if (pit_reload_value * 2 > PIT_CH2_PERIOD)
		return;
	outb(PIT_CMD, PIT_CMD_CH2 | PIT_CMD_LOHI | PIT_CMD_MODE2);
	outb(PIT_CH2, 0);
	outb(PIT_CH2, 0);
	unsigned long f = irq_save();    /* bound: three port accesses */
	pit_ch2_last = pit_read_counter2();
	pit_ch2_ticks = jiffies;
	pit_ch2_rem = 0;
	pit_ch2_tracking = 1;
	irq_restore(f);
}

PIT_BOOT void pit_init(unsigned hz)
{
	pit_cur_hz = hz;
	/* Rounded to the nearest count; at 18 Hz the count (66288) exceeds 16 bits
	 * and is capped at 65536 (written as 0), i.e. 18.2 Hz. */
	uint32_t reload = (PIT_HZ + hz / 2) / hz;
	if (reload > PIT_RELOAD_MAX)
		reload = PIT_RELOAD_MAX;
	pit_reload_value = reload;
	outb(PIT_CMD, PIT_CMD_CH0 | PIT_CMD_LOHI | PIT_CMD_MODE2);
	outb(PIT_CH0, reload & 0xFF);
	outb(PIT_CH0, (reload >> 8) & 0xFF);
	irq_register(PIT_IRQ, pit_tick);
}

unsigned pit_hz(void) { return pit_cur_hz; }
uint64_t pit_lost_ticks(void) { return lost_ticks; }
uint32_t pit_reload(void) { return pit_reload_value; }

uint16_t pit_read_counter0(void)
{
	return pit_latch_read(PIT_CMD_CH0, PIT_CH0);
}
