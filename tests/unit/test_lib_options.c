/* Host tests: the boot option parser (lib/options.c, docs/PROTOCOL.md "Boot options"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "lib/options.h"

/* The first 16 warnings: up to OPT_WORD_MAX bytes of each word and its whole length. */
struct warnings { int n; char words[16][OPT_WORD_MAX + 1]; size_t lens[16]; };

static void collect(const char *word, size_t len, void *ctx)
{
	struct warnings *w = ctx;
	if (w->n < 16) {
		size_t keep = len > OPT_WORD_MAX ? OPT_WORD_MAX : len;
		memcpy(w->words[w->n], word, keep);
		w->words[w->n][keep] = '\0';
		w->lens[w->n] = len;
	}
	w->n++;
}

static struct boot_options parse(const char *line, struct warnings *w)
{
	struct boot_options o;
	memset(w, 0, sizeof(*w));
	options_defaults(&o);
	options_parse(&o, line, collect, w);
	return o;
}

static void test_defaults_match_spec(void **state)
{
	(void)state;
	struct warnings w;
	struct boot_options o = parse("", &w);
	assert_int_equal(o.hz, 100);
	assert_int_equal(o.baud, 115200);
	assert_int_equal(o.stream, STREAM_RANDOM);
	assert_int_equal(o.credit, RNG_CREDIT_MEASURED);
	assert_int_equal(o.ata, ATA_TRUSTED);
	assert_int_equal(o.net, NET_UNTRUSTED);
	assert_int_equal(o.ne2k_given, 0);
	assert_int_equal(o.rtc_given, 0);           /* the clock picks: kern/devices.c */
	assert_int_equal(o.record, 0);              /* no record without record= */
	assert_int_equal(w.n, 0);
}

/* record=N: 1..1000, SP 800-90B 3.1.4's 1,000 samples a restart at most. */
static void test_record_takes_1_to_1000(void **state)
{
	(void)state;
	struct warnings w;
	assert_int_equal(parse("record=1", &w).record, 1);
	assert_int_equal(parse("record=1000", &w).record, 1000);
	assert_int_equal(parse("record=0x3e8", &w).record, 1000);
	assert_int_equal(w.n, 0);
}

