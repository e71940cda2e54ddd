/* Output formatting: 64-bit decimals for the nano printf, which lacks %llu; outside text made printable. */
#include <stdio.h>
#include "fmt.h"

char *u64_str(char buf[U64_STR_LEN], uint64_t v)
{
	/* Split at 10^9 so each part fits the unsigned long that nano's %lu takes. */
	uint32_t lo = (uint32_t)(v % 1000000000u);
	uint64_t hi = v / 1000000000u;
	if (hi == 0)
		snprintf(buf, U64_STR_LEN, "%lu", (unsigned long)lo);
	else if (hi < 1000000000u)
		snprintf(buf, U64_STR_LEN, "%lu%09lu", (unsigned long)hi, (unsigned long)lo);
	else
		snprintf(buf, U64_STR_LEN, "%lu%09lu%09lu", (unsigned long)(hi / 1000000000u),
			(unsigned long)(hi % 1000000000u), (unsigned long)lo);
	return buf;
}

size_t fmt_printable(char *out, size_t size, const char *in, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;
	if (size == 0)
		return 0;
	for (i = 0; i < n; i++) {
		uint8_t c = (uint8_t)in[i];
		int plain = c >= FMT_PRINT_FIRST && c <= FMT_PRINT_LAST;
		if (o + (plain ? 1 : FMT_ESC_LEN) >= size)
			break;
		if (plain) {
			out[o++] = (char)c;
			continue;
		}
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[c >> 4];
		out[o++] = hex[c & 0xF];
	}
	out[o] = '\0';
	return i;
}
