/* Console commands (each returns 0 for `ok`, or cmd_error()'s -1). */
#ifndef RAND86_COMMANDS_H
#define RAND86_COMMANDS_H
#include <stddef.h>
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
