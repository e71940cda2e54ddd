/* newlib glue: no heap, and the few stubs newlib links against. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct _reent;

/*
 * rand86 allocates nothing: every buffer is static, sized at build time,
 * so 4 MiB is enough and nothing can run out after boot. newlib's
 * snprintf (nano-svfprintf) still links the allocator for the one case
 * that grows its buffer, asprintf's; into a fixed buffer it truncates
 * and never calls it. These stubs stand in for newlib's malloc (about
 * 5 KB of code and 1 KB of tables rand86 would carry for nothing): an
 * allocation fails with ENOMEM.
 */
void *_malloc_r(struct _reent *r, size_t n)
{
	(void)r;
	(void)n;
	errno = ENOMEM;
	return NULL;
}

void *_realloc_r(struct _reent *r, void *p, size_t n)
{
	(void)p;
	return _malloc_r(r, n);
}

void _free_r(struct _reent *r, void *p)
{
	(void)r;
	(void)p;
}

int _write(int fd, const void *buf, size_t n) { (void)fd; (void)buf; (void)n; errno = ENOSYS; return -1; }
int _read(int fd, void *buf, size_t n) { (void)fd; (void)buf; (void)n; errno = ENOSYS; return -1; }
int _close(int fd) { (void)fd; errno = ENOSYS; return -1; }
int _lseek(int fd, int off, int whence) { (void)fd; (void)off; (void)whence; errno = ENOSYS; return -1; }
int _fstat(int fd, struct stat *st) { (void)fd; st->st_mode = S_IFCHR; return 0; }
int _isatty(int fd) { (void)fd; return 1; }
