/* Live VGA text dashboard (80x25): what the appliance is doing, for a person
 * at the PC's screen.
 *
 * Cost model: a poller on the main loop, never interrupt context. Every
 * DASH_REFRESH_MS it snapshots the counters (a few dozen words, interrupts
 * masked only around each 64-bit group so the reads do not tear), then draws
 * ONE screen row per main-loop pass into a RAM row buffer without printf,
 * compares it with what the screen already shows and writes only the cells
 * that changed. No clears after the takeover, so nothing flickers. */
#include <string.h>
#include "app/dashboard.h"
#include "kern/kernel.h"
#include "app/serve.h"
#include "arch/x86/pit.h"
#include "arch/x86/clock.h"
#include "drivers/serial.h"
#include "drivers/vga.h"

#define COLS VGA_COLS
#define ROWS VGA_ROWS

/* Attributes (background << 4 | foreground). */
#define A_TEXT   0x07          /* light grey */
#define A_VALUE  0x0F          /* white */
#define A_TITLE  0x1F          /* white on blue */
#define A_HEAD   0x70          /* black on light grey */
#define A_FULL   0x0A          /* light green */
#define A_EMPTY  0x08          /* dark grey */
#define A_DIM    0x03          /* cyan: legend and help */
#define A_WARN   0x0E          /* yellow */

#define CH_FULL  ((char)0xDB)  /* CP437 full block */
#define CH_EMPTY ((char)0xB0)  /* CP437 light shade */

/* Screen layout: fixed rows, so every field is always at the same place. */
#define ROW_TITLE   0
#define ROW_CLOCK   1
#define ROW_PRIMARY 3
#define ROW_SECOND  4
#define ROW_HEAD1   6
#define ROW_HEAD2   7
#define ROW_SRC0    8
#define SRC_ROWS    10         /* rows 8..17 */
#define ROW_TOTAL   18
#define ROW_RATIO   19
#define ROW_SERVED  20
#define ROW_COM2    21
#define ROW_LEGEND  23
#define ROW_HELP    24

/* Table columns: name irq trust events xy tso xy/ev tso/ev h health credited (80 columns). */
#define C_NAME   0
#define W_NAME   8
#define C_IRQ    8
#define W_IRQ    3
#define C_TRUST  12
#define W_TRUST  9
#define C_EVENTS 21
#define W_EVENTS 9
#define C_XY     30
#define W_XY     9
#define C_TSO    39
#define W_TSO    9
#define C_XYPE   48
#define W_XYPE   6
#define C_TSOPE  54
#define W_TSOPE  6
#define C_H      60
#define W_H      6
#define C_HEALTH 67
#define C_CRED   73
#define W_CRED   7

#define BAR_COL   17
#define BAR_WIDTH 36

struct src_snap {
	const char *name;
	int irq, trusted, capturing;
	uint64_t events, bits, tso_bits, credited;
	uint32_t h_milli;
	enum rng_health health;
};

struct snap {
	uint64_t uptime_ms;
	uint32_t khz, hz;
	int tsc, estimator;
	int primary, secondary;
	uint64_t credited, random_bytes, urandom_bytes, stream_bytes;
	unsigned nsrc;                               /* all registered sources */
	struct src_snap src[SRC_ROWS];               /* the first SRC_ROWS of them */
	uint64_t t_events, t_bits, t_tso;            /* totals over all sources */
	uint64_t tr_bits, tr_tso;                    /* totals over trusted sources */
	uint32_t stream_rate;                        /* COM2 bytes/s since the last snapshot */
	int com2_present, com2_room, com2_yield, random_ready, seeded, urandom_ready;
	uint32_t seeded_ms;
};

static struct snap s;
static uint16_t shown[ROWS][COLS];               /* what the screen holds (char | attr << 8) */
static char txt[COLS];
static uint8_t att[COLS];

enum { DASH_BOOTLOG, DASH_IDLE, DASH_DRAWING };
static int phase = DASH_BOOTLOG;
static int next_row;
static struct deadline due;
static uint64_t prev_stream_bytes, prev_ms;

/* ---- the row buffer ---- */
static void row_reset(void)
{
	memset(txt, ' ', sizeof(txt));
	memset(att, A_TEXT, sizeof(att));
}

static int put(int col, uint8_t a, const char *str)
{
	for (; *str && col < COLS; str++, col++) {
		if (col >= 0) {
			txt[col] = *str;
			att[col] = a;
		}
	}
	return col;
}

