/* VGA text mode (80x25 at 0xB8000): boot log mirror and dashboard surface. */
#ifndef RAND86_VGA_H
#define RAND86_VGA_H
#include <stddef.h>
#include <stdint.h>

#define VGA_COLS 80
#define VGA_ROWS 25

int vga_init(void);                    /* 0 ok, -1 no text memory */
int vga_present(void);
void vga_write(const char *s, size_t n);   /* console mirror: scrolls */
/* Put a string at (row, col) with an attribute, clipped to the row. */
void vga_put_at(int row, int col, uint8_t attr, const char *s);
void vga_clear(uint8_t attr);
/* Stop mirroring the console (the dashboard owns the screen). */
void vga_set_mirror(int on);
#endif
