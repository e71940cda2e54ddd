/* PCI configuration space, mechanism #1 (ports 0xCF8/0xCFC). */
#ifndef RAND86_PCI_H
#define RAND86_PCI_H
#include <stdint.h>

struct pci_loc { uint8_t bus, dev, fn; };

/* Type 0 configuration header, dword offsets (PCI Local Bus Specification
 * 3.0, 6.1 "Configuration Space Organization"); bits under each. */
#define PCI_VENDOR_ID   0x00       /* vendor (15:0), device (31:16) */
#define   PCI_VENDOR_NONE 0xFFFF   /* no function answers here */
#define PCI_COMMAND     0x04       /* command (15:0), status (31:16) */
#define   PCI_CMD_IO      0x0001   /* 6.2.2: I/O space decoding on */
#define   PCI_CMD_MASK    0xFFFF   /* the command half: status bits clear when written 1 */
#define PCI_HEADER      0x0C       /* cache line, latency, header type (23:16), BIST */
#define   PCI_HEADER_MULTIFN 0x00800000u   /* header type bit 7: multi-function device */
#define PCI_BAR0        0x10
#define   PCI_BAR_IO      0x00000001u  /* 6.2.5.1: bit 0 set, an I/O BAR */
#define   PCI_BAR_IO_MASK 0xFFFFFFFCu  /* its address */
#define PCI_INTERRUPT_LINE 0x3C    /* line (7:0), pin (15:8), min/max latency */
#define   PCI_INTERRUPT_LINE_MASK 0xFF
#define PCI_DEVICES   32           /* per bus */
#define PCI_FUNCTIONS 8            /* per device */

/* 1 if configuration mechanism #1 answers (checked once, cached). */
int pci_present(void);
uint32_t pci_read32(struct pci_loc l, uint8_t off);
void pci_write32(struct pci_loc l, uint8_t off, uint32_t v);
/* Find the first function with this vendor:device (bounded scan of buses
 * 0..PCI_MAX_BUS-1). Returns 0 and fills *out, or -1. */
#define PCI_MAX_BUS 8
int pci_find(uint16_t vendor, uint16_t device, struct pci_loc *out);
#endif
