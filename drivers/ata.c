/* ATA PIO driver (ATA-2 register interface), read-only.
 *
 * Each present ATA disk is an entropy source: the main loop issues one
 * LBA28 single-sector read at an unpredictable LBA at most every 100 ms
 * while the primary pool is not full, and the completion interrupt
 * (IRQ 14/15, nIEN clear) is the timing sample. Nothing here ever writes
 * to a disk: the only commands sent are IDENTIFY DEVICE (0xEC) and
 * READ SECTORS (0x20), plus SRST through the device control register.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "drivers/ata.h"
#include "lib/fmt.h"
#include "lib/kprintf.h"
#include "lib/options.h"
#include "entropy/entropy.h"
#include "arch/x86/cpu.h"
#include "arch/x86/io.h"
#include "arch/x86/irq.h"
#include "arch/x86/clock.h"

/* Command block registers, offsets from the channel's base (ATA-2,
 * X3T10/0948D, 7.2 "I/O register descriptions"); bits under each. */
#define ATA_DATA     0
#define ATA_ERROR    1
#define ATA_FEATURES 1
#define ATA_SECCOUNT 2
#define ATA_LBA0     3       /* LBA bits 7:0 */
#define ATA_LBA1     4       /* LBA bits 15:8; ATAPI signature 0x14 */
#define ATA_LBA2     5       /* LBA bits 23:16; ATAPI signature 0xEB */
#define ATA_DRIVE    6       /* device/head */
#define   ATA_DRIVE_OBS    0xA0    /* bits 7 and 5: obsolete, written as 1 */
#define   ATA_DRIVE_LBA    0x40    /* LBA addressing */
#define   ATA_DRIVE_SLAVE  0x10    /* DEV: device 1 */
#define   ATA_DRIVE_LBA_HI 0x0F    /* LBA bits 27:24 */
#define ATA_STATUS   7       /* read: also acknowledges INTRQ */
#define   ATA_SR_ERR   0x01
#define   ATA_SR_DRQ   0x08
#define   ATA_SR_DF    0x20
#define   ATA_SR_DRDY  0x40
#define   ATA_SR_BSY   0x80
#define ATA_COMMAND  7
#define   ATA_CMD_READ_SECTORS 0x20
#define   ATA_CMD_IDENTIFY     0xEC

/* Control block register at the channel's ctl port: alternate status
 * (read, the status without acknowledging INTRQ) / device control (write). */
#define   ATA_CTL_NIEN 0x02  /* interrupt disabled */
#define   ATA_CTL_SRST 0x04  /* software reset */

/* What the status reads as: 0xFF where nothing drives the bus (pulled
 * up), 0x00 where a selected device is absent behind a present one. */
#define ATA_BUS_FLOATING 0xFF
#define ATA_NO_DEVICE    0x00

/* The legacy channels (ATA-2, annex: "compatibility" I/O and IRQ). */
#define ATA_PRI_BASE 0x1F0
#define ATA_PRI_CTL  0x3F6
#define ATA_PRI_IRQ  14
#define ATA_SEC_BASE 0x170
#define ATA_SEC_CTL  0x376
#define ATA_SEC_IRQ  15

#define ATA_CHANNELS 2
#define ATA_DISKS    (2 * ATA_CHANNELS)   /* master and slave on each */
#define ATA_SECTOR_WORDS 256

/* IDENTIFY DEVICE words (ATA-2, 8.7 table 11). */
#define ATA_ID_MODEL       27       /* words 27..46: model number */
#define ATA_ID_MODEL_WORDS 20
#define ATA_ID_CAPS        49
#define   ATA_ID_CAPS_LBA  0x0200   /* bit 9: LBA supported */
#define ATA_ID_LBA_SECTORS 60       /* words 60..61: LBA28 addressable sectors */

#define ATA_PROBE_WAIT_MS  500      /* per BSY/DRQ wait during the probe */
#define ATA_READ_PERIOD_MS 100      /* at most one read per disk per period */
#define ATA_READ_TIMEOUT_MS 2000    /* a read not completed by then is an error */
#define ATA_FIRST_READ_MS  0        /* each disk's first read is due at once */
/* ATA-2, "software reset": the host holds SRST set for at least 5 us;
 * 10 us leaves a margin for the clock's coarseness (a PIT count is 0.84 us). */
#define ATA_SRST_US 10
#define ATA_LBA28_MAX 0x0FFFFFFFu

/* Disk completion times vary with seek and rotational latency on the
 * millisecond scale; below that the controller's own clock dominates and
 * is predictable, so credit (if ata=trusted) only at 1 kHz granularity. */
#define ATA_GRANULARITY_KHZ 1

