/*
 * i8042 keyboard controller: the PS/2 keyboard (IRQ 1) and the aux port's
 * PS/2 mouse (IRQ 12) as trusted timing sources, 1 kHz granularity (the
 * devices scan/report no finer than that; patch 2/4).
 *
 * Ports: 0x60 data (read: output buffer, write: to the device or a command
 * argument), 0x64 status (read) and controller command (write).
 * Status bits: 0 output buffer full, 1 input buffer full, 5 byte is from
 * the aux device, 6 timeout error, 7 parity error.
 * Config byte (commands 0x20/0x60): bit 0 IRQ 1 enable, bit 1 IRQ 12
 * enable, bit 2 system flag, bit 4 keyboard clock disabled, bit 5 aux clock
 * disabled, bit 6 translation to scan code set 1.
 *
 * Bring-up is polled with both IRQ enables off; every wait has a deadline
 * (deadline_in_ms) and reports itself when it runs out, so a missing or
 * broken controller or device costs a bounded time and is skipped. The
 * keyboard is never sent anything but "enable scanning"; what it sends is
 * only ever entropy.
 */
#include <stdint.h>
#include <stdio.h>

#include "drivers/i8042.h"
#include "arch/x86/io.h"
#include "arch/x86/irq.h"
#include "arch/x86/clock.h"
#include "lib/kprintf.h"
#include "entropy/entropy.h"

/* Ports and controller commands (IBM PC/AT Technical Reference, "8042
 * keyboard controller"); bits under each. */
#define I8042_DATA      0x60
#define I8042_STATUS    0x64    /* read */
#define   ST_OBF          0x01  /* output buffer full: a byte to read */
#define   ST_IBF          0x02  /* input buffer full: not ready to take one */
#define   ST_AUXDATA      0x20  /* the byte is from the aux device */
#define   ST_TIMEOUT      0x40
#define   ST_PARITY       0x80
#define I8042_CMD       0x64    /* write */
#define   CMD_READ_CFG    0x20  /* the config byte: */
#define   CMD_WRITE_CFG   0x60
#define     CFG_KBD_IRQ     0x01  /* IRQ 1 enable */
#define     CFG_AUX_IRQ     0x02  /* IRQ 12 enable */
#define     CFG_KBD_OFF     0x10  /* keyboard clock disabled */
#define     CFG_AUX_OFF     0x20  /* aux clock disabled */
#define     CFG_XLATE       0x40  /* translation to scan code set 1 */
#define   CMD_AUX_DISABLE 0xA7
#define   CMD_AUX_ENABLE  0xA8
#define   CMD_AUX_TEST    0xA9
#define   CMD_SELF_TEST   0xAA
#define   CMD_KBD_TEST    0xAB
#define   CMD_KBD_DISABLE 0xAD
#define   CMD_KBD_ENABLE  0xAE
#define   CMD_WRITE_AUX   0xD4  /* the next data byte goes to the aux device */

/* Device commands and replies (keyboard and mouse alike). */
#define DEV_ENABLE      0xF4
#define DEV_DEFAULTS    0xF6
#define DEV_RESET       0xFF
#define DEV_ACK         0xFA
#define DEV_RESEND      0xFE
#define DEV_BAT_OK      0xAA

#define SELF_TEST_OK    0x55
#define PORT_TEST_OK    0x00
#define I8042_FLOATING  0xFF    /* status with nothing decoding the ports */

/* Bytes from the keyboard (scan code sets 1 and 2) that are no key. */
#define KBD_PREFIX_EXT   0xE0   /* extended key follows */
#define KBD_PREFIX_BREAK 0xF0   /* set 2 (untranslated): release follows */
#define KBD_PREFIX_E1    0xE1   /* Pause: two more bytes */
#define KBD_OVERRUN      0x00   /* buffer overrun (set 2) */
#define KBD_ERROR        0xFF   /* key detection error / overrun (set 1) */

