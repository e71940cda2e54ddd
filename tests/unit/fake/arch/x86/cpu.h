/* Host stand-in for arch/x86/cpu.h: the interrupt flag, provided by the
 * model (tests/unit/ne2k_model.c); cleared, the model's clock stops at the
 * next tick. */
#ifndef RAND86_CPU_H
#define RAND86_CPU_H
#include <stdint.h>

unsigned long irq_save(void);
void irq_restore(unsigned long f);
void cpu_cli(void);
void cpu_sti(void);
#endif
