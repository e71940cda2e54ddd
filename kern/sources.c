/* The `sources` line's extra fields: drivers name their own counters, the shell prints them. */
#include "kern/kernel.h"

#define MAX_FIELD_FNS 8

static source_fields_fn field_fns[MAX_FIELD_FNS];
static int nfield_fns;

void sources_add_fields(source_fields_fn fn)
{
	if (nfield_fns < MAX_FIELD_FNS)
		field_fns[nfield_fns++] = fn;
}

void sources_fields(const struct entropy_source *src, char *buf, size_t n)
{
	buf[0] = '\0';
	for (int i = 0; i < nfield_fns; i++)
		field_fns[i](src, buf, n);
}
