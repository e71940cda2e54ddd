/* ata driver (to be written). */
#ifndef RAND86_ATA_H
#define RAND86_ATA_H
void ata_init(void);
#endif
