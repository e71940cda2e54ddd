/* Host tests: the UART transmit decision (lib/uart_tx.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "lib/uart_tx.h"

#define LSR_DR 0x01

static void test_thre_set_sends_whatever_iir_said(void **state)
{
	(void)state;
	/* Bochs: IIR reported received data and the THRE interrupt is gone;
	 * LSR still says the FIFO is empty, so the handler must send. */
	assert_int_equal(uart_tx_burst(UART_TX_LSR_THRE | LSR_DR, 16, 100), 16);
	assert_int_equal(uart_tx_burst(UART_TX_LSR_THRE, 16, 5), 5);
}

static void test_thre_clear_or_nothing_queued_sends_nothing(void **state)
{
	(void)state;
	assert_int_equal(uart_tx_burst(LSR_DR, 16, 100), 0);
	assert_int_equal(uart_tx_burst(0, 1, 100), 0);
	assert_int_equal(uart_tx_burst(UART_TX_LSR_THRE, 16, 0), 0);
}

static void test_a_16450_takes_one_byte_per_thre(void **state)
{
	(void)state;
	assert_int_equal(uart_tx_burst(UART_TX_LSR_THRE, 1, 4095), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thre_set_sends_whatever_iir_said),
		cmocka_unit_test(test_thre_clear_or_nothing_queued_sends_nothing),
		cmocka_unit_test(test_a_16450_takes_one_byte_per_thre),
	};
	return cmocka_run_group_tests_name("lib/uart_tx", tests, NULL, NULL);
}
