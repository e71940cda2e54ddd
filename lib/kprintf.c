/* kprintf and panic_printf: format here, write through what kern/console.c plugs in. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "kprintf.h"

static kprintf_writer console_writer, panic_writer;
static char early[KPRINTF_EARLY_BYTES];
static size_t early_len;

void kprintf_set_writers(kprintf_writer write, kprintf_writer panic)
{
	console_writer = write;
	panic_writer = panic;
	if (early_len)
		write(early, early_len);
	early_len = 0;
}

/* vsnprintf into buf, clamped to what fits; -1 on a format error. */
static int format(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);
	if (n >= 0 && (size_t)n >= size)
		n = (int)size - 1;
	return n;
}

int kprintf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = format(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return n;
	if (console_writer) {
		console_writer(buf, (size_t)n);
	} else if (early_len + (size_t)n <= sizeof(early)) {
		memcpy(early + early_len, buf, (size_t)n);
		early_len += (size_t)n;
	}
	return n;
}

void panic_printf(const char *fmt, ...)
{
	static char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = format(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= 0 && panic_writer)
		panic_writer(buf, (size_t)n);
}
