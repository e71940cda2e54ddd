/* Host tests: the real arch/x86/pic.c against a model of the 8259A pair
 * (below): which interrupts it calls spurious, that it counts each one
 * (status `irq_spurious`), and which PIC gets an EOI. QEMU's 8259 never
 * sends a spurious vector (it lowers INTR as soon as a request goes), so
 * this is where the counter is made to move. The model follows the Intel
 * 8259A datasheet: an edge sets the request bit; the IR input must stay
 * high until the first INTA, and if it does not, the chip answers with
 * IR7 and sets no in-service bit. INT, once raised, stays until the
 * acknowledge (Bochs 2.7's pic.cc does the same). A spurious request on
 * the slave reaches the CPU through the master's IR2, which the master
 * acknowledges as usual: it is the slave that answers IR7. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "arch/x86/io.h"
#include "arch/x86/cpu.h"
/* The source itself, in this unit: arch/x86's own io.h and cpu.h would
 * win over tests/unit/fake/ for a file there, but the fakes above
 * already hold their include guards. */
#include "arch/x86/pic.c"

/* ---------------------------------------------------------------- model */

#define MASTER 0
#define SLAVE  1
#define CASCADE_IR 2
#define DEFAULT_IR 7                 /* what a chip answers with no request left */

struct chip {
	uint8_t lines;                   /* IR input levels */
	uint8_t irr, isr, imr;
	int intr;                        /* INT output */
	int read_isr;                    /* OCW3: command port reads give ISR (else IRR) */
	int init_left;                   /* ICW2..ICW4 still to come on the data port */
	int eois;
};

static struct chip pics[2];

static void set_line(int c, int ir, int level);

/* INT rises with an unmasked request and stays up until the INTA; the
 * slave's INT is the master's IR2. */
static void chip_update(int c)
{
	struct chip *p = &pics[c];
	if (p->irr & ~p->imr)
		p->intr = 1;
	if (c == SLAVE)
		set_line(MASTER, CASCADE_IR, p->intr);
}

/* An IR input: an edge sets the request; a fall withdraws it. */
static void set_line(int c, int ir, int level)
{
	struct chip *p = &pics[c];
	uint8_t bit = (uint8_t)(1u << ir);
	if (level && !(p->lines & bit))
		p->irr |= bit;
	if (!level)
		p->irr &= (uint8_t)~bit;
	p->lines = level ? (p->lines | bit) : (p->lines & (uint8_t)~bit);
	chip_update(c);
}

/* A device's IRQ line. */
static void line(int irq, int level)
{
	set_line(irq / 8, irq % 8, level);
}

/* One chip's acknowledge: the IR it answers with, in service from now. */
static int chip_inta(int c)
{
	struct chip *p = &pics[c];
	uint8_t req = p->irr & ~p->imr;
	p->intr = 0;
	if (!req)
		return DEFAULT_IR;
	int ir = __builtin_ctz(req);    /* fully nested: the lowest line first */
	p->irr &= (uint8_t)~(1u << ir);
	p->isr |= (uint8_t)(1u << ir);
	return ir;
}

/* The CPU's INTA cycles: the IRQ number of the vector it is given. */
static int inta(void)
{
	assert_true(pics[MASTER].intr);
	int ir = chip_inta(MASTER);
	if (ir != CASCADE_IR)
		return ir;
	ir = chip_inta(SLAVE);
	chip_update(SLAVE);              /* its INT, the master's IR2, follows */
	return 8 + ir;
}

static struct chip *chip_at(uint16_t port)
{
	if (port == 0x20 || port == 0x21)
		return &pics[MASTER];
	if (port == 0xA0 || port == 0xA1)
		return &pics[SLAVE];
	return NULL;                     /* 0x80: io_delay */
}

void outb(uint16_t port, uint8_t v)
{
	struct chip *p = chip_at(port);
	if (!p)
		return;
	if (port & 1) {                  /* data port: ICW2..4, then the mask (OCW1) */
		if (p->init_left > 0)
			p->init_left--;
		else
			p->imr = v;
		chip_update(p == &pics[SLAVE] ? SLAVE : MASTER);
		return;
	}
	if (v & 0x10) {                  /* ICW1 with IC4: ICW2, ICW3, ICW4 follow */
		memset(p, 0, sizeof(*p));
		p->init_left = 3;
	} else if ((v & 0x18) == 0x08) { /* OCW3 */
		if (v & 0x02)
			p->read_isr = v & 0x01;
	} else if (v == 0x20) {          /* OCW2, non-specific EOI: the highest in service */
		p->eois++;
		if (p->isr)
			p->isr &= (uint8_t)(p->isr - 1);
	}
}

