/* The COM1 console: line input, command dispatch, reply framing. */
#ifndef RAND86_SHELL_H
#define RAND86_SHELL_H
#include <stdint.h>

void shell_start(void);
void shell_poll(void);
int shell_input_pending(void);

/* For commands: print `error: MESSAGE` and return -1 from the command. */
int cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A console word as a message may echo it, escaped (lib/fmt.h); the text
 * lives until the next call, so one per message. */
const char *cmd_shown(const char *word);
/* Parse a count argument (decimal or 0x hex) in [min, max]; on failure print
 * `error: CMD: 'ARG' is not a number (WHAT is MIN..MAX)` or
 * `error: CMD: WHAT must be MIN..MAX` and return -1. */
int cmd_number(const char *cmd, const char *what, const char *arg, uint32_t min, uint32_t max,
	uint32_t *out);
/* Ctrl-C arrived since the command started (clears nothing: stays set). */
int cmd_interrupted(void);

struct command {
	const char *name;
	const char *usage;
	int (*run)(int argc, char **argv);
};
#endif
