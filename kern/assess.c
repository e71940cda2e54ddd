/* The meter's full assessments, run in the main loop's idle time within a CPU budget. */
/*
 * A full SP 800-90B assessment of a 1,024-symbol window costs ~6.8 M
 * instructions (`bench` full_assessment): 1.7 s on a 4 MIPS 386SX. Run in
 * the tick's flush, it stopped everything else for that long. Here it
 * runs as the background task (arch/x86/task.c): where the main loop
 * would halt it runs the task instead, and the first interrupt of any
 * kind hands the CPU back, so no pass of the main loop waits for it and
 * a key or a byte on a port is answered as soon as from the halt. The
 * estimators are not cut into steps: they are stopped between any two
 * instructions and resumed, so their figures are the one-shot form's
 * (tests/unit holds the two equal).
 *
 * The budget (docs/ENTROPY.md, "What the meter costs"): the meter's share
 * of the CPU is kept under METER_BUDGET_PERMILLE. Its per-sample work in
 * the flush (rng->meter_ticks) cannot wait, so the task gets what that
 * work left of the budget over the last METER_SLOTS seconds, and never
 * less than METER_FLOOR_PERMILLE, so that assessments still come where
 * the samples alone fill the budget. A bucket accrues that share of the
 * time that passes, holds at most BUCKET_MS of it, and is charged the
 * task's time; the task runs only while the bucket is not empty. So on a
 * slow machine an assessment takes longer to come, in proportion to what
 * it costs there, instead of taking the CPU: the schedule follows the
 * measured cost, and the sample counts of entropy/measure.c only say
 * when one is wanted.
 *
 * `meter_permille` in `status` is the meter's share over the last
 * METER_SLOTS seconds, from the same two clocks.
 */
#include "kern/kernel.h"
#include "arch/x86/clock.h"
#include "arch/x86/task.h"
#include "entropy/entropy_hooks.h"

#define METER_BUDGET_PERMILLE 90u  /* the meter's share: the flush's and the task's */
#define METER_FLOOR_PERMILLE 20u   /* the task's least: a full window in ~95 s at 4 MIPS */
#define BUCKET_MS 100u             /* most of the budget saved while nothing is due */
#define METER_SLOTS 10u            /* seconds of `meter_permille` */
#define TASK_STACK 8192u           /* the estimators' frames and one interrupt's */

static uint8_t task_stack[TASK_STACK] __attribute__((aligned(16)));

/* The one job. IDLE: the main loop may take one; READY: the task's;
 * DONE: the main loop's again, to hold its result. Only the task moves
 * READY to DONE, only the main loop the others. */
enum job_state { JOB_IDLE, JOB_READY, JOB_DONE };
static volatile enum job_state job_state;
static struct rng_full_job job;
static int job_is_bench;           /* bench's scratch meter: charged to no budget */
static int bench_waiting;          /* bench wants the job next: take no live one */
static uint64_t job_ticks;         /* task time spent on this job */
static uint64_t last_cost;         /* the last live job's, clock ticks */

static int64_t bucket;             /* clock ticks the meter may still spend */
static uint64_t accrued_at, meter_seen;

static struct {
	uint64_t t0[METER_SLOTS];      /* when each slot began */
	uint64_t spent[METER_SLOTS];   /* meter ticks in it */
	uint64_t flush[METER_SLOTS];   /* of which the flush's */
	unsigned cur;
	int started;
} share;

static void assess_body(void)
{
	if (job_state == JOB_READY) {
		rng_full_job_run(&job);
		job_state = JOB_DONE;
	}
}

void kern_assess_init(struct rng *r)
{
	task_init(task_stack, sizeof(task_stack), assess_body);
	rng_defer_full_assessments(r);
	rng_crng_keys_apart(r);
	rng_reads_apart(r);
	accrued_at = clock_now();
	meter_seen = r->meter_ticks;
}

static void share_add(uint64_t now, uint64_t spent, uint64_t flush)
{
	uint64_t second = (uint64_t)clock_khz() * 1000u;

	if (!share.started) {
		for (unsigned i = 0; i < METER_SLOTS; i++)
			share.t0[i] = now;
		share.started = 1;
	}
	while (now - share.t0[share.cur] >= second) {
		uint64_t next = share.t0[share.cur] + second;
		share.cur = (share.cur + 1) % METER_SLOTS;
		share.t0[share.cur] = now - next >= second ? now : next;
		share.spent[share.cur] = 0;
		share.flush[share.cur] = 0;
	}
	share.spent[share.cur] += spent + flush;
	share.flush[share.cur] += flush;
}

