/* The PIT clock's arithmetic for arch/x86/clock.c, pure (no ports, no
 * globals) and in lib/ so the host tests build it as it is, without fakes:
 * jiffies and the latched channel-0 count made into one monotonic count. */
#ifndef RAND86_PITCLOCK_H
#define RAND86_PITCLOCK_H
#include <stdint.h>

struct pit_clock {
	uint64_t last;         /* the last value returned */
};

/*
 * j: ticks taken (jiffies); count: channel 0's latched count, reload..1
 * (0 or past reload read as reload); irr: IRQ 0 requested, its tick not
 * yet taken; reload: counts per tick. Returns counts since the first tick.
 *
 * The 8254 reloads its count a moment before the tick shows in the 8259
 * (the OUT edge; QEMU raises IRQ 0 from a timer that can run late), so a
 * read can see the count reloaded while neither jiffies nor the IRR has
 * the tick: the value is then a tick short, up to 9 ms back at hz=100.
 *  1. IRR set and the count in its upper half: the tick is in flight.
 *     (IRR set with the count low is the edge arriving between the latch
 *     and the IRR read: already in the count.)
 *  2. Still more than half a tick below the last value: the same race
 *     with IRR not yet set; count that tick.
 *  3. Never below the last value, whatever the hardware said.
 */
static inline uint64_t pit_clock_value(struct pit_clock *s, uint64_t j, uint32_t count,
	int irr, uint32_t reload)
{
	if (count == 0 || count > reload)
		count = reload;
	if (irr && count > reload / 2)
		j++;
	uint64_t v = j * reload + (reload - count);
	if (v < s->last && s->last - v > reload / 2)
		v += reload;
	if (v < s->last)
		v = s->last;
	s->last = v;
	return v;
}
#endif
