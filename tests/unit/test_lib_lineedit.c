/* Host tests: the console line editor (lib/lineedit.c, docs/PROTOCOL.md "Console"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "lib/lineedit.h"

struct run { enum le_event last; int lines, cancels, toolong; char echo[4096]; size_t elen; char line[256]; };

static struct run feed(struct lineedit *le, const char *bytes, size_t n)
{
	struct run r;
	memset(&r, 0, sizeof(r));
	for (size_t i = 0; i < n; i++) {
		char out[4];
		size_t ol;
		r.last = le_feed(le, (uint8_t)bytes[i], out, &ol);
		if (r.elen + ol < sizeof(r.echo)) {
			memcpy(r.echo + r.elen, out, ol);
			r.elen += ol;
		}
		if (r.last == LE_LINE) {
			r.lines++;
			strcpy(r.line, le->buf);
			le_reset(le);
		} else if (r.last == LE_CANCEL) {
			r.cancels++;
		} else if (r.last == LE_TOO_LONG) {
			r.toolong++;
		}
	}
	return r;
}
#define FEED(le, s) feed(le, s, sizeof(s) - 1)

static void test_printable_is_echoed_and_cr_ends_line(void **state)
{
	(void)state;
	struct lineedit le = {0};
	struct run r = FEED(&le, "status\r");
	assert_int_equal(r.lines, 1);
	assert_string_equal(r.line, "status");
	assert_int_equal(r.elen, 8);
	assert_memory_equal(r.echo, "status\r\n", 8);
}

static void test_crlf_ends_one_line_and_lf_alone_ends_one(void **state)
{
	(void)state;
	struct lineedit le = {0};
	struct run r = FEED(&le, "a\r\nb\nc\r\r");
	assert_int_equal(r.lines, 4);       /* a, b, c and one empty line from the second CR */
	le_reset(&le);
	r = FEED(&le, "\r\n\r\n");
	assert_int_equal(r.lines, 2);
}

static void test_backspace_and_delete_erase_one_char(void **state)
{
	(void)state;
	struct lineedit le = {0};
	struct run r = FEED(&le, "helx\x08p\x7f\x7flp\r");
	assert_int_equal(r.lines, 1);
	assert_string_equal(r.line, "help");
	le_reset(&le);
	r = FEED(&le, "\x08\x08" "a\r");        /* erase on empty line echoes nothing */
	assert_string_equal(r.line, "a");
	assert_memory_equal(r.echo, "a\r\n", 3);
}

static void test_ctrl_c_drops_the_line(void **state)
{
	(void)state;
	struct lineedit le = {0};
	struct run r = FEED(&le, "halt 3\x03status\r");
	assert_int_equal(r.cancels, 1);
	assert_int_equal(r.lines, 1);
	assert_string_equal(r.line, "status");
}

static void test_control_and_high_bytes_are_ignored(void **state)
{
	(void)state;
	struct lineedit le = {0};
	struct run r = feed(&le, "st\x01\x1b\x80\xff\x09" "at\r", 10);
	assert_int_equal(r.lines, 1);
	assert_string_equal(r.line, "stat");
	assert_memory_equal(r.echo, "stat\r\n", 6);
}

static void test_line_of_200_is_kept_and_201_is_discarded(void **state)
{
	(void)state;
	char buf[260];
	struct lineedit le = {0};
	memset(buf, 'a', 200);
	buf[200] = '\r';
	struct run r = feed(&le, buf, 201);
	assert_int_equal(r.lines, 1);
	assert_int_equal(strlen(r.line), 200);
	memset(buf, 'b', 250);
	buf[250] = '\r';
	r = feed(&le, buf, 251);
	assert_int_equal(r.lines, 0);
	assert_int_equal(r.toolong, 1);
	assert_int_equal(r.elen, 202);     /* 200 echoed, then CRLF: nothing past the limit */
	r = FEED(&le, "ok\r");             /* the editor is usable again */
	assert_string_equal(r.line, "ok");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_printable_is_echoed_and_cr_ends_line),
		cmocka_unit_test(test_crlf_ends_one_line_and_lf_alone_ends_one),
		cmocka_unit_test(test_backspace_and_delete_erase_one_char),
		cmocka_unit_test(test_ctrl_c_drops_the_line),
		cmocka_unit_test(test_control_and_high_bytes_are_ignored),
		cmocka_unit_test(test_line_of_200_is_kept_and_201_is_discarded),
	};
	return cmocka_run_group_tests_name("lib/lineedit", tests, NULL, NULL);
}
