/* Console commands (each returns 0 for `ok`, or cmd_error()'s -1). */
#ifndef RAND86_COMMANDS_H
#define RAND86_COMMANDS_H
int cmd_help(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_reboot(int argc, char **argv);
int cmd_halt(int argc, char **argv);
#endif
