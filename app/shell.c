/* COM1 console: line editing, dispatch, and the ok/error reply framing of docs/PROTOCOL.md. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "app/shell.h"
#include "app/commands.h"
#include "kern/kernel.h"
#include "drivers/serial.h"
#include "lib/fmt.h"
#include "lib/lineedit.h"
#include "lib/num.h"

#define PROMPT "rand86> "
#define MAX_ARGS 8
#define CH_CTRL_C 0x03

static struct lineedit le;
/* While a command runs the shell reads no lines: input waits in COM1's
 * receive ring, and the command looks in it for Ctrl-C (cmd_interrupted). */
static int command_running;
static int console_break;          /* Ctrl-C seen since the command started */
static unsigned break_scanned;     /* ring bytes already looked at (no Ctrl-C) */
/* The driver counts every Ctrl-C that arrives, also one a full ring lost
 * (serial_rx_marks); the shell counts those it took out of the ring. */
static uint32_t marks_taken;       /* read, or dropped with the ring */
static uint32_t marks_looked;      /* the driver's count at the last look */

static const struct command commands[] = {
	{ "help", "help                      list the commands", cmd_help },
	{ "status", "status                    clock, pools and counters as key: value", cmd_status },
	{ "sources", "sources                   one line per entropy source", cmd_sources },
	{ "random", "random N [hex|bin]        N bytes (1.." COMMAND_LIMIT_STR(SERVE_MAX_BYTES)
		") by /dev/random rules: waits for entropy", cmd_random },
	{ "urandom", "urandom N [hex|bin]       N bytes by /dev/urandom rules, once seeded", cmd_urandom },
	{ "stream", "stream random|urandom     raw bytes on this port until Ctrl-C", cmd_stream },
	{ "samples", "samples NAME N            the next N (1.." COMMAND_LIMIT_STR(SAMPLES_MAX)
		") timing samples of a source", cmd_samples },
	{ "bench", "bench                     in-kernel measurements on scratch state", cmd_bench },
	{ "reboot", "reboot                    reset the machine", cmd_reboot },
	{ "halt", "halt [CODE]               write CODE (0.." COMMAND_LIMIT_STR(HALT_CODE_MAX)
		") to port 0xf4 and halt", cmd_halt },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

int cmd_help(int argc, char **argv)
{
	(void)argc; (void)argv;
	for (size_t i = 0; i < NCOMMANDS; i++)
		kprintf("%s\r\n", commands[i].usage);
	return 0;
}

int cmd_error(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kprintf("error: %s\r\n", buf);
	return -1;
}

/* The line editor admits only printable ASCII, so today this changes
 * nothing; it keeps every echo of outside text on the one escape. */
const char *cmd_shown(const char *word)
{
	static char shown[LINE_MAX_CHARS + 1];
	fmt_printable(shown, sizeof(shown), word, strlen(word));
	return shown;
}

int cmd_number(const char *cmd, const char *what, const char *arg, uint32_t min, uint32_t max,
	uint32_t *out)
{
	int rc = parse_u32_range(arg, min, max, out);
	if (rc == -1)
		return cmd_error("%s: '%s' is not a number (%s is %lu..%lu)", cmd, cmd_shown(arg), what,
			(unsigned long)min, (unsigned long)max);
	if (rc == -2)
		return cmd_error("%s: %s must be %lu..%lu", cmd, what, (unsigned long)min,
			(unsigned long)max);
	return 0;
}

/* A Ctrl-C that a full ring lost fell somewhere among the bytes waiting,
 * nobody knows where: all of them may be older than it, so the whole ring
 * goes (docs/PROTOCOL.md "Console"). 1 if that happened. The count is read
 * before the ring, so a Ctrl-C stored meanwhile is never taken as lost. */
static int drop_if_ctrl_c_lost(void)
{
	uint32_t marks = serial_rx_marks(COM1);
	if (marks == marks_looked)
		return 0;
	marks_looked = marks;
	unsigned n = serial_rx_count(COM1), held = 0;
	for (unsigned i = 0; i < n; i++)
		held += serial_rx_peek(COM1, i) == CH_CTRL_C;
	if ((int32_t)(marks - marks_taken - held) <= 0)
		return 0;
	serial_rx_discard(COM1, n);
	marks_taken = marks;
	return 1;
}

/* A Ctrl-C in the type-ahead (even in the same write as the command's line)
 * stops the command; it and what was typed before it are dropped, as
 * Ctrl-C drops a line being typed: up to the last one waiting, since each
 * came while the command ran. One that a full ring lost stops it too, and
 * takes the whole ring with it (drop_if_ctrl_c_lost): nothing typed
 * before it may run, at the price of what came after it. */
int cmd_interrupted(void)
{
	if (console_break || !command_running)
		return console_break;
	unsigned n = serial_rx_count(COM1), last = 0;
	for (; break_scanned < n; break_scanned++) {
		if (serial_rx_peek(COM1, break_scanned) == CH_CTRL_C) {
			console_break = 1;
			marks_taken++;
			last = break_scanned + 1;
		}
	}
	if (last)
		serial_rx_discard(COM1, last);
	if (drop_if_ctrl_c_lost())
		console_break = 1;
	return console_break;
}

/* Work for the main loop: a byte the shell will read now. Not while a
 * command runs (its type-ahead waits: the loop may sleep), and not the LF
 * of a CRLF whose CR ended the last line (consumed here). */
int shell_input_pending(void)
{
	if (command_running)
		return 0;
	if (le.after_cr && serial_rx_peek(COM1, 0) == '\n') {
		serial_getc(COM1);
		le.after_cr = 0;
	}
	return serial_rx_pending(COM1);
}

static int split(char *line, char **argv)
{
	int argc = 0;
	char *p = line;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			break;
		if (argc == MAX_ARGS)
			return -1;
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	return argc;
}

static void run_line(char *line)
{
	char *argv[MAX_ARGS + 1];
	int argc = split(line, argv);
	if (argc == 0)
		return;                   /* an empty line is no command: just a new prompt */
	if (argc < 0) {
		cmd_error("too many arguments (max %d)", MAX_ARGS - 1);
		return;
	}
	argv[argc] = NULL;
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strcmp(argv[0], commands[i].name) != 0)
			continue;
		console_break = 0;
		break_scanned = 0;
		command_running = 1;
		int rc = commands[i].run(argc, argv);
		command_running = 0;
		console_break = 0;
		if (rc == 0)
			kprintf("ok\r\n");
		return;
	}
	cmd_error("unknown command '%s' (try help)", cmd_shown(argv[0]));
}

