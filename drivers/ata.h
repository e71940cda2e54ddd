/* ATA PIO disks on the two legacy channels: sources ata0..ata3. */
#ifndef RAND86_ATA_H
#define RAND86_ATA_H
#include <stddef.h>
#include "lib/options.h"

struct rng;
struct entropy_source;
/* Probe both channels (unless mode is ATA_OFF), report each disk once and
 * register it as a source on r. 0 when there is a disk, else -1. */
int ata_init(struct rng *r, enum ata_mode mode);
/* Main-loop work, never waits: time out a lost read, or start the next
 * interrupt-completed sector read of a disk that is due. Returns 0 (no
 * work left over: the next read is due only in ATA_READ_PERIOD_MS). */
int ata_poll(void);
/* The `sources` line fields of a disk's source (nothing for others). */
void ata_source_fields(const struct entropy_source *src, char *buf, size_t n);
#endif
