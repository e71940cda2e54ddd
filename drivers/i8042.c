/* i8042 driver (placeholder until written). */
#include "drivers/i8042.h"

void i8042_init(void)
{
}
