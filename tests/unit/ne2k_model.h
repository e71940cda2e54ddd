/* A behavioural DP8390 + NE2000 model and the host platform under the real
 * drivers/ne2000.c (tests/unit/test_drv_ne2000.c).
 *
 * Time: one microsecond per port access (ISA speed) and per clock read.
 * The clock is the PIT clock: its ticks arrive only while the model's
 * interrupt flag is set, so with it cleared the clock stops at the next
 * tick edge and any wait on it never ends. Clock reads with the flag
 * cleared are counted, and more than clock_poll_limit of them end the test.
 *
 * A masked section runs from irq_save (flag was set) to irq_restore, or
 * through one call of the interrupt handler; its port accesses, clock
 * reads and ring header reads are counted. */
#ifndef NE2K_MODEL_H
#define NE2K_MODEL_H
#include <stdint.h>
#include <setjmp.h>
#include "arch/x86/cpu.h"
#include "arch/x86/irq.h"
#include "arch/x86/pic.h"
#include "arch/x86/clock.h"

#define M_IO  0x300
#define M_IRQ 9
#define M_RAM_BASE 0x4000
#define M_RAM_SIZE 0x4000

enum { SEC_NONE, SEC_IRQ, SEC_SAVE, SEC_KINDS };

struct m_section {
	int kind;
	unsigned ports, clock_polls, headers;
};

struct ne2k_model {
	/* behaviour switches (set after model_reset) */
	int absent;                   /* empty I/O range: every read 0xFF */
	int rdc_dead, rst_dead;       /* never sets ISR.RDC / ISR.RST */
	int crc_skip;                 /* next page one further when the count ends a page */
	unsigned rst_delay_us;        /* STP to ISR.RST */

	/* DP8390 */
	uint8_t cr, pstart, pstop, bnry, curr, isr, imr, rcr, tcr, dcr;
	uint16_t rsar, rbcr;
	uint8_t par[6], mar[8];
	int stopped, dma_read;
	uint64_t rst_at;              /* ISR.RST due at this time (0: not due) */
	uint8_t prom[32];
	uint8_t ram[M_RAM_SIZE];

	/* receive state: after OVW the chip takes nothing until it has been
	 * stopped and the driver has moved BNRY (a frame removed) */
	int halted, halted_stopped, halted_bnry_moved;
	uint64_t rx_stored, rx_missed, rx_overflows;
	/* pages where stored frames start, oldest first: the driver must read
	 * its headers exactly there, in order */
	uint8_t q[4096];
	unsigned q_head, q_tail;
	uint64_t hdr_reads, hdr_misplaced, dma_overreads, tx_attempts, bnry_writes;
	/* the overflow recovery, as times of each step after the last OVW */
	uint64_t t_ovw, t_stp, t_rbcr0, t_loopback, t_sta, t_bnry, t_ovw_ack, t_tcr0;
	int rst_seen_stopped;         /* an ISR read saw RST while stopped */

	/* the 8259 line (edge triggered) and its handler */
	int line, irr, irq;
	irq_handler_t handler[IRQ_COUNT];
	unsigned irq_calls;

	/* the clock */
	uint64_t t_us, jiffies;
	unsigned tick_us;
	int iflag;
	uint64_t masked_clock_polls;
	unsigned clock_poll_limit;
	jmp_buf *trap;                /* set: a runaway ends here instead of failing */
	int trapped;

	/* masked sections */
	struct m_section cur;
	uint64_t sections[SEC_KINDS];
	struct m_section max[SEC_KINDS];        /* field-wise maxima */
	unsigned section_port_limit;            /* a masked section past this never ends */
	uint64_t call_budget_end;               /* test-set: a driver call past this hangs */

	/* the wire: a frame every traffic_us (0: none), lengths from the PRNG */
	unsigned traffic_us;
	uint64_t next_frame_at, rng, seed;
	void (*on_header)(uint8_t page);        /* called at each header read */
	void (*on_curr_read)(uint8_t curr);     /* called at each CURR read */

	/* fake entropy core */
	uint64_t samples;
	struct entropy_source *src;
	char log[4096];
	unsigned log_len;
};

extern struct ne2k_model M;

void model_reset(unsigned hz, uint64_t seed);
uint64_t model_rand(void);
/* The chip's way: 1 stored, 0 missed (stopped, loopback, monitor,
 * halted), -1 overflow (ISR.OVW set, the chip halts). */
int model_rx(const uint8_t *frame, unsigned len);
/* A frame of len bytes of PRNG data (broadcast destination). */
int model_rx_random(unsigned len);
/* QEMU's way: no BNRY check, header first, data wraps over whatever is
 * there, the header included. */
void model_rx_overwrite(const uint8_t *frame, unsigned len);
/* Write 4 header bytes at page and make it look received (CURR to
 * curr_after, ISR.PRX). */
void model_fake_header(uint8_t page, uint8_t status, uint8_t next, uint16_t count, uint8_t curr_after);
/* Pages between the driver's BNRY + 1 and CURR: frames not yet taken. */
unsigned model_ring_used(void);
/* Let pending interrupts in (the main loop with interrupts on). */
void model_deliver(void);
void model_section_reset(void);
/* Let us microseconds pass (the main loop halted; the flag as it is). */
void model_idle(unsigned us);
#endif
