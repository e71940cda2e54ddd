/* VGA text console at 0xB8000. */
#include "vga.h"
#include "arch/x86/io.h"

#define VGA_TEXT      ((volatile uint16_t *)0xB8000)
#define VGA_ATTR_LOG  0x07          /* light grey on black */
#define VGA_CRTC_INDEX 0x3D4
#define VGA_CRTC_DATA  0x3D5
#define VGA_CRTC_CURSOR_START 0x0A
#define VGA_CRTC_START_HIGH 0x0C   /* the display's first cell, in cells in text mode */
#define VGA_CRTC_START_LOW  0x0D
#define VGA_TEXT_CELLS (8 * 2048)  /* 0xB8000-0xBFFFF: mode 3's eight pages */
#define   VGA_CURSOR_OFF 0x20      /* cursor start register bit 5: cursor disabled */
#define VGA_TEST_CELL 0x1234        /* any value: text memory keeps it, a bus without does not */

/* origin: the cell shown at the top left. The log scrolls by moving it a
 * row down (the CRTC's start address), not by copying the screen, which
 * costs 2,000 cells of ISA bus a line on a real PC (~4 ms on a 386SX) and
 * ~15,000 instructions: the screen is copied back to the top only when
 * the origin reaches the end of text memory, once every ~150 lines. */
static int present, mirror = 1, row, col, origin;

static inline uint16_t cell(char c, uint8_t attr) { return (uint16_t)((uint8_t)c | attr << 8); }

int vga_init(void)
{
	/* Text memory that does not keep what is written is no VGA (or MDA-only). */
	volatile uint16_t *t = VGA_TEXT;
	uint16_t old = t[0];
	t[0] = VGA_TEST_CELL;
	int ok = t[0] == VGA_TEST_CELL;
	t[0] = old;
	if (!ok)
		return -1;
	present = 1;
	outb(VGA_CRTC_INDEX, VGA_CRTC_CURSOR_START);
	outb(VGA_CRTC_DATA, VGA_CURSOR_OFF);
	vga_clear(VGA_ATTR_LOG);
	return 0;
}

int vga_present(void) { return present; }
void vga_set_mirror(int on) { mirror = on; }

static void vga_set_origin(int cells)
{
	origin = cells;
	outb(VGA_CRTC_INDEX, VGA_CRTC_START_HIGH);
	outb(VGA_CRTC_DATA, (uint8_t)(cells >> 8));
	outb(VGA_CRTC_INDEX, VGA_CRTC_START_LOW);
	outb(VGA_CRTC_DATA, (uint8_t)cells);
}

void vga_clear(uint8_t attr)
{
	if (!present)
		return;
	vga_set_origin(0);
	for (int i = 0; i < VGA_COLS * VGA_ROWS; i++)
		VGA_TEXT[i] = cell(' ', attr);
	row = col = 0;
}

static void vga_scroll(void)
{
	volatile uint16_t *t = VGA_TEXT;
	int next = origin + VGA_COLS;

	if (next + VGA_COLS * VGA_ROWS > VGA_TEXT_CELLS) {
		for (int i = 0; i < VGA_COLS * (VGA_ROWS - 1); i++)
			t[i] = t[next + i];
		next = 0;
	}
	for (int i = 0; i < VGA_COLS; i++)
		t[next + VGA_COLS * (VGA_ROWS - 1) + i] = cell(' ', VGA_ATTR_LOG);
	vga_set_origin(next);
	row = VGA_ROWS - 1;
}

void vga_write(const char *s, size_t n)
{
	if (!present || !mirror)
		return;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\r') {
			col = 0;
		} else if (c == '\n') {
			if (++row >= VGA_ROWS)
				vga_scroll();
		} else if (c == '\b') {
			if (col > 0)
				col--;
		} else if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7F) {
			if (col >= VGA_COLS) {
				col = 0;
				if (++row >= VGA_ROWS)
					vga_scroll();
			}
			VGA_TEXT[origin + row * VGA_COLS + col++] = cell(c, VGA_ATTR_LOG);
		}
	}
}

void vga_put_at(int r, int c, uint8_t attr, const char *s)
{
	if (!present || r < 0 || r >= VGA_ROWS)
		return;
	for (; *s && c < VGA_COLS; s++, c++)
		if (c >= 0)
			VGA_TEXT[origin + r * VGA_COLS + c] = cell(*s, attr);
}
