/* NE2000 (DP8390) network card, ISA or PCI 10ec:8029: untrusted source ne2k0. */
#ifndef RAND86_NE2000_H
#define RAND86_NE2000_H
/* Probe (unless net=off) the ISA card at boot_opts.ne2k_io/ne2k_irq, then
 * PCI; the first card found becomes the receive-only source "ne2k0". */
void ne2000_init(void);
#endif
