/* A call tree for the report tests: leaf under mid, top and side. */
volatile long x;
__attribute__((noinline)) void leaf(int n) { for (int i = 0; i < n; i++) x++; }
__attribute__((noinline)) void mid(int n) { leaf(n); leaf(n / 2); x++; }
__attribute__((noinline)) void top(int n) { mid(n); leaf(n); x++; }
__attribute__((noinline)) void side(int n) { leaf(n); x++; }
int main(void) { for (int k = 0; k < 200; k++) { top(200000); side(100000); } return 0; }
