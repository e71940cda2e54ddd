/* Number parsing for boot options and console commands. */
#include <errno.h>
#include <stdlib.h>
#include "num.h"

int parse_u32(const char *s, uint32_t *out)
{
	int base = 10;
	const char *digits = s;
	if (!s || !*s)
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		digits = s + 2;
	}
	/* strtoul would accept leading space, a sign, "0x" alone, and (base 16)
	 * a second "0x" after ours: every character must be a digit. */
	for (const char *q = digits;; q++) {
		char c = *q;
		int ok = (c >= '0' && c <= '9') ||
			(base == 16 && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
		if (!ok) {
			if (q == digits || c != '\0')
				return -1;
			break;
		}
	}
	char *end;
	errno = 0;
	unsigned long v = strtoul(digits, &end, base);
	if (*end != '\0' || errno == ERANGE || v > 0xFFFFFFFFul)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int parse_u32_range(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint32_t v;
	if (parse_u32(s, &v) < 0)
		return -1;
	if (v < min || v > max)
		return -2;
	*out = v;
	return 0;
}
