/* The live pools, and the kernel's side of the entropy core's seam (entropy/entropy.h). */
#include "kern/kernel.h"
#include "arch/x86/cpu.h"
#include "arch/x86/clock.h"

struct rng rng_live;

/* The core's seam (entropy/entropy.h): time and the interrupt flag from
 * arch/x86, the "context switch" is a main-loop pass (loop.c says why). */
static unsigned long seam_irq_save(void) { return irq_save(); }
static void seam_irq_restore(unsigned long flags) { irq_restore(flags); }

static const struct rng_platform seam = {
	.now = clock_now, .clock_khz = clock_khz, .passes = kern_passes,
	.irq_save = seam_irq_save, .irq_restore = seam_irq_restore,
};

void rng_live_init(enum rng_estimator credit)
{
	rng_platform_init(&seam);
	rng_init(&rng_live, credit);
	rng_set_default(&rng_live);
	if (boot_opts.record)
		kern_record_init();
	/* Power-on known-answer test: every byte served passes through SHA-1. */
	if (rng_sha1_selftest() != 0) {
		panic_printf("entropy: SHA-1 known-answer test failed: this build must not serve random bytes; halted\r\n");
		cpu_halt_forever();
	}
}

/* record=N: a slot for each trusted source a PC can have (timer, rtc,
 * keyboard, mouse, four disks); 32 KB at the most, in 4 MiB. */
#define REC_SLOTS 8
static uint32_t rec_pool[REC_SLOTS * OPT_RECORD_MAX];
static uint32_t rec_told;            /* bit i: the i-th source's record was announced */

/* Before any source exists (rng_live_init). */
void kern_record_init(void)
{
	rng_record_from_boot(&rng_live, rec_pool, REC_SLOTS, boot_opts.record);
}

/* `record: NAME full, N samples` once each source's record fills, so that
 * a harness knows when to ask for it without typing before then. */
void kern_record_poll(void)
{
	unsigned i = 0;
	for (struct entropy_source *s = rng_source_next(&rng_live, NULL); s;
	     s = rng_source_next(&rng_live, s), i++) {
		if (!s->rec_max || s->rec_n < s->rec_max || (rec_told >> i & 1))
			continue;
		rec_told |= 1u << i;
		kprintf("record: %s full, %lu samples\r\n", s->name, (unsigned long)s->rec_n);
	}
}
