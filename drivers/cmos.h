/* Boot-time pool seeding without credit (what 1999's rand_initialize mixed). */
#ifndef RAND86_SEED_H
#define RAND86_SEED_H
#include "entropy.h"
#include "boot/multiboot.h"
void seed_boot_pools(struct rng *r, const struct multiboot_info *mbi);
#endif
