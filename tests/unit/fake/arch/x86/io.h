/* Host stand-in for arch/x86/io.h (tests/unit/fake/ comes before the root
 * on the include path of the driver model tests, so the real irq.h, pic.h
 * and clock.h declare what the model defines): every port access goes to
 * the device model its test links (tests/unit/ne2k_model.c, the MC146818
 * model in tests/unit/test_drv_rtc.c). */
#ifndef RAND86_IO_H
#define RAND86_IO_H
#include <stdint.h>

void outb(uint16_t port, uint8_t v);
void outw(uint16_t port, uint16_t v);
void outl(uint16_t port, uint32_t v);
uint8_t inb(uint16_t port);
uint16_t inw(uint16_t port);
uint32_t inl(uint16_t port);
void insw(uint16_t port, void *buf, uint32_t count);
#define IO_POST_PORT 0x80
static inline void io_delay(void) { outb(IO_POST_PORT, 0); }
#endif
