#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* A tiny JIT (x86-64): a counting loop copied into anonymous executable
 * memory, named in /tmp/perf-PID.map unless --no-map. For report_files.sh. */
int main(int argc, char **argv)
{
	/* mov rcx, imm32; loop: dec rcx; jnz loop; ret */
	static const unsigned char code[] = { 0x48, 0xc7, 0xc1, 0x00, 0x00, 0x00, 0x40, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *f;
	int named = argc < 2 || strcmp(argv[1], "--no-map");

	memcpy(p, code, sizeof(code));
	if (named) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
		f = fopen(path, "w");
		fprintf(f, "%lx %zx jitted_loop\n", (unsigned long)p, sizeof(code));
		fclose(f);
	}
	((void (*)(void))p)();
	return 0;
}
