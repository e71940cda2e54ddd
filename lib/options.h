/* Boot options from the multiboot command line (docs/PROTOCOL.md "Boot options"). */
#ifndef RAND86_OPTIONS_H
#define RAND86_OPTIONS_H
#include <stddef.h>
#include <stdint.h>
#include "lib/credit.h"

enum stream_mode { STREAM_RANDOM, STREAM_URANDOM, STREAM_OFF, STREAM_EGD };
enum ata_mode { ATA_UNTRUSTED, ATA_TRUSTED, ATA_OFF };
enum net_mode { NET_UNTRUSTED, NET_OFF };

struct boot_options {
	uint32_t hz;
	uint32_t rtc_hz;              /* the RTC's periodic rate, a power of two 2..8192; 0: off */
	int rtc_given;                /* rtc= was given; else the clock picks (OPT_RTC_HZ_*) */
	uint32_t baud;
	enum stream_mode stream;
	enum rng_estimator credit;
	enum ata_mode ata;
	int ata_given;                /* ata= was given; else it follows credit= (docs/PROTOCOL.md) */
	enum net_mode net;
	int ne2k_given;               /* ne2k=IO,IRQ was given: no default probe */
	uint32_t ne2k_io, ne2k_irq;
	char ne2k_word[24];           /* the ne2k= word as given, for a later warning */
	uint32_t record;              /* record=N: first N samples of each trusted source; 0: off */
	int rtc_jitter;               /* rtc_jitter=on: a test's stand-in for a real PC's rtc (devices.c) */
};

/* record=N's limit: SP 800-90B 3.1.4's restart test takes 1,000 samples a restart. */
#define OPT_RECORD_MAX 1000

/* The default RTC rate, by what times it (docs/ENTROPY.md, "The RTC"). */
#define OPT_RTC_HZ_TSC 4096
#define OPT_RTC_HZ_PIT 512

#define OPT_WORD_MAX 200               /* longer words are ignored, shown truncated */

void options_defaults(struct boot_options *o);
/* Parse `cmdline` into o. For each ignored word, warn(word, len, ctx) is
 * called with the whole word as given (len bytes in cmdline, not
 * NUL-terminated; it may be over OPT_WORD_MAX): showing it is the caller's.
 * The default stays in force. Words without '=' are skipped silently.
 * warn may be NULL: the same parse, no report. */
void options_parse(struct boot_options *o, const char *cmdline,
	void (*warn)(const char *word, size_t len, void *ctx), void *ctx);

const char *stream_mode_name(enum stream_mode m);
const char *credit_name(enum rng_estimator m);
#endif