/* PS/2 mouse packet byte 0 (IBM PS/2 Hardware Interface Technical
 * Reference, "Pointing device"): bit 3 is always set. */
#define MOUSE_B0_ALWAYS1 0x08
#define MOUSE_ID_PS2     0x00   /* the standard 3-byte-packet mouse */

#define KBD_IRQ   1
#define MOUSE_IRQ 12

/* Time limits (ms). QEMU answers at once; hardware is slower, a mouse's
 * power-on self-test after reset takes up to ~500 ms. */
#define WAIT_CTL_MS     50
#define WAIT_TEST_MS    500
#define WAIT_ACK_MS     250
#define WAIT_BAT_MS     1000
#define FLUSH_MS        50
#define FLUSH_MAX       64
#define MOUSE_GAP_MS    50      /* a partial packet older than this is dropped */

#define PORT_ANY        (-1)
#define PORT_KBD        0
#define PORT_AUX        1

static struct entropy_source kbd_src_storage, mouse_src_storage;
static struct entropy_source *kbd_src, *mouse_src;

/* Interrupt-side state (written only by the IRQ handler). */
static volatile uint32_t st_keys, st_kbd_ignored, st_packets, st_resyncs, st_spurious;
static uint32_t kbd_prefix;             /* 0xE0/0xF0 prefix bytes of the key in progress */
static unsigned kbd_e1_left;            /* bytes still due in an 0xE1 (Pause) sequence */
static uint8_t mouse_pkt[3];
static unsigned mouse_idx;              /* bytes of the packet held so far */
static int mouse_dropping;              /* inside a run of discarded bytes */
static uint64_t mouse_last;             /* clock_now() at the previous aux byte */
static uint64_t mouse_gap_ticks;
static int have_controller, have_keyboard, have_mouse;

/* ---- polled controller access (init only) ---- */

static int wait_input_empty(const char *what)
{
	struct deadline d = deadline_in_ms(WAIT_CTL_MS);

	while (inb(I8042_STATUS) & ST_IBF) {
		if (deadline_passed(d)) {
			kprintf("i8042: timeout (%u ms) waiting to send %s\r\n", WAIT_CTL_MS, what);
			return -1;
		}
	}
	return 0;
}

/* Next byte from `port` (PORT_ANY, PORT_KBD, PORT_AUX); bytes from the
 * other port are dropped. -1 after `ms` without one. */
static int read_byte(uint32_t ms, int port, const char *what)
{
	struct deadline d = deadline_in_ms(ms);

	for (;;) {
		uint8_t st = inb(I8042_STATUS);
		if (st & ST_OBF) {
			uint8_t b = inb(I8042_DATA);
			if (port == PORT_ANY || port == ((st & ST_AUXDATA) ? PORT_AUX : PORT_KBD))
				return b;
			continue;
		}
		if (deadline_passed(d)) {
			kprintf("i8042: timeout (%lu ms) waiting for %s\r\n", (unsigned long)ms, what);
			return -1;
		}
	}
}

static void flush_output(void)
{
	struct deadline d = deadline_in_ms(FLUSH_MS);
	int n = 0;

	while (inb(I8042_STATUS) & ST_OBF) {
		if (n >= FLUSH_MAX || deadline_passed(d)) {
			kprintf("i8042: output buffer still full after %d bytes / %u ms; going on\r\n",
				n, FLUSH_MS);
			return;
		}
		(void)inb(I8042_DATA);
		n++;
		io_delay();
	}
}

static int ctl_cmd(uint8_t cmd, const char *what)
{
	if (wait_input_empty(what) < 0)
		return -1;
	outb(I8042_CMD, cmd);
	return 0;
}

static int ctl_write(uint8_t cmd, uint8_t arg, const char *what)
{
	if (ctl_cmd(cmd, what) < 0 || wait_input_empty(what) < 0)
		return -1;
	outb(I8042_DATA, arg);
	return 0;
}

