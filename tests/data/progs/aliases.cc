// SPDX-License-Identifier: MIT
// Two names at one address, and labels inside functions. perf keeps one
// name per address by choose_best_symbol on the demangled names
// ("operator new[]" beats "operator new"; "shapes::spin_the_wheel" beats
// "spinw", which has no "_Z" to count as an underscore), and finds a
// sample past a label by its red-black tree: the function or the label,
// whichever of the two its lookup meets first from the root.
#include <cstdlib>
#include <new>

static volatile long sink;

void *operator new(std::size_t n)
{
	for (long i = 0; i < 20000; i++)
		sink += i;
	void *p = std::malloc(n ? n : 1);

	if (!p)
		throw std::bad_alloc();
	return p;
}
void *operator new[](std::size_t n) __attribute__((alias("_Znwm")));
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }

namespace shapes {
__attribute__((noinline)) long spin_the_wheel(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += (i * 7) ^ (s >> 3);
	return s;
}
}
extern "C" long spinw(long) __attribute__((alias("_ZN6shapes14spin_the_wheelEl")));

// A loop with a label in its middle: samples on both sides of it.
#define LABELLED(fn, label)							\
	__attribute__((noinline)) fn(long n)					\
	{									\
		long s = 0;							\
		for (long i = 0; i < n; i++) {					\
			s += (i * 7) ^ (s >> 3);				\
			__asm__ volatile(#label ":" ::: "memory");		\
			s ^= i * 5 + (s >> 1);					\
		}								\
		return s;							\
	}
// A static function's symbol comes before its label in the table, a
// global one's after (locals first): perf's tree meets them in both orders.
LABELLED(static long phase_a, phase_a_mid)
LABELLED(static long phase_b, phase_b_mid)
LABELLED(static long phase_c, phase_c_mid)
LABELLED(long phase_d, phase_d_mid)
LABELLED(long phase_e, phase_e_mid)
LABELLED(long phase_f, phase_f_mid)

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? std::atol(argv[1]) : 300;
	long t = 0;

	for (long r = 0; r < rounds; r++) {
		/* called, not new-expressions: GCC may drop those */
		int *a = static_cast<int *>(::operator new[](16 * sizeof(int)));
		long *b = static_cast<long *>(::operator new(sizeof(long)));

		a[0] = (int)r;
		*b = r;
		t += a[0] + *b + spinw(20000);
		t += phase_a(20000) + phase_b(20000) + phase_c(20000);
		t += phase_d(20000) + phase_e(20000) + phase_f(20000);
		::operator delete[](a);
		::operator delete(b);
	}
	return (int)(t & 1);
}
