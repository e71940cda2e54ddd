/* PCI configuration mechanism #1: a 32-bit address written to 0xCF8
 * (bit 31 enable, bus 23:16, device 15:11, function 10:8, register 7:2),
 * then the dword read or written at 0xCFC. */
#include "drivers/pci.h"
#include "arch/x86/cpu.h"
#include "arch/x86/io.h"

/* Configuration mechanism #1 (PCI Local Bus Specification 3.0, 3.2.2.3.2). */
#define PCI_ADDR 0xCF8
#define   PCI_ADDR_ENABLE   0x80000000u
#define   PCI_ADDR_BUS_SHIFT 16        /* bits 23:16 */
#define   PCI_ADDR_DEV_SHIFT 11        /* bits 15:11 */
#define   PCI_ADDR_FN_SHIFT  8         /* bits 10:8 */
#define   PCI_ADDR_REG_MASK  0xFC      /* bits 7:2, a dword */
#define PCI_DATA 0xCFC

static int pci_state = -1;              /* -1 not checked, 0 absent, 1 present */

static uint32_t pci_addr(struct pci_loc l, uint8_t off)
{
	return PCI_ADDR_ENABLE | ((uint32_t)l.bus << PCI_ADDR_BUS_SHIFT) |
		((uint32_t)(l.dev & (PCI_DEVICES - 1)) << PCI_ADDR_DEV_SHIFT) |
		((uint32_t)(l.fn & (PCI_FUNCTIONS - 1)) << PCI_ADDR_FN_SHIFT) | (off & PCI_ADDR_REG_MASK);
}

int pci_present(void)
{
	if (pci_state < 0) {
		/* Mechanism #1 latches the whole dword at 0xCF8; on a machine
		 * without it (or with mechanism #2) it does not read back. */
		unsigned long f = irq_save();    /* bound: four port accesses */
		uint32_t old = inl(PCI_ADDR);
		outl(PCI_ADDR, PCI_ADDR_ENABLE);
		uint32_t v = inl(PCI_ADDR);
		outl(PCI_ADDR, old);
		irq_restore(f);
		pci_state = (v == PCI_ADDR_ENABLE);
	}
	return pci_state;
}

uint32_t pci_read32(struct pci_loc l, uint8_t off)
{
	unsigned long f = irq_save();        /* bound: two port accesses */
	outl(PCI_ADDR, pci_addr(l, off));
	uint32_t v = inl(PCI_DATA);
	irq_restore(f);
	return v;
}

void pci_write32(struct pci_loc l, uint8_t off, uint32_t v)
{
	unsigned long f = irq_save();        /* bound: two port accesses */
	outl(PCI_ADDR, pci_addr(l, off));
	outl(PCI_DATA, v);
	irq_restore(f);
}

int pci_find(uint16_t vendor, uint16_t device, struct pci_loc *out)
{
	if (!pci_present())
		return -1;
	/* Bounded: at most PCI_MAX_BUS * PCI_DEVICES * PCI_FUNCTIONS configuration reads. */
	for (unsigned bus = 0; bus < PCI_MAX_BUS; bus++) {
		for (unsigned dev = 0; dev < PCI_DEVICES; dev++) {
			struct pci_loc l = { (uint8_t)bus, (uint8_t)dev, 0 };
			uint32_t id = pci_read32(l, PCI_VENDOR_ID);
			if ((id & 0xFFFF) == PCI_VENDOR_NONE)
				continue;
			unsigned nfn = (pci_read32(l, PCI_HEADER) & PCI_HEADER_MULTIFN) ? PCI_FUNCTIONS : 1;
			for (unsigned fn = 0; fn < nfn; fn++) {
				l.fn = (uint8_t)fn;
				if (fn)
					id = pci_read32(l, PCI_VENDOR_ID);
				if ((id & 0xFFFF) == vendor && (id >> 16) == device) {
					*out = l;
					return 0;
				}
			}
		}
	}
	return -1;
}
