/* Host tests: the real arch/x86/rtc.c and cmos.c against an MC146818
 * model (below): the rate select, which bits are touched and when, the
 * NMI bit of port 0x70, the acknowledgement, and the recovery from a
 * missed one. The model follows the Motorola MC146818A datasheet:
 * register C clears on a read, IRQ is asserted while IRQF is set, and the
 * 8259 behind it is edge-triggered (a new interrupt needs the line to fall
 * and rise again). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "arch/x86/io.h"
#include "arch/x86/cpu.h"
#include "arch/x86/irq.h"
#include "arch/x86/clock.h"
/* The sources themselves, in this unit: arch/x86's own io.h and cpu.h
 * would win over tests/unit/fake/ for a file there, but the fakes above
 * already hold their include guards. */
#include "arch/x86/cmos.c"
#include "arch/x86/rtc.c"            /* and its state, reset between tests */

/* ---------------------------------------------------------------- model */

static struct {
	uint8_t reg[128];
	uint8_t index;                /* last value written to 0x70, bit 7 included */
	int uip_reads;                /* register A reads that still show UIP */
	int writes[128];              /* data writes per register */
	int writes_during_uip;
	int index_writes_unmasked;    /* index writes with NMI enabled that an access used */
	int line;                     /* IRQ 8 level: IRQF */
	int edges;                    /* rising edges the 8259 has seen and not yet delivered */
	int woke;                     /* what irq_woke_cpu() answers */
	irq_handler_t handler;
	int irq8_taken;               /* irq_in_use(8) */
	uint64_t ms;
	int irq_off;                  /* irq_save depth */
} M;

static void line_update(void)
{
	int level = (M.reg[CMOS_REG_C] & CMOS_C_IRQF) != 0;
	if (level && !M.line)
		M.edges++;
	M.line = level;
}

void outb(uint16_t port, uint8_t v)
{
	if (port == 0x70) {
		M.index = v;
		return;
	}
	if (port != 0x71)
		return;                       /* 0x80: io_delay */
	uint8_t r = M.index & 0x7F;
	if (!(M.index & 0x80))
		M.index_writes_unmasked++;
	M.writes[r]++;
	if (r == CMOS_REG_A && M.uip_reads > 0)
		M.writes_during_uip++;
	if (r == CMOS_REG_A)
		v = (uint8_t)((v & ~CMOS_A_UIP) | (M.reg[r] & CMOS_A_UIP));
	if (r != CMOS_REG_C && r != CMOS_REG_D)     /* read-only */
		M.reg[r] = v;
}

uint8_t inb(uint16_t port)
{
	if (port != 0x71)
		return 0xFF;
	uint8_t r = M.index & 0x7F, v = M.reg[r];
	if (!(M.index & 0x80))
		M.index_writes_unmasked++;
	if (r == CMOS_REG_A && M.uip_reads > 0 && --M.uip_reads >= 0)
		v |= CMOS_A_UIP;
	if (r == CMOS_REG_C) {
		M.reg[r] = 0;
		line_update();
	}
	return v;
}

void outw(uint16_t p, uint16_t v) { (void)p; (void)v; }
void outl(uint16_t p, uint32_t v) { (void)p; (void)v; }
uint16_t inw(uint16_t p) { (void)p; return 0xFFFF; }
uint32_t inl(uint16_t p) { (void)p; return 0xFFFFFFFF; }
void insw(uint16_t p, void *b, uint32_t n) { (void)p; (void)b; (void)n; }
unsigned long irq_save(void) { return (unsigned long)M.irq_off++; }
void irq_restore(unsigned long f) { M.irq_off = (int)f; }
void cpu_cli(void) { M.irq_off = 1; }
void cpu_sti(void) { M.irq_off = 0; }
int irq_woke_cpu(void) { return M.woke; }
int irq_in_use(int irq) { return irq == 8 && (M.irq8_taken || M.handler); }
int irq_register(int irq, irq_handler_t h)
{
	if (irq != 8 || irq_in_use(irq))
		return -1;
	M.handler = h;
	return 0;
}
uint64_t clock_ms(void) { return M.ms; }

