/* PCI configuration space, mechanism #1 (ports 0xCF8/0xCFC). */
#ifndef RAND86_PCI_H
#define RAND86_PCI_H
#include <stdint.h>

struct pci_loc { uint8_t bus, dev, fn; };

#define PCI_VENDOR_ID   0x00
#define PCI_COMMAND     0x04
#define PCI_BAR0        0x10
#define PCI_INTERRUPT_LINE 0x3C
#define PCI_CMD_IO      0x0001

/* 1 if configuration mechanism #1 answers (checked once, cached). */
int pci_present(void);
uint32_t pci_read32(struct pci_loc l, uint8_t off);
void pci_write32(struct pci_loc l, uint8_t off, uint32_t v);
/* Find the first function with this vendor:device (bounded scan of buses
 * 0..PCI_MAX_BUS-1). Returns 0 and fills *out, or -1. */
#define PCI_MAX_BUS 8
int pci_find(uint16_t vendor, uint16_t device, struct pci_loc *out);
#endif
