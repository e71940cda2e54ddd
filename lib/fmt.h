/* 64-bit decimal formatting: newlib's nano printf has no %llu. */
#ifndef RAND86_FMT_H
#define RAND86_FMT_H
#include <stdint.h>
#define U64_STR_LEN 21
/* Writes v in decimal into buf and returns buf. */
char *u64_str(char buf[U64_STR_LEN], uint64_t v);
#endif
