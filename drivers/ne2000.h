/* NE2000 (DP8390) network card, ISA or PCI 10ec:8029: untrusted source ne2k0. */
#ifndef RAND86_NE2000_H
#define RAND86_NE2000_H
#include <stddef.h>
#include "lib/options.h"

struct rng;
struct entropy_source;
/* Probe (unless net=off) the ISA card at o->ne2k_io/ne2k_irq, then PCI;
 * the first card found becomes the receive-only source "ne2k0" on r.
 * 0 when a card is there, else -1. */
int ne2000_init(struct rng *r, const struct boot_options *o);
/* Main-loop work, never waits: restart the receiver, or take left-over
 * frames, as the interrupt asked. Nonzero when more is left for the next pass. */
int ne2000_poll(void);
/* The `sources` line fields of ne2k0 (nothing for other sources). */
void ne2000_source_fields(const struct entropy_source *src, char *buf, size_t n);
#endif
