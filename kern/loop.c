/* The main loop: one pass, its pollers, the one wait, and the pass counter. */
#include "kern/kernel.h"
#include "arch/x86/cpu.h"
#include "arch/x86/irq.h"
#include "arch/x86/pit.h"
#include "arch/x86/clock.h"

#define MAX_POLLERS 8

static int (*pollers[MAX_POLLERS])(void);
static int npollers;
uint32_t boot_to_prompt_ms;
static uint32_t seeded_at_ms;

static volatile uint32_t passes;
static int (*input_pending)(void);
static volatile int tick_flush_due;
static void (*volatile tick_sample)(uint32_t jiffies);

/* The PIT's hook, run in its interrupt: it only notes that a tick came,
 * for the next pass to flush the batch (patch 4/4 queued the flush on
 * tq_timer, out of the interrupt, in the same way), then hands the tick
 * to the `timer` source when there is one. */
static void kern_tick(uint32_t jiffies)
{
	tick_flush_due = 1;
	if (tick_sample)
		tick_sample(jiffies);
}

void kern_tick_init(unsigned hz)
{
	pit_set_tick_hook(kern_tick);
	pit_init(hz);
}

void kern_set_tick_sample(void (*fn)(uint32_t jiffies))
{
	tick_sample = fn;
}

void kern_add_poller(int (*fn)(void))
{
	if (npollers < MAX_POLLERS)
		pollers[npollers++] = fn;
}

/* Uptime when the flush that seeded the live pools ran (0 before). The
 * flush runs only here, so a caller outside a pass sees this and
 * rng_seeded() agree. */
uint32_t kern_seeded_ms(void)
{
	return seeded_at_ms;
}

uint32_t kern_passes(void)
{
	return passes;
}

/*
 * One pass of the main loop: the tick's batch flush, then every poller;
 * nonzero when a poller has more to do.
 * This is the only place `passes` changes. rand86 has no scheduler: a
 * pass is the one point where the CPU leaves whatever it was doing (a
 * command, a wait, the idle loop) for the rest of the appliance, which is
 * what Linux's nr_context_switches() marks for the 2002 back-to-back
 * check (docs/ENTROPY.md): two trusted interrupts with no pass between
 * them came in one burst. Every wait and every long command runs passes
 * through here, so a busy appliance still passes and input keeps its credit.
 */
static int kern_pass(void)
{
	int more = 0;
	passes++;
	if (tick_flush_due) {
		tick_flush_due = 0;
		rng_batch_flush(&rng_live);
		if (!seeded_at_ms && rng_seeded(&rng_live)) {
			uint32_t now = (uint32_t)clock_ms();
			seeded_at_ms = now ? now : 1;    /* 0 means "not yet" */
		}
		if (boot_opts.record)
			kern_record_poll();
	}
	for (int i = 0; i < npollers; i++)
		more |= pollers[i]();
	return more;
}

void kern_yield(void)
{
	(void)kern_pass();
}

void kern_idle(void)
{
	int more = kern_pass();
	/* Checked with interrupts off, so a wake-up cannot slip in before hlt. */
	cpu_cli();
	if (tick_flush_due || more || (input_pending && input_pending()))
		cpu_sti();
	else
		irq_wait_halted();
}

int kern_wait_until(int (*done)(void), uint32_t timeout_ms)
{
	struct deadline d = deadline_in_ms(timeout_ms);
	for (;;) {
		if (done())
			return 0;
		if (deadline_passed(d))
			return -1;
		kern_idle();
	}
}

void kern_loop(void (*app_start)(void), void (*app_poll)(void), int (*app_pending)(void))
{
	boot_to_prompt_ms = (uint32_t)clock_ms();
	input_pending = app_pending;
	app_start();
	for (;;) {
		app_poll();
		kern_idle();
	}
}
