/* Host tests: outside text made printable (lib/fmt.c, docs/PROTOCOL.md "Replies"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "lib/fmt.h"

/* in (n bytes) shown into a buffer of `size`; checks the text and bytes shown. */
static void check(const char *in, size_t n, size_t size, const char *want, size_t want_used)
{
	char out[256];
	memset(out, '#', sizeof(out));
	size_t used = fmt_printable(out, size, in, n);
	if (strcmp(out, want) != 0 || used != want_used)
		fail_msg("shown '%s' (%zu bytes used), want '%s' (%zu)", out, used, want, want_used);
}

static void test_printable_ascii_is_shown_as_itself(void **state)
{
	(void)state;
	check("hz=50 ~!\"'\\", 11, 64, "hz=50 ~!\"'\\", 11);
}

static void test_bytes_outside_0x20_to_0x7e_become_lowercase_hex_escapes(void **state)
{
	(void)state;
	check("\x1f\x20\x7e\x7f", 4, 64, "\\x1f ~\\x7f", 4);
	check("\x80\xAB\xff", 3, 64, "\\x80\\xab\\xff", 3);
	check("a\0b", 3, 64, "a\\x00b", 3);                  /* a NUL is a byte like any */
	check("\r\n\t", 3, 64, "\\x0d\\x0a\\x09", 3);
}

static void test_boot_words_from_the_report_are_escaped(void **state)
{
	(void)state;
	check("e=\x1b[2J\x1b[31mRED", 14, 64, "e=\\x1b[2J\\x1b[31mRED", 14);
	check("x=\x07\x08\x08\x08\x7f", 7, 64, "x=\\x07\\x08\\x08\\x08\\x7f", 7);
	check("z=\x03\x03", 4, 64, "z=\\x03\\x03", 4);
}

static void test_disk_model_with_control_bytes_is_escaped(void **state)
{
	(void)state;
	/* an IDENTIFY model string as QEMU's model=\e[31mEVIL\a\x01é gives it */
	check("\x1b[31mEVIL\x07\x01\xc3\xa9", 13, 64, "\\x1b[31mEVIL\\x07\\x01\\xc3\\xa9", 13);
}

static void test_full_buffer_stops_before_an_escape_it_cannot_hold(void **state)
{
	(void)state;
	check("ab\x01" "cd", 5, 6, "ab", 2);          /* "ab\x01" needs 6 chars + NUL */
	check("ab\x01" "cd", 5, 7, "ab\\x01", 3);
	check("abc", 3, 1, "", 0);
	check("abc", 3, 3, "ab", 2);
}

static void test_long_text_shown_in_pieces_loses_nothing(void **state)
{
	(void)state;
	const char *in = "\x1b[31mRED\x07";
	size_t n = strlen(in);
	char piece[6], all[64] = "";
	while (n) {
		size_t k = fmt_printable(piece, sizeof(piece), in, n);
		assert_true(k > 0);
		strcat(all, piece);
		in += k;
		n -= k;
	}
	assert_string_equal(all, "\\x1b[31mRED\\x07");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_printable_ascii_is_shown_as_itself),
		cmocka_unit_test(test_bytes_outside_0x20_to_0x7e_become_lowercase_hex_escapes),
		cmocka_unit_test(test_boot_words_from_the_report_are_escaped),
		cmocka_unit_test(test_disk_model_with_control_bytes_is_escaped),
		cmocka_unit_test(test_full_buffer_stops_before_an_escape_it_cannot_hold),
		cmocka_unit_test(test_long_text_shown_in_pieces_loses_nothing),
	};
	return cmocka_run_group_tests_name("lib/fmt", tests, NULL, NULL);
}
