/* random, urandom, stream and samples on COM1; the raw stream on COM2. */
#include <stdio.h>
#include <string.h>
#include "app/commands.h"
#include "app/serve.h"
#include "app/shell.h"
#include "kern/kernel.h"
#include "arch/x86/clock.h"
#include "drivers/serial.h"
#include "lib/fmt.h"

#define HEX_LINE_BYTES  32                /* 64 hex digits a line (docs/PROTOCOL.md) */
#define CHUNK           256
/* urandom on COM1: made and written this much at a time, a pass between
 * when one is due (kern_pass_if_due). Under QEMU the UART takes bytes as
 * fast as the CPU gives them, and at 4 MIPS its transmit interrupts took
 * 12.5 of the 26 ms that one CHUNK of `urandom N bin` held the loop. */
#define URANDOM_PIECE   64
#define NOTE_INTERVAL_MS 1000

volatile int console_random_waiting;
uint64_t stream_port_bytes;

/* ---- output formats ---- */
/* Hex digits are written straight into the line as bytes arrive: no
 * second copy of the random bytes, and CRLF stays in place at the end. */
struct out {
	int bin;
	char hex[HEX_LINE_BYTES * 2 + 2];
	unsigned fill;                    /* bytes in the line */
};

static void out_flush_line(struct out *o)
{
	if (!o->fill)
		return;
	o->hex[2 * o->fill] = '\r';
	o->hex[2 * o->fill + 1] = '\n';
	console_write(o->hex, 2 * o->fill + 2);
	o->fill = 0;
}

static void out_bytes(struct out *o, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	if (o->bin) {
		console_write_raw(p, n);
		return;
	}
	while (n) {
		unsigned room = HEX_LINE_BYTES - o->fill;
		unsigned k = n < room ? (unsigned)n : room;
		char *h = o->hex + 2 * o->fill;
		for (unsigned i = 0; i < k; i++) {
			h[2 * i] = digits[p[i] >> 4];
			h[2 * i + 1] = digits[p[i] & 15];
		}
		o->fill += k;
		p += k;
		n -= k;
		if (o->fill == HEX_LINE_BYTES)
			out_flush_line(o);
	}
}

static void out_end(struct out *o)
{
	if (o->bin)
		console_write_raw("\r\n", 2);
	else
		out_flush_line(o);
}

/* `random|urandom N [hex|bin]`: 0 and fills count/o, or prints the error. */
static int parse_count_format(int argc, char **argv, uint32_t *count, struct out *o)
{
	if (argc < 2 || argc > 3)
		return cmd_error("usage: %s N [hex|bin]", argv[0]);
	if (cmd_number(argv[0], "N", argv[1], 1, SERVE_MAX_BYTES, count) < 0)
		return -1;
	memset(o, 0, sizeof(*o));
	if (argc == 3) {
		if (strcmp(argv[2], "bin") == 0)
			o->bin = 1;
		else if (strcmp(argv[2], "hex") != 0)
			return cmd_error("%s: format must be hex or bin, not '%s'", argv[0],
				cmd_shown(argv[2]));
	}
	return 0;
}

/*
 * Who could feed the pools, for the waiting notes. A headless appliance
 * (no keyboard, or nobody at it) is fed by the sources that need no
 * person: the hint names them and what their health tests say, and asks
 * for typing only where a keyboard or mouse exists:
 *   `fed by timer, ata0 (warming up); typing or moving the mouse adds more`
 *   `type on the keyboard or move the mouse`   (no other trusted source)
 *   `fed by timer (failing its health tests)`  (no keyboard, no mouse)
 * On a machine whose clock counts instructions the sources it times
 * earn nothing (entropy/random.c), so only a person is named:
 *   `this machine's clock counts instructions: type on the keyboard`
 * Returns 0 when no source that could earn credit is present at all.
 */
static int feed_hint(char *hint, size_t size)
{
	static const char *const state[] = {
		[RNG_HEALTH_WARMUP] = " (warming up)", [RNG_HEALTH_OK] = "",
		[RNG_HEALTH_FAIL] = " (failing its health tests)",
	};
	char fed[128] = "";
	size_t len = 0;
	int kbd = 0, mouse = 0, bound = 0;
	for (struct entropy_source *e = rng_source_next(&rng_live, NULL); e;
	     e = rng_source_next(&rng_live, e)) {
		struct rng_source_stats ss;
		rng_source_stats(e, &ss);
		if (!ss.trusted)
			continue;
		if (ss.clock_bound)
			bound = 1;
		else if (strcmp(ss.name, "keyboard") == 0)
			kbd = 1;
		else if (strcmp(ss.name, "mouse") == 0)
			mouse = 1;
		else if (len + strlen(ss.name) + 32 < sizeof(fed))
			len += (size_t)snprintf(fed + len, sizeof(fed) - len, "%s%s%s",
				len ? ", " : "fed by ", ss.name, state[ss.health]);
	}
	const char *person = len ?
		(kbd && mouse ? "; typing or moving the mouse adds more" :
		 kbd ? "; typing adds more" : mouse ? "; moving the mouse adds more" : "") :
		(kbd && mouse ? "type on the keyboard or move the mouse" :
		 kbd ? "type on the keyboard" : mouse ? "move the mouse" :
		 bound ? "no keyboard or mouse to seed it" : "");
	snprintf(hint, size, "%s%s%s", bound && !len ? "this machine's clock counts instructions: " : "",
		fed, person);
	return len || kbd || mouse;
}

