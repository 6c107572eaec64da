/* Larger freestanding fixture for the root package's Mach-O tests: many
 * functions, static helpers the optimizer inlines (nested), loops and a
 * second unit in C++ for mangled names. Nothing is #included. */
extern int shape_area(int kind, int a, int b);
extern int tmpl_sum(int n);
int g_acc;
static int g_tab[64];

static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline int mix(int a, int b) { return (a * 31) ^ (b + 7); }
static inline int mix3(int a, int b, int c) { return mix(mix(a, b), clampi(c, -100, 100)); }

#define LEAF(n) \
  __attribute__((noinline)) int leaf##n(int x) { \
    int s = 0; \
    for (int i = 0; i < (x & 15); i++) s += mix3(i, x, n); \
    g_tab[(n) & 63] = s; \
    return s + clampi(x, n, n * 3); \
  }
LEAF(0) LEAF(1) LEAF(2) LEAF(3) LEAF(4) LEAF(5) LEAF(6) LEAF(7)
LEAF(8) LEAF(9) LEAF(10) LEAF(11) LEAF(12) LEAF(13) LEAF(14) LEAF(15)
LEAF(16) LEAF(17) LEAF(18) LEAF(19) LEAF(20) LEAF(21) LEAF(22) LEAF(23)

static __attribute__((noinline)) int local_walk(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    if (i & 1)
      s += leaf3(i) + mix(s, i);
    else
      s -= leaf7(i) - clampi(s, 0, 1000);
  }
  return s;
}

__attribute__((noinline)) int dispatch(int op, int x) {
  switch (op & 7) {
  case 0: return leaf0(x) + leaf1(x);
  case 1: return leaf2(x) * 3;
  case 2: return mix3(x, op, leaf4(x));
  case 3: return local_walk(x & 31);
  case 4: return shape_area(x & 3, x, op);
  case 5: return tmpl_sum(x & 63);
  case 6: return leaf5(x) ^ leaf6(x);
  default: return leaf8(x) + leaf9(x) + leaf10(x) + leaf11(x);
  }
}

int main(int argc, char **argv) {
  int s = 0;
  for (int i = 0; i < argc * 100; i++)
    s += dispatch(i, argc + i) + leaf12(i) + leaf13(i) + leaf14(i) + leaf15(i) +
         leaf16(i) + leaf17(i) + leaf18(i) + leaf19(i) + leaf20(i) + leaf21(i) +
         leaf22(i) + leaf23(i);
  g_acc = s;
  return (int)(long)argv[0][0] + s;
}
