/* make bench's baseline for a serial port: a multiboot guest that does
 * nothing but write COM1 as fast as its line status register allows
 * (8N1, FIFO on, no interrupts). What the host receives from it is what
 * QEMU's 16550 model and the harness's reader can carry, whatever the
 * guest makes: rand86's urandom on COM1 and COM2 is judged against it
 * (scripts/bench_judge.py). Built by the Makefile's $(BUILD)/uart-ceiling.elf. */
#define MB_MAGIC 0x1BADB002u
#define MB_FLAGS 0x00000003u     /* page-aligned modules, memory map: what GRUB asks */

__attribute__((section(".multiboot"), used))
static const unsigned int mb_header[3] = { MB_MAGIC, MB_FLAGS, -(MB_MAGIC + MB_FLAGS) };

#define COM1 0x3f8
#define LSR_THRE 0x20

static inline void outb(unsigned short port, unsigned char v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline unsigned char inb(unsigned short port)
{
	unsigned char v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

void _start(void)
{
	outb(COM1 + 1, 0x00);            /* no interrupts */
	outb(COM1 + 3, 0x80);            /* divisor latch */
	outb(COM1 + 0, 0x01);            /* 115200 */
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03);            /* 8N1 */
	outb(COM1 + 2, 0xc7);            /* FIFO on, cleared */
	for (unsigned int i = 0;; i++) {
		while (!(inb(COM1 + 5) & LSR_THRE))
			;
		outb(COM1, (unsigned char)i);
	}
}
