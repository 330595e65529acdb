// SPDX-License-Identifier: MIT
// Many rows of equal weight: three threads each call getpid through
// chains of different depths, every function the same number of times.
// Recorded with -e syscalls:sys_enter_getpid -c 1 -g, perf report's rows
// tie on children and self, and perf's order among them is its output
// tree's: the caller-above-callee rule compares rows of one thread only.
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N 50

static volatile long sink;

#define NI __attribute__((noinline))
NI static void leaf(void) { sink += syscall(SYS_getpid); }
/* a constant of its own each: no two bodies for GCC to fold into one */
#define STEP(name, next) NI static void name(void) { next(); sink += __LINE__ * 100 + __COUNTER__; }
STEP(a1, leaf) STEP(a2, a1) STEP(a3, a2) STEP(a4, a3)
STEP(b1, leaf) STEP(b2, b1) STEP(b3, b2)
STEP(c1, leaf) STEP(c2, c1)
STEP(d1, leaf) STEP(d2, d1) STEP(d3, d2) STEP(d4, d3) STEP(d5, d4)
STEP(e1, a2) STEP(e2, e1)
STEP(f1, b1) STEP(f2, f1) STEP(f3, f2)

static void *one(void *arg)
{
	for (int i = 0; i < N; i++) {
		a4();
		c2();
		e2();
	}
	return arg;
}

static void *two(void *arg)
{
	for (int i = 0; i < N; i++) {
		b3();
		d5();
	}
	return arg;
}

static void *three(void *arg)
{
	for (int i = 0; i < N; i++) {
		f3();
		c1();
		d2();
	}
	return arg;
}

int main(void)
{
	pthread_t t[3];
	void *(*fn[3])(void *) = { one, two, three };

	/* one after the other: which thread makes a row first is fixed */
	for (int i = 0; i < 3; i++) {
		if (pthread_create(&t[i], NULL, fn[i], NULL))
			return 1;
		pthread_join(t[i], NULL);
	}
	for (int i = 0; i < N; i++)
		a3();
	return 0;
}