static void fill(int col, int n, uint8_t a, char c)
{
	for (int i = 0; i < n && col + i < COLS; i++) {
		txt[col + i] = c;
		att[col + i] = a;
	}
}

/* Decimal without printf or 64-bit division per digit: split at 10^9. */
static char *u32_dec(char *end, uint32_t v, int min_digits)
{
	int n = 0;
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
		n++;
	} while (v || n < min_digits);
	return end;
}

static const char *u64_dec(char buf[24], uint64_t v)
{
	char *p = buf + 23;
	*p = 0;
	if (v < 1000000000u)
		return u32_dec(p, (uint32_t)v, 1);
	uint64_t hi = v / 1000000000u;
	p = u32_dec(p, (uint32_t)(v - hi * 1000000000u), 9);
	if (hi < 1000000000u)
		return u32_dec(p, (uint32_t)hi, 1);
	p = u32_dec(p, (uint32_t)(hi % 1000000000u), 9);
	return u32_dec(p, (uint32_t)(hi / 1000000000u), 1);
}

/* Right-aligned in [col, col+w). */
static void put_right(int col, int w, uint8_t a, const char *str)
{
	int len = (int)strlen(str);
	put(col + (len < w ? w - len : 0), a, str);
}

static int put_num(int col, uint8_t a, uint64_t v)
{
	char b[24];
	return put(col, a, u64_dec(b, v));
}

static void put_num_right(int col, int w, uint8_t a, uint64_t v)
{
	char b[24];
	put_right(col, w, a, u64_dec(b, v));
}

/* num/den with two decimals ("3.42"), or "-" when den is 0. */
static const char *ratio2(char buf[32], uint64_t num, uint64_t den)
{
	if (!den) {
		buf[0] = '-';
		buf[1] = 0;
		return buf;
	}
	uint64_t q = num * 100 / den;         /* counters stay far below 2^57 */
	uint64_t whole = q / 100;
	char w[24];
	const char *ws = u64_dec(w, whole);
	size_t n = strlen(ws);
	memcpy(buf, ws, n);
	uint32_t frac = (uint32_t)(q - whole * 100);
	buf[n] = '.';
	buf[n + 1] = (char)('0' + frac / 10);
	buf[n + 2] = (char)('0' + frac % 10);
	buf[n + 3] = 0;
	return buf;
}

/* thousandths as "5.123" */
static const char *ratio3(char buf[32], uint32_t milli)
{
	char *p = buf + 31;
	*p = 0;
	p = u32_dec(p, milli % 1000, 3);
	*--p = '.';
	return u32_dec(p, milli / 1000, 1);
}

/* Write the cells of `row` that differ from the screen, in runs of one attribute. */
static void row_flush(int row)
{
	char run[COLS + 1];
	int c = 0;
	while (c < COLS) {
		uint16_t want = (uint16_t)((uint8_t)txt[c] | att[c] << 8);
		if (shown[row][c] == want) {
			c++;
			continue;
		}
		int start = c, n = 0;
		uint8_t a = att[c];
		while (c < COLS && att[c] == a) {
			want = (uint16_t)((uint8_t)txt[c] | att[c] << 8);
			if (shown[row][c] == want)
				break;
			shown[row][c] = want;
			run[n++] = txt[c];
			c++;
		}
		run[n] = 0;
		vga_put_at(row, start, a, run);
	}
}

/* ---- the snapshot ---- */
/* The first SRC_ROWS sources' rows, and totals over all of them. */
static void snap_sources(struct rng *r)
{
	s.nsrc = 0;
	s.t_events = s.t_bits = s.t_tso = s.tr_bits = s.tr_tso = 0;
	for (struct entropy_source *e = rng_source_next(r, NULL); e; e = rng_source_next(r, e)) {
		struct rng_source_stats ss;
		rng_source_stats(e, &ss);
		if (s.nsrc < SRC_ROWS) {
			struct src_snap *d = &s.src[s.nsrc];
			d->name = ss.name;
			d->irq = ss.irq;
			d->trusted = ss.trusted;
			d->capturing = ss.capture;
			d->events = ss.events;
			d->bits = ss.bits;
			d->tso_bits = ss.tso_bits;
			d->credited = ss.credited;
			d->h_milli = ss.h_milli;
			d->health = (enum rng_health)ss.health;
		}
		s.nsrc++;
		s.t_events += ss.events;
		s.t_bits += ss.bits;
		s.t_tso += ss.tso_bits;
		if (ss.trusted) {
			s.tr_bits += ss.bits;
			s.tr_tso += ss.tso_bits;
		}
	}
}

