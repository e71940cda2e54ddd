/* Console commands (each returns 0 for `ok`, or cmd_error()'s -1). */
#ifndef RAND86_COMMANDS_H
#define RAND86_COMMANDS_H
#include <stddef.h>

/* The commands' limits, written once: the commands check them and help's
 * usage lines print them (COMMAND_LIMIT_STR). */
#define SERVE_MAX_BYTES 16777216          /* random, urandom: N is 1..this */
#define SAMPLES_MAX     100000            /* samples: N is 1..this */
#define HALT_CODE_MAX   255               /* halt: CODE is 0..this (one byte to port 0xf4) */
#define COMMAND_LIMIT_STR_(x) #x
#define COMMAND_LIMIT_STR(x) COMMAND_LIMIT_STR_(x)
int cmd_help(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_reboot(int argc, char **argv);
int cmd_halt(int argc, char **argv);
int cmd_sources(int argc, char **argv);
int cmd_random(int argc, char **argv);
int cmd_urandom(int argc, char **argv);
int cmd_stream(int argc, char **argv);
int cmd_samples(int argc, char **argv);
int cmd_bench(int argc, char **argv);
#endif