struct ata_channel {
	uint16_t base, ctl;
	int irq;
	int present;
	/* the one read in flight on this channel (-1: none) */
	volatile int busy_drive;
	volatile uint32_t busy_lba;
	struct deadline busy_deadline;
	volatile uint32_t spurious;
};

struct ata_disk {
	int present;
	int chan, slave;
	uint32_t sectors;               /* LBA28 addressable sectors */
	char model[2 * ATA_ID_MODEL_WORDS * FMT_ESC_LEN + 1];   /* as shown: escaped */
	char name[5];
	struct entropy_source src;
	struct deadline next_read;
	volatile uint32_t reads, errors, timeouts;
};

static struct ata_channel chans[ATA_CHANNELS] = {
	{ ATA_PRI_BASE, ATA_PRI_CTL, ATA_PRI_IRQ, 0, -1, 0, {0}, 0 },
	{ ATA_SEC_BASE, ATA_SEC_CTL, ATA_SEC_IRQ, 0, -1, 0, {0}, 0 },
};
static struct ata_disk disks[ATA_DISKS];
static struct rng *ata_rng;         /* the pools the disks feed; read addresses come from it too */
static uint16_t sector_buf[ATA_SECTOR_WORDS];    /* data read by the IRQ handler, discarded */

/* ATA-2: status is valid 400 ns after a command or a select; an
 * alternate-status read takes at least 100 ns on the ISA bus. */
#define ATA_400NS_READS 4

static void delay_400ns(const struct ata_channel *c)
{
	for (int i = 0; i < ATA_400NS_READS; i++)
		(void)inb(c->ctl);
}

/* Wait until BSY is clear; returns the status, or -1 on timeout. */
static int wait_not_busy(const struct ata_channel *c, uint32_t ms)
{
	struct deadline d = deadline_in_ms(ms);
	for (;;) {
		uint8_t st = inb(c->ctl);
		if (st == ATA_BUS_FLOATING)
			return -1;
		if (!(st & ATA_SR_BSY))
			return st;
		if (deadline_passed(d))
			return -1;
	}
}

static void select_drive(const struct ata_channel *c, int slave, uint8_t lba_hi)
{
	outb(c->base + ATA_DRIVE, ATA_DRIVE_OBS | ATA_DRIVE_LBA | (slave ? ATA_DRIVE_SLAVE : 0) |
		(lba_hi & ATA_DRIVE_LBA_HI));
	delay_400ns(c);
}

/* IDENTIFY one drive. Returns 1 for an ATA disk (id filled), 0 for
 * nothing there (or an abort without a device signature, as an absent
 * master behind a present slave answers), -2 for ATAPI or another non-ATA
 * device signature, -1 for a drive
 * that did not answer in time. */
static int identify(struct ata_channel *c, int slave, uint16_t id[ATA_SECTOR_WORDS])
{
	select_drive(c, slave, 0);
	uint8_t st = inb(c->ctl);
	if (st == ATA_BUS_FLOATING || st == ATA_NO_DEVICE)
		return 0;                    /* floating, or no drive behind this select */
	if (wait_not_busy(c, ATA_PROBE_WAIT_MS) < 0)
		return -1;
	outb(c->base + ATA_FEATURES, 0);
	outb(c->base + ATA_SECCOUNT, 0);
	outb(c->base + ATA_LBA0, 0);
	outb(c->base + ATA_LBA1, 0);
	outb(c->base + ATA_LBA2, 0);
	outb(c->base + ATA_COMMAND, ATA_CMD_IDENTIFY);
	delay_400ns(c);
	st = inb(c->base + ATA_STATUS);
	if (st == ATA_NO_DEVICE || st == ATA_BUS_FLOATING)
		return 0;
	int s = wait_not_busy(c, ATA_PROBE_WAIT_MS);
	if (s < 0)
		return -1;
	uint8_t mid = inb(c->base + ATA_LBA1), hi = inb(c->base + ATA_LBA2);
	if (mid != 0 || hi != 0)
		return -2;                   /* 0x14/0xEB ATAPI, 0x3C/0xC3 SATA, ... */
	if (s & (ATA_SR_ERR | ATA_SR_DF))
		return 0;                    /* aborted without a signature: nothing usable */
	struct deadline d = deadline_in_ms(ATA_PROBE_WAIT_MS);
	for (;;) {
		st = inb(c->ctl);
		if (st & (ATA_SR_ERR | ATA_SR_DF))
			return -2;
		if (!(st & ATA_SR_BSY) && (st & ATA_SR_DRQ))
			break;
		if (deadline_passed(d))
			return -1;
	}
	insw(c->base + ATA_DATA, id, ATA_SECTOR_WORDS);
	(void)inb(c->base + ATA_STATUS);
	return 1;
}

