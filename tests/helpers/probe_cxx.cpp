// SPDX-License-Identifier: MIT
/*
 * tally probe's C++ workload (tests/it/probe_cxx.sh builds it with
 * g++ -g -O0): probe_cxx N calls, for i = 0..N-1, ns::Acc::add(i) (a
 * method reading this->total), the three overloads of ns::work once
 * each, the static ns::Acc::twice, ns::Box::get (a class, not a
 * struct) and ns::Acc::scaled (always inlined: in add and in main). Not built by make: the helpers there are C.
 */
#include <cstdio>
#include <cstdlib>

namespace ns {
struct Acc {
	int total;
	long scale;
	Acc() : total(0), scale(3) {}
	/* inlined in add and in main: a probe on each copy */
	inline __attribute__((always_inline)) int scaled(int v) const { return v * (int)scale; }
	int __attribute__((noinline)) add(int v)
	{
		total += v;
		return scaled(total);
	}
	static int __attribute__((noinline)) twice(int x) { return 2 * x; }
};

class Box {
	int w;
public:
	explicit Box(int v) : w(v) {}
	int __attribute__((noinline)) get() const { return w; }
};

int __attribute__((noinline)) work(int i) { return 3 * i; }
int __attribute__((noinline)) work(int i, int j) { return i + j; }
long __attribute__((noinline)) work(long l) { return l * 2; }
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	ns::Acc acc;
	ns::Box box(5);
	long s = 0;

	for (int i = 0; i < n; i++) {
		s += acc.add(i);
		s += ns::work(i) + ns::work(i, 1) + ns::work((long)i);
		s += ns::Acc::twice(i) + box.get() + acc.scaled(i);
	}
	printf("%ld\n", s);
	return 0;
}
