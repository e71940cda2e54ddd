/* The flat GDT: its segment selectors and its loader. */
#ifndef RAND86_GDT_H
#define RAND86_GDT_H

#define GDT_CODE_SEL 0x08
#define GDT_DATA_SEL 0x10

void gdt_init(void);
#endif
