/* The interrupt-source devices: probed once at boot in a fixed order, each reports itself. */
#include "kern/kernel.h"
#include "drivers/i8042.h"
#include "drivers/ata.h"
#include "drivers/ne2000.h"
#include <stdio.h>
#include "pit.h"
#include "clock.h"

/* The `timer` source (docs/PROTOCOL.md, "Devices"): the PIT's tick timed by the TSC, two
 * oscillators. Under credit=measured only; with no TSC the clock IS the
 * PIT, the count between ticks is the reload value, and the source is
 * created untrusted so `sources` says it earns nothing. */
static struct entropy_source timer_src;

static void timer_fields(const struct entropy_source *src, char *buf, size_t n)
{
	if (src == &timer_src)
		snprintf(buf, n, "timed_by=%s", clock_is_tsc() ? "tsc" : "pit");
}

static void timer_tick(uint32_t jiffies)
{
	add_timing_entropy(&timer_src, jiffies);
}

static int timer_source_init(struct rng *r, const struct boot_options *o)
{
	int tsc = clock_is_tsc();
	if (o->credit != RNG_CREDIT_MEASURED)
		return -1;
	create_entropy_source(r, &timer_src, "timer", 0, tsc, 0);
	rng_source_own_pass_check(&timer_src);
	pit_set_tick_hook(timer_tick);
	kprintf("timer: PIT tick timed by the %s: %s\r\n", tsc ? "TSC" : "PIT itself",
		tsc ? "trusted, capped by measurement" : "untrusted (one oscillator)");
	return 0;
}

static int i8042_device(struct rng *r, const struct boot_options *o)
{
	(void)o;
	return i8042_init(r);
}

static int ata_device(struct rng *r, const struct boot_options *o)
{
	return ata_init(r, o->ata);
}

/*
 * The interrupt-source devices, probed in this order: each driver creates
 * its own sources (name, IRQ, trust, granularity) and reports itself; a
 * device that is found gets its main-loop work and its `sources` fields
 * hooked up here, so the drivers know nothing of either.
 */
static const struct device {
	int (*init)(struct rng *r, const struct boot_options *o);   /* 0: found */
	int (*poll)(void);                  /* main-loop work, or NULL */
	source_fields_fn fields;            /* extra `sources` fields, or NULL */
} devices[] = {
	{ i8042_device, NULL, i8042_source_fields },
	{ ata_device, ata_poll, ata_source_fields },
	{ ne2000_init, ne2000_poll, ne2000_source_fields },
	{ timer_source_init, NULL, timer_fields },
};

void devices_init(struct rng *r, const struct boot_options *o)
{
	for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]); i++) {
		const struct device *d = &devices[i];
		if (d->init(r, o) != 0)
			continue;
		if (d->poll)
			kern_add_poller(d->poll);
		if (d->fields)
			sources_add_fields(d->fields);
	}
}