void shell_start(void)
{
	serial_set_rx_mark(COM1, CH_CTRL_C);
	marks_taken = marks_looked = serial_rx_marks(COM1);
	le_reset(&le);
	kprintf(PROMPT);
}

void shell_poll(void)
{
	int c;
	/* A Ctrl-C lost while no command ran (one that never checks for it):
	 * the ring went with it; the line being typed goes as on any Ctrl-C. */
	if (drop_if_ctrl_c_lost()) {
		le_reset(&le);
		kprintf("^C\r\n" PROMPT);
	}
	/* Bounded per call so a flood of input cannot keep the main loop from passing. */
	for (int n = 0; n < 64 && (c = serial_getc(COM1)) >= 0; n++) {
		char echo[4];
		size_t elen;
		marks_taken += c == CH_CTRL_C;
		enum le_event ev = le_feed(&le, (uint8_t)c, echo, &elen);
		if (elen)
			console_write(echo, elen);
		switch (ev) {
		case LE_NONE:
			continue;
		case LE_LINE:
			run_line(le.buf);
			break;
		case LE_CANCEL:
			break;
		case LE_TOO_LONG:
			cmd_error("line too long (max %d)", LINE_MAX_CHARS);
			break;
		}
		le_reset(&le);
		kprintf(PROMPT);
	}
}
