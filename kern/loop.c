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
/* The longest pass (clock ticks), from one pass's start to the next's
 * or to the halt; pass_at is 0 while the loop is halted or lends the CPU
 * to the background task, time that any interrupt ends at once. */
static uint64_t pass_at, pass_longest;
static int pass_depth;               /* inside kern_pass (its pollers print too) */
#define PASS_SLICE_MS 5u             /* kern_pass_if_due: a quarter of the 20 ms bound */
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
static void pass_close(uint64_t now)
{
	if (pass_at && now - pass_at > pass_longest)
		pass_longest = now - pass_at;
}

uint32_t kern_loop_max_us(void)
{
	uint64_t us = pass_longest * 1000u / clock_khz();
	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

static int kern_pass(void)
{
	int more = 0;
	uint64_t now = clock_now();

	pass_close(now);
	pass_at = now;
	passes++;
	pass_depth++;
	if (tick_flush_due) {
		tick_flush_due = 0;
		rng_batch_flush(&rng_live);
		if (!seeded_at_ms && rng_seeded(&rng_live)) {
			uint32_t now = (uint32_t)clock_ms();
			seeded_at_ms = now ? now : 1;    /* 0 means "not yet" */
		}
		if (boot_opts.record)
			kern_record_poll();
		kern_assess_poll();
	} else if (rng_apart_poll(&rng_live)) {
		pass_depth--;
		return 1;                       /* a key's or a reseed's round: the pass's work */
	}
	for (int i = 0; i < npollers; i++)
		more |= pollers[i]();
	pass_depth--;
	return more;
}

void kern_pass_if_due(void)
{
	if (!pass_depth && pass_at && clock_now() - pass_at >= (uint64_t)clock_khz() * PASS_SLICE_MS)
		(void)kern_pass();
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
	/* a reseed's or a key's rounds under way: only passes without a
	 * flush make them, and a halt would wait for the next interrupt */
	if (tick_flush_due || more || rng_apart_pending(&rng_live) ||
	    (input_pending && input_pending())) {
		cpu_sti();
		return;
	}
	pass_close(clock_now());
	pass_at = 0;
	/* Nothing to do: the meter's full assessment, if one is due and the
	 * budget allows (assess.c), else the halt. Either ends at the first
	 * interrupt. */
	if (kern_assess_wants_cpu()) {
		kern_assess_run();
		cpu_sti();
	} else {
		irq_wait_halted();
	}
	pass_at = clock_now();
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
