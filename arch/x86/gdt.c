/* Flat GDT: our own, loaded before the first interrupt (docs/PC-NOTES.md: the loader's GDT faults under KVM). */
#include <stdint.h>
#include "gdt.h"

static const uint64_t gdt[3] = {
	0,
	0x00CF9A000000FFFFull,   /* 0x08: code, base 0, limit 4 GiB, 32-bit, ring 0 */
	0x00CF92000000FFFFull,   /* 0x10: data, same span */
};

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
