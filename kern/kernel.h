/* The kernel layer: console output, the main loop and its one wait, the source fields, the live pools. */
#ifndef RAND86_KERNEL_H
#define RAND86_KERNEL_H
#include <stdint.h>
#include <stddef.h>
#include "lib/kprintf.h"
#include "lib/options.h"
#include "entropy/entropy.h"

/*
 * kern/ is a floor of docs/LAYERS.md: nothing in drivers/ or arch/
 * includes this header; they get their `struct rng *` and options as
 * arguments at init and print through lib/kprintf.h.
 */

extern struct boot_options boot_opts;        /* options.c */
extern struct rng rng_live;                  /* the appliance's pools (seam.c) */
extern uint32_t boot_to_prompt_ms;           /* loop.c: when the prompt came up */

/* ---- options.c ---- */
/* Parse the multiboot command line into boot_opts, once, before the console. */
void kern_options_init(const char *cmdline);
/* Once the console is up: report every ignored word, however many. */
void kern_options_warn(void);

/* ---- console.c: COM1 and the VGA mirror ---- */
/* Bring up COM1 and the screen, plug them into kprintf, then COM2 at the
 * same rate; reports what is missing. */
void console_init(uint32_t baud);
/* Queue on COM1 (and the screen); runs main-loop passes while COM1's ring is full. */
void console_write(const char *s, size_t n);
void console_write_raw(const void *buf, size_t n);    /* COM1 only (binary) */
/* Wait (bounded) until COM1 has sent everything queued. */
void console_drain(uint32_t timeout_ms);

/* ---- loop.c: the main loop ---- */
/* Start the PIT at hz with its tick hooked here: each tick marks the batch
 * flush due for the next pass, nothing more in the interrupt. */
void kern_tick_init(unsigned hz);
/* fn runs in every tick's interrupt after the flush is marked (the `timer`
 * source's sample); it must not wait. */
void kern_set_tick_sample(void (*fn)(uint32_t jiffies));
/* Background work for the main loop; must not wait. It returns nonzero
 * when it made progress and has more to do: the loop must not sleep. */
void kern_add_poller(int (*fn)(void));
/* One pass without sleeping: long commands call it between chunks. */
void kern_yield(void);
/* A pass if the current one has run a few ms (a long reply calls it
 * between lines, bench between its rounds); nothing inside a pass. */
void kern_pass_if_due(void);
/* One pass, then sleep until the next interrupt (unless work is pending). */
void kern_idle(void);
/* The one bounded wait: passes and sleeps until done() or timeout_ms;
 * 0 when done, -1 when the time ran out. */
int kern_wait_until(int (*done)(void), uint32_t timeout_ms);
/* uptime_ms when the live pools became seeded (rng_seeded), 0 before. */
uint32_t kern_seeded_ms(void);
/* Main-loop passes so far (the entropy core's "context switches"). */
uint32_t kern_passes(void);
/* The longest pass since boot, in microseconds of the machine's clock. */
uint32_t kern_loop_max_us(void);
/* Never returns: notes boot_to_prompt_ms, app_start(), then app_poll() and
 * a pass, forever; app_pending() says the application has input waiting,
 * so the loop must not sleep. */
void kern_loop(void (*app_start)(void), void (*app_poll)(void), int (*app_pending)(void))
	__attribute__((noreturn));

/* ---- assess.c: the meter's full assessments in the idle time ---- */
/* Full assessments of r's sources run here from now on (before any source). */
void kern_assess_init(struct rng *r);
/* Each tick's pass: charge the meter's time, hold a finished job's result,
 * take the next due one. */
int kern_assess_poll(void);
/* The idle loop: a job is ready and the budget has time for it; then run
 * it until the next interrupt (interrupts off on entry and on return). */
int kern_assess_wants_cpu(void);
void kern_assess_run(void);
/* The meter's share of the CPU over the last 10 s, in thousandths. */
uint32_t kern_meter_permille(void);
/* The last full assessment's cost, clock ticks of the task (0: none yet). */
uint64_t kern_assess_last_cost(void);
/* bench: one full assessment of m in the background task. Wait until
 * kern_assess_bench_wanted() (the live job done; none taken meanwhile),
 * start, wait until kern_assess_bench_done(), then end: its cost in clock
 * ticks (0 if not done, or never started), the figure in *result. */
int kern_assess_bench_wanted(void);
void kern_assess_bench_start(struct rng_meter *m);
int kern_assess_bench_done(void);
uint64_t kern_assess_bench_end(uint32_t *result);

/* ---- devices.c: the interrupt-source devices ---- */
/* Probe them in a fixed order with the live pools and the boot options;
 * each reports itself; pollers and `sources` fields are hooked up here. */
void devices_init(struct rng *r, const struct boot_options *o);

/* ---- sources.c: extra `key=value` fields on a `sources` line ---- */
/* fn writes the fields of src into buf if src is one of its own, else nothing. */
typedef void (*source_fields_fn)(const struct entropy_source *src, char *buf, size_t n);
void sources_add_fields(source_fields_fn fn);
/* The extra fields of src ("" when none). */
void sources_fields(const struct entropy_source *src, char *buf, size_t n);

/* ---- seam.c: the live pools and the entropy core's seam ---- */
/* rng_init with the boot option's estimator, the default instance for
 * NULL-handle samples, and the SHA-1 known-answer test (halts on failure). */
void rng_live_init(enum rng_estimator credit);
/* record=N (seam.c): its store, before any source; and, each pass,
 * announce each trusted source's record as it fills. */
void kern_record_init(void);
void kern_record_poll(void);
#endif
