/* Boot option parser: `key=value` words, warnings for anything unknown or bad. */
#include <string.h>
#include "options.h"
#include "num.h"

void options_defaults(struct boot_options *o)
{
	memset(o, 0, sizeof(*o));
	o->hz = 100;
	o->rtc_hz = OPT_RTC_HZ_TSC;
	o->baud = 115200;
	o->stream = STREAM_RANDOM;
	o->credit = RNG_CREDIT_MEASURED;
	o->ata = ATA_TRUSTED;              /* measured: disks credited behind the cap */
	o->net = NET_UNTRUSTED;
	o->ne2k_io = 0x300;
	o->ne2k_irq = 9;
}

static const char *const stream_names[] = { "random", "urandom", "off", "egd" };
static const char *const credit_names[] = {
	[RNG_CREDIT_XYMORON] = "xymoron", [RNG_CREDIT_TSO] = "tso", [RNG_CREDIT_MEASURED] = "measured",
};
static const char *const ata_names[] = { "untrusted", "trusted", "off" };
static const char *const net_names[] = { "untrusted", "off" };
static const char *const off_on_names[] = { "off", "on" };

const char *stream_mode_name(enum stream_mode m) { return stream_names[m]; }
const char *credit_name(enum rng_estimator m) { return credit_names[m]; }

static int pick(const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return i;
	return -1;
}

/* 16550 divisors of 115200: only rates the UART can produce exactly. */
static int baud_ok(uint32_t b)
{
	return b >= 1200 && b <= 115200 && 115200 % b == 0;
}

/* rtc=off, or a rate the RTC's divider makes: a power of two 2..8192. */
static int parse_rtc(const char *v, struct boot_options *o)
{
	uint32_t n;
	if (strcmp(v, "off") == 0) {
		n = 0;
	} else if (parse_u32_range(v, 2, 8192, &n) < 0 || (n & (n - 1))) {
		return -1;
	}
	o->rtc_hz = n;
	o->rtc_given = 1;
	return 0;
}

/* ne2k=IO,IRQ: an ISA I/O base (0x200..0x3E0, 32-byte aligned) and IRQ 2..15. */
static int parse_ne2k(char *v, struct boot_options *o)
{
	char *comma = strchr(v, ',');
	uint32_t io, irq;
	char word[sizeof(o->ne2k_word)];
	if (!comma || strlen(v) + 6 > sizeof(word))
		return -1;
	memcpy(word, "ne2k=", 5);
	memcpy(word + 5, v, strlen(v) + 1);
	*comma = '\0';
	if (parse_u32_range(v, 0x200, 0x3E0, &io) < 0 || (io & 0x1F) ||
	    parse_u32_range(comma + 1, 2, 15, &irq) < 0)
		return -1;
	memcpy(o->ne2k_word, word, sizeof(word));
	o->ne2k_given = 1;
	o->ne2k_io = io;
	o->ne2k_irq = irq;
	return 0;
}

/* Apply one key=value word (modified in place); -1 if it is to be ignored. */
static int apply(struct boot_options *o, char *word)
{
	char *eq = strchr(word, '=');
	char *v = eq + 1;
	uint32_t n;
	int i;
	*eq = '\0';
	if (strcmp(word, "hz") == 0) {
		if (parse_u32_range(v, 18, 1000, &n) < 0)
			return -1;
		o->hz = n;
	} else if (strcmp(word, "baud") == 0) {
		if (parse_u32(v, &n) < 0 || !baud_ok(n))
			return -1;
		o->baud = n;
	} else if (strcmp(word, "stream") == 0) {
		if ((i = pick(v, stream_names, 4)) < 0)
			return -1;
		o->stream = (enum stream_mode)i;
	} else if (strcmp(word, "credit") == 0) {
		if ((i = pick(v, credit_names, 3)) < 0)
			return -1;
		o->credit = (enum rng_estimator)i;
	} else if (strcmp(word, "ata") == 0) {
		if ((i = pick(v, ata_names, 3)) < 0)
			return -1;
		o->ata = (enum ata_mode)i;
		o->ata_given = 1;
	} else if (strcmp(word, "net") == 0) {
		if ((i = pick(v, net_names, 2)) < 0)
			return -1;
		o->net = (enum net_mode)i;
	} else if (strcmp(word, "record") == 0) {
		if (parse_u32_range(v, 1, OPT_RECORD_MAX, &n) < 0)
			return -1;
		o->record = n;
	} else if (strcmp(word, "rtc_jitter") == 0) {
		if ((i = pick(v, off_on_names, 2)) < 0)
			return -1;
		o->rtc_jitter = i;
	} else if (strcmp(word, "ne2k") == 0) {
		return parse_ne2k(v, o);
	} else if (strcmp(word, "rtc") == 0) {
		return parse_rtc(v, o);
	} else {
		return -1;
	}
	return 0;
}

void options_parse(struct boot_options *o, const char *cmdline,
	void (*warn)(const char *word, size_t len, void *ctx), void *ctx)
{
	char word[OPT_WORD_MAX + 1];
	const char *p = cmdline;
	if (!p)
		return;
	for (;;) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		const char *w = p;
		size_t len = strcspn(p, " \t");
		p += len;
		if (!memchr(w, '=', len))
			continue;                 /* the kernel path, or a bare word */
		/* No option is that long: an overlong word is ignored unparsed. */
		int applied = 0;
		if (len <= OPT_WORD_MAX) {
			memcpy(word, w, len);
			word[len] = '\0';
			applied = apply(o, word) == 0;
		}
		if (!applied && warn)
			warn(w, len, ctx);
	}
	/* Without ata=, disks are trusted only where measurement caps them:
	 * xymoron and tso replay 2002 with the seed's set of sources. */
	if (!o->ata_given)
		o->ata = o->credit == RNG_CREDIT_MEASURED ? ATA_TRUSTED : ATA_UNTRUSTED;
}
