/* Output formatting: 64-bit decimals (nano printf has no %llu), and outside text made printable. */
#ifndef RAND86_FMT_H
#define RAND86_FMT_H
#include <stddef.h>
#include <stdint.h>
#define U64_STR_LEN 21
/* Writes v in decimal into buf and returns buf. */
char *u64_str(char buf[U64_STR_LEN], uint64_t v);

/* A byte shown as itself is printable ASCII; any other as `\xHH`, lowercase
 * hex (docs/PROTOCOL.md "Replies"), so FMT_ESC_LEN output chars at most. */
#define FMT_PRINT_FIRST 0x20
#define FMT_PRINT_LAST  0x7E
#define FMT_ESC_LEN 4
/*
 * Text that came from outside (boot words, disk model strings, console
 * words) as it may be echoed: in[0..n) into out, NUL-terminated, at most
 * size-1 chars, never an escape cut in half. Returns how many bytes of in
 * were shown (less than n only when out was full), so a caller can print
 * a long text in pieces.
 */
size_t fmt_printable(char *out, size_t size, const char *in, size_t n);
#endif