static void no_source_note(void)
{
	kprintf("# no trusted source is present: this read can only wait\r\n");
}

/* How many more keys seeding likely needs, once the keyboard has been
 * typed on: `; about K more keys`, else nothing. A key is two samples
 * (press and release); none is credited before the meter's first
 * RNG_METER_MIN, and after that a key is assumed to earn what the keys
 * so far earned each since then. A guess that runs high: the credit
 * rule pays a fuller window more (entropy/measure.c, rng_meter_paid). */
static void keys_hint(char *out, size_t size, uint64_t credited_total)
{
	struct entropy_source *kbd = rng_find_source(&rng_live, "keyboard");
	struct rng_source_stats ss;
	uint64_t left = credited_total < RNG_SEED_BITS ? RNG_SEED_BITS - credited_total : 0, keys;

	out[0] = 0;
	if (!kbd)
		return;
	rng_source_stats(kbd, &ss);
	if (!ss.trusted || ss.events == 0 || left == 0)
		return;
	if (ss.credited == 0) {
		if (ss.events < RNG_METER_MIN)
			snprintf(out, size, "; at least %lu more keys before the first is credited",
				 (unsigned long)((RNG_METER_MIN - ss.events + 1) / 2));
		return;
	}
	keys = (left * (ss.events - RNG_METER_MIN) + 2 * ss.credited - 1) / (2 * ss.credited);
	snprintf(out, size, "; about %lu more keys", (unsigned long)keys);
}

/* `# waiting for seeding: C of 256 bits credited; HINT`: urandom's one
 * wait per boot (credit=measured), until the primary has been credited
 * RNG_SEED_BITS since boot. */
static void seeding_note(void)
{
	struct rng_stats st;
	char hint[192], keys[64], c[U64_STR_LEN];
	int any = feed_hint(hint, sizeof(hint));
	rng_stats(&rng_live, &st);
	keys_hint(keys, sizeof(keys), st.primary_credited_bits);
	kprintf("# waiting for seeding: %s of %u bits credited; %s%s\r\n",
		u64_str(c, st.primary_credited_bits), RNG_SEED_BITS, hint, keys);
	if (!any)
		no_source_note();
}

/* Wait until urandom may serve: 0, or -1 on Ctrl-C. Notes only in hex
 * mode (in bin mode they would corrupt the N raw bytes). */
static int wait_seeded(const struct out *o)
{
	struct deadline next_note = deadline_in_ms(0);
	while (!rng_urandom_ready(&rng_live)) {
		if (cmd_interrupted())
			return -1;
		if (!o->bin && deadline_passed(next_note)) {
			seeding_note();
			next_note = deadline_in_ms(NOTE_INTERVAL_MS);
		}
		kern_idle();
	}
	return 0;
}

int cmd_urandom(int argc, char **argv)
{
	uint32_t n, done = 0;
	struct out o;
	uint8_t buf[CHUNK];
	if (parse_count_format(argc, argv, &n, &o) < 0)
		return -1;
	if (wait_seeded(&o) == 0) {
		for (; done < n && !cmd_interrupted(); kern_pass_if_due()) {
			size_t want = n - done < URANDOM_PIECE ? n - done : URANDOM_PIECE;
			size_t k = rng_read_urandom(&rng_live, buf, want);
			out_bytes(&o, buf, k);
			done += k;
			if (!k)
				kern_idle();     /* a reseed under way (reads apart): its rounds */
		}
	}
	out_end(&o);
	memset(buf, 0, sizeof(buf));
	if (done < n)
		return cmd_error("interrupted after %lu of %lu bytes", (unsigned long)done,
			(unsigned long)n);
	return 0;
}

/* `# waiting for entropy: K of N bytes; C of B bits credited; HINT`: how
 * far the read is, what was credited since it began against the 8 bits a
 * byte it needs, and who could feed it (feed_hint), so a user knows
 * whether to do anything. */
