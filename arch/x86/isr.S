/* Interrupt entry stubs: 32 exceptions, 16 IRQs and the task switch into one C dispatcher. */
	.text
.macro STUB_NOERR n
	.globl isr_\n
isr_\n:
	pushl $0
	pushl $\n
	jmp isr_common
.endm
.macro STUB_ERR n
	.globl isr_\n
isr_\n:
	pushl $\n
	jmp isr_common
.endm

/* CPU pushes an error code for 8, 10-14, 17, 21, 29, 30. */
STUB_NOERR 0;  STUB_NOERR 1;  STUB_NOERR 2;  STUB_NOERR 3
STUB_NOERR 4;  STUB_NOERR 5;  STUB_NOERR 6;  STUB_NOERR 7
STUB_ERR 8;    STUB_NOERR 9;  STUB_ERR 10;   STUB_ERR 11
STUB_ERR 12;   STUB_ERR 13;   STUB_ERR 14;   STUB_NOERR 15
STUB_NOERR 16; STUB_ERR 17;   STUB_NOERR 18; STUB_NOERR 19
STUB_NOERR 20; STUB_ERR 21;   STUB_NOERR 22; STUB_NOERR 23
STUB_NOERR 24; STUB_NOERR 25; STUB_NOERR 26; STUB_NOERR 27
STUB_NOERR 28; STUB_ERR 29;   STUB_ERR 30;   STUB_NOERR 31
STUB_NOERR 32; STUB_NOERR 33; STUB_NOERR 34; STUB_NOERR 35
STUB_NOERR 36; STUB_NOERR 37; STUB_NOERR 38; STUB_NOERR 39
STUB_NOERR 40; STUB_NOERR 41; STUB_NOERR 42; STUB_NOERR 43
STUB_NOERR 44; STUB_NOERR 45; STUB_NOERR 46; STUB_NOERR 47
STUB_NOERR 48                /* TASK_VECTOR (task.h): main loop <-> task */

isr_common:
	pushal
	pushl %ds
	pushl %es
	pushl %fs
	pushl %gs
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	cld
	pushl %esp                  /* struct regs * */
	call isr_dispatch
	movl %eax, %esp             /* the frame to resume: this one, or the other context's */
	popl %gs
	popl %fs
	popl %es
	popl %ds
	popal
	addl $8, %esp               /* vector, error code */
	iret

	.section .rodata
	.globl isr_table
	.align 4
isr_table:
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48
	.long isr_\n
	.endr
