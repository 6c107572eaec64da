// C++ unit of the Mach-O prog fixture: namespaces, templates, virtual
// calls and inlined members, for mangled linkage names. No headers.
namespace geo {
struct Shape {
  virtual int area() const = 0;
};
struct Rect : Shape {
  int w, h;
  Rect(int w, int h) : w(w), h(h) {}
  int area() const override { return w * h; }
};
struct Tri : Shape {
  int b, h;
  Tri(int b, int h) : b(b), h(h) {}
  int area() const override { return b * h / 2; }
};
template <typename T> inline T twice(T v) { return v + v; }
template <typename T> __attribute__((noinline)) T accumulate(const T *p, int n) {
  T s = T();
  for (int i = 0; i < n; i++) s += twice(p[i]);
  return s;
}
__attribute__((noinline)) int measure(const Shape &s) { return twice(s.area()); }
} // namespace geo

extern "C" int shape_area(int kind, int a, int b) {
  geo::Rect r(a, b);
  geo::Tri t(a, b);
  return kind ? geo::measure(r) : geo::measure(t);
}

extern "C" int tmpl_sum(int n) {
  int vi[8] = {n, n + 1, n + 2, n + 3, 4, 5, 6, 7};
  long vl[4] = {n, 2L * n, 3, 4};
  return geo::accumulate(vi, n & 7) + (int)geo::accumulate(vl, n & 3);
}
