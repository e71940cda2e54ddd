/* MC146818 periodic interrupt (IRQ 8): the second oscillator's beat. */
/*
 * The RTC divides its 32.768 kHz crystal down to a periodic interrupt of
 * 2..8192 Hz (register A's rate select), raised while register B's PIE is
 * set and acknowledged by reading register C. Only those two bits of A and
 * B are changed, with no update in progress; the divider, the data mode,
 * the other interrupt enables and the time registers stay as the BIOS set
 * them, and `rtc=off` never gets here.
 *
 * A missed acknowledgement. Until register C is read, IRQF stays set and
 * the RTC holds IRQ 8 asserted; the 8259 is edge-triggered, so it sees no
 * further edge and the interrupts stop for good (Intel 8259A datasheet,
 * "Edge and level triggered modes"; MC146818A, "Register C"). Something
 * other than this handler reading C (a BIOS in SMM) is harmless: the next
 * period raises the line again. rtc_periodic_poll(), in the main loop,
 * reads C when no interrupt came for RTC_STALL_PERIODS periods (at least
 * RTC_STALL_MIN_MS), which drops the line; the next period raises a new
 * edge. Each such recovery is counted (`rearms`).
 */
#include "rtc.h"
#include "cmos.h"
#include "cpu.h"
#include "irq.h"
#include "clock.h"

#define RTC_IRQ            8
#define RTC_HZ_MIN         2
#define RTC_HZ_MAX         8192
#define RTC_RATE_8192      3         /* rate select r gives 32768 >> (r - 1) Hz, r = 3..15 */
#define RTC_STALL_PERIODS  4
#define RTC_STALL_MIN_MS   50

static struct {
	rtc_hook_fn hook;
	uint32_t hz, stall_ms;
	volatile uint32_t periods, strays;  /* C read with PF set / without */
	uint32_t rearms;
	uint8_t last_woke;
	uint32_t seen;                      /* periods + strays at the last poll */
	uint64_t seen_ms;
} rtc;

/* Register A's rate select for hz (a power of two 2..8192), 0 if none. */
unsigned rtc_rate_select(uint32_t hz)
{
	unsigned r = RTC_RATE_8192;
	if (hz < RTC_HZ_MIN || hz > RTC_HZ_MAX || (hz & (hz - 1)))
		return 0;
	for (uint32_t f = RTC_HZ_MAX; f > hz; f >>= 1)
		r++;
	return r;
}

/* Acknowledge; then this period's sample is clean only if it and the
 * previous one both woke the CPU from its halt (their delta is then one
 * period, timed by the two oscillators alone). */
static void rtc_irq(int irq)
{
	(void)irq;
	uint8_t c = cmos_read(CMOS_REG_C);
	cmos_release();
	if (!(c & CMOS_C_PF)) {
		rtc.strays++;
		return;
	}
	int woke = irq_woke_cpu();
	int clean = woke && rtc.last_woke;
	rtc.last_woke = (uint8_t)woke;
	rtc.periods++;
	rtc.hook(clean);
}

uint8_t rtc_read_a(void)
{
	uint8_t a = cmos_read(CMOS_REG_A);
	cmos_release();
	return a;
}

int rtc_periodic_start(uint32_t hz, rtc_hook_fn hook)
{
	unsigned rs = rtc_rate_select(hz);
	if (!rs || !hook)
		return RTC_ERR_RATE;
	uint8_t a = rtc_read_a();
	if (a == 0xFF)
		return RTC_ERR_ABSENT;          /* a floating bus */
	if ((a & CMOS_A_DIVIDER) != CMOS_A_DV_32K)
		return RTC_ERR_DIVIDER;         /* stopped, in reset, or another crystal */
	if (irq_in_use(RTC_IRQ))
		return RTC_ERR_IRQ;
	rtc.hook = hook;
	rtc.hz = hz;
	rtc.stall_ms = RTC_STALL_PERIODS * 1000u / hz;
	if (rtc.stall_ms < RTC_STALL_MIN_MS)
		rtc.stall_ms = RTC_STALL_MIN_MS;
	unsigned long f = irq_save();
	(void)cmos_wait_no_update();
	cmos_write(CMOS_REG_A, (uint8_t)((cmos_read(CMOS_REG_A) & ~(CMOS_A_UIP | CMOS_A_RATE)) | rs));
	cmos_write(CMOS_REG_B, cmos_read(CMOS_REG_B) | CMOS_B_PIE);
	(void)cmos_read(CMOS_REG_C);        /* a stale flag would hold the line */
	cmos_release();
	irq_register(RTC_IRQ, rtc_irq);
	rtc.seen_ms = clock_ms();
	irq_restore(f);
	return 0;
}

int rtc_periodic_poll(void)
{
	if (!rtc.hz)
		return 0;
	uint32_t n = rtc.periods + rtc.strays;
	uint64_t now = clock_ms();
	if (n != rtc.seen) {
		rtc.seen = n;
		rtc.seen_ms = now;
	} else if (now - rtc.seen_ms >= rtc.stall_ms) {
		(void)cmos_read(CMOS_REG_C);
		cmos_release();
		rtc.rearms++;
		rtc.seen_ms = now;
	}
	return 0;
}

void rtc_periodic_stats(struct rtc_stats *st)
{
	unsigned long f = irq_save();
	st->hz = rtc.hz;
	st->periods = rtc.periods;
	st->strays = rtc.strays;
	st->rearms = rtc.rearms;
	irq_restore(f);
}
