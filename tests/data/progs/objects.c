/*
 * Code under a data object's symbol (STT_OBJECT in .text, as hand-written
 * assembly or code kept as data has it): perf looks objects up with the
 * functions and its report shows the row as "objloop+0xOFF". A function
 * and an object at one address tie as two functions do (perf's
 * choose_best_symbol: here the object's longer name wins).
 */
volatile long x;
__asm__(".text\n.globl objloop\n.type objloop, @object\nobjloop:\n"
	"  mov %rdi, %rcx\n1: addq $1, x(%rip)\n  dec %rcx\n  jnz 1b\n  ret\n"
	".size objloop, .-objloop\n"
	".globl tie\n.type tie, @function\n.globl tie_object\n.type tie_object, @object\n"
	"tie:\ntie_object:\n"
	"  mov %rdi, %rcx\n1: addq $1, x(%rip)\n  dec %rcx\n  jnz 1b\n  ret\n"
	".size tie, .-tie\n.size tie_object, .-tie\n");
void objloop(long n);
void tie(long n);
__attribute__((noinline)) void fn(long n) { for (long i = 0; i < n; i++) x += i; }
int main(void)
{
	for (int k = 0; k < 20; k++) {
		objloop(20000000);
		tie(10000000);
		fn(10000000);
	}
	return 0;
}
