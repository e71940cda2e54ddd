/* x86 port I/O: the one place it is defined. */
#ifndef RAND86_IO_H
#define RAND86_IO_H
#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint16_t inw(uint16_t port) { uint16_t v; __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint32_t inl(uint16_t port) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline void insw(uint16_t port, void *buf, uint32_t count)
{
	__asm__ volatile("rep insw" : "+D"(buf), "+c"(count) : "d"(port) : "memory");
}
/* About 1 us on ISA: a write to the POST diagnostic port. */
#define IO_POST_PORT 0x80
static inline void io_delay(void) { outb(IO_POST_PORT, 0); }
#endif
