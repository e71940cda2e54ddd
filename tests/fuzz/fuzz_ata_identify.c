/* libFuzzer target: the IDENTIFY data a disk answers, through drivers/ata.c's probe and what it prints. */
/*
 * The real driver against a fake primary channel (the secondary floats).
 * Input: byte 0: bit 0 a master, bit 1 a slave, bit 2 ata=trusted, bit 3
 * the slave has an ATAPI signature; then the master's 512 bytes of
 * IDENTIFY data and the slave's (zeros where the input ends).
 * Invariants: everything printed is printable; a disk with LBA and a
 * nonzero sector count is reported with its count (cut to LBA28's
 * 0x0FFFFFFF) and MiB, and its model (words 27..46, two chars a word,
 * high byte first, trailing spaces and NULs dropped) shown with every
 * byte outside 0x20-0x7E as \xHH (docs/PROTOCOL.md "Replies"); any other
 * is skipped with its reason; an ATAPI device is skipped as such.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_pc.h"
#include "drivers/ata.c"

static uint16_t ident[2][ATA_SECTOR_WORDS];
static int present[2], atapi_slave, selected;
static struct ata_channel chans_boot[ATA_CHANNELS];

static int drive_here(void) { return present[selected]; }

static int dev_in(uint16_t port, uint8_t *v)
{
	if (port == ATA_PRI_CTL || port == ATA_PRI_BASE + ATA_STATUS) {
		/* a drive: ready, data waiting; an absent one behind it: 0 */
		*v = drive_here() ? ATA_SR_DRDY | ATA_SR_DRQ | 0x10 : ATA_NO_DEVICE;
		return 1;
	}
	if (port == ATA_PRI_BASE + ATA_LBA1 || port == ATA_PRI_BASE + ATA_LBA2) {
		int sig = selected == 1 && atapi_slave;
		*v = !sig ? 0 : port == ATA_PRI_BASE + ATA_LBA1 ? 0x14 : 0xEB;
		return 1;
	}
	if (port >= ATA_PRI_BASE && port < ATA_PRI_BASE + 8) {
		*v = 0;
		return 1;
	}
	return 0;
}

static int dev_out(uint16_t port, uint8_t v)
{
	if (port == ATA_PRI_BASE + ATA_DRIVE)
		selected = !!(v & ATA_DRIVE_SLAVE);
	return 1;
}

static void dev_insw(uint16_t port, uint16_t *buf, uint32_t count)
{
	FUZZ_CHECK(port == ATA_PRI_BASE + ATA_DATA && count == ATA_SECTOR_WORDS, "insw %x %u", port, count);
	memcpy(buf, ident[selected], sizeof(ident[selected]));
}

struct entropy_source *create_entropy_source(struct rng *r, struct entropy_source *storage,
	const char *name, int irq, int trusted, uint32_t granularity_khz)
{
	(void)r; (void)granularity_khz;
	storage->name = name;
	storage->irq = irq;
	storage->trusted = trusted;
	return storage;
}
void add_timing_entropy(struct entropy_source *src, uint32_t datum) { (void)src; (void)datum; }
void rng_aux_bytes(struct rng *r, void *buf, size_t len) { (void)r; memset(buf, 0, len); }
int rng_primary_full(const struct rng *r) { (void)r; return 0; }

static const char *expect(const char *p, const char *want)
{
	size_t n = strlen(want);
	FUZZ_CHECK(strncmp(p, want, n) == 0, "printed '%.80s', expected '%s'", p, want);
	return p + n;
}

/* What docs/PROTOCOL.md says disk idx's lines are. */
static const char *expect_disk(const char *p, int idx, int trusted)
{
	const uint16_t *id = ident[idx];
	char line[512], raw[40];
	size_t n = 0, o;
	uint32_t sectors = id[60] | (uint32_t)id[61] << 16;
	if (idx == 1 && atapi_slave) {
		snprintf(line, sizeof(line), "ata%d: ATAPI or non-ATA device: skipped\r\n", idx);
		return expect(p, line);
	}
	if (!(id[49] & 0x0200) || sectors == 0) {
		snprintf(line, sizeof(line), "ata%d: no LBA support: skipped\r\n", idx);
		return expect(p, line);
	}
	if (sectors > 0x0FFFFFFFu)
		sectors = 0x0FFFFFFFu;
	snprintf(line, sizeof(line), "ata%d: primary %s, %lu sectors (%lu MiB), %s\r\nata%d: model '", idx,
		idx ? "slave" : "master", (unsigned long)sectors, (unsigned long)(sectors / 2048),
		trusted ? "trusted" : "untrusted", idx);
	p = expect(p, line);
	for (int w = 27; w <= 46; w++) {
		raw[n++] = (char)(id[w] >> 8);
		raw[n++] = (char)(id[w] & 0xFF);
	}
	while (n && (raw[n - 1] == ' ' || raw[n - 1] == '\0'))
		n--;
	o = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = (uint8_t)raw[i];
		o += (size_t)snprintf(line + o, sizeof(line) - o, c >= 0x20 && c <= 0x7E ? "%c" : "\\x%02x", c);
	}
	snprintf(line + o, sizeof(line) - o, "'\r\n");
	return expect(p, line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int saved;
	if (size < 1)
		return 0;
	if (!saved) {
		memcpy(chans_boot, chans, sizeof(chans));
		saved = 1;
	}
	memcpy(chans, chans_boot, sizeof(chans));
	memset(disks, 0, sizeof(disks));
	pc_reset();
	pc_dev_in = dev_in;
	pc_dev_out = dev_out;
	pc_dev_insw = dev_insw;
	present[0] = data[0] & 1;
	present[1] = !!(data[0] & 2);
	atapi_slave = !!(data[0] & 8);
	int trusted = !!(data[0] & 4);
	memset(ident, 0, sizeof(ident));
	memcpy(ident, data + 1, size - 1 < sizeof(ident) ? size - 1 : sizeof(ident));
	selected = 0;
	(void)ata_init(NULL, trusted ? ATA_TRUSTED : ATA_UNTRUSTED);
	pc_log[pc_log_len] = '\0';
	for (size_t i = 0; i < pc_log_len; i++)
		FUZZ_CHECK(((uint8_t)pc_log[i] >= 0x20 && (uint8_t)pc_log[i] <= 0x7E) || pc_log[i] == '\r' ||
			pc_log[i] == '\n', "byte 0x%02x printed", (uint8_t)pc_log[i]);
	const char *p = pc_log;
	for (int idx = 0; idx < 2; idx++)
		if (present[idx])
			p = expect_disk(p, idx, trusted);
	FUZZ_CHECK(*p == '\0' || strcmp(p, "ata: no disks\r\n") == 0, "printed more: '%.80s'", p);
	for (int i = 0; i < ATA_DISKS; i++)
		FUZZ_CHECK(memchr(disks[i].model, 0, sizeof(disks[i].model)) != NULL, "model not terminated");
	return 0;
}
