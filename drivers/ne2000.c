/* ne2000 driver (placeholder until written). */
#include "drivers/ne2000.h"

void ne2000_init(void)
{
}
