/* ata driver (placeholder until written). */
#include "drivers/ata.h"

void ata_init(void)
{
}
