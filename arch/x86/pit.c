/* Intel 8254 PIT: channel 0 ticks at `hz` (IRQ 0), counting jiffies. */
#include "cpu.h"
#include "io.h"
#include "entropy.h"

#define PIT_CH0       0x40
#define PIT_CMD       0x43
#define PIT_CMD_CH0_LOHI_MODE2 0x34     /* channel 0, lobyte/hibyte, rate generator */
#define PIT_CMD_LATCH_CH0      0x00

volatile uint64_t jiffies;
volatile int tick_flush_due;
static unsigned pit_cur_hz;
static uint32_t pit_reload_value;
static struct entropy_source *volatile pit_src;

static void pit_tick(int irq)
{
	(void)irq;
	jiffies++;
	tick_flush_due = 1;      /* the main loop flushes the batch (patch 4/4's tq_timer) */
	if (pit_src)
		add_timing_entropy(pit_src, (uint32_t)jiffies);
}

void pit_set_entropy_source(struct entropy_source *src)
{
	pit_src = src;
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
