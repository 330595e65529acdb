/*
 * One library mapped twice in one process (dlopen, then dlmopen into a new
 * namespace: the same file at two addresses), its function sampled in both.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#ifndef LIB
#define LIB "./libhot.so"
#endif
int main(void)
{
	void *a = dlopen(LIB, RTLD_NOW), *b = dlmopen(LM_ID_NEWLM, LIB, RTLD_NOW);
	void (*fa)(long) = a ? (void (*)(long))dlsym(a, "hot") : NULL;
	void (*fb)(long) = b ? (void (*)(long))dlsym(b, "hot") : NULL;

	if (!fa || !fb) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	for (int k = 0; k < 10; k++) {
		fa(20000000);
		fb(10000000);
	}
	return 0;
}