static void take_snapshot(void)
{
	struct rng *r = &rng_live;
	struct rng_stats st;

	s.uptime_ms = clock_ms();
	s.khz = clock_khz();
	s.hz = pit_hz();
	s.tsc = clock_is_tsc();

	rng_stats(r, &st);
	s.estimator = st.estimator;
	s.primary = st.primary_bits;
	s.secondary = st.secondary_bits;
	s.credited = st.credited_bits;
	s.random_bytes = st.random_bytes;
	s.urandom_bytes = st.urandom_bytes;
	s.stream_bytes = stream_port_bytes;

	snap_sources(r);

	s.com2_present = serial_present(COM2);
	s.com2_room = s.com2_present && serial_tx_space(COM2) >= 64;
	s.com2_yield = console_random_waiting;
	s.random_ready = rng_random_ready(r);
	s.seeded = st.seeded;
	s.seeded_ms = kern_seeded_ms();
	s.urandom_ready = rng_urandom_ready(r);
	uint64_t dt = s.uptime_ms - prev_ms;
	if (prev_ms && dt)
		s.stream_rate = (uint32_t)((s.stream_bytes - prev_stream_bytes) * 1000 / dt);
	else
		s.stream_rate = 0;
	prev_ms = s.uptime_ms;
	prev_stream_bytes = s.stream_bytes;
}

/* ---- the rows ---- */
static void draw_pool(const char *label, int bits, int max)
{
	int c = put(0, A_TEXT, label);
	(void)c;
	int full = bits <= 0 ? 0 : bits >= max ? BAR_WIDTH : bits * BAR_WIDTH / max;
	if (bits > 0 && full == 0)
		full = 1;                         /* some entropy: show a sliver */
	put(BAR_COL - 1, A_TEXT, "[");
	fill(BAR_COL, full, A_FULL, CH_FULL);
	fill(BAR_COL + full, BAR_WIDTH - full, A_EMPTY, CH_EMPTY);
	put(BAR_COL + BAR_WIDTH, A_TEXT, "]");
	put_num_right(BAR_COL + BAR_WIDTH + 2, 5, A_VALUE, (uint64_t)(bits < 0 ? 0 : bits));
	c = put(BAR_COL + BAR_WIDTH + 7, A_TEXT, " of ");
	c = put_num(c, A_TEXT, (uint64_t)max);
	c = put(c, A_TEXT, " bits ");
	char b[24];
	put_right(c, 4, A_VALUE, u64_dec(b, (uint64_t)(bits < 0 ? 0 : bits) * 100 / (uint64_t)max));
	put(c + 4, A_TEXT, "%");
}

static void draw_table_row(const char *name, int irq, const char *trust, uint64_t ev,
	uint64_t bits, uint64_t tso, uint8_t a)
{
	char b[32];
	put(C_NAME, a, name);
	if (irq >= 0)
		put_num_right(C_IRQ, W_IRQ, a, (uint64_t)irq);
	put(C_TRUST, a, trust);
	put_num_right(C_EVENTS, W_EVENTS, a, ev);
	put_num_right(C_XY, W_XY, a, bits);
	put_num_right(C_TSO, W_TSO, a, tso);
	put_right(C_XYPE, W_XYPE, a, ratio2(b, bits, ev));
	put_right(C_TSOPE, W_TSOPE, a, ratio2(b, tso, ev));
}

static void draw_title(int row)
{
	(void)row;
	fill(0, COLS, A_TITLE, ' ');
	put(1, A_TITLE, "rand86 " RAND86_VERSION " - interrupt entropy appliance");
	/* urandom's one wait per boot (`seeded`, `seeded_ms` in status) */
	char b[40], n[24];
	const char *msg = s.urandom_ready ? "not seeded (seed rules)" : "waiting for seeding";
	if (s.seeded) {
		const char *d = u64_dec(n, s.seeded_ms);
		size_t l = strlen(d);
		memcpy(b, "seeded at ", 10);
		memcpy(b + 10, d, l);
		memcpy(b + 10 + l, " ms", 4);
		msg = b;
	}
	put_right(COLS - 1 - 30, 30, A_TITLE, msg);
}

/* "D d HH:MM:SS", right to left from end; returns where it starts. */
static char *uptime_dhms(char *end, uint32_t secs)
{
	char *p = end;
	*p = 0;
	p = u32_dec(p, secs % 60, 2);
	*--p = ':';
	p = u32_dec(p, secs / 60 % 60, 2);
	*--p = ':';
	p = u32_dec(p, secs / 3600 % 24, 2);
	*--p = ' ';
	*--p = 'd';
	return u32_dec(p, secs / 86400, 1);
}

