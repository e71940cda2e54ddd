/* Entropy commands: sources (and, below, the serving commands). */
#include <stdio.h>
#include <string.h>
#include "app/commands.h"
#include "app/shell.h"
#include "kern/kernel.h"
#include "lib/fmt.h"

int cmd_sources(int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return cmd_error("usage: sources");
	for (struct entropy_source *s = rng_source_next(&rng_live, NULL); s;
	     s = rng_source_next(&rng_live, s)) {
		char e[U64_STR_LEN], b[U64_STR_LEN], t[U64_STR_LEN], c[U64_STR_LEN], more[160];
		char meas[160] = "";
		struct rng_source_stats ss;
		rng_source_stats(s, &ss);
		sources_fields(s, more, sizeof(more));
		if (ss.trusted)
			snprintf(meas, sizeof(meas),
				" h_milli=%lu health=%s rct_fail=%lu apt_fail=%lu unmeasured=%lu"
				" full_milli=%lu full_age=%lu",
				(unsigned long)ss.h_milli, rng_health_name((enum rng_health)ss.health),
				(unsigned long)ss.rct_fail, (unsigned long)ss.apt_fail,
				(unsigned long)ss.unmeasured, (unsigned long)ss.full_milli,
				(unsigned long)ss.full_age);
		kprintf("%s irq=%d trust=%s events=%s bits=%s tso_bits=%s credited=%s%s%s%s%s\r\n",
			ss.name, ss.irq, ss.trusted ? "trusted" : "untrusted", u64_str(e, ss.events),
			u64_str(b, ss.bits), u64_str(t, ss.tso_bits), u64_str(c, ss.credited), meas,
			ss.capture ? " capture=on" : "", more[0] ? " " : "", more);
	}
	return 0;
}