uint8_t inb(uint16_t port)
{
	struct chip *p = chip_at(port);
	if (!p)
		return 0xFF;
	if (port & 1)
		return p->imr;
	return p->read_isr ? p->isr : p->irr;
}

void outw(uint16_t p, uint16_t v) { (void)p; (void)v; }
void outl(uint16_t p, uint32_t v) { (void)p; (void)v; }
uint16_t inw(uint16_t p) { (void)p; return 0xFFFF; }
uint32_t inl(uint16_t p) { (void)p; return 0xFFFFFFFF; }
void insw(uint16_t p, void *b, uint32_t n) { (void)p; (void)b; (void)n; }
unsigned long irq_save(void) { return 0; }
void irq_restore(unsigned long f) { (void)f; }
void cpu_cli(void) {}
void cpu_sti(void) {}

/* What arch/x86/idt.c's isr_dispatch does with an IRQ vector (that file's
 * inline assembly is i386-only): a spurious one gets no handler and no EOI
 * from the dispatcher. -1 for a spurious interrupt, else the IRQ served. */
static int deliver(void)
{
	int irq = inta();
	if (pic_is_spurious(irq))
		return -1;
	pic_eoi(irq);
	return irq;
}

static int setup(void **state)
{
	(void)state;
	memset(pics, 0, sizeof(pics));
	spurious = 0;
	pic_init();
	for (int irq = 0; irq < 16; irq++)
		if (irq != CASCADE_IR)
			pic_unmask(irq);
	return 0;
}

/* ---------------------------------------------------------------- tests */

static void test_a_request_held_until_the_acknowledge_is_served(void **state)
{
	(void)state;
	line(4, 1);
	assert_int_equal(deliver(), 4);
	line(4, 0);
	assert_int_equal(pic_spurious(), 0);
	assert_int_equal(pics[MASTER].isr, 0);
	assert_int_equal(pics[MASTER].eois, 1);
}

static void test_a_request_gone_before_the_acknowledge_is_counted_on_irq7(void **state)
{
	(void)state;
	line(4, 1);
	line(4, 0);                      /* e.g. a THR write drops the UART's THRE request */
	assert_int_equal(deliver(), -1);
	assert_int_equal(pic_spurious(), 1);
	assert_int_equal(pics[MASTER].eois, 0);          /* nothing was in service */
	line(3, 1);
	line(3, 0);
	assert_int_equal(deliver(), -1);
	assert_int_equal(pic_spurious(), 2);
}

static void test_a_real_irq7_is_served_not_counted(void **state)
{
	(void)state;
	line(7, 1);                      /* a parallel port's request, held */
	assert_int_equal(deliver(), 7);
	assert_int_equal(pic_spurious(), 0);
	assert_int_equal(pics[MASTER].eois, 1);
	assert_int_equal(pics[MASTER].isr, 0);
}

static void test_a_slave_request_gone_is_counted_on_irq15_and_the_master_ends(void **state)
{
	(void)state;
	line(12, 1);
	line(12, 0);                     /* the master's IR2 stays latched */
	assert_int_equal(deliver(), -1);
	assert_int_equal(pic_spurious(), 1);
	assert_int_equal(pics[SLAVE].eois, 0);
	assert_int_equal(pics[MASTER].eois, 1);          /* its IR2 was in service */
	assert_int_equal(pics[MASTER].isr, 0);
	line(4, 1);                      /* the master is free for the next */
	assert_int_equal(deliver(), 4);
}

static void test_a_real_irq15_is_served_not_counted(void **state)
{
	(void)state;
	line(15, 1);                     /* the secondary ATA channel, held */
	assert_int_equal(deliver(), 15);
	assert_int_equal(pic_spurious(), 0);
	assert_int_equal(pics[SLAVE].eois, 1);
	assert_int_equal(pics[MASTER].eois, 1);
	assert_int_equal(pics[SLAVE].isr | pics[MASTER].isr, 0);
}

static void test_no_other_line_is_ever_called_spurious(void **state)
{
	(void)state;
	for (int irq = 0; irq < 16; irq++)
		if (irq != 7 && irq != 15)
			assert_int_equal(pic_is_spurious(irq), 0);
	assert_int_equal(pic_spurious(), 0);
	assert_int_equal(pics[MASTER].eois + pics[SLAVE].eois, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_a_request_held_until_the_acknowledge_is_served, setup),
		cmocka_unit_test_setup(test_a_request_gone_before_the_acknowledge_is_counted_on_irq7, setup),
		cmocka_unit_test_setup(test_a_real_irq7_is_served_not_counted, setup),
		cmocka_unit_test_setup(test_a_slave_request_gone_is_counted_on_irq15_and_the_master_ends, setup),
		cmocka_unit_test_setup(test_a_real_irq15_is_served_not_counted, setup),
		cmocka_unit_test_setup(test_no_other_line_is_ever_called_spurious, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
