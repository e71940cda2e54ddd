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

static void timer_source_init(struct rng *r, const struct boot_options *o)
{
	int tsc = clock_is_tsc();
	if (o->credit != CREDIT_MEASURED)
		return;
	create_entropy_source(r, &timer_src, "timer", 0, tsc, 0);
	rng_source_own_pass_check(&timer_src);
	sources_add_fields(timer_fields);
	pit_set_entropy_source(&timer_src);
	kprintf("timer: PIT tick timed by the %s: %s\r\n", tsc ? "TSC" : "PIT itself",
		tsc ? "trusted, capped by measurement" : "untrusted (one oscillator)");
}

/* A driver that finds its device gets its main-loop work and its
 * `sources` fields hooked up here; the drivers know nothing of either. */
void devices_init(struct rng *r, const struct boot_options *o)
{
	if (i8042_init(r) == 0)
		sources_add_fields(i8042_source_fields);
	if (ata_init(r, o->ata) == 0) {
		kern_add_poller(ata_poll);
		sources_add_fields(ata_source_fields);
	}
	if (ne2000_init(r, o) == 0) {
		kern_add_poller(ne2000_poll);
		sources_add_fields(ne2000_source_fields);
	}
	timer_source_init(r, o);
}