static void waiting_note(uint32_t done, uint32_t n, uint64_t credited_at_start)
{
	struct rng_stats st;
	char hint[192], c[U64_STR_LEN];
	int any = feed_hint(hint, sizeof(hint));
	rng_stats(&rng_live, &st);
	kprintf("# waiting for entropy: %lu of %lu bytes; %s of %lu bits credited; %s\r\n",
		(unsigned long)done, (unsigned long)n, u64_str(c, st.credited_bits - credited_at_start),
		(unsigned long)n * 8, hint);
	if (!any)
		no_source_note();
}

int cmd_random(int argc, char **argv)
{
	uint32_t n, done = 0;
	struct out o;
	uint8_t buf[CHUNK];
	int rc = 0;
	if (parse_count_format(argc, argv, &n, &o) < 0)
		return -1;
	struct deadline next_note = deadline_in_ms(0);
	struct rng_stats st;
	rng_stats(&rng_live, &st);
	uint64_t credited_at_start = st.credited_bits;
	console_random_waiting = 1;
	while (done < n) {
		if (cmd_interrupted()) {
			out_end(&o);
			rc = cmd_error("interrupted after %lu of %lu bytes", (unsigned long)done,
				(unsigned long)n);
			break;
		}
		size_t want = n - done < CHUNK ? n - done : CHUNK;
		size_t k = rng_read_random(&rng_live, buf, want);
		if (k) {
			out_bytes(&o, buf, k);
			done += k;
			kern_yield();
			continue;
		}
		/* Waiting notes are text: in bin mode they would corrupt the N raw bytes. */
		if (!o.bin && deadline_passed(next_note)) {
			waiting_note(done, n, credited_at_start);
			next_note = deadline_in_ms(NOTE_INTERVAL_MS);
		}
		kern_idle();
	}
	console_random_waiting = 0;
	memset(buf, 0, sizeof(buf));
	if (rc == 0)
		out_end(&o);
	return rc;
}

/* `stream random|urandom`: raw bytes on COM1 until Ctrl-C, then CRLF and ok. */
int cmd_stream(int argc, char **argv)
{
	uint8_t buf[CHUNK];
	int random;
	if (argc != 2 || (strcmp(argv[1], "random") != 0 && strcmp(argv[1], "urandom") != 0))
		return cmd_error("usage: stream random|urandom");
	random = argv[1][0] == 'r';
	console_random_waiting = random;
	while (!cmd_interrupted()) {
		size_t k = random ? rng_read_random(&rng_live, buf, CHUNK) :
			rng_read_urandom(&rng_live, buf, URANDOM_PIECE);
		if (k)
			console_write_raw(buf, k);
		if (k && !random)
			kern_pass_if_due();
		else if (k)
			kern_yield();
		else
			kern_idle();
	}
	console_random_waiting = 0;
	memset(buf, 0, sizeof(buf));
	console_write_raw("\r\n", 2);
	return 0;
}

/* One sample as `samples` prints it: raw and shifted delta, in hex. */
static void samples_line(uint32_t raw, uint32_t shifted)
{
	kprintf("%08lx %08lx\r\n", (unsigned long)raw, (unsigned long)shifted);
}

/* `samples NAME boot`: what record=N took from boot (a harness asks once
 * `record: NAME full` says it is whole: typing sooner is input into it). */
static int samples_recorded(const struct entropy_source *src)
{
	uint32_t n = src->rec_n;
	kprintf("# %lu of %lu from boot\r\n", (unsigned long)n, (unsigned long)src->rec_max);
	for (uint32_t i = 0; i < n; i++) {
		if (cmd_interrupted())
			return cmd_error("interrupted after %lu of %lu samples",
				(unsigned long)i, (unsigned long)n);
		samples_line(src->rec[i], src->rec[i] >> src->shift);
	}
	return 0;
}

static int samples_print_one(struct rng_capture *cap)
{
	uint32_t raw, shifted;
	if (!rng_capture_read(cap, &raw, &shifted))
		return 0;
	samples_line(raw, shifted);
	return 1;
}

/* `samples NAME N`: the next N timing samples of one source; no credit meanwhile.
 * Up to a ring's worth, the capture fills before a line is printed.
 * Printing keeps the CPU busy, and a periodic source's sample that finds
 * it busy is skipped, never captured (entropy/random.c), so a capture
 * printed as it goes would sample the source in another state than the
 * credit it is held against (docs/TESTING.md, honesty). On Ctrl-C what
 * the ring holds is still shown. */
