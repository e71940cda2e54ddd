/* IDT: exception reports and IRQ dispatch through the 8259. */
#include <stdint.h>
#include "cpu.h"
#include "io.h"
#include "irq.h"
#include "pic.h"
#include "gdt.h"
#include "task.h"
#include "lib/kprintf.h"

struct __attribute__((packed)) idt_entry {
	uint16_t off_lo, sel;
	uint8_t zero, type;
	uint16_t off_hi;
};
struct __attribute__((packed)) idt_ptr { uint16_t limit; uint32_t base; };

/* Gate descriptor type byte (Intel SDM vol. 3A, 6.11 "IDT descriptors"). */
#define IDT_TYPE_PRESENT   0x80
#define IDT_TYPE_DPL0      0x00      /* DPL 0: no software int from ring 3 */
#define IDT_TYPE_INTGATE32 0x0E      /* 32-bit interrupt gate: IF cleared on entry */
#define IDT_EXCEPTIONS 32            /* vectors 0-31 are the CPU's (SDM vol. 3A, 6.3.1) */
#define IDT_VECTORS (TASK_VECTOR + 1)

/* cpu_reboot's way out: the i8042's output port pulse of the reset line
 * (its driver, drivers/i8042.c, is a layer up; these are the two it needs). */
#define KBC_STATUS      0x64
#define   KBC_ST_IBF      0x02       /* input buffer full: not ready for a command */
#define KBC_CMD         0x64
#define   KBC_CMD_RESET   0xFE       /* pulse output port bit 0: CPU reset */
#define REBOOT_WAIT_POLLS 100000     /* io_delay()s, ~0.1 s each way */
/* QEMU's -device isa-debug-exit,iobase=0xf4 (docs/PROTOCOL.md, "Devices"). */
#define DEBUG_EXIT_PORT 0xF4

extern const uint32_t isr_table[IDT_VECTORS];
static struct idt_entry idt[IDT_VECTORS];
static irq_handler_t irq_handlers[IRQ_COUNT];

static const char *const exception_names[IDT_EXCEPTIONS] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow", "bound range",
	"invalid opcode", "device not available", "double fault", "coprocessor overrun",
	"invalid TSS", "segment not present", "stack fault", "general protection",
	"page fault", "reserved", "x87 error", "alignment check", "machine check",
	"SIMD error", "virtualization", "control protection", "reserved", "reserved",
	"reserved", "reserved", "reserved", "reserved", "reserved", "VMM communication",
	"security", "reserved",
};

void idt_init(void)
{
	for (int v = 0; v < IDT_VECTORS; v++) {
		idt[v].off_lo = isr_table[v] & 0xFFFF;
		idt[v].off_hi = isr_table[v] >> 16;
		idt[v].sel = GDT_CODE_SEL;
		idt[v].zero = 0;
		idt[v].type = IDT_TYPE_PRESENT | IDT_TYPE_DPL0 | IDT_TYPE_INTGATE32;
	}
	struct idt_ptr p = { sizeof(idt) - 1, (uint32_t)idt };
	__asm__ volatile("lidt %0" :: "m"(p));
}

/* One handler per line: a second driver on a line would silently take it
 * from the first (an NE2000 jumpered to IRQ 4 killed the console). */
int irq_register(int irq, irq_handler_t handler)
{
	if (irq < 0 || irq >= IRQ_COUNT || irq == 2 || irq_handlers[irq])
		return -1;
	irq_handlers[irq] = handler;
	pic_unmask(irq);
	return 0;
}

int irq_in_use(int irq)
{
	return irq < 0 || irq >= IRQ_COUNT || irq == 2 || irq_handlers[irq] != 0;
}

static void exception_report(const struct regs *r)
{
	uint32_t cr2;
	__asm__ volatile("movl %%cr2, %0" : "=r"(cr2));
	panic_printf("\r\n*** exception %u (%s) error=0x%08x eip=0x%08x cs=0x%04x eflags=0x%08x cr2=0x%08x\r\n"
		"    eax=%08x ebx=%08x ecx=%08x edx=%08x\r\n"
		"    esi=%08x edi=%08x ebp=%08x esp=%08x\r\n"
		"*** halted\r\n",
		(unsigned)r->vector, exception_names[r->vector], (unsigned)r->error,
		(unsigned)r->eip, (unsigned)r->cs, (unsigned)r->eflags, (unsigned)cr2,
		(unsigned)r->eax, (unsigned)r->ebx, (unsigned)r->ecx, (unsigned)r->edx,
		(unsigned)r->esi, (unsigned)r->edi, (unsigned)r->ebp,
		(unsigned)((uint32_t)r + sizeof(*r)));
	cpu_halt_forever();
}

/* Set with interrupts off just before sti; hlt. The first interrupt to run
 * after it takes it: with two requests pending at the wake-up, only the
 * first was taken from the halt, the second after the first's handler. */
static volatile uint8_t cpu_halted, irq_woke;

void irq_wait_halted(void)
{
	cpu_halted = 1;
	cpu_sti_hlt();
	cpu_halted = 0;
}

int irq_woke_cpu(void)
{
	return irq_woke;
}

static void irq_dispatch(int irq)
{
	irq_woke = cpu_halted;          /* a spurious wake-up takes it too */
	cpu_halted = 0;
	if (pic_is_spurious(irq))
		return;                     /* counted, and the EOI it needs sent, there */
	if (irq_handlers[irq])
		irq_handlers[irq](irq);
	pic_eoi(irq);
}

/* Returns the frame isr_common resumes: an interrupt that came while the
 * background task ran hands the CPU back to the main loop (task.c). */
struct regs *isr_dispatch(struct regs *r)
{
	if (r->vector == TASK_VECTOR)
		return task_switch(r);
	if (r->vector < IDT_EXCEPTIONS)
		exception_report(r);      /* does not return */
	irq_dispatch((int)r->vector - IRQ_BASE);
	return task_preempt(r);
}

void cpu_halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

void cpu_reboot(void)
{
	cpu_cli();                      /* for good: ~0.2 s of bounded waits, then reset */
	/* i8042 pulse of the reset line, after waiting for its input buffer. */
	for (int i = 0; i < REBOOT_WAIT_POLLS && (inb(KBC_STATUS) & KBC_ST_IBF); i++)
		io_delay();
	outb(KBC_CMD, KBC_CMD_RESET);
	for (int i = 0; i < REBOOT_WAIT_POLLS; i++)
		io_delay();
	/* Still here: triple fault through an empty IDT. */
	struct idt_ptr p = { 0, 0 };
	__asm__ volatile("lidt %0; int $3" :: "m"(p));
	cpu_halt_forever();
}

void cpu_debug_exit(uint8_t code)
{
	outb(DEBUG_EXIT_PORT, code);
}
