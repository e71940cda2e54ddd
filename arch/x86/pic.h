/* Intel 8259A pair: masks, end of interrupt, the request register, spurious lines. */
#ifndef RAND86_PIC_H
#define RAND86_PIC_H
#include <stdint.h>

void pic_init(void);
void pic_unmask(int irq);
void pic_mask(int irq);
void pic_eoi(int irq);
int pic_is_spurious(int irq);
uint16_t pic_irr(void);
#endif
