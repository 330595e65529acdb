// SPDX-License-Identifier: MIT
// Names perf prints on C++: a GCC clone (.constprop, .isra), and calls
// through a second base (non-virtual thunk) and a virtual base (virtual
// thunk), each thunk hot enough to be sampled. Built -O2 by the test.
#include <cstdlib>

static __attribute__((noinline)) long sum_flags(const int *a, int n, int mode, long r)
{
	long s = r;

	for (int i = 0; i < n; i++)
		s += mode ? a[i] * 3 : a[i] ^ s;
	return s;
}

namespace shapes {
struct Base { virtual ~Base() {} virtual long turn(long x) = 0; long pad; };
struct Other { virtual ~Other() {} virtual long spin(long x) = 0; };
struct Spinner : Base, Other {
	long k = 3;
	long turn(long x) override;
	long spin(long x) override;
};
__attribute__((noinline)) long Spinner::turn(long x) { return x * k + 1; }
__attribute__((noinline)) long Spinner::spin(long x) { return x + k; }
struct VB { virtual ~VB() {} virtual long roll(long x) = 0; long v; };
struct Roller : virtual VB { long roll(long x) override; };
__attribute__((noinline)) long Roller::roll(long x) { return x ^ 5; }
}

__attribute__((noinline)) shapes::Other *make_other() { return new shapes::Spinner; }
__attribute__((noinline)) shapes::VB *make_vb() { return new shapes::Roller; }

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000;
	int *a = (int *)malloc(4000 * sizeof(int));
	shapes::Other *o = make_other();
	shapes::VB *v = make_vb();
	volatile long t = 0;

	for (int i = 0; i < 4000; i++)
		a[i] = i ^ argc;
	for (long r = 0; r < rounds; r++) {
		t += sum_flags(a, 4000, 1, r);
		for (int i = 0; i < 2000; i++)
			t += o->spin(i) + v->roll(i);
	}
	return (int)(t & 1);
}
