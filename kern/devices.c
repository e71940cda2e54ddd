/* Probe the interrupt-source devices in a fixed order; each reports itself. */
#include "devices.h"
#include "drivers/i8042.h"
#include "drivers/ata.h"
#include "drivers/ne2000.h"

void devices_init(void)
{
	i8042_init();
	ata_init();
	ne2000_init();
}
