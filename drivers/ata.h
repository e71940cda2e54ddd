/* ATA PIO disks on the two legacy channels: sources ata0..ata3. */
#ifndef RAND86_ATA_H
#define RAND86_ATA_H
/* Probe both channels (unless ata=off), report each disk once, and start
 * the main-loop poller that issues interrupt-completed sector reads. */
void ata_init(void);
#endif
