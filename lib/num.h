/* The one place that parses numbers: decimal or 0x hex, whole string. */
#ifndef RAND86_NUM_H
#define RAND86_NUM_H
#include <stdint.h>
/* Returns 0 and stores the value, or -1 for anything but a plain unsigned
 * decimal or 0x-hex number that fits 32 bits (no sign, no spaces, no junk). */
int parse_u32(const char *s, uint32_t *out);
/* Same, and the value must lie in [min, max]: -1 if not a number, -2 if out of range. */
int parse_u32_range(const char *s, uint32_t min, uint32_t max, uint32_t *out);
#endif
