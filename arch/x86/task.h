/* One background task beside the main loop, switched through the interrupt frame. */
#ifndef RAND86_TASK_H
#define RAND86_TASK_H
#include <stddef.h>
#include "irq.h"

/* The vector of `int` that switches between the main loop and the task:
 * the first one past the 8259s' sixteen. */
#define TASK_VECTOR (IRQ_BASE + IRQ_COUNT)

/* Give the task a stack and its body, which runs whenever the task is
 * run and has not yet yielded; after it returns the task yields and
 * starts it again on the next task_run(). */
void task_init(void *stack, size_t size, void (*body)(void));
/* Main loop: run the task until it yields or any interrupt comes (the
 * interrupt's handler runs first), then return. Call with interrupts off
 * (the check that found nothing else to do stays valid): they are on
 * while the task runs and off again on return. */
void task_run(void);
/* isr_dispatch: the frame to resume, for the switch vector and after an
 * interrupt (which takes the CPU from the task back to the main loop). */
struct regs *task_switch(struct regs *r);
struct regs *task_preempt(struct regs *r);
#endif
