/* Intel 8259A pair: masks, end of interrupt, the request register, spurious lines. */
#ifndef RAND86_PIC_H
#define RAND86_PIC_H
#include <stdint.h>

void pic_init(void);
void pic_unmask(int irq);
void pic_mask(int irq);
void pic_eoi(int irq);
/* 1 (and counted) if an interrupt on irq is spurious: on IRQ 7 or 15
 * with no in-service bit, a request gone before the CPU acknowledged it
 * (8259A datasheet: the chip answers with IR7). Its handler must not run
 * nor its own PIC get an EOI; the master's for a spurious 15 is sent here. */
int pic_is_spurious(int irq);
uint32_t pic_spurious(void);          /* how many pic_is_spurious found */
uint16_t pic_irr(void);
#endif