static int ctl_query(uint8_t cmd, uint32_t ms, const char *what)
{
	if (ctl_cmd(cmd, what) < 0)
		return -1;
	return read_byte(ms, PORT_ANY, what);
}

/* Send one byte to a device; 0 when it ACKs (a RESEND is retried). */
static int dev_cmd(int port, uint8_t byte, const char *what)
{
	for (int tries = 0; tries < 3; tries++) {
		if (port == PORT_AUX && ctl_cmd(CMD_WRITE_AUX, what) < 0)
			return -1;
		if (wait_input_empty(what) < 0)
			return -1;
		outb(I8042_DATA, byte);
		int r = read_byte(WAIT_ACK_MS, port, what);
		if (r == DEV_ACK)
			return 0;
		if (r != DEV_RESEND) {
			if (r >= 0)
				kprintf("i8042: %s: reply 0x%02x, not ACK\r\n", what, (unsigned)r);
			return -1;
		}
	}
	kprintf("i8042: %s: device keeps asking to resend\r\n", what);
	return -1;
}

/* ---- interrupt side: read the port, keep packet state, add the sample ---- */

static void kbd_byte(uint8_t b, uint8_t st)
{
	int prefix = b == KBD_PREFIX_EXT || b == KBD_PREFIX_BREAK || b == KBD_PREFIX_E1;

	if (st & (ST_TIMEOUT | ST_PARITY)) {
		st_kbd_ignored++;
		return;
	}
	/* Overrun, error, stray ACK/RESEND: no key, and the end of any key in
	 * progress (no set 1 sequence, Pause's included, holds these bytes). */
	if (b == KBD_OVERRUN || b == KBD_ERROR || b == DEV_ACK || b == DEV_RESEND) {
		st_kbd_ignored++;
		kbd_prefix = 0;
		kbd_e1_left = 0;
		return;
	}
	if (kbd_e1_left && !prefix) {            /* E1 xx yy: one sample for the three */
		kbd_prefix = (kbd_prefix << 8) | b;
		if (--kbd_e1_left)
			return;
	} else if (b == KBD_PREFIX_E1) {         /* also one that cuts a Pause short */
		kbd_prefix = b;
		kbd_e1_left = 2;
		return;
	} else if (prefix) {
		if (kbd_e1_left)
			kbd_prefix = 0;                  /* a Pause cut short: what came is no key */
		kbd_e1_left = 0;
		kbd_prefix = (kbd_prefix << 8) | b;
		return;
	} else {
		kbd_prefix = (kbd_prefix << 8) | b;
	}
	uint32_t datum = kbd_prefix;
	kbd_prefix = 0;
	st_keys++;
	add_timing_entropy(kbd_src, datum);
}

static void mouse_byte(uint8_t b, uint8_t st)
{
	uint64_t now = clock_now();

	if (mouse_idx && now - mouse_last > mouse_gap_ticks) {
		mouse_idx = 0;                       /* stale partial packet: a byte was lost */
		st_resyncs++;
	}
	mouse_last = now;
	if (st & (ST_TIMEOUT | ST_PARITY)) {
		if (mouse_idx)
			st_resyncs++;
		mouse_idx = 0;
		return;
	}
	if (mouse_idx == 0 && !(b & MOUSE_B0_ALWAYS1)) {
		if (!mouse_dropping)
			st_resyncs++;
		mouse_dropping = 1;
		return;
	}
	mouse_dropping = 0;
	mouse_pkt[mouse_idx++] = b;
	if (mouse_idx < 3)
		return;
	mouse_idx = 0;
	st_packets++;
	add_timing_entropy(mouse_src,
		(uint32_t)mouse_pkt[0] | (uint32_t)mouse_pkt[1] << 8 | (uint32_t)mouse_pkt[2] << 16);
}