/* One periodic interval ends: PF, and IRQF if PIE. deliver: the 8259 hands
 * a new edge to the handler at once (0: the handler does not run, as if
 * the interrupt were lost between the RTC and the CPU). */
static void period(int deliver)
{
	M.reg[CMOS_REG_C] |= CMOS_C_PF;
	if (M.reg[CMOS_REG_B] & CMOS_B_PIE)
		M.reg[CMOS_REG_C] |= CMOS_C_IRQF;
	line_update();
	if (M.edges && M.handler && deliver) {
		M.edges = 0;
		M.handler(8);
	} else if (!deliver) {
		M.edges = 0;
	}
}

/* ---------------------------------------------------------------- the hook */

static int calls, cleans, last_clean;

static void hook(int clean)
{
	calls++;
	cleans += clean;
	last_clean = clean;
}

/* The BIOS's setup: 32.768 kHz divider, 1024 Hz selected but PIE off,
 * 24-hour BCD with the update-ended interrupt enabled (bits that must
 * survive), a time of day in the clock registers. */
static int setup(void **state)
{
	(void)state;
	memset(&M, 0, sizeof(M));
	M.reg[CMOS_REG_A] = 0x26;
	M.reg[CMOS_REG_B] = CMOS_B_24H | 0x10;
	M.reg[CMOS_REG_D] = CMOS_D_VRT;
	M.reg[0] = 0x59;
	M.reg[2] = 0x12;
	memset(&rtc, 0, sizeof(rtc));
	calls = cleans = last_clean = 0;
	return 0;
}

/* ---------------------------------------------------------------- tests */

/* PC-NOTES / datasheet: rate select r gives 32768 >> (r - 1) Hz, r = 3..15. */
static void test_rate_select_is_the_datasheet_table(void **state)
{
	(void)state;
	for (unsigned r = 3; r <= 15; r++)
		assert_int_equal(rtc_rate_select(32768u >> (r - 1)), r);
	const uint32_t bad[] = { 0, 1, 3, 1000, 1023, 16384, 32768, 0x80000000u };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rtc_rate_select(bad[i]), 0);
}

static void test_start_changes_only_the_rate_and_pie(void **state)
{
	(void)state;
	M.uip_reads = 3;                            /* an update is under way */
	assert_int_equal(rtc_periodic_start(8192, hook), 0);
	assert_int_equal(M.reg[CMOS_REG_A], 0x23);  /* divider 010 kept, rate 3 */
	assert_int_equal(M.reg[CMOS_REG_B], CMOS_B_24H | 0x10 | CMOS_B_PIE);
	assert_int_equal(M.writes_during_uip, 0);
	for (int r = 0; r < 128; r++)
		if (r != CMOS_REG_A && r != CMOS_REG_B)
			assert_int_equal(M.writes[r], 0);
	assert_int_equal(M.reg[0], 0x59);
	assert_int_equal(M.irq_off, 0);             /* interrupts as they were */
}

/* Every access masks NMI (bit 7 of the index); the index is then left on
 * register D with NMI enabled, after the start and after each interrupt. */
static void test_nmi_masked_in_accesses_and_enabled_after(void **state)
{
	(void)state;
	assert_int_equal(rtc_periodic_start(1024, hook), 0);
	assert_int_equal(M.index, CMOS_REG_D);
	for (int i = 0; i < 5; i++) {
		period(1);
		assert_int_equal(M.index, CMOS_REG_D);
	}
	assert_int_equal(M.index_writes_unmasked, 0);
	assert_int_equal(calls, 5);
}

