/* Console line editor (docs/PROTOCOL.md "Console"): a byte at a time, no hardware. */
#include <string.h>
#include "lineedit.h"

#define CH_CTRL_C 0x03
#define CH_BS     0x08
#define CH_LF     0x0A
#define CH_CR     0x0D
#define CH_DEL    0x7F

void le_reset(struct lineedit *le)
{
	int after_cr = le->after_cr;
	memset(le, 0, sizeof(*le));
	le->after_cr = after_cr;      /* a CRLF split across lines still counts once */
}

enum le_event le_feed(struct lineedit *le, uint8_t c, char out[4], size_t *outlen)
{
	int after_cr = le->after_cr;
	*outlen = 0;
	le->after_cr = (c == CH_CR);
	if (c == CH_LF && after_cr)
		return LE_NONE;
	if (c == CH_CR || c == CH_LF) {
		enum le_event ev = le->overflow ? LE_TOO_LONG : LE_LINE;
		le->buf[le->len] = '\0';
		out[0] = '\r';
		out[1] = '\n';
		*outlen = 2;
		if (ev == LE_TOO_LONG)
			le_reset(le);
		return ev;
	}
	if (c == CH_CTRL_C) {
		le_reset(le);
		memcpy(out, "^C\r\n", 4);
		*outlen = 4;
		return LE_CANCEL;
	}
	if (c == CH_BS || c == CH_DEL) {
		if (le->len > 0 && !le->overflow) {
			le->len--;
			memcpy(out, "\b \b", 3);
			*outlen = 3;
		}
		return LE_NONE;
	}
	if (c < 0x20 || c >= 0x7F)
		return LE_NONE;               /* other control bytes and bytes >= 0x80 */
	if (le->len >= LINE_MAX_CHARS) {
		le->overflow = 1;
		return LE_NONE;
	}
	le->buf[le->len++] = (char)c;
	out[0] = (char)c;
	*outlen = 1;
	return LE_NONE;
}