int cmd_samples(int argc, char **argv)
{
	static struct rng_capture cap;
	uint32_t n, done = 0;
	if (argc != 3)
		return cmd_error("usage: samples NAME N|boot");
	struct entropy_source *src = rng_find_source(&rng_live, argv[1]);
	if (!src)
		return cmd_error("samples: no source '%s' (see sources)",
			cmd_shown(argv[1]));
	if (strcmp(argv[2], "boot") == 0)
		return samples_recorded(src);
	if (cmd_number("samples", "N", argv[2], 1, SAMPLES_MAX, &n) < 0)
		return -1;
	int fill = n <= RNG_CAPTURE_RING;
	memset(&cap, 0, sizeof(cap));
	rng_capture_start(src, &cap);
	kprintf("# capturing %lu samples of %s: raw_delta shifted_delta (hex); no credit meanwhile\r\n",
		(unsigned long)n, argv[1]);
	while (fill && cap.head - cap.tail < n && !cmd_interrupted())
		kern_idle();
	while (done < n && !cmd_interrupted()) {
		if (samples_print_one(&cap))
			done++;
		else
			kern_idle();
	}
	rng_capture_stop(src);
	while (fill && done < n && samples_print_one(&cap))
		done++;
	if (cap.dropped)
		kprintf("# %lu samples arrived faster than they could be printed and were not shown\r\n",
			(unsigned long)cap.dropped);
	if (done < n)
		return cmd_error("interrupted after %lu of %lu samples", (unsigned long)done, (unsigned long)n);
	return 0;
}

/* ---- COM2: raw bytes from boot on, as stream= says ---- */
/*
 * Typed input goes first. The shell reads at most 64 bytes between two
 * passes, and a pass that made CHUNK urandom bytes at once was long on a
 * slow CPU: about 27 ms under Bochs at 10 M instructions a second, while
 * COM1's line brings some 300 bytes in that time at 115200 baud. COM1's
 * receive ring overflowed: 15,129 of 20,489 bytes of noise were lost,
 * and with them the Ctrl-C and the command typed after it. So no bytes
 * are made while the shell has input to read. A command's type-ahead
 * does not count (the shell reads none while it runs), so typing slows
 * the stream down and never stops it for good.
 *
 * And a pass makes bytes for at most STREAM_SLICE_MS, in STREAM_PIECE
 * reads. v1.89's urandom (credit=xymoron, credit=tso) hashes the whole
 * secondary pool for each 10 bytes: ~688 instructions a byte at 486
 * speed, so CHUNK bytes were 44 ms of a 4 MIPS CPU in one pass, over the
 * 20 ms bound of docs/PROTOCOL.md ("Responsiveness"), and a long
 * console reply that hands its passes out (kern_pass_if_due) took that
 * much a line. ChaCha20 (credit=measured) makes CHUNK bytes well inside
 * the slice. The piece is small enough that one at 4 MIPS, after a
 * slice just missed, keeps the pass inside the bound.
 */
#define STREAM_SLICE_MS 2u
#define STREAM_PIECE    32u

static size_t stream_make(uint8_t *buf, size_t want)
{
	struct deadline slice = deadline_in_ms(STREAM_SLICE_MS);
	size_t made = 0;

	while (made < want && !deadline_passed(slice)) {
		size_t n = want - made < STREAM_PIECE ? want - made : STREAM_PIECE, k;
		if (boot_opts.stream == STREAM_RANDOM)
			k = rng_read_random(&rng_live, buf + made, n);
		else
			k = rng_read_urandom(&rng_live, buf + made, n);   /* 0 until seeded */
		made += k;
		/* A read apart serves under n: go on while the slice lasts. None
		 * served: the pool ran dry or a reseed is under way, so the
		 * rest next pass. */
		if (k == 0)
			break;
	}
	return made;
}

static int stream_port_poll(void)
{
	uint8_t buf[CHUNK];
	size_t room = serial_tx_space(COM2);
	if (room < 64)
		return 0;                    /* the host is not reading: wait, lose nothing */
	if (shell_input_pending())
		return 0;                    /* the shell reads first; kern_idle() will not halt */
	if (boot_opts.stream == STREAM_RANDOM && console_random_waiting)
		return 0;                    /* a console reader waits: it goes first */
	size_t k = stream_make(buf, room < CHUNK ? room : CHUNK);
	if (k) {
		serial_write_some(COM2, buf, k);     /* fits: room was checked */
		stream_port_bytes += k;
	}
	memset(buf, 0, k);
	return k != 0;                   /* sent some: there may be room for more */
}

void stream_port_init(void)
{
	if (!serial_present(COM2) || boot_opts.stream == STREAM_OFF)
		return;
	if (boot_opts.stream == STREAM_EGD) {
		kprintf("com2: stream port answers EGD requests with random bytes\r\n");
		kern_add_poller(egd_poll);
		return;
	}
	kprintf("com2: stream port sends %s bytes\r\n", stream_mode_name(boot_opts.stream));
	kern_add_poller(stream_port_poll);
}
