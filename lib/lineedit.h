/* Console line editor: echo, erase, Ctrl-C, CR/LF/CRLF, the 200-character limit. */
#ifndef RAND86_LINEEDIT_H
#define RAND86_LINEEDIT_H
#include <stddef.h>
#include <stdint.h>

#define LINE_MAX_CHARS 200

enum le_event {
	LE_NONE,          /* byte consumed; echo (if any) in out */
	LE_LINE,          /* a line is complete in le->buf */
	LE_CANCEL,        /* Ctrl-C dropped the line */
	LE_TOO_LONG,      /* the line ended but was over LINE_MAX_CHARS: discarded */
};

struct lineedit {
	char buf[LINE_MAX_CHARS + 1];
	size_t len;
	int overflow;     /* more than LINE_MAX_CHARS typed: discard at end of line */
	int after_cr;     /* swallow the LF of a CRLF */
};

void le_reset(struct lineedit *le);
/* Feed one received byte. Echo bytes (at most 4) go to out, their count to *outlen. */
enum le_event le_feed(struct lineedit *le, uint8_t c, char out[4], size_t *outlen);
#endif
