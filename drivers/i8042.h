/* i8042 PS/2 controller: keyboard (IRQ 1) and aux/mouse (IRQ 12) as entropy sources. */
#ifndef RAND86_I8042_H
#define RAND86_I8042_H
#include <stdint.h>

#include <stddef.h>

struct rng;
struct entropy_source;
/* Bring up the controller and its devices; registers the trusted sources
 * `keyboard` and, when a PS/2 mouse answers, `mouse`, on r. Absence is
 * reported once in the boot log; every wait is bounded. Call with
 * interrupts on. 0 when either source is there, -1 when neither is. */
int i8042_init(struct rng *r);
/* The `sources` line fields of the keyboard or mouse source (nothing for others). */
void i8042_source_fields(const struct entropy_source *src, char *buf, size_t n);

/* What the driver found and counted (for tests and the sources line). */
struct i8042_stats {
	int controller, keyboard, mouse;    /* present: 1, absent: 0 */
	uint32_t keys;                      /* keyboard samples (press or release) */
	uint32_t kbd_ignored;               /* ACK/resend/error bytes, not samples */
	uint32_t packets;                   /* complete mouse packets (samples) */
	uint32_t resyncs;                   /* mouse packet restarts after a lost byte */
	uint32_t spurious;                  /* interrupts with an empty output buffer */
};
void i8042_get_stats(struct i8042_stats *out);
#endif
