/* The COM1 console: line input, command dispatch, reply framing. */
#ifndef RAND86_SHELL_H
#define RAND86_SHELL_H
#include <stdint.h>

void shell_start(void);
void shell_poll(void);
int shell_input_pending(void);

/* For commands: print `error: MESSAGE` and return -1 from the command. */
int cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Ctrl-C arrived since the command started (clears nothing: stays set). */
int cmd_interrupted(void);

struct command {
	const char *name;
	const char *usage;
	int (*run)(int argc, char **argv);
};
#endif
