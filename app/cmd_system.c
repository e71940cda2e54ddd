/* System commands: status, reboot, halt. */
#include "app/commands.h"
#include "app/shell.h"
#include "app/serve.h"
#include "kern/kernel.h"
#include "arch/x86/cpu.h"
#include "arch/x86/pic.h"
#include "arch/x86/pit.h"
#include "arch/x86/clock.h"
#include "arch/x86/cmos.h"
#include "drivers/serial.h"
#include "lib/fmt.h"

/* Every `status` value, copied at one moment before any is printed: a
 * full TX ring runs main-loop passes while the reply drains, and the
 * values must not move between lines (docs/PROTOCOL.md, "status keys"). */
struct status_snap {
	struct rng_stats st;
	uint64_t uptime_ms, egd_bytes, rx_dropped, egd_rx_dropped, lost_ticks;
	uint32_t seeded_ms, egd_requests, passes, cmos_seconds, spurious, loop_max_us, meter_permille;
};

static void status_take(struct status_snap *s)
{
	/* The CMOS read waits out an update (up to ~2 ms): done just before,
	 * with interrupts on, so no tick or rtc period is lost to it. */
	s->cmos_seconds = cmos_rtc_seconds();
	unsigned long flags = irq_save();
	rng_stats(&rng_live, &s->st);       /* the identity holds within it */
	s->uptime_ms = clock_ms();
	s->seeded_ms = kern_seeded_ms();    /* set in the pass that seeded: agrees with st */
	s->egd_requests = egd_requests;
	s->egd_bytes = egd_bytes;
	s->passes = kern_passes();
	s->rx_dropped = serial_rx_dropped(COM1);
	s->egd_rx_dropped = serial_rx_dropped(COM2);
	s->spurious = pic_spurious();
	s->lost_ticks = pit_lost_ticks();
	s->loop_max_us = kern_loop_max_us();
	s->meter_permille = kern_meter_permille();
	irq_restore(flags);
}

int cmd_status(int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return cmd_error("usage: status");
	struct status_snap s;
	const struct rng_stats *st = &s.st;
	char b[U64_STR_LEN];
	status_take(&s);
	kprintf("version: %s\r\n", RAND86_VERSION);
	kprintf("uptime_ms: %s\r\n", u64_str(b, s.uptime_ms));
	kprintf("cpu_khz: %lu\r\n", (unsigned long)clock_khz());
	kprintf("clock: %s\r\n", clock_is_tsc() ? "tsc" : "pit");
	kprintf("clock_counts: %s\r\n", clock_counts_instructions() ? "instructions" : "time");
	kprintf("hz: %lu\r\n", (unsigned long)pit_hz());
	kprintf("credit: %s\r\n", credit_name(st->estimator));
	kprintf("primary_bits: %d\r\n", st->primary_bits);
	kprintf("secondary_bits: %d\r\n", st->secondary_bits);
	kprintf("credited_bits: %s\r\n", u64_str(b, st->credited_bits));
	kprintf("spent_bits: %s\r\n", u64_str(b, st->spent_bits));
	kprintf("random_bytes: %s\r\n", u64_str(b, st->random_bytes));
	kprintf("urandom_bytes: %s\r\n", u64_str(b, st->urandom_bytes));
	kprintf("batch_samples: %s\r\n", u64_str(b, st->batch_samples));
	kprintf("batch_flushes: %s\r\n", u64_str(b, st->batch_flushes));
	kprintf("batch_overwrites: %s\r\n", u64_str(b, st->batch_overwrites));
	kprintf("seeded: %d\r\n", st->seeded);
	kprintf("seeded_ms: %lu\r\n", (unsigned long)s.seeded_ms);
	/* credit=measured: urandom's ChaCha20 keys (docs/ENTROPY.md); 0 otherwise */
	kprintf("urandom_keys: %s\r\n", u64_str(b, st->crng_keys));
	kprintf("urandom_key_bits: %s\r\n", u64_str(b, st->crng_key_bits));
	kprintf("urandom_keyed_ms: %s\r\n", u64_str(b, st->crng_keyed_ms));
	kprintf("urandom_reseed_ms: %s\r\n", u64_str(b, st->crng_reseed_ms));
	kprintf("stream: %s\r\n", serial_present(COM2) ? stream_mode_name(boot_opts.stream) : "absent");
	if (boot_opts.stream == STREAM_EGD)
		kprintf("egd_requests: %lu\r\negd_bytes: %s\r\n", (unsigned long)s.egd_requests,
			u64_str(b, s.egd_bytes));
	kprintf("main_loop_passes: %lu\r\n", (unsigned long)s.passes);
	kprintf("boot_to_prompt_ms: %lu\r\n", (unsigned long)boot_to_prompt_ms);
	kprintf("console_rx_dropped: %s\r\n", u64_str(b, s.rx_dropped));
	kprintf("cmos_seconds: %lu\r\n", (unsigned long)s.cmos_seconds);
	kprintf("loop_max_us: %lu\r\n", (unsigned long)s.loop_max_us);
	kprintf("meter_permille: %lu\r\n", (unsigned long)s.meter_permille);
	kprintf("irq_spurious: %lu\r\n", (unsigned long)s.spurious);
	kprintf("timer_lost_ticks: %s\r\n", u64_str(b, s.lost_ticks));
	if (boot_opts.stream == STREAM_EGD)
		kprintf("egd_rx_dropped: %s\r\n", u64_str(b, s.egd_rx_dropped));
	return 0;
}

int cmd_reboot(int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return cmd_error("usage: reboot");
	kprintf("ok\r\n");
	console_drain(1000);
	cpu_reboot();
}

int cmd_halt(int argc, char **argv)
{
	uint32_t code = 0;
	if (argc > 2)
		return cmd_error("usage: halt [CODE]");
	if (argc == 2) {
		if (cmd_number("halt", "CODE", argv[1], 0, HALT_CODE_MAX, &code) < 0)
			return -1;
	}
	/* The reply ends with `ok` like every other (docs/PROTOCOL.md,
	 * "Replies"): what happens after it is said before it. */
	kprintf("# halting: %lu to port 0xf4 (QEMU's isa-debug-exit exits), then the CPU stops\r\n",
		(unsigned long)code);
	kprintf("ok\r\n");
	console_drain(1000);
	cpu_debug_exit((uint8_t)code);
	cpu_halt_forever();                 /* not under QEMU's isa-debug-exit: stop here, silently */
}
