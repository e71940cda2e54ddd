/* Intel 8259A pair: remapped to vectors 0x20-0x2F, EOI, spurious IRQ 7/15. */
#include "cpu.h"
#include "io.h"
#include "irq.h"
#include "pic.h"

#define PIC1_CMD  0x20
#define PIC1_DATA 0x21
#define PIC2_CMD  0xA0
#define PIC2_DATA 0xA1
#define PIC_ICW1_INIT_ICW4 0x11
#define PIC_ICW4_8086      0x01
#define PIC_EOI            0x20
#define PIC_READ_ISR       0x0B
#define PIC_READ_IRR       0x0A
#define PIC_CASCADE_IRQ    2

static uint16_t pic_mask_bits = 0xFFFF;

static void pic_write_mask(void)
{
	outb(PIC1_DATA, pic_mask_bits & 0xFF);
	outb(PIC2_DATA, pic_mask_bits >> 8);
}

void pic_init(void)
{
	outb(PIC1_CMD, PIC_ICW1_INIT_ICW4);  io_delay();
	outb(PIC2_CMD, PIC_ICW1_INIT_ICW4);  io_delay();
	outb(PIC1_DATA, IRQ_BASE);           io_delay();
	outb(PIC2_DATA, IRQ_BASE + 8);       io_delay();
	outb(PIC1_DATA, 1 << PIC_CASCADE_IRQ); io_delay();   /* slave on IR2 */
	outb(PIC2_DATA, PIC_CASCADE_IRQ);    io_delay();
	outb(PIC1_DATA, PIC_ICW4_8086);      io_delay();
	outb(PIC2_DATA, PIC_ICW4_8086);      io_delay();
	pic_mask_bits = 0xFFFF & ~(1 << PIC_CASCADE_IRQ);
	pic_write_mask();
}

void pic_unmask(int irq)
{
	unsigned long f = irq_save();        /* bound: two port writes */
	pic_mask_bits &= ~(1u << irq);
	pic_write_mask();
	irq_restore(f);
}

void pic_mask(int irq)
{
	unsigned long f = irq_save();        /* bound: two port writes */
	pic_mask_bits |= 1u << irq;
	pic_write_mask();
	irq_restore(f);
}

void pic_eoi(int irq)
{
	if (irq >= 8)
		outb(PIC2_CMD, PIC_EOI);
	outb(PIC1_CMD, PIC_EOI);
}

/* Interrupt request register of both PICs (bit n: line n is requesting),
 * masked lines included: what a probe watches. Leaves OCW3 on IRR, the
 * power-on default; pic_is_spurious selects ISR itself. */
uint16_t pic_irr(void)
{
	outb(PIC1_CMD, PIC_READ_IRR);
	outb(PIC2_CMD, PIC_READ_IRR);
	return (uint16_t)(inb(PIC1_CMD) | (inb(PIC2_CMD) << 8));
}

/* A spurious IRQ 7 or 15 has no ISR bit set. It gets no EOI from its own
 * PIC, but a spurious 15 was still passed through the master's IR2. */
int pic_is_spurious(int irq)
{
	if (irq == 7) {
		outb(PIC1_CMD, PIC_READ_ISR);
		return !(inb(PIC1_CMD) & 0x80);
	}
	if (irq == 15) {
		outb(PIC2_CMD, PIC_READ_ISR);
		if (!(inb(PIC2_CMD) & 0x80)) {
			outb(PIC1_CMD, PIC_EOI);
			return 1;
		}
	}
	return 0;
}
