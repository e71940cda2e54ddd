/* Interrupts: the IDT, the register frame the stubs push, one handler per IRQ line. */
#ifndef RAND86_IRQ_H
#define RAND86_IRQ_H
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

void idt_init(void);

typedef void (*irq_handler_t)(int irq);
/* Also unmasks the line. -1 (and nothing changes) if the line already has a
 * handler, is the cascade (2) or is out of range. */
int irq_register(int irq, irq_handler_t handler);
int irq_in_use(int irq);          /* 1 if irq_register would refuse irq */

/* Halt until an interrupt, with interrupts disabled on entry (so a wake-up
 * cannot slip in before the hlt) and enabled on return. */
void irq_wait_halted(void);
/* In a handler: 1 if this interrupt is the one that woke the CPU from
 * irq_wait_halted(), so the moment it was taken was set by the hardware
 * alone, not by how far the CPU had got through our code. */
int irq_woke_cpu(void);
#endif