static void draw_clock(int row)
{
	(void)row;
	uint32_t secs = (uint32_t)(s.uptime_ms / 1000);
	char t[40];
	int c = put(0, A_TEXT, "Clock: ");
	c = put(c, A_VALUE, s.tsc ? "tsc" : "pit");
	c = put(c, A_TEXT, "   cpu_khz ");
	c = put_num(c, A_VALUE, s.khz);
	c = put(c, A_TEXT, " kHz   timer ");
	c = put_num(c, A_VALUE, s.hz);
	c = put(c, A_TEXT, " Hz   uptime ");
	c = put_num(c, A_VALUE, secs);
	c = put(c, A_TEXT, " s = ");
	put(c, A_VALUE, uptime_dhms(t + sizeof(t) - 1, secs));
}

static void draw_pools(int row)
{
	if (row == ROW_PRIMARY)
		draw_pool("Primary pool", s.primary, RNG_PRIMARY_WORDS * 32);
	else
		draw_pool("Secondary pool", s.secondary, RNG_SECONDARY_WORDS * 32);
}

/* The table's two heading rows: column, width (right-aligned in it), row 1, row 2. */
static const struct { int col, w; const char *one, *two; } heads[] = {
	{ C_NAME, 0, "Source", "(name)" },
	{ C_IRQ, W_IRQ, "IRQ", "" },
	{ C_TRUST, 0, "Trust", "" },
	{ C_EVENTS, W_EVENTS, "Events", "(count)" },
	{ C_XY, W_XY, "Xymoron", "bits" },
	{ C_TSO, W_TSO, "1999", "bits" },
	{ C_XYPE, W_XYPE, "Xy", "b/ev" },
	{ C_TSOPE, W_TSOPE, "1999", "b/ev" },
	{ C_H, W_H, "h", "bits" },
	{ C_HEALTH, 0, "Health", "" },
	{ C_CRED, W_CRED, "Credit", "bits" },
};

static void draw_heads(int row)
{
	fill(0, COLS, A_HEAD, ' ');
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		put_right(heads[i].col, heads[i].w, A_HEAD, row == ROW_HEAD1 ? heads[i].one : heads[i].two);
}

static void draw_source(int row)
{
	unsigned i = (unsigned)(row - ROW_SRC0);
	char b[32];
	if (i >= s.nsrc)
		return;
	const struct src_snap *d = &s.src[i];
	uint8_t a = d->trusted ? A_VALUE : A_TEXT;
	draw_table_row(d->name, d->irq, d->trusted ? "trusted" : "untrusted",
		d->events, d->bits, d->tso_bits, a);
	if (d->trusted) {
		put_right(C_H, W_H, a, ratio3(b, d->h_milli));
		put(C_HEALTH, d->health == RNG_HEALTH_FAIL ? A_WARN : a,
			rng_health_name(d->health));
	} else {
		put_right(C_H, W_H, a, "-");
		put(C_HEALTH, a, "-");
	}
	put_num_right(C_CRED, W_CRED, a, d->credited);
	if (d->capturing)
		put(C_NAME + W_NAME - 1, A_WARN, "*");
}

static void draw_total(int row)
{
	(void)row;
	draw_table_row("Total", -1, "", s.t_events, s.t_bits, s.t_tso, A_VALUE);
	if (s.nsrc > SRC_ROWS) {
		int c = put(C_TRUST, A_WARN, "+");
		c = put_num(c, A_WARN, s.nsrc - SRC_ROWS);
		put(c, A_WARN, " more");
	}
}

static void draw_ratio(int row)
{
	(void)row;
	char b[32];
	int c = put(0, A_TEXT, "Trusted sources: the 1999 rules give ");
	if (s.tr_bits) {
		c = put(c, A_VALUE, ratio2(b, s.tr_tso, s.tr_bits));
		c = put(c, A_TEXT, "x Xymoron's bits.");
	} else {
		c = put(c, A_TEXT, "- (no Xymoron bits yet).");
	}
	c = put(c, A_TEXT, " Credit: ");
	put(c, A_VALUE, s.estimator == RNG_CREDIT_TSO ? "1999 rules" :
		s.estimator == RNG_CREDIT_XYMORON ? "Xymoron" : "measured");
}

