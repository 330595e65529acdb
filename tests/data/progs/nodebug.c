/*
 * Built without -g: no line table. binutils' addr2line names a static
 * function's file from the symbol table's STT_FILE symbol before it, and
 * perf's srcline is "nodebug.c:0"; a global function gets none ("??:0").
 */
volatile long x;
static __attribute__((noinline)) void local_hot(long n) { for (long i = 0; i < n; i++) x += i; }
__attribute__((noinline)) void global_hot(long n) { for (long i = 0; i < n; i++) x += 2 * i; }
int main(void)
{
	for (int k = 0; k < 20; k++) {
		local_hot(20000000);
		global_hot(10000000);
	}
	return 0;
}
