// SPDX-License-Identifier: MIT
/* A program that spends its time in a SIGALRM handler: a DWARF-unwound
 * chain goes through the kernel's signal frame (glibc's __restore_rt,
 * whose CFI is a signal frame) back to the interrupted loop. */
#include <signal.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/time.h>
volatile uint64_t sink; volatile int n;
__attribute__((noinline)) void spin(void) { for (int i = 0; i < 3000000; i++) sink = sink * 31 + i; }
void handler(int s) { (void)s; spin(); n++; }
__attribute__((noinline)) void wait_loop(void) { while (n < 20) sink++; }
int main(void) {
	struct itimerval t = { { 0, 20000 }, { 0, 20000 } };
	signal(SIGALRM, handler); setitimer(ITIMER_REAL, &t, 0); wait_loop(); return 0; }
