/* libFuzzer target: the bytes a PS/2 keyboard, mouse and controller send, through drivers/i8042.c. */
/*
 * The real driver against a small 8042 (IBM PC/AT Technical Reference,
 * "8042 keyboard controller"): commands on 0x64, replies and device
 * bytes on 0x60 with status bit 5 saying which port.
 * Input: byte 0 & 31 is how many bytes of reply script follow; during
 * bring-up each reply the controller or a device would give is replaced
 * by the next script byte unless that byte is 0 (so RESENDs, wrong ACKs,
 * failed self-tests and silence can be asked for). Then records of two
 * bytes f, d: d arrives on the mouse port if f & 1, else the keyboard's,
 * with the timeout (f & 2) and parity (f & 4) error bits; f & 8 is an
 * interrupt with nothing to read instead; (f >> 4) * 8 ms pass first.
 * Invariants: bring-up ends (every wait has its deadline); a keyboard
 * sample is the byte just received, never a prefix, ACK, RESEND or error
 * byte; a mouse sample is the last three mouse bytes, received in order
 * with no error and no gap over 50 ms between them, the first with bit 3
 * set; as many samples as keys and packets counted; spurious interrupts
 * counted; what is printed is printable.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_pc.h"
#include "drivers/i8042.c"

static struct { uint8_t b, aux; } outq[64];
static unsigned outn;
static uint8_t cfg_byte, pending_cmd;
static const uint8_t *script;
static size_t script_left;
static uint8_t status_err;

static void reply(uint8_t b, int aux)
{
	if (script_left) {
		uint8_t s = *script++;
		script_left--;
		if (s)
			b = s;
	}
	if (outn < 64) {
		outq[outn].b = b;
		outq[outn].aux = (uint8_t)aux;
		outn++;
	}
}

static void device_byte(uint8_t v, int aux)
{
	if (aux && v == DEV_RESET) {
		reply(DEV_ACK, 1);
		reply(DEV_BAT_OK, 1);
		reply(MOUSE_ID_PS2, 1);
	} else {
		reply(DEV_ACK, aux);
	}
}

static int dev_out(uint16_t port, uint8_t v)
{
	if (port == I8042_CMD) {
		pending_cmd = 0;
		switch (v) {
		case CMD_READ_CFG: reply(cfg_byte, 0); break;
		case CMD_WRITE_CFG: case CMD_WRITE_AUX: pending_cmd = v; break;
		case CMD_AUX_DISABLE: cfg_byte |= CFG_AUX_OFF; break;
		case CMD_AUX_ENABLE: cfg_byte &= (uint8_t)~CFG_AUX_OFF; break;
		case CMD_KBD_DISABLE: cfg_byte |= CFG_KBD_OFF; break;
		case CMD_KBD_ENABLE: cfg_byte &= (uint8_t)~CFG_KBD_OFF; break;
		case CMD_SELF_TEST: reply(SELF_TEST_OK, 0); break;
		case CMD_KBD_TEST: case CMD_AUX_TEST: reply(PORT_TEST_OK, 0); break;
		default: break;
		}
		return 1;
	}
	if (port == I8042_DATA) {
		if (pending_cmd == CMD_WRITE_CFG)
			cfg_byte = v;
		else
			device_byte(v, pending_cmd == CMD_WRITE_AUX);
		pending_cmd = 0;
		return 1;
	}
	return port == IO_POST_PORT;
}

static int dev_in(uint16_t port, uint8_t *v)
{
	if (port == I8042_STATUS) {
		*v = outn ? (uint8_t)(ST_OBF | (outq[0].aux ? ST_AUXDATA : 0) | status_err) : 0;
		return 1;
	}
	if (port == I8042_DATA) {
		*v = outn ? outq[0].b : 0;
		if (outn)
			memmove(outq, outq + 1, --outn * sizeof(outq[0]));
		return 1;
	}
	return 0;
}

/* ---- the entropy core, as far as the driver reaches it ---- */
static uint8_t last_kbd, mouse_hist[3];
static unsigned mouse_run;          /* mouse bytes in a row, error-free, no gap over 50 ms */
static uint64_t mouse_at;
static uint32_t kbd_samples, mouse_samples;

struct entropy_source *create_entropy_source(struct rng *r, struct entropy_source *storage,
	const char *name, int irq, int trusted, uint32_t granularity_khz)
{
	(void)r; (void)granularity_khz;
	memset(storage, 0, sizeof(*storage));
	storage->name = name;
	storage->irq = irq;
	storage->trusted = trusted;
	return storage;
}

void rng_source_outside_timed(struct entropy_source *src)
{
	src->outside_timed = 1;
}