/* One handler for both lines: status bit 5 says whose byte it is. */
static void i8042_irq(int irq)
{
	(void)irq;
	uint8_t st = inb(I8042_STATUS);
	if (!(st & ST_OBF)) {
		st_spurious++;
		return;
	}
	uint8_t b = inb(I8042_DATA);
	if (st & ST_AUXDATA) {
		if (mouse_src)
			mouse_byte(b, st);
	} else if (kbd_src) {
		kbd_byte(b, st);
	}
}

/* ---- `sources` fields ---- */

void i8042_source_fields(const struct entropy_source *src, char *buf, size_t n)
{
	if (src && src == kbd_src)
		snprintf(buf, n, "ignored=%lu", (unsigned long)st_kbd_ignored);
	else if (src && src == mouse_src)
		snprintf(buf, n, "packets=%lu resyncs=%lu", (unsigned long)st_packets,
			(unsigned long)st_resyncs);
}

void i8042_get_stats(struct i8042_stats *out)
{
	out->controller = have_controller;
	out->keyboard = have_keyboard;
	out->mouse = have_mouse;
	out->keys = st_keys;
	out->kbd_ignored = st_kbd_ignored;
	out->packets = st_packets;
	out->resyncs = st_resyncs;
	out->spurious = st_spurious;
}

/* ---- bring-up ---- */

static int mouse_init(void)
{
	int r;

	if (ctl_cmd(CMD_AUX_ENABLE, "aux enable") < 0)
		return -1;
	if (dev_cmd(PORT_AUX, DEV_RESET, "mouse reset") < 0)
		return -1;
	r = read_byte(WAIT_BAT_MS, PORT_AUX, "mouse self-test result");
	if (r != DEV_BAT_OK) {
		if (r >= 0)
			kprintf("mouse: self-test answered 0x%02x\r\n", (unsigned)r);
		return -1;
	}
	r = read_byte(WAIT_ACK_MS, PORT_AUX, "mouse id");
	if (r != MOUSE_ID_PS2) {
		if (r >= 0)
			kprintf("mouse: id 0x%02x, not a standard PS/2 mouse\r\n", (unsigned)r);
		return -1;
	}
	if (dev_cmd(PORT_AUX, DEV_DEFAULTS, "mouse set defaults") < 0)
		return -1;
	if (dev_cmd(PORT_AUX, DEV_ENABLE, "mouse enable reporting") < 0)
		return -1;
	return 0;
}

/* Controller bring-up: both ports off, output flushed, IRQs and
 * translation off, self-test passed. Returns the config byte to build on
 * (bit 5 still says whether 0xA7 found an aux clock), or -1. */
static int controller_init(void)
{
	/* Nothing decodes the ports: the bus floats to 0xFF (both buffers "full"). */
	if (inb(I8042_STATUS) == I8042_FLOATING)
		return -1;
	if (ctl_cmd(CMD_KBD_DISABLE, "disable keyboard port") < 0 ||
	    ctl_cmd(CMD_AUX_DISABLE, "disable aux port") < 0)
		return -1;
	flush_output();

	int cfg = ctl_query(CMD_READ_CFG, WAIT_CTL_MS, "config byte");
	if (cfg < 0)
		return -1;
	cfg &= ~(CFG_KBD_IRQ | CFG_AUX_IRQ | CFG_XLATE);
	if (ctl_write(CMD_WRITE_CFG, (uint8_t)cfg, "config byte") < 0)
		return -1;

	int r = ctl_query(CMD_SELF_TEST, WAIT_TEST_MS, "controller self-test");
	if (r != SELF_TEST_OK) {
		if (r >= 0)
			kprintf("i8042: controller self-test answered 0x%02x\r\n", (unsigned)r);
		return -1;
	}
	/* A self-test may reset the controller (QEMU does): write the config again. */
	if (ctl_write(CMD_WRITE_CFG, (uint8_t)cfg, "config byte") < 0)
		return -1;
	return cfg;
}

/* A dual-port controller: 0xA7 set config bit 5, and enabling the aux
 * port must clear it again. */
