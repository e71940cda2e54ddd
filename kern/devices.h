/* Interrupt-source devices: probed once at boot, each reports itself. */
#ifndef RAND86_DEVICES_H
#define RAND86_DEVICES_H
void devices_init(void);
void kernel_add_poller(void (*fn)(void));
#endif
