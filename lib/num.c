/* Number parsing for boot options and console commands. */
#include "num.h"

/* The value of digit c in base 10 or 16, or -1. */
static int digit(char c, uint32_t base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decimal, or hex after "0x": every character a digit, at least one, no
 * sign or space, at most 0xFFFFFFFF. (newlib's strtoul would accept
 * leading space, a sign and a second "0x", and brings 1 KB of ctype
 * tables into the image.) */
int parse_u32(const char *s, uint32_t *out)
{
	uint32_t base = 10, v = 0;
	if (!s || !*s)
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		int d = digit(*s, base);
		if (d < 0 || v > (0xFFFFFFFFu - (uint32_t)d) / base)
			return -1;
		v = v * base + (uint32_t)d;
	}
	*out = v;
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
