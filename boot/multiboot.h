/* Multiboot v1 information structure (the fields rand86 reads). */
#ifndef RAND86_MULTIBOOT_H
#define RAND86_MULTIBOOT_H
#include <stdint.h>

#define MULTIBOOT_LOADER_MAGIC 0x2BADB002
#define MB_INFO_MEMORY  (1u << 0)
#define MB_INFO_CMDLINE (1u << 2)
#define MB_INFO_MMAP    (1u << 6)

struct multiboot_info {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
};
#endif
