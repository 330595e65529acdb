# SPDX-License-Identifier: MIT
# bench/real.sh's large translation unit for the compiler rows: N functions
# of the shapes real C has (structs, switches, loops, calls between them),
# generated so nothing large is committed. Usage: python3 bigc.py N > big.c
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
print("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n")
print("struct node { struct node *next; long key; char name[32]; double w[4]; };\n")
for i in range(n):
    callee = "f%d(p, k ^ %d)" % (i - 1, i) if i else "k"
    print("""
static __attribute__((noinline)) long f%(i)d(struct node *p, long k)
{
	long s = %(i)d;
	char buf[64];

	for (int j = 0; j < (int)(k & 15); j++) {
		switch ((j + k) %% 5) {
		case 0: s += p ? p->key * %(m)d : j; break;
		case 1: s ^= (long)snprintf(buf, sizeof(buf), "%%ld-%%d", s, j); break;
		case 2: if (p && p->next) s += p->next->w[j & 3] > 1.5 ? 3 : %(i)d; break;
		case 3: s = s * 31 + (long)strlen(p ? p->name : "x"); break;
		default: s -= j * %(m)d;
		}
	}
	if (s & 1)
		s += %(callee)s;
	return s;
}""" % {"i": i, "m": i % 97 + 1, "callee": callee})
print("\nint main(int argc, char **argv)\n{\n\tstruct node n = { 0 };\n\tlong s = 0;\n")
print("\tfor (long k = 0; k < argc * 100; k++)\n\t\ts += f%d(&n, k);" % (n - 1))
print("\tprintf(\"%ld\\n\", s);\n\treturn 0;\n}")
