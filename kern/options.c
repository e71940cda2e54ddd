/* The boot options in force, parsed once from the multiboot command line. */
#include "kern/kernel.h"

struct boot_options boot_opts;

static void warn_option(const char *word, void *ctx)
{
	(void)ctx;
	kprintf("warning: ignoring boot option '%s'\r\n", word);
}

void kern_options_init(const char *cmdline)
{
	options_defaults(&boot_opts);
	options_parse(&boot_opts, cmdline, warn_option, NULL);
}