static void draw_served(int row)
{
	(void)row;
	int c = put(0, A_TEXT, "Served: random ");
	c = put_num(c, A_VALUE, s.random_bytes);
	c = put(c, A_TEXT, " bytes, urandom ");
	c = put_num(c, A_VALUE, s.urandom_bytes);
	c = put(c, A_TEXT, " bytes. Credited since boot ");
	c = put_num(c, A_VALUE, s.credited);
	put(c, A_TEXT, " bits");
}

/* Why COM2 sends nothing right now, or its rate. */
static void put_com2_state(int c)
{
	if (s.stream_rate) {
		c = put_num(c, A_VALUE, s.stream_rate);
		put(c, A_TEXT, " bytes/s now");
	} else if (!s.com2_room) {
		put(c, A_WARN, "paused: host not reading");
	} else if (boot_opts.stream == STREAM_RANDOM && s.com2_yield) {
		put(c, A_WARN, "paused: console reader first");
	} else if (boot_opts.stream == STREAM_RANDOM && !s.random_ready) {
		put(c, A_WARN, "waiting for entropy");
	} else if (boot_opts.stream == STREAM_URANDOM && !s.urandom_ready) {
		put(c, A_WARN, "waiting for seeding");
	} else {
		put(c, A_TEXT, "idle");
	}
}

static void draw_com2(int row)
{
	(void)row;
	int c = put(0, A_TEXT, "COM2: ");
	if (!s.com2_present) {
		put(c, A_TEXT, "no serial port (stream port absent)");
		return;
	}
	if (boot_opts.stream == STREAM_OFF) {
		put(c, A_TEXT, "stream port off (boot option stream=off)");
		return;
	}
	c = put(c, A_TEXT, "streams ");
	c = put(c, A_VALUE, stream_mode_name(boot_opts.stream));
	c = put(c, A_TEXT, ", ");
	c = put_num(c, A_VALUE, s.stream_bytes);
	c = put(c, A_TEXT, " bytes sent, ");
	put_com2_state(c);
}

/* The legend and the help line. */
static void draw_notes(int row)
{
	put(0, A_DIM, row == ROW_LEGEND ?
		"Xy: 2002 rules, 1999: Ts'o v1.89, h: live 90B estimate; untrusted never credited" :
		"Bars: entropy each pool holds. Updated 4x a second. Console on COM1: try help");
}

/* What each screen row shows; rows without an entry stay blank. */
static void (*const row_drawers[ROWS])(int row) = {
	[ROW_TITLE] = draw_title, [ROW_CLOCK] = draw_clock,
	[ROW_PRIMARY] = draw_pools, [ROW_SECOND] = draw_pools,
	[ROW_HEAD1] = draw_heads, [ROW_HEAD2] = draw_heads,
	[ROW_SRC0 ... ROW_SRC0 + SRC_ROWS - 1] = draw_source,
	[ROW_TOTAL] = draw_total, [ROW_RATIO] = draw_ratio,
	[ROW_SERVED] = draw_served, [ROW_COM2] = draw_com2,
	[ROW_LEGEND] = draw_notes, [ROW_HELP] = draw_notes,
};

static void draw_row(int row)
{
	row_reset();
	if (row_drawers[row])
		row_drawers[row](row);
	row_flush(row);
}

/* ---- the poller ---- */
static int dashboard_poll(void)
{
	switch (phase) {
	case DASH_BOOTLOG:
		if (!deadline_passed(due))
			return 0;
		/* The boot log has been on screen for a while; COM1 keeps it. */
		vga_set_mirror(0);
		vga_clear(A_TEXT);
		for (int r = 0; r < ROWS; r++)
			for (int c = 0; c < COLS; c++)
				shown[r][c] = (uint16_t)(' ' | A_TEXT << 8);
		phase = DASH_IDLE;
		due = deadline_in_ms(0);
		/* fall through */
	case DASH_IDLE:
		if (!deadline_passed(due))
			return 0;
		due = deadline_in_ms(DASH_REFRESH_MS);
		take_snapshot();
		next_row = 0;
		phase = DASH_DRAWING;
		/* fall through */
	case DASH_DRAWING:
		draw_row(next_row++);
		if (next_row >= ROWS) {
			phase = DASH_IDLE;
			return 0;
		}
		return 1;                    /* the rest of the rows, one a pass */
	}
	return 0;
}

void dashboard_init(void)
{
	if (!vga_present())
		return;
	due = deadline_in_ms(DASH_TAKEOVER_MS);
	kern_add_poller(dashboard_poll);
}
