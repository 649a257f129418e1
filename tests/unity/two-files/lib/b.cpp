namespace {

double scale(double x) { return 0.5 * x; }

}  // namespace

double b() { return scale(2); }
