/* Intel 8259A pair: remapped to vectors 0x20-0x2F, EOI, spurious IRQ 7/15. */
#include "cpu.h"
#include "io.h"
#include "irq.h"
#include "pic.h"

#define PIC1_CMD  0x20
#define PIC1_DATA 0x21
#define PIC2_CMD  0xA0
#define PIC2_DATA 0xA1
/* Command port writes (Intel 8259A datasheet, "Programming the 8259A"). */
#define   PIC_ICW1_INIT      0x10   /* D4 set: ICW1, initialisation */
#define   PIC_ICW1_IC4       0x01   /* an ICW4 follows */
#define   PIC_OCW2_EOI       0x20   /* non-specific end of interrupt */
#define   PIC_OCW3           0x08   /* D3 set, D4 clear: OCW3 */
#define   PIC_OCW3_RR        0x02   /* read register command ... */
#define   PIC_OCW3_RIS       0x01   /* ... ISR (else IRR) */
/* Data port writes. */
#define   PIC_ICW4_8086      0x01   /* 8086/8088 mode */
#define PIC_ICW1_INIT_ICW4 (PIC_ICW1_INIT | PIC_ICW1_IC4)
#define PIC_EOI            PIC_OCW2_EOI
#define PIC_READ_ISR       (PIC_OCW3 | PIC_OCW3_RR | PIC_OCW3_RIS)
#define PIC_READ_IRR       (PIC_OCW3 | PIC_OCW3_RR)
#define PIC_CASCADE_IRQ    2
#define PIC_IR7            0x80     /* ISR bit of IR7: IRQ 7, or 15 on the slave */
#define PIC_MASK_ALL       0xFFFF

static uint16_t pic_mask_bits = PIC_MASK_ALL;
static volatile uint32_t spurious;

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
	pic_mask_bits = PIC_MASK_ALL & ~(1 << PIC_CASCADE_IRQ);
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
		if (inb(PIC1_CMD) & PIC_IR7)
			return 0;
	} else if (irq == 15) {
		outb(PIC2_CMD, PIC_READ_ISR);
		if (inb(PIC2_CMD) & PIC_IR7)
			return 0;
		outb(PIC1_CMD, PIC_EOI);
	} else {
		return 0;
	}
	spurious++;
	return 1;
}

uint32_t pic_spurious(void)
{
	return spurious;
}
