/* libFuzzer target: bytes on the COM1 console, through drivers/serial.c's ring into app/shell.c. */
/*
 * The real driver, line editor, tokenizer and number parser; the
 * commands are stand-ins that parse their arguments as the real ones do
 * (cmd_number with the ranges docs/PROTOCOL.md gives) and, for the long
 * ones (random, urandom, stream, samples), keep reading the type-ahead
 * for Ctrl-C while more bytes arrive.
 *
 * Input: byte 0 and 1 set how many bytes arrive at a time while the shell
 * is idle (1..256) and while a long command runs (1..256); the rest is
 * what a client sends. Invariants: nothing outside 0x20-0x7E reaches the
 * console raw (but CR, LF and the BS of an erase); every argument is a
 * non-empty printable word and a line at most 200 characters; a number is
 * taken exactly when it is plain decimal or 0x hex within range; a command
 * stops only for a Ctrl-C; once one stopped it, or one was lost to a full
 * ring, no byte sent before that Ctrl-C is read by the shell.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_pc.h"
#include "fuzz_oracle.h"

/* The driver and the shell, whole, so each input starts from their boot state. */
#include "drivers/serial.c"

static uint64_t idx_at[RX_RING];     /* input index of the byte in each ring slot */
static uint64_t read_after;          /* the shell may read only bytes past this index (+1) */
static uint64_t last_ctrl_c;         /* index + 1 of the latest Ctrl-C sent, 0: none */
static uint64_t last_lost;           /* index + 1 of the latest Ctrl-C the ring lost */
static int lost_unseen;              /* lost since the shell last looked */

static int tracked_getc(int port)
{
	uint32_t slot = uarts[port].rx_tail;
	int c = serial_getc(port);
	if (c >= 0)
		FUZZ_CHECK(idx_at[slot] + 1 > read_after,
			"shell read byte %llu (0x%02x), sent before the Ctrl-C at %llu that dropped it",
			(unsigned long long)idx_at[slot], c, (unsigned long long)read_after - 1);
	return c;
}
#define serial_getc tracked_getc
#include "app/shell.c"
#undef serial_getc

static const uint8_t *in;
static size_t in_len, in_pos;
static unsigned burst_idle, burst_cmd;
static int long_running;

/* Up to n more client bytes onto the wire, a FIFO's worth (16) an
 * interrupt; the ring takes them in order until it is full, then drops. */
static void arrive(unsigned n)
{
	while (n && in_pos < in_len) {
		size_t k = n < 16 ? n : 16;
		if (k > in_len - in_pos)
			k = in_len - in_pos;
		uint32_t head = uarts[COM1].rx_head;
		uint64_t dropped = serial_rx_dropped(COM1);
		pc_uart_send(COM1, in + in_pos, k);
		size_t stored = k - (size_t)(serial_rx_dropped(COM1) - dropped);
		for (size_t i = 0; i < k; i++) {
			if (i < stored)
				idx_at[(head + i) % RX_RING] = in_pos + i;
			if (in[in_pos + i] != CH_CTRL_C)
				continue;
			last_ctrl_c = in_pos + i + 1;
			if (i >= stored) {
				last_lost = in_pos + i + 1;
				lost_unseen = 1;
			}
		}
		in_pos += k;
		n -= (unsigned)k;
	}
}

/* ---- what the shell calls above it ---- */
void console_write(const char *s, size_t n) { pc_log_write(s, n); }
void add_timing_entropy(struct entropy_source *src, uint32_t datum) { (void)src; (void)datum; }
struct entropy_source *create_entropy_source(struct rng *r, struct entropy_source *storage,
	const char *name, int irq, int trusted, uint32_t granularity_khz)
{
	(void)r; (void)name; (void)irq; (void)trusted; (void)granularity_khz;
	return storage;
}

static int number(const char *cmd, const char *arg, uint32_t min, uint32_t max)
{
	uint32_t got = 0, want = 0;
	int rc = cmd_number(cmd, "N", arg, min, max, &got);
	int orc = oracle_number(arg, min, max, &want);
	FUZZ_CHECK((rc == 0) == (orc == 0), "cmd_number('%s') %d, the rule says %d", arg, rc, orc);
	FUZZ_CHECK(rc != 0 || got == want, "cmd_number('%s') = %u, not %u", arg, got, want);
	return rc;
}

