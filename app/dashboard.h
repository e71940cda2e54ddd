/* Live VGA text dashboard: clock, pools, per-source estimates, serving, COM2. */
#ifndef RAND86_DASHBOARD_H
#define RAND86_DASHBOARD_H

/* Register the dashboard's poller (main loop, never interrupt context).
 * The boot log stays on the screen until DASH_TAKEOVER_MS after this call
 * (just before the prompt); then the dashboard owns the screen and is redrawn every
 * DASH_REFRESH_MS, one row per main-loop pass, writing only changed cells.
 * Does nothing without VGA text memory. */
#define DASH_TAKEOVER_MS 1500
#define DASH_REFRESH_MS  250
void dashboard_init(void);
#endif
