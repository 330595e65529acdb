/* For --call-graph dwarf (built -O2 -fomit-frame-pointer): a CPU-bound
 * chain main > a > b > c and a chain through libc's syscall(). argv[1]:
 * the rounds (default 1000). */
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
volatile long x;
__attribute__((noinline)) void c(int n) { for (int i = 0; i < n; i++) x += i; }
__attribute__((noinline)) void b(int n) { c(n); x++; }
__attribute__((noinline)) void a(int n) { b(n); x++; }
__attribute__((noinline)) void s(int n) { for (int i = 0; i < n; i++) syscall(SYS_getpid); x++; }
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1000;

	for (int k = 0; k < rounds; k++) {
		a(300000);
		s(100);
	}
	return 0;
}