/* An IDENTIFY string (two chars a word, high byte first, space padded) as
 * the console shows it: the disk's bytes are outside text, escaped. */
static void id_string(const uint16_t *id, int first, int words, char *out, size_t size)
{
	char raw[2 * ATA_ID_MODEL_WORDS];
	size_t n = 0;
	for (int i = 0; i < words && n + 2 <= sizeof(raw); i++) {
		raw[n++] = (char)(id[first + i] >> 8);
		raw[n++] = (char)(id[first + i] & 0xFF);
	}
	while (n > 0 && (raw[n - 1] == ' ' || raw[n - 1] == 0))
		n--;
	fmt_printable(out, size, raw, n);
}

static void ata_irq(int irq)
{
	struct ata_channel *c = &chans[irq == ATA_SEC_IRQ ? 1 : 0];
	uint8_t st = inb(c->base + ATA_STATUS);       /* acknowledges INTRQ */
	int drive = c->busy_drive;
	if (drive < 0 || (st & ATA_SR_BSY)) {
		c->spurious++;
		return;
	}
	struct ata_disk *dk = &disks[drive];
	if (st & (ATA_SR_ERR | ATA_SR_DF)) {
		dk->errors++;
	} else if (st & ATA_SR_DRQ) {
		insw(c->base + ATA_DATA, sector_buf, ATA_SECTOR_WORDS);
		dk->reads++;
	} else {
		dk->errors++;                /* completion without data */
	}
	add_timing_entropy(&dk->src, st | (c->busy_lba << 8));
	c->busy_drive = -1;
}

static void soft_reset(struct ata_channel *c)
{
	outb(c->ctl, ATA_CTL_SRST);
	clock_delay_us(ATA_SRST_US);
	outb(c->ctl, 0);                 /* nIEN clear again */
	/* BSY stays set while the drives reset; the poller waits for it
	 * to clear before issuing the next command (no wait here). */
}

/* A read not completed in ATA_READ_TIMEOUT_MS is an error; the channel
 * is reset. Bound of the masked section: three stores and soft_reset's
 * 10 us SRST pulse, well under a tick: the PIT clock counts within a
 * tick with interrupts masked. */
static void ata_check_timeout(struct ata_channel *c, struct ata_disk *dk, int i)
{
	if (!deadline_passed(c->busy_deadline))
		return;
	unsigned long f = irq_save();
	if (c->busy_drive == i) {
		dk->timeouts++;
		dk->errors++;
		c->busy_drive = -1;
		soft_reset(c);
	}
	irq_restore(f);
}

/* The taskfile of an LBA28 one-sector read, drive already selected; the
 * completion interrupt ends it (ata_irq). Bound of the masked section: a
 * clock read, six port writes. */
static void ata_issue_read(struct ata_channel *c, int i, uint32_t lba)
{
	unsigned long f = irq_save();
	c->busy_lba = lba;
	c->busy_deadline = deadline_in_ms(ATA_READ_TIMEOUT_MS);
	c->busy_drive = i;
	outb(c->base + ATA_FEATURES, 0);
	outb(c->base + ATA_SECCOUNT, 1);
	outb(c->base + ATA_LBA0, (uint8_t)lba);
	outb(c->base + ATA_LBA1, (uint8_t)(lba >> 8));
	outb(c->base + ATA_LBA2, (uint8_t)(lba >> 16));
	outb(c->base + ATA_COMMAND, ATA_CMD_READ_SECTORS);
	irq_restore(f);
}

/* Disk i is due: pick the LBA, select the drive, read, unless the channel
 * is still resetting or the drive not ready (then next period). */
static void ata_start_read(struct ata_channel *c, struct ata_disk *dk, int i)
{
	uint8_t st = inb(c->ctl);
	if (st & (ATA_SR_BSY | ATA_SR_DRQ))
		return;                      /* still resetting, or confused: later */
	uint32_t lba;
	rng_aux_bytes(ata_rng, &lba, sizeof(lba));   /* outside the accounting: spends no credit */
	lba %= dk->sectors;
	dk->next_read = deadline_in_ms(ATA_READ_PERIOD_MS);
	select_drive(c, dk->slave, (uint8_t)(lba >> 24));
	st = inb(c->ctl);
	if ((st & (ATA_SR_BSY | ATA_SR_DRQ)) || !(st & ATA_SR_DRDY))
		return;
	ata_issue_read(c, i, lba);
}

int ata_poll(void)
{
	for (int i = 0; i < ATA_DISKS; i++) {
		struct ata_disk *dk = &disks[i];
		if (!dk->present)
			continue;
		struct ata_channel *c = &chans[dk->chan];
		if (c->busy_drive == i)
			ata_check_timeout(c, dk, i);
		else if (c->busy_drive < 0 && deadline_passed(dk->next_read) &&
			 !rng_primary_full(ata_rng))
			ata_start_read(c, dk, i);
	}
	return 0;
}

