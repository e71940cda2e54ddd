/* The number rule of docs/PROTOCOL.md written again for the fuzz targets to judge lib/num.c by. */
#ifndef FUZZ_ORACLE_H
#define FUZZ_ORACLE_H
#include <stdint.h>

/* Decimal, or hex after 0x/0X; digits only, at least one; fits 32 bits.
 * 0 and the value, -1 not a number, -2 out of [min, max]. */
static inline int oracle_number(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *p = hex ? s + 2 : s;
	uint64_t v = 0;
	if (!*p)
		return -1;
	for (; *p; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : !hex ? -1 :
			*p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * (hex ? 16 : 10) + (unsigned)d;
		if (v > 0xFFFFFFFFu)
			return -1;
	}
	*out = (uint32_t)v;
	return v < min || v > max ? -2 : 0;
}
#endif
