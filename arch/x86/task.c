/* One background task beside the main loop, switched through the interrupt frame.
 *
 * The task is the main loop's idle time put to work: the main loop runs
 * it where it would otherwise halt, and the first interrupt of any kind
 * hands the CPU back, so the main loop answers as soon as it would have
 * from the halt. Both contexts are ring 0 and share everything but the
 * stack; a switch is the isr_common stub resuming another saved frame
 * (isr.S), so the task can be stopped between any two instructions and
 * needs no yield points in its code. Interrupts are handled on whichever
 * stack they arrive on, so the task's stack holds one handler's depth on
 * top of its own.
 */
#include <stdint.h>
#include "cpu.h"
#include "gdt.h"
#include "task.h"

#define EFLAGS_IF       0x200u     /* interrupts on */
#define EFLAGS_RESERVED 0x002u     /* bit 1 always reads 1 */
#define TASK_STACK_SLACK 16u       /* below the first frame: the body's own frame never
                                    * reads past the top */

static struct regs *main_frame, *task_frame;
static void (*task_body)(void);
static volatile int in_task;

static void task_entry(void)
{
	for (;;) {
		task_body();
		__asm__ volatile("int %0" :: "i"(TASK_VECTOR) : "memory");
	}
}

void task_init(void *stack, size_t size, void (*body)(void))
{
	uintptr_t top = ((uintptr_t)stack + size - TASK_STACK_SLACK) & ~(uintptr_t)15;
	struct regs *f = (struct regs *)(top - sizeof(*f));

	*f = (struct regs){ 0 };
	f->gs = f->fs = f->es = f->ds = GDT_DATA_SEL;
	f->eip = (uint32_t)(uintptr_t)task_entry;
	f->cs = GDT_CODE_SEL;
	f->eflags = EFLAGS_IF | EFLAGS_RESERVED;
	task_frame = f;
	task_body = body;
}

void task_run(void)
{
	if (task_body)
		__asm__ volatile("int %0" :: "i"(TASK_VECTOR) : "memory");
}

struct regs *task_switch(struct regs *r)
{
	if (in_task) {
		task_frame = r;
		in_task = 0;
		return main_frame;
	}
	main_frame = r;
	in_task = 1;
	return task_frame;
}

struct regs *task_preempt(struct regs *r)
{
	return in_task ? task_switch(r) : r;
}
