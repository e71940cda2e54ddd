/* ne2000 driver (to be written). */
#ifndef RAND86_NE2000_H
#define RAND86_NE2000_H
void ne2000_init(void);
#endif
