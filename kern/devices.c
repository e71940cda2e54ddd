/* The interrupt-source devices: probed once at boot in a fixed order, each reports itself. */
#include "kern/kernel.h"
#include "drivers/i8042.h"
#include "drivers/ata.h"
#include "drivers/ne2000.h"
#include <stdio.h>
#include "arch/x86/pit.h"
#include "arch/x86/clock.h"
#include "arch/x86/rtc.h"
#include "arch/x86/irq.h"

/* The `timer` source (docs/PROTOCOL.md, "Devices"): the PIT's tick timed by the TSC, two
 * oscillators. Under credit=measured only; with no TSC the clock IS the
 * PIT, the count between ticks is the reload value, and the source is
 * created untrusted so `sources` says it earns nothing. */
static struct entropy_source timer_src;

static uint8_t timer_last_woke;

static unsigned long skipped(const struct entropy_source *src)
{
	struct rng_source_stats ss;
	rng_source_stats(src, &ss);
	return (unsigned long)ss.skipped;
}

static void timer_fields(const struct entropy_source *src, char *buf, size_t n)
{
	if (src == &timer_src)
		snprintf(buf, n, "timed_by=%s skipped=%lu", clock_is_tsc() ? "tsc" : "pit", skipped(src));
}

/* Measured only when this tick and the one before both woke the CPU from
 * its halt (the rtc's rule, below). */
static void timer_tick(uint32_t jiffies)
{
	int woke = irq_woke_cpu();
	if (woke && timer_last_woke)
		add_timing_entropy(&timer_src, jiffies);
	else
		add_busy_timing_entropy(&timer_src, jiffies);
	timer_last_woke = (uint8_t)woke;
}

static int timer_source_init(struct rng *r, const struct boot_options *o)
{
	int tsc = clock_is_tsc();
	if (o->credit != RNG_CREDIT_MEASURED)
		return -1;
	create_entropy_source(r, &timer_src, "timer", 0, tsc, 0);
	rng_source_own_pass_check(&timer_src);
	rng_source_periodic(&timer_src, (uint32_t)((uint64_t)clock_khz() * 1000u * pit_reload() / PIT_HZ));
	kern_set_tick_sample(timer_tick);
	kprintf("timer: PIT tick timed by the %s: %s\r\n", tsc ? "TSC" : "PIT itself",
		tsc ? "trusted, capped by measurement" : "untrusted (one oscillator)");
	return 0;
}

/* The `rtc` source (docs/ENTROPY.md, "The RTC"): the CMOS clock's periodic
 * interrupt timed by the TSC, or by the PIT's latched count where there is
 * no TSC; a second crystal either way. Only periods whose interrupt and
 * its predecessor's both woke the CPU from its halt are measured and may
 * be credited: the others were taken when our own code let them in, and
 * under a deterministic emulator that moment is the code's, not the
 * crystals' (the restart test of tests/qemu/test_seeding.py). */
static struct entropy_source rtc_src;

/*
 * rtc_jitter=on, for tests: on a machine whose clock counts instructions
 * (QEMU -icount, Bochs sync=none), where the rtc earns nothing and its
 * periods are exact, every period is measured as if it woke the CPU, a
 * pseudo-random 0..RTC_JITTER_SPINS-1 loop iterations late. The meter
 * then does what it does on a real 386 or 486, whose rtc is measured
 * (docs/compare.md, rtc486) and its window refilled every 2 s at 512 Hz, while
 * guest time stays CPU time, so a test can judge the main loop and the
 * meter's share in guest instructions. Never where the clock counts
 * time: there it would be paid for a jitter of our own making.
 */
#define RTC_JITTER_SPINS 64u          /* ~4 instructions each: up to ~80 PIT ticks */
static int rtc_jitter;
static uint32_t rtc_jitter_x = 0x9e3779b9u;

static void rtc_jitter_spin(void)
{
	rtc_jitter_x ^= rtc_jitter_x << 13;
	rtc_jitter_x ^= rtc_jitter_x >> 17;
	rtc_jitter_x ^= rtc_jitter_x << 5;
	for (volatile uint32_t i = rtc_jitter_x % RTC_JITTER_SPINS; i; i--)
		;
}

static void rtc_period(int clean)
{
	if (rtc_jitter) {
		rtc_jitter_spin();
		clean = 1;
	}
	if (clean)
		add_timing_entropy(&rtc_src, 0);
	else
		add_busy_timing_entropy(&rtc_src, 0);
}

static void rtc_fields(const struct entropy_source *src, char *buf, size_t n)
{
	struct rtc_stats rs;
	if (src != &rtc_src)
		return;
	rtc_periodic_stats(&rs);
	snprintf(buf, n, "hz=%lu timed_by=%s skipped=%lu strays=%lu rearms=%lu",
		(unsigned long)rs.hz, clock_is_tsc() ? "tsc" : "pit", skipped(src),
		(unsigned long)rs.strays, (unsigned long)rs.rearms);
}

/* Indexed by -RTC_ERR_ (rtc.h). */
static const char *const rtc_errors[] = {
	"", "no such rate", "no CMOS clock answers", "divider not on 32.768 kHz", "IRQ 8 taken",
};

static int rtc_source_init(struct rng *r, const struct boot_options *o)
{
	uint32_t hz = o->rtc_given ? o->rtc_hz : clock_is_tsc() ? OPT_RTC_HZ_TSC : OPT_RTC_HZ_PIT;
	if (!hz || o->credit != RNG_CREDIT_MEASURED) {
		kprintf("rtc: off (%s): CMOS clock left as it was\r\n",
			hz ? credit_name(o->credit) : "rtc=off");
		return -1;
	}
	create_entropy_source(r, &rtc_src, "rtc", 8, 1, 0);
	rng_source_own_pass_check(&rtc_src);
	rng_source_periodic(&rtc_src, (uint32_t)((uint64_t)clock_khz() * 1000u / hz));
	int err = rtc_periodic_start(hz, rtc_period);
	if (err) {
		free_entropy_source(&rtc_src);
		kprintf("rtc: no periodic interrupt: %s\r\n", rtc_errors[-err]);
		return -1;
	}
	kprintf("rtc: IRQ 8 at %lu Hz timed by the %s: trusted, capped by measurement\r\n",
		(unsigned long)hz, clock_is_tsc() ? "TSC" : "PIT");
	if (o->rtc_jitter && clock_counts_instructions()) {
		rtc_jitter = 1;
		kprintf("rtc: rtc_jitter=on: every period measured, late by a jitter of our own "
			"(a test's stand-in; credited nothing here)\r\n");
	} else if (o->rtc_jitter) {
		kprintf("rtc: rtc_jitter=on ignored: this clock counts time\r\n");
	}
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
	{ rtc_source_init, rtc_periodic_poll, rtc_fields },
};

void devices_init(struct rng *r, const struct boot_options *o)
{
	/* On a deterministic machine the sources timed by its own clock
	 * earn nothing (entropy/random.c, "A clock that counts instructions"). */
	if (clock_counts_instructions()) {
		rng_clock_counts_instructions(r);
		if (o->credit == RNG_CREDIT_MEASURED)
			kprintf("entropy: this machine's clock counts instructions: only a person's "
				"keys and mouse earn credit\r\n");
	}
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
