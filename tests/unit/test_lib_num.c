/* Host tests: number parsing (lib/num.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "lib/num.h"
#include "lib/fmt.h"

static void test_decimal_and_hex_parse(void **state)
{
	(void)state;
	uint32_t v = 0;
	assert_int_equal(parse_u32("0", &v), 0); assert_int_equal(v, 0);
	assert_int_equal(parse_u32("16777216", &v), 0); assert_int_equal(v, 16777216);
	assert_int_equal(parse_u32("0x300", &v), 0); assert_int_equal(v, 0x300);
	assert_int_equal(parse_u32("0XfF", &v), 0); assert_int_equal(v, 255);
	assert_int_equal(parse_u32("010", &v), 0); assert_int_equal(v, 10);   /* decimal, not octal */
	assert_int_equal(parse_u32("4294967295", &v), 0); assert_int_equal(v, 4294967295u);
}

static void test_junk_sign_space_and_overflow_are_rejected(void **state)
{
	(void)state;
	const char *bad[] = { "", "-1", "+1", " 1", "1 ", "1x", "0x", "0xg", "x1", "abc",
		"4294967296", "0x100000000", "99999999999999999999", "1.5", "0x-1",
		"0x0x10", "0X0x1", "0x 1", "0x+1", "1\n" };
	uint32_t v = 12345;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_u32(bad[i], &v) != -1)
			fail_msg("parse_u32 accepted '%s'", bad[i]);
		assert_int_equal(v, 12345);
	}
	assert_int_equal(parse_u32(NULL, &v), -1);
}

static void test_range_reports_out_of_range_separately(void **state)
{
	(void)state;
	uint32_t v = 7;
	assert_int_equal(parse_u32_range("0", 1, 10, &v), -2);
	assert_int_equal(parse_u32_range("11", 1, 10, &v), -2);
	assert_int_equal(parse_u32_range("z", 1, 10, &v), -1);
	assert_int_equal(v, 7);
	assert_int_equal(parse_u32_range("10", 1, 10, &v), 0);
	assert_int_equal(v, 10);
}

static void test_u64_str_formats_every_magnitude(void **state)
{
	(void)state;
	char b[U64_STR_LEN];
	assert_string_equal(u64_str(b, 0), "0");
	assert_string_equal(u64_str(b, 999999999), "999999999");
	assert_string_equal(u64_str(b, 1000000000), "1000000000");
	assert_string_equal(u64_str(b, 4294967296ull), "4294967296");
	assert_string_equal(u64_str(b, 1000000000000000000ull), "1000000000000000000");
	assert_string_equal(u64_str(b, UINT64_MAX), "18446744073709551615");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decimal_and_hex_parse),
		cmocka_unit_test(test_junk_sign_space_and_overflow_are_rejected),
		cmocka_unit_test(test_range_reports_out_of_range_separately),
		cmocka_unit_test(test_u64_str_formats_every_magnitude),
	};
	return cmocka_run_group_tests_name("lib/num", tests, NULL, NULL);
}
