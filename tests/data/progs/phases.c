/*
 * Phases one after another, for the pictures kept in time order: the
 * main thread spins briefly (warm_up), then a worker thread runs phase_a,
 * phase_b, then phase_a again, each about MS milliseconds (argv[1],
 * default 60). The worker is the busiest thread; a view merged by stack
 * shows phase_a once.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long x;
static long ms = 60;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* the clock read seldom: nearly every sample is in the phase itself */
#define SPIN(len)							\
	for (double t0 = now_ms(); now_ms() - t0 < (len);)		\
		for (int i = 0; i < 100000; i++)			\
			x = x * 6364136223846793005ul + 1

__attribute__((noinline)) void warm_up(void) { SPIN(ms / 6); }
__attribute__((noinline)) void phase_a(void) { SPIN(ms); }
__attribute__((noinline)) void phase_b(void) { SPIN(ms); }

/* one call site: phase_a's stacks the second time are those of the first */
static void *worker(void *arg)
{
	static void (*const order[])(void) = { phase_a, phase_b, phase_a };

	for (int i = 0; i < 3; i++)
		order[i]();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		ms = atol(argv[1]);
	warm_up();
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	return pthread_join(t, NULL);
}
