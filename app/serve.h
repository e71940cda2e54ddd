/* Serving random bytes: console commands and the COM2 stream port. */
#ifndef RAND86_SERVE_H
#define RAND86_SERVE_H
#include <stdint.h>
void stream_port_init(void);            /* COM2 pump, as boot option stream= says */
extern volatile int console_random_waiting;   /* COM2 yields entropy while the console waits */
extern uint64_t stream_port_bytes;
/* stream=egd (app/egd.c): the COM2 poller, and what it answered */
int egd_poll(void);
extern uint32_t egd_requests;
extern uint64_t egd_bytes;
#endif
