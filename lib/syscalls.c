/* newlib glue: a static heap for sbrk, and the few stubs newlib links against. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* 64 KiB is plenty: nothing in rand86 allocates after boot, and 4 MiB must fit. */
#define HEAP_SIZE (64 * 1024)
static uint8_t heap[HEAP_SIZE] __attribute__((aligned(16)));
static size_t heap_used;

void *sbrk(ptrdiff_t incr)
{
	if (incr < 0 || (size_t)incr > HEAP_SIZE - heap_used) {
		errno = ENOMEM;
		return (void *)-1;
	}
	void *p = heap + heap_used;
	heap_used += (size_t)incr;
	return p;
}

int _write(int fd, const void *buf, size_t n) { (void)fd; (void)buf; (void)n; errno = ENOSYS; return -1; }
int _read(int fd, void *buf, size_t n) { (void)fd; (void)buf; (void)n; errno = ENOSYS; return -1; }
int _close(int fd) { (void)fd; errno = ENOSYS; return -1; }
int _lseek(int fd, int off, int whence) { (void)fd; (void)off; (void)whence; errno = ENOSYS; return -1; }
int _fstat(int fd, struct stat *st) { (void)fd; st->st_mode = S_IFCHR; return 0; }
int _isatty(int fd) { (void)fd; return 1; }
