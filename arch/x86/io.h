/* x86 port I/O and small CPU primitives: the one place they are defined. */
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
static inline void io_delay(void) { outb(0x80, 0); }

static inline void cpu_cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void cpu_sti(void) { __asm__ volatile("sti" ::: "memory"); }
/* sti takes effect after the next instruction, so no IRQ is lost between them. */
static inline void cpu_sti_hlt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }
static inline void cpu_hlt(void) { __asm__ volatile("hlt" ::: "memory"); }

static inline unsigned long irq_save(void)
{
	unsigned long f;
	__asm__ volatile("pushfl; popl %0; cli" : "=r"(f) :: "memory");
	return f;
}
static inline void irq_restore(unsigned long f)
{
	__asm__ volatile("pushl %0; popfl" :: "r"(f) : "memory", "cc");
}
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile(".byte 0x0f, 0x31" : "=a"(lo), "=d"(hi));  /* rdtsc, assembled for i386 */
	return ((uint64_t)hi << 32) | lo;
}
#endif
