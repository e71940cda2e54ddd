/* Probe the interrupt-source devices in a fixed order. */
#include "devices.h"

void devices_init(void)
{
}
