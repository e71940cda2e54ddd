/* Entropy commands: sources (and, below, the serving commands). */
#include <string.h>
#include "boot/commands.h"
#include "boot/shell.h"
#include "boot/kernel.h"
#include "lib/fmt.h"

/* Extra `key=value` fields a driver appends to its `sources` line. */
#define MAX_SOURCE_EXTRAS 8
static struct { const struct entropy_source *src; void (*fn)(char *buf, size_t n); } extras[MAX_SOURCE_EXTRAS];
static int nextras;

void sources_add_fields(const struct entropy_source *src, void (*fn)(char *buf, size_t n))
{
	if (nextras < MAX_SOURCE_EXTRAS) {
		extras[nextras].src = src;
		extras[nextras].fn = fn;
		nextras++;
	}
}

int cmd_sources(int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return cmd_error("usage: sources");
	for (struct entropy_source *s = rng_source_next(&rng_live, NULL); s;
	     s = rng_source_next(&rng_live, s)) {
		char e[U64_STR_LEN], b[U64_STR_LEN], t[U64_STR_LEN], more[160] = "";
		struct rng_source_stats ss;
		rng_source_stats(s, &ss);
		for (int i = 0; i < nextras; i++)
			if (extras[i].src == s)
				extras[i].fn(more, sizeof(more));
		kprintf("%s irq=%d trust=%s events=%s bits=%s tso_bits=%s%s%s%s\r\n", ss.name, ss.irq,
			ss.trusted ? "trusted" : "untrusted", u64_str(e, ss.events), u64_str(b, ss.bits),
			u64_str(t, ss.tso_bits), ss.capture ? " capture=on" : "",
			more[0] ? " " : "", more);
	}
	return 0;
}
