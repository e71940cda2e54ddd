/* x86 CPU setup: descriptor tables, interrupts, the 8259 and 8254, the clock. */
#ifndef RAND86_CPU_H
#define RAND86_CPU_H
#include <stdint.h>

/* Register frame pushed by the interrupt stubs (isr.S). */
struct regs {
	uint32_t gs, fs, es, ds;
	uint32_t edi, esi, ebp, esp_dummy, ebx, edx, ecx, eax;
	uint32_t vector, error;
	uint32_t eip, cs, eflags;
};

#define IRQ_BASE 0x20               /* 8259 pair remapped to vectors 0x20-0x2F */
#define IRQ_COUNT 16

void gdt_init(void);
void idt_init(void);

typedef void (*irq_handler_t)(int irq);
/* Also unmasks the line. -1 (and nothing changes) if the line already has a
 * handler, is the cascade (2) or is out of range. */
int irq_register(int irq, irq_handler_t handler);
int irq_in_use(int irq);          /* 1 if irq_register would refuse irq */
void pic_init(void);
void pic_unmask(int irq);
void pic_mask(int irq);
void pic_eoi(int irq);
int pic_is_spurious(int irq);
uint16_t pic_irr(void);
extern volatile uint64_t irq_counts[IRQ_COUNT];
extern volatile uint32_t irq_spurious;

/* 8254 PIT */
#define PIT_HZ 1193182u
void pit_init(unsigned hz);
extern volatile uint64_t jiffies;
extern volatile int tick_flush_due;
unsigned pit_hz(void);
uint16_t pit_read_counter0(void);
/* Reload value in use on channel 0. */
uint32_t pit_reload(void);
/* fn runs in every tick's interrupt, after jiffies moved (the kernel layer
 * makes it the `timer` source's sample; the PIT knows nothing of it). */
void pit_set_tick_hook(void (*fn)(uint32_t jiffies));
/* PIT clock only (channel 2 is the TSC's ruler otherwise): count ticks the
 * 8259 merged into jiffies, timed by channel 2 running free. */
void pit_track_merged_ticks(void);
extern volatile uint64_t pit_lost_ticks;

/* CPUID, TSC and the "now" clock (clock.c) */
int cpu_has_cpuid(void);
void clock_init(void);
int clock_is_tsc(void);
uint32_t clock_khz(void);        /* cpu_khz, or 1193 for the PIT clock */
uint64_t clock_now(void);        /* free-running ticks at clock_khz kHz */
uint64_t clock_ms(void);         /* milliseconds since clock_init */
void clock_delay_us(uint32_t us);

/* One timeout helper for every wait on hardware. */
struct deadline { uint64_t at; };
struct deadline deadline_in_ms(uint32_t ms);
int deadline_passed(struct deadline d);

void cpu_halt_forever(void) __attribute__((noreturn));
void cpu_reboot(void) __attribute__((noreturn));
#endif
