/* The boot options in force, parsed once from the multiboot command line; record=N's store. */
#include "kern/kernel.h"
#include "lib/fmt.h"

struct boot_options boot_opts;
static const char *boot_cmdline;

/* Escaped, a word takes up to FMT_ESC_LEN times its length: more than one
 * kprintf holds, so it is shown in pieces of this many chars. */
#define WARN_PIECE 128

/* `warning: ignoring boot option 'WORD'`, WORD escaped, and cut to
 * OPT_WORD_MAX with "..." after it (docs/PROTOCOL.md "Boot options"). */
static void warn_option(const char *word, size_t len, void *ctx)
{
	char piece[WARN_PIECE];
	size_t n = len > OPT_WORD_MAX ? OPT_WORD_MAX : len;
	(void)ctx;
	kprintf("warning: ignoring boot option '");
	while (n) {
		size_t k = fmt_printable(piece, sizeof(piece), word, n);
		kprintf("%s", piece);
		word += k;
		n -= k;
	}
	kprintf("%s'\r\n", len > OPT_WORD_MAX ? "..." : "");
}

/* Before the console: its baud rate is an option, so nothing is said yet. */
void kern_options_init(const char *cmdline)
{
	boot_cmdline = cmdline;
	options_defaults(&boot_opts);
	options_parse(&boot_opts, cmdline, NULL, NULL);
}

/* Once the console is up, the same parse again on scratch options, this
 * time reporting: every ignored word goes straight to COM1 and the screen,
 * not into kprintf's early buffer, which would drop what does not fit. */
void kern_options_warn(void)
{
	struct boot_options scratch;
	options_defaults(&scratch);
	options_parse(&scratch, boot_cmdline, warn_option, NULL);
}
