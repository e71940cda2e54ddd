/* libFuzzer target: the multiboot command line, through lib/options.c and kern/options.c's warnings. */
/*
 * Input: the command line (a NUL ends it early, as it would in memory).
 * Invariants: the options in force are what docs/PROTOCOL.md's rules
 * (written again here, word by word, the last word of a key winning)
 * give; the silent parse at boot and the reporting one agree; there is
 * one warning per ignored `key=value` word, in order, showing the word
 * escaped (nothing outside 0x20-0x7E raw) and cut to 200 chars with
 * "..." after; nothing else is printed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_pc.h"
#include "fuzz_oracle.h"
#include "kern/options.c"

static const char *const streams[] = { "random", "urandom", "off", "egd" };
static const char *const credits[] = { "xymoron", "tso", "measured" };
static const char *const atas[] = { "untrusted", "trusted", "off" };
static const char *const nets[] = { "untrusted", "off" };
static const char *const off_on[] = { "off", "on" };

static int one_of(const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return i;
	return -1;
}

/* The rule for one key=value word of at most 200 chars (NUL-terminated
 * copy): 0 and o updated, or -1 when it is ignored. */
static int oracle_word(struct boot_options *o, char *w)
{
	char *eq = strchr(w, '='), *v = eq + 1;
	uint32_t n, irq;
	int i;
	*eq = '\0';
	if (!strcmp(w, "hz") && oracle_number(v, 18, 1000, &n) == 0) {
		o->hz = n;
	} else if (!strcmp(w, "baud") && oracle_number(v, 1200, 115200, &n) == 0 && 115200 % n == 0) {
		o->baud = n;
	} else if (!strcmp(w, "record") && oracle_number(v, 1, 1000, &n) == 0) {
		o->record = n;
	} else if (!strcmp(w, "stream") && (i = one_of(v, streams, 4)) >= 0) {
		o->stream = (enum stream_mode)i;
	} else if (!strcmp(w, "credit") && (i = one_of(v, credits, 3)) >= 0) {
		o->credit = (enum rng_estimator)i;
	} else if (!strcmp(w, "ata") && (i = one_of(v, atas, 3)) >= 0) {
		o->ata = (enum ata_mode)i;
		o->ata_given = 1;
	} else if (!strcmp(w, "net") && (i = one_of(v, nets, 2)) >= 0) {
		o->net = (enum net_mode)i;
	} else if (!strcmp(w, "rtc_jitter") && (i = one_of(v, off_on, 2)) >= 0) {
		o->rtc_jitter = i;
	} else if (!strcmp(w, "rtc") && (!strcmp(v, "off") ||
		   (oracle_number(v, 2, 8192, &n) == 0 && !(n & (n - 1))))) {
		o->rtc_hz = strcmp(v, "off") ? n : 0;
		o->rtc_given = 1;
	} else if (!strcmp(w, "ne2k")) {
		/* IO,IRQ: 0x200..0x3E0 on a 32-byte boundary, IRQ 2..15; the
		 * word is kept for a later warning, so it must fit its 24 bytes */
		char *comma = strchr(v, ',');
		if (!comma || strlen(v) + 5 >= sizeof(o->ne2k_word))
			return -1;
		*comma = '\0';
		if (oracle_number(v, 0x200, 0x3E0, &n) || (n & 0x1F) || oracle_number(comma + 1, 2, 15, &irq))
			return -1;
		*comma = ',';
		snprintf(o->ne2k_word, sizeof(o->ne2k_word), "ne2k=%s", v);
		o->ne2k_given = 1;
		o->ne2k_io = n;
		o->ne2k_irq = irq;
	} else {
		return -1;
	}
	return 0;
}

static const char *expect_text(const char *p, const char *want)
{
	size_t n = strlen(want);
	FUZZ_CHECK(strncmp(p, want, n) == 0, "printed '%.60s', expected '%s'", p, want);
	return p + n;
}

