/* Host stand-in for arch/x86/cpu.h: the parts drivers use, provided by the
 * model (tests/unit/ne2k_model.c). */
#ifndef RAND86_CPU_H
#define RAND86_CPU_H
#include <stdint.h>

#define IRQ_COUNT 16
typedef void (*irq_handler_t)(int irq);
int irq_register(int irq, irq_handler_t handler);
int irq_in_use(int irq);
uint16_t pic_irr(void);

uint32_t clock_khz(void);
uint64_t clock_now(void);
uint64_t clock_ms(void);
void clock_delay_us(uint32_t us);
struct deadline { uint64_t at; };
struct deadline deadline_in_ms(uint32_t ms);
int deadline_passed(struct deadline d);
#endif
