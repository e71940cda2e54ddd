/* 64-bit decimal formatting for the nano printf, which lacks %llu. */
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
