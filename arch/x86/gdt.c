/* Flat GDT: our own, loaded before the first interrupt (docs/PC-NOTES.md: the loader's GDT faults under KVM). */
#include <stdint.h>
#include "gdt.h"

/* Segment descriptor (Intel SDM vol. 3A, 3.4.5): access byte at bits
 * 47:40, flags at 55:52; base 0 and limit 0xFFFFF pages: all 4 GiB. */
#define GDT_ACC_PRESENT 0x80
#define GDT_ACC_DPL0    0x00
#define GDT_ACC_S       0x10      /* code or data (not system) */
#define GDT_ACC_EXEC    0x08      /* code */
#define GDT_ACC_RW      0x02      /* code: readable; data: writable */
#define GDT_FLAG_G      0x8       /* limit in 4 KiB pages */
#define GDT_FLAG_DB     0x4       /* 32-bit segment */
#define GDT_FLAT(access) (0xFFFFull | (uint64_t)(access) << 40 | 0xFull << 48 | \
	(uint64_t)(GDT_FLAG_G | GDT_FLAG_DB) << 52)

static const uint64_t gdt[3] = {
	0,
	GDT_FLAT(GDT_ACC_PRESENT | GDT_ACC_DPL0 | GDT_ACC_S | GDT_ACC_EXEC | GDT_ACC_RW),  /* GDT_CODE_SEL */
	GDT_FLAT(GDT_ACC_PRESENT | GDT_ACC_DPL0 | GDT_ACC_S | GDT_ACC_RW),                 /* GDT_DATA_SEL */
};
/* The flat ring-0 code descriptor as the SDM's examples and every
 * multiboot kernel write it. */
_Static_assert(GDT_FLAT(GDT_ACC_PRESENT | GDT_ACC_S | GDT_ACC_EXEC | GDT_ACC_RW) ==
	0x00CF9A000000FFFFull, "GDT_FLAT builds the flat code descriptor");

struct __attribute__((packed)) gdt_ptr { uint16_t limit; uint32_t base; };

void gdt_init(void)
{
	struct gdt_ptr p = { sizeof(gdt) - 1, (uint32_t)gdt };
	__asm__ volatile(
		"lgdt %0\n\t"
		"ljmp %1, $1f\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t movw %%ax, %%es\n\t movw %%ax, %%fs\n\t"
		"movw %%ax, %%gs\n\t movw %%ax, %%ss\n\t"
		:: "m"(p), "i"(GDT_CODE_SEL), "i"(GDT_DATA_SEL) : "eax", "memory");
}
