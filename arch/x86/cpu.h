/* x86 CPU instructions: the interrupt flag, halt, CPUID, the TSC; stopping, rebooting, leaving QEMU. */
#ifndef RAND86_CPU_H
#define RAND86_CPU_H
#include <stdint.h>

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

/* EFLAGS bit 21 (ID) can be toggled only where CPUID exists (Intel SDM
 * vol. 1, 3.4.3.3); a 386 or early 486 keeps it. */
#define EFLAGS_ID      (1u << 21)
int cpu_has_cpuid(void);
static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}
#define CPUID_LEAF_MAX      0      /* EAX: the highest basic leaf */
#define CPUID_LEAF_FEATURES 1      /* EDX: feature flags (SDM vol. 2A, CPUID, table 3-11) */
#define   CPUID_EDX_TSC     (1u << 4)

void cpu_halt_forever(void) __attribute__((noreturn));
void cpu_reboot(void) __attribute__((noreturn));
/* Write code to QEMU's isa-debug-exit, which ends QEMU with status
 * (code << 1) | 1; on a PC, or a QEMU without the device, nothing happens. */
void cpu_debug_exit(uint8_t code);
#endif
