/* i8042 driver (to be written). */
#ifndef RAND86_I8042_H
#define RAND86_I8042_H
void i8042_init(void);
#endif