void ata_source_fields(const struct entropy_source *src, char *buf, size_t n)
{
	for (int i = 0; i < ATA_DISKS; i++) {
		struct ata_disk *dk = &disks[i];
		if (!dk->present || src != &dk->src)
			continue;
		unsigned long f = irq_save();        /* bound: three loads */
		unsigned long rd = dk->reads, er = dk->errors, to = dk->timeouts;
		irq_restore(f);
		snprintf(buf, n, "reads=%lu errors=%lu timeouts=%lu sectors=%lu", rd, er, to,
			(unsigned long)dk->sectors);
	}
}

/* IDENTIFY drive idx (channel idx/2, master or slave) and report it:
 * 1 and disks[idx] filled for a usable LBA disk, else 0. */
static int probe_disk(int idx, int trusted)
{
	static uint16_t id[ATA_SECTOR_WORDS];
	int ch = idx / 2, sl = idx % 2;
	struct ata_disk *dk = &disks[idx];
	snprintf(dk->name, sizeof(dk->name), "ata%d", idx);
	int r = identify(&chans[ch], sl, id);
	if (r == -2)
		kprintf("%s: ATAPI or non-ATA device: skipped\r\n", dk->name);
	if (r == -1)
		kprintf("%s: no answer to IDENTIFY: skipped\r\n", dk->name);
	if (r != 1)
		return 0;
	uint32_t sectors = id[ATA_ID_LBA_SECTORS] | ((uint32_t)id[ATA_ID_LBA_SECTORS + 1] << 16);
	if (!(id[ATA_ID_CAPS] & ATA_ID_CAPS_LBA) || sectors == 0) {
		kprintf("%s: no LBA support: skipped\r\n", dk->name);
		return 0;
	}
	if (sectors > ATA_LBA28_MAX)
		sectors = ATA_LBA28_MAX;
	id_string(id, ATA_ID_MODEL, ATA_ID_MODEL_WORDS, dk->model, sizeof(dk->model));
	dk->present = 1;
	dk->chan = ch;
	dk->slave = sl;
	dk->sectors = sectors;
	kprintf("%s: %s %s, %lu sectors (%lu MiB), %s\r\n", dk->name,
		ch ? "secondary" : "primary", sl ? "slave" : "master",
		(unsigned long)sectors, (unsigned long)(sectors >> 11),
		trusted ? "trusted" : "untrusted");
	kprintf("%s: model '%s'\r\n", dk->name, dk->model);
	return 1;
}

/* Both channels: a floating bus is no channel; each drive is probed with
 * the channel's interrupt off (nIEN). Returns the disks found. */
static int probe_channels(int trusted)
{
	int n = 0;
	for (int ch = 0; ch < ATA_CHANNELS; ch++) {
		struct ata_channel *c = &chans[ch];
		if (inb(c->base + ATA_STATUS) == ATA_BUS_FLOATING && inb(c->ctl) == ATA_BUS_FLOATING)
			continue;                /* floating bus: no channel */
		c->present = 1;
		outb(c->ctl, ATA_CTL_NIEN);  /* no interrupts while probing */
		n += probe_disk(ch * 2, trusted);
		n += probe_disk(ch * 2 + 1, trusted);
	}
	return n;
}

int ata_init(struct rng *r, enum ata_mode mode)
{
	if (mode == ATA_OFF) {
		kprintf("ata: off\r\n");
		return -1;
	}
	int trusted = mode == ATA_TRUSTED;
	if (!probe_channels(trusted)) {
		for (int ch = 0; ch < ATA_CHANNELS; ch++)
			if (chans[ch].present)
				outb(chans[ch].ctl, 0);
		kprintf("ata: no disks\r\n");
		return -1;
	}
	ata_rng = r;
	for (int i = 0; i < ATA_DISKS; i++) {
		struct ata_disk *dk = &disks[i];
		if (!dk->present)
			continue;
		create_entropy_source(r, &dk->src, dk->name, chans[dk->chan].irq,
			trusted, ATA_GRANULARITY_KHZ);
		dk->next_read = deadline_in_ms(ATA_FIRST_READ_MS);
	}
	for (int ch = 0; ch < ATA_CHANNELS; ch++) {
		struct ata_channel *c = &chans[ch];
		if (!c->present)
			continue;
		(void)inb(c->base + ATA_STATUS);          /* drop any stale INTRQ */
		if (disks[ch * 2].present || disks[ch * 2 + 1].present)
			irq_register(c->irq, ata_irq);
		outb(c->ctl, 0);                           /* nIEN clear: interrupts on */
	}
	return 0;
}
