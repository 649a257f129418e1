// scale(int) here; b.cpp's call scale(2) would take it in a unity batch, not b.cpp's scale(double).
namespace {

int scale(int x) { return 2 * x; }

}  // namespace

int a() { return scale(1); }