void add_timing_entropy(struct entropy_source *src, uint32_t datum)
{
	if (src == kbd_src) {
		FUZZ_CHECK((datum & 0xFF) == last_kbd, "key sample 0x%08x, last byte 0x%02x", datum, last_kbd);
		FUZZ_CHECK(last_kbd != KBD_PREFIX_EXT && last_kbd != KBD_PREFIX_BREAK &&
			last_kbd != KBD_PREFIX_E1 && last_kbd != KBD_OVERRUN && last_kbd != KBD_ERROR &&
			last_kbd != DEV_ACK && last_kbd != DEV_RESEND, "0x%02x taken as a key", last_kbd);
		kbd_samples++;
		return;
	}
	FUZZ_CHECK(src == mouse_src, "a sample from no source of the driver");
	uint32_t want = mouse_hist[0] | (uint32_t)mouse_hist[1] << 8 | (uint32_t)mouse_hist[2] << 16;
	FUZZ_CHECK(mouse_run >= 3 && datum == want && (datum & MOUSE_B0_ALWAYS1),
		"mouse sample 0x%06x, last three bytes 0x%06x, %u in a row", datum, want, mouse_run);
	mouse_samples++;
}

static void check_log(void)
{
	for (size_t i = 0; i < pc_log_len; i++)
		FUZZ_CHECK(((uint8_t)pc_log[i] >= 0x20 && (uint8_t)pc_log[i] <= 0x7E) ||
			pc_log[i] == '\r' || pc_log[i] == '\n', "byte 0x%02x printed", (uint8_t)pc_log[i]);
}

static void reset_driver(void)
{
	kbd_src = mouse_src = NULL;
	st_keys = st_kbd_ignored = st_packets = st_resyncs = st_spurious = 0;
	kbd_prefix = 0;
	kbd_e1_left = 0;
	mouse_idx = 0;
	mouse_dropping = 0;
	mouse_last = mouse_gap_ticks = 0;
	have_controller = have_keyboard = have_mouse = 0;
}

/* One record: a byte from a port (or a spurious interrupt) after a gap. */
static void arrive(uint8_t f, uint8_t d, uint32_t *spurious)
{
	int aux = f & 1;
	pc_us += (uint64_t)(f >> 4) * 8000;
	outn = 0;
	status_err = (uint8_t)((f & 2 ? ST_TIMEOUT : 0) | (f & 4 ? ST_PARITY : 0));
	if (f & 8) {
		*spurious += pc_handler(aux ? MOUSE_IRQ : KBD_IRQ) != NULL;
		pc_raise(aux ? MOUSE_IRQ : KBD_IRQ);
		FUZZ_CHECK(!pc_handler(aux ? MOUSE_IRQ : KBD_IRQ) || st_spurious == *spurious,
			"%u spurious counted, %u sent", st_spurious, *spurious);
		return;
	}
	if (aux && mouse_src) {
		int gap = mouse_run && pc_us - mouse_at > 50000;
		mouse_run = status_err ? 0 : gap ? 1 : mouse_run + 1;
		mouse_at = pc_us;
		mouse_hist[0] = mouse_hist[1];
		mouse_hist[1] = mouse_hist[2];
		mouse_hist[2] = d;
	} else if (!aux) {
		last_kbd = d;
	}
	outq[0].b = d;
	outq[0].aux = (uint8_t)aux;
	outn = 1;
	pc_raise(aux ? MOUSE_IRQ : KBD_IRQ);
	FUZZ_CHECK(mouse_idx < 3 && kbd_e1_left <= 2, "packet state %u, E1 bytes due %u", mouse_idx,
		kbd_e1_left);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rng *no_rng;
	uint32_t spurious = 0;
	if (size < 1)
		return 0;
	pc_reset();
	reset_driver();
	pc_dev_in = dev_in;
	pc_dev_out = dev_out;
	outn = 0;
	cfg_byte = CFG_KBD_IRQ | CFG_AUX_IRQ | CFG_XLATE;
	pending_cmd = status_err = 0;
	script = data + 1;
	script_left = (size_t)(data[0] & 31) < size - 1 ? (size_t)(data[0] & 31) : size - 1;
	kbd_samples = mouse_samples = 0;
	mouse_run = 0;
	mouse_at = 0;
	last_kbd = 0;
	(void)i8042_init(no_rng);
	check_log();
	for (size_t i = 1 + (data[0] & 31); i + 2 <= size; i += 2)
		arrive(data[i], data[i + 1], &spurious);
	FUZZ_CHECK(kbd_samples == st_keys && mouse_samples == st_packets,
		"samples %u/%u, counted keys %u packets %u", kbd_samples, mouse_samples, st_keys, st_packets);
	check_log();
	return 0;
}