static void check_words(int argc, char **argv)
{
	size_t total = 0;
	FUZZ_CHECK(argc >= 1 && argc <= MAX_ARGS, "argc %d", argc);
	FUZZ_CHECK(argv[argc] == NULL, "argv not NULL-terminated");
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);
		FUZZ_CHECK(n > 0, "empty word %d", i);
		for (size_t j = 0; j < n; j++)
			FUZZ_CHECK(argv[i][j] > 0x20 && argv[i][j] < 0x7F, "word %d byte 0x%02x", i,
				(uint8_t)argv[i][j]);
		total += n;
	}
	FUZZ_CHECK(total <= LINE_MAX_CHARS, "words of %zu chars from a line of at most %d", total,
		LINE_MAX_CHARS);
}

/* A command that runs until Ctrl-C (or the input ends), bytes arriving meanwhile. */
static int long_command(void)
{
	uint64_t sent_before = last_ctrl_c;
	long_running = 1;
	for (;;) {
		arrive(burst_cmd);
		uint64_t latest = last_ctrl_c;
		if (cmd_interrupted()) {
			FUZZ_CHECK(latest > sent_before || serial_rx_count(COM1) < RX_RING,
				"stopped with no Ctrl-C");
			if (latest > read_after)
				read_after = latest;
			lost_unseen = 0;
			break;
		}
		if (in_pos >= in_len)
			break;
	}
	long_running = 0;
	return cmd_interrupted() ? cmd_error("interrupted") : 0;
}

int cmd_status(int argc, char **argv) { check_words(argc, argv); return 0; }
int cmd_sources(int argc, char **argv) { check_words(argc, argv); return 0; }
int cmd_bench(int argc, char **argv) { check_words(argc, argv); return 0; }
int cmd_reboot(int argc, char **argv) { check_words(argc, argv); return 0; }

int cmd_halt(int argc, char **argv)
{
	check_words(argc, argv);
	if (argc > 2)
		return cmd_error("usage: halt [CODE]");
	return argc == 2 ? number("halt", argv[1], 0, 255) : 0;
}

static int count_command(int argc, char **argv)
{
	check_words(argc, argv);
	if (argc < 2 || argc > 3)
		return cmd_error("usage: %s N [hex|bin]", argv[0]);
	if (number(argv[0], argv[1], 1, 16777216u) < 0)
		return -1;
	return long_command();
}

int cmd_random(int argc, char **argv) { return count_command(argc, argv); }
int cmd_urandom(int argc, char **argv) { return count_command(argc, argv); }
int cmd_stream(int argc, char **argv) { check_words(argc, argv); return long_command(); }

int cmd_samples(int argc, char **argv)
{
	check_words(argc, argv);
	if (argc != 3)
		return cmd_error("usage: samples NAME N");
	if (number("samples", argv[2], 1, 100000) < 0)
		return -1;
	return long_command();
}

static void check_console(void)
{
	for (size_t i = 0; i < pc_log_len; i++) {
		uint8_t c = (uint8_t)pc_log[i];
		FUZZ_CHECK((c >= 0x20 && c <= 0x7E) || c == '\r' || c == '\n' || c == '\b',
			"byte 0x%02x on the console raw, at %zu: '%.*s'", c, i,
			(int)(pc_log_len - i < 40 ? pc_log_len - i : 40), pc_log + i);
	}
	pc_log_len = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	burst_idle = data[0] + 1u;
	burst_cmd = data[1] + 1u;
	in = data + 2;
	in_len = size - 2;
	in_pos = 0;
	read_after = last_ctrl_c = last_lost = 0;
	lost_unseen = 0;
	pc_reset();
	memset(uarts, 0, sizeof(uarts));
	memset(&le, 0, sizeof(le));
	command_running = console_break = 0;
	FUZZ_CHECK(serial_init(COM1, 115200) == 0, "no COM1");
	serial_enable_irq(COM1);
	shell_start();
	while (in_pos < in_len || serial_rx_pending(COM1)) {
		arrive(burst_idle);
		if (lost_unseen && last_lost > read_after)
			read_after = last_lost;   /* shell_poll looks for it first */
		lost_unseen = 0;
		shell_poll();
		(void)shell_input_pending();
		check_console();
		FUZZ_CHECK(serial_rx_count(COM1) < RX_RING, "ring count %u", serial_rx_count(COM1));
	}
	return 0;
}