/* A sample is clean when it and the one before both woke the CPU. */
static void test_clean_needs_two_wake_ups_in_a_row(void **state)
{
	(void)state;
	assert_int_equal(rtc_periodic_start(1024, hook), 0);
	M.woke = 1;
	period(1);
	assert_int_equal(last_clean, 0);            /* no predecessor yet */
	period(1);
	assert_int_equal(last_clean, 1);
	M.woke = 0;
	period(1);                                  /* found the CPU running */
	assert_int_equal(last_clean, 0);
	M.woke = 1;
	period(1);                                  /* its predecessor did */
	assert_int_equal(last_clean, 0);
	period(1);
	assert_int_equal(last_clean, 1);
	assert_int_equal(calls, 5);
	assert_int_equal(cleans, 2);
}

/* A period whose acknowledgement never happens leaves IRQ 8 asserted: no
 * edge, no interrupt, until the main loop's poll reads register C. */
static void test_a_missed_acknowledgement_is_recovered(void **state)
{
	(void)state;
	struct rtc_stats st;
	assert_int_equal(rtc_periodic_start(1024, hook), 0);
	period(1);
	assert_int_equal(calls, 1);
	rtc_periodic_poll();
	period(0);                                  /* lost: C not read */
	for (int i = 0; i < 20; i++) {
		period(1);
		M.ms += 1;
		rtc_periodic_poll();
	}
	assert_int_equal(calls, 1);                 /* stalled, as the hardware does */
	rtc_periodic_stats(&st);
	assert_int_equal(st.rearms, 0);             /* 20 ms: not yet 50 */
	M.ms += 30;
	rtc_periodic_poll();
	rtc_periodic_stats(&st);
	assert_int_equal(st.rearms, 1);
	assert_int_equal(M.line, 0);
	period(1);
	period(1);
	assert_int_equal(calls, 3);                 /* running again */
	M.ms += 100;
	rtc_periodic_poll();                        /* interrupts came: nothing to do */
	rtc_periodic_stats(&st);
	assert_int_equal(st.rearms, 1);
}

/* Someone else read register C first: the handler finds PF clear. */
static void test_a_stray_interrupt_is_counted_not_sampled(void **state)
{
	(void)state;
	struct rtc_stats st;
	assert_int_equal(rtc_periodic_start(1024, hook), 0);
	M.reg[CMOS_REG_C] = 0;
	M.handler(8);
	rtc_periodic_stats(&st);
	assert_int_equal(st.strays, 1);
	assert_int_equal(calls, 0);
}

static void test_no_rtc_no_divider_or_irq_taken_touch_nothing(void **state)
{
	(void)state;
	M.reg[CMOS_REG_A] = 0xFF;
	assert_int_equal(rtc_periodic_start(1024, hook), RTC_ERR_ABSENT);
	M.reg[CMOS_REG_A] = 0x66;                   /* divider 110: held in reset */
	assert_int_equal(rtc_periodic_start(1024, hook), RTC_ERR_DIVIDER);
	M.reg[CMOS_REG_A] = 0x26;
	M.irq8_taken = 1;
	assert_int_equal(rtc_periodic_start(1024, hook), RTC_ERR_IRQ);
	assert_int_equal(rtc_periodic_start(1000, hook), RTC_ERR_RATE);
	for (int r = 0; r < 128; r++)
		assert_int_equal(M.writes[r], 0);
	assert_null(M.handler);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_rate_select_is_the_datasheet_table, setup),
		cmocka_unit_test_setup(test_start_changes_only_the_rate_and_pie, setup),
		cmocka_unit_test_setup(test_nmi_masked_in_accesses_and_enabled_after, setup),
		cmocka_unit_test_setup(test_clean_needs_two_wake_ups_in_a_row, setup),
		cmocka_unit_test_setup(test_a_missed_acknowledgement_is_recovered, setup),
		cmocka_unit_test_setup(test_a_stray_interrupt_is_counted_not_sampled, setup),
		cmocka_unit_test_setup(test_no_rtc_no_divider_or_irq_taken_touch_nothing, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