/* rtc: off, or every rate the divider makes, 2 = 32768 >> 14 .. 8192 >> 0. */
static void test_rtc_takes_off_and_every_divider_rate(void **state)
{
	(void)state;
	struct warnings w;
	char word[16];
	for (uint32_t hz = 2; hz <= 8192; hz *= 2) {
		snprintf(word, sizeof(word), "rtc=%u", (unsigned)hz);
		struct boot_options o = parse(word, &w);
		assert_int_equal(w.n, 0);
		assert_int_equal(o.rtc_hz, hz);
		assert_int_equal(o.rtc_given, 1);
	}
	struct boot_options o = parse("rtc=off", &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(o.rtc_hz, 0);
	assert_int_equal(o.rtc_given, 1);
	o = parse("rtc=off rtc=512", &w);           /* the last word wins, as for every key */
	assert_int_equal(o.rtc_hz, 512);
}

static void test_ata_default_follows_credit_unless_given(void **state)
{
	(void)state;
	struct warnings w;
	struct boot_options o = parse("credit=xymoron", &w);
	assert_int_equal(o.credit, RNG_CREDIT_XYMORON);
	assert_int_equal(o.ata, ATA_UNTRUSTED);
	o = parse("credit=tso", &w);
	assert_int_equal(o.ata, ATA_UNTRUSTED);
	o = parse("credit=measured", &w);
	assert_int_equal(o.credit, RNG_CREDIT_MEASURED);
	assert_int_equal(o.ata, ATA_TRUSTED);
	o = parse("ata=trusted credit=xymoron", &w);
	assert_int_equal(o.ata, ATA_TRUSTED);
	o = parse("credit=measured ata=untrusted", &w);
	assert_int_equal(o.ata, ATA_UNTRUSTED);
	o = parse("credit=bogus", &w);              /* default kept: measured */
	assert_int_equal(w.n, 1);
	assert_int_equal(o.credit, RNG_CREDIT_MEASURED);
	assert_int_equal(o.ata, ATA_TRUSTED);
	assert_int_equal(w.n, 1);
	assert_string_equal(credit_name(RNG_CREDIT_MEASURED), "measured");
}

static void test_kernel_path_and_bare_words_are_skipped(void **state)
{
	(void)state;
	struct warnings w;
	struct boot_options o = parse("/boot/rand86.elf quiet  hz=250", &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(o.hz, 250);
}

static void test_every_option_parses(void **state)
{
	(void)state;
	struct warnings w;
	struct boot_options o = parse("k hz=1000 baud=9600 stream=urandom credit=tso ata=trusted "
		"net=off ne2k=0x320,10", &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(o.hz, 1000);
	assert_int_equal(o.baud, 9600);
	assert_int_equal(o.stream, STREAM_URANDOM);
	assert_int_equal(o.credit, RNG_CREDIT_TSO);
	assert_int_equal(o.ata, ATA_TRUSTED);
	assert_int_equal(o.net, NET_OFF);
	assert_int_equal(o.ne2k_given, 1);
	assert_int_equal(o.ne2k_io, 0x320);
	assert_int_equal(o.ne2k_irq, 10);
	assert_string_equal(o.ne2k_word, "ne2k=0x320,10");   /* for a later warning */
	o = parse("stream=off ata=off hz=18 baud=1200 ne2k=768,9", &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(o.stream, STREAM_OFF);
	assert_int_equal(o.ata, ATA_OFF);
	assert_int_equal(o.hz, 18);
	assert_int_equal(o.baud, 1200);
	assert_int_equal(o.ne2k_io, 0x300);
}

static void test_bad_values_warn_and_keep_defaults(void **state)
{
	(void)state;
	const char *bad[] = { "hz=17", "hz=1001", "hz=", "hz=1e3", "baud=300", "baud=115201",
		"baud=50000", "stream=fast", "credit=linus", "ata=maybe", "net=trusted",
		"ne2k=0x300", "ne2k=0x300,16", "ne2k=0x301,9", "ne2k=,9", "colour=blue", "=5", "HZ=100",
		"rtc=1", "rtc=3", "rtc=1000", "rtc=16384", "rtc=0", "rtc=", "rtc=OFF", "rtc=0x3ff",
		"rtc=-4096", "record=0", "record=1001", "record=", "record=all" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct warnings w;
		struct boot_options o = parse(bad[i], &w), d;
		options_defaults(&d);
		if (w.n != 1 || strcmp(w.words[0], bad[i]) != 0)
			fail_msg("'%s': %d warnings, first '%s'", bad[i], w.n, w.n ? w.words[0] : "");
		if (memcmp(&o, &d, sizeof(o)) != 0)
			fail_msg("'%s' changed the options", bad[i]);
	}
}

static void test_bad_word_does_not_stop_later_words(void **state)
{
	(void)state;
	struct warnings w;
	struct boot_options o = parse("hz=5 foo=bar hz=300 stream=off", &w);
	assert_int_equal(w.n, 2);
	assert_string_equal(w.words[0], "hz=5");
	assert_string_equal(w.words[1], "foo=bar");
	assert_int_equal(o.hz, 300);
	assert_int_equal(o.stream, STREAM_OFF);
}

/* docs/PROTOCOL.md, "Boot options": hex numbers, and a repeated key's
 * last good value wins while a bad one leaves what was in force. */
static void test_hex_numbers_and_repeated_keys(void **state)
{
	(void)state;
	struct warnings w;
	struct boot_options o = parse("hz=0xfa baud=0x2580", &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(o.hz, 250);
	assert_int_equal(o.baud, 9600);
	o = parse("hz=250 hz=500", &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(o.hz, 500);
	o = parse("hz=250 hz=5", &w);
	assert_int_equal(w.n, 1);
	assert_int_equal(o.hz, 250);
}

static void test_overlong_word_is_warned_whole(void **state)
{
	(void)state;
	char line[600];
	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	line[3] = '=';
	struct warnings w;
	parse(line, &w);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.lens[0], sizeof(line) - 1);
}

static void test_overlong_word_with_equals_after_200_is_warned(void **state)
{
	(void)state;
	char line[300];
	memset(line, 'x', 210);
	strcpy(line + 210, "=1 hz=50");
	struct warnings w;
	struct boot_options o = parse(line, &w);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.lens[0], 212);
	assert_int_equal(o.hz, 50);
}

static void test_overlong_valid_looking_word_is_not_applied(void **state)
{
	(void)state;
	char line[300] = "hz=";
	memset(line + 3, '0', 250);
	strcpy(line + 253, "50");                  /* hz=000...050: 50, but 255 long */
	struct warnings w;
	struct boot_options o = parse(line, &w);
	assert_int_equal(w.n, 1);
	assert_int_equal(o.hz, 100);
}

static void test_every_bad_word_is_reported_however_many(void **state)
{
	(void)state;
	static char line[8000];
	size_t at = 0;
	for (int i = 0; i < 700; i++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "k%d=v ", i);
	struct warnings w;
	parse(line, &w);
	assert_int_equal(w.n, 700);
	assert_string_equal(w.words[15], "k15=v");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_match_spec),
		cmocka_unit_test(test_hex_numbers_and_repeated_keys),
		cmocka_unit_test(test_record_takes_1_to_1000),
		cmocka_unit_test(test_rtc_takes_off_and_every_divider_rate),
		cmocka_unit_test(test_ata_default_follows_credit_unless_given),
		cmocka_unit_test(test_kernel_path_and_bare_words_are_skipped),
		cmocka_unit_test(test_every_option_parses),
		cmocka_unit_test(test_bad_values_warn_and_keep_defaults),
		cmocka_unit_test(test_bad_word_does_not_stop_later_words),
		cmocka_unit_test(test_overlong_word_is_warned_whole),
		cmocka_unit_test(test_overlong_word_with_equals_after_200_is_warned),
		cmocka_unit_test(test_overlong_valid_looking_word_is_not_applied),
		cmocka_unit_test(test_every_bad_word_is_reported_however_many),
	};
	return cmocka_run_group_tests_name("lib/options", tests, NULL, NULL);
}