static int aux_port_present(int cfg)
{
	int aux = 0;
	if ((cfg & CFG_AUX_OFF) && ctl_cmd(CMD_AUX_ENABLE, "aux enable") == 0) {
		int r = ctl_query(CMD_READ_CFG, WAIT_CTL_MS, "config byte");
		if (r >= 0 && !(r & CFG_AUX_OFF))
			aux = 1;
		(void)ctl_cmd(CMD_AUX_DISABLE, "disable aux port");
	}
	return aux;
}

/* Interface test of one port (0xAB or 0xA9): 1 when it answers 0x00. */
static int port_test(uint8_t cmd, const char *what)
{
	int r = ctl_query(cmd, WAIT_CTL_MS, what);
	if (r > 0)
		kprintf("i8042: %s answered 0x%02x\r\n", what, (unsigned)r);
	return r == PORT_TEST_OK;
}

/* Keyboard: port on, scanning on (its only command). 1 when the port is on. */
static int keyboard_init(void)
{
	if (ctl_cmd(CMD_KBD_ENABLE, "enable keyboard port") < 0)
		return 0;
	if (dev_cmd(PORT_KBD, DEV_ENABLE, "keyboard enable scanning") < 0)
		kprintf("keyboard: no ACK to enable scanning; keeping the port\r\n");
	return 1;
}

/* Sources and handlers first, then the IRQ enables in the final config. */
static void i8042_start(struct rng *rng, int cfg, int kbd, int aux)
{
	if (kbd) {
		kbd_src = create_entropy_source(rng, &kbd_src_storage, "keyboard", KBD_IRQ, 1, 1);
		rng_source_outside_timed(kbd_src);      /* a person's key, not our clock's */
		have_keyboard = 1;
	}
	if (aux) {
		mouse_gap_ticks = (uint64_t)clock_khz() * MOUSE_GAP_MS;
		mouse_src = create_entropy_source(rng, &mouse_src_storage, "mouse", MOUSE_IRQ, 1, 1);
		rng_source_outside_timed(mouse_src);
		have_mouse = 1;
	}
	flush_output();
	if (kbd)
		irq_register(KBD_IRQ, i8042_irq);
	if (aux)
		irq_register(MOUSE_IRQ, i8042_irq);

	cfg &= ~(CFG_KBD_OFF | CFG_AUX_OFF | CFG_KBD_IRQ | CFG_AUX_IRQ);
	cfg |= CFG_XLATE;                        /* scan code set 1, as the BIOS leaves it */
	cfg |= kbd ? CFG_KBD_IRQ : CFG_KBD_OFF;
	cfg |= aux ? CFG_AUX_IRQ : CFG_AUX_OFF;
	if (ctl_write(CMD_WRITE_CFG, (uint8_t)cfg, "config byte") < 0)
		kprintf("i8042: final config not written: input may stay silent\r\n");
}

int i8042_init(struct rng *rng)
{
	int cfg = controller_init();
	if (cfg < 0) {
		kprintf("i8042: no controller at 0x60/0x64: keyboard and mouse absent\r\n");
		return -1;
	}
	have_controller = 1;
	int aux = aux_port_present(cfg);
	int kbd = port_test(CMD_KBD_TEST, "keyboard port test");
	if (aux)
		aux = port_test(CMD_AUX_TEST, "aux port test");
	if (kbd)
		kbd = keyboard_init();
	if (aux && mouse_init() < 0) {
		(void)ctl_cmd(CMD_AUX_DISABLE, "disable aux port");
		aux = 0;
	}
	if (!aux)
		kprintf("mouse: no PS/2 mouse: source absent\r\n");
	if (!kbd)
		kprintf("keyboard: port test failed: source absent\r\n");
	i8042_start(rng, cfg, kbd, aux);
	kprintf("i8042: keyboard %s, mouse %s\r\n", kbd ? "on irq 1" : "absent",
		aux ? "on irq 12" : "absent");
	return kbd || aux ? 0 : -1;
}