/* The warning for word w (len bytes) at p in the log; returns what follows it. */
static const char *expect_warning(const char *p, const char *w, size_t len)
{
	size_t shown = len > OPT_WORD_MAX ? OPT_WORD_MAX : len;
	p = expect_text(p, "warning: ignoring boot option '");
	for (size_t i = 0; i < shown; i++) {
		uint8_t c = (uint8_t)w[i];
		char esc[5];
		if (c >= 0x20 && c <= 0x7E) {
			FUZZ_CHECK(*p == (char)c, "word byte %zu shown as '%.8s'", i, p);
			p++;
			continue;
		}
		snprintf(esc, sizeof(esc), "\\x%02x", c);
		p = expect_text(p, esc);
	}
	return expect_text(p, len > OPT_WORD_MAX ? "...'\r\n" : "'\r\n");
}

/* Nothing printed raw: every warning byte printable, or CR LF. */
static void check_log_printable(void)
{
	FUZZ_CHECK(pc_log_total < sizeof(pc_log), "%zu bytes of warnings", pc_log_total);
	pc_log[pc_log_len] = '\0';
	for (size_t i = 0; i < pc_log_len; i++)
		FUZZ_CHECK(((uint8_t)pc_log[i] >= 0x20 && (uint8_t)pc_log[i] <= 0x7E) || pc_log[i] == '\r' ||
			pc_log[i] == '\n', "byte 0x%02x printed raw", (uint8_t)pc_log[i]);
}

/* The rules applied by hand to each word; every word they refuse is
 * warned, in order, and nothing else is printed. */
static void oracle_line(const char *line, struct boot_options *want)
{
	char word[OPT_WORD_MAX + 1];
	const char *log = pc_log;
	options_defaults(want);
	for (const char *p = line; *p;) {
		size_t len;
		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		for (len = 0; p[len] && p[len] != ' ' && p[len] != '\t'; len++)
			;
		if (memchr(p, '=', len)) {
			int ok = len <= OPT_WORD_MAX;
			if (ok) {
				memcpy(word, p, len);
				word[len] = '\0';
				ok = oracle_word(want, word) == 0;
			}
			if (!ok)
				log = expect_warning(log, p, len);
		}
		p += len;
	}
	FUZZ_CHECK(*log == '\0', "printed more: '%.60s'", log);
	if (!want->ata_given)
		want->ata = want->credit == RNG_CREDIT_MEASURED ? ATA_TRUSTED : ATA_UNTRUSTED;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	struct boot_options want;
	memcpy(line, data, size);
	line[size] = '\0';
	pc_reset();
	pc_log[0] = '\0';
	kern_options_init(line);
	kern_options_warn();
	check_log_printable();
	oracle_line(line, &want);
	FUZZ_CHECK(want.hz == boot_opts.hz && want.baud == boot_opts.baud && want.rtc_hz == boot_opts.rtc_hz
		&& want.rtc_given == boot_opts.rtc_given && want.stream == boot_opts.stream
		&& want.credit == boot_opts.credit && want.ata == boot_opts.ata
		&& want.ata_given == boot_opts.ata_given && want.net == boot_opts.net
		&& want.record == boot_opts.record && want.rtc_jitter == boot_opts.rtc_jitter
		&& want.ne2k_given == boot_opts.ne2k_given && want.ne2k_io == boot_opts.ne2k_io
		&& want.ne2k_irq == boot_opts.ne2k_irq && !strcmp(want.ne2k_word, boot_opts.ne2k_word),
		"options in force differ from the rules: hz %u/%u baud %u/%u rtc %u/%u stream %d/%d "
		"credit %d/%d ata %d/%d net %d/%d record %u/%u rtc_jitter %d/%d ne2k %u,%u/%u,%u '%s'/'%s'", want.hz,
		boot_opts.hz, want.baud, boot_opts.baud, want.rtc_hz, boot_opts.rtc_hz, want.stream,
		boot_opts.stream, want.credit, boot_opts.credit, want.ata, boot_opts.ata, want.net,
		boot_opts.net, want.record, boot_opts.record, want.rtc_jitter, boot_opts.rtc_jitter, want.ne2k_io, want.ne2k_irq,
		boot_opts.ne2k_io, boot_opts.ne2k_irq, want.ne2k_word, boot_opts.ne2k_word);
	free(line);
	return 0;
}