/* Thousandths of the time over the ring that `which` of it took. */
static uint32_t share_permille(const uint64_t *which, uint64_t now)
{
	uint64_t spent = 0, oldest;
	unsigned i;

	if (!share.started)
		return 0;
	oldest = share.t0[(share.cur + 1) % METER_SLOTS];
	for (i = 0; i < METER_SLOTS; i++)
		spent += which[i];
	if (now <= oldest)
		return 0;
	spent = spent * 1000u / (now - oldest);
	return spent > 1000u ? 1000u : (uint32_t)spent;
}

/* The task's share now: what the flush left of the budget. */
static uint32_t task_permille(uint64_t now)
{
	uint32_t flush = share_permille(share.flush, now);

	if (flush + METER_FLOOR_PERMILLE >= METER_BUDGET_PERMILLE)
		return METER_FLOOR_PERMILLE;
	return METER_BUDGET_PERMILLE - flush;
}

/* The task's ticks since the last call, against the bucket. */
static void charge(uint64_t now, uint64_t spent)
{
	uint32_t rate = task_permille(now);
	uint64_t cap = (uint64_t)clock_khz() * BUCKET_MS * rate / 1000u;

	bucket += (int64_t)((now - accrued_at) * rate / 1000u);
	accrued_at = now;
	bucket -= (int64_t)spent;
	if (bucket > (int64_t)cap)
		bucket = (int64_t)cap;
	share_add(now, spent, 0);
}

int kern_assess_poll(void)
{
	uint64_t now = clock_now();

	/* The flush's per-sample work: counted in the share, and so taken
	 * from the task's budget (task_permille), never from the bucket
	 * itself: at 4 MIPS with the rtc measured at 1024 Hz it is ~12% of
	 * the CPU by itself, and no source is paid before its first full
	 * assessment. */
	share_add(now, 0, rng_live.meter_ticks - meter_seen);
	meter_seen = rng_live.meter_ticks;
	charge(now, 0);
	if (job_state == JOB_DONE && !job_is_bench) {
		rng_full_job_finish(&rng_live, &job);
		last_cost = job_ticks;
		job_state = JOB_IDLE;
	}
	if (job_state == JOB_IDLE && !bench_waiting && rng_full_job_next(&rng_live, &job)) {
		job_ticks = 0;
		job_state = JOB_READY;
	}
	return 0;
}

int kern_assess_wants_cpu(void)
{
	/* bench waits for the live job before its own: both run unbudgeted */
	return job_state == JOB_READY && (job_is_bench || bench_waiting || bucket > 0);
}

void kern_assess_run(void)
{
	uint64_t t0 = clock_now(), dt;

	task_run();
	dt = clock_now() - t0;
	job_ticks += dt;
	if (!job_is_bench)
		charge(t0 + dt, dt);
}

uint32_t kern_meter_permille(void)
{
	return share_permille(share.spent, clock_now());
}

uint64_t kern_assess_last_cost(void)
{
	return last_cost;
}

/* bench's job, in three steps, its waits its caller's (app/cmd_bench.c):
 * no live job is taken from the first on, the second once the live one
 * is done, the third when kern_assess_bench_done() or a deadline says. */
int kern_assess_bench_wanted(void)
{
	bench_waiting = 1;
	return job_state == JOB_IDLE;
}

void kern_assess_bench_start(struct rng_meter *m)
{
	bench_waiting = 0;
	job_is_bench = 1;
	rng_full_job_take(&job, m);
	job_ticks = 0;
	job_state = JOB_READY;
}

int kern_assess_bench_done(void)
{
	return job_state == JOB_DONE;
}

uint64_t kern_assess_bench_end(uint32_t *result)
{
	uint64_t ticks = 0;

	bench_waiting = 0;
	if (!job_is_bench)
		return 0;                       /* never started */
	if (job_state == JOB_DONE) {
		ticks = job_ticks;
		*result = job.result;
		job_state = JOB_IDLE;
	}
	/* Not DONE in time: the task still owns the job and finishes it in
	 * the background; the poll then finds no live source for it. */
	job_is_bench = 0;
	return ticks;
}
