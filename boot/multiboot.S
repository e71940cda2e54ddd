/* Multiboot v1 header and the entry point: stack, clear BSS, call kmain. */
#define MB_MAGIC  0x1BADB002
#define MB_FLAGS  0x00000003      /* bit 0: page-align modules, bit 1: memory info */

	.section .multiboot, "a"
	.align 4
	.long MB_MAGIC
	.long MB_FLAGS
	.long -(MB_MAGIC + MB_FLAGS)

	.section .bss
	.align 16
boot_stack:
	.skip 16384
boot_stack_top:

	.section .text
	.globl _start
_start:
	cli
	movl $boot_stack_top, %esp
	cld
	/* Zero BSS (the loader does, but a GRUB chainload may not). Keep eax/ebx. */
	movl %eax, %esi
	movl $__bss_start, %edi
	movl $__bss_end, %ecx
	subl %edi, %ecx
	xorl %eax, %eax
	rep stosb
	pushl %ebx                  /* multiboot info */
	pushl %esi                  /* magic */
	call kmain
1:	cli
	hlt
	jmp 1b
