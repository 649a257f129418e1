#include "models/train/dataset.hpp"

#include <cmath>
#include <random>

#include "platform/core/run_context.hpp"

namespace trainvp {

namespace {

// Standard normal draws by Box-Muller from 53-bit uniforms: defined by the generator's bits alone.
class Normal {
 public:
  explicit Normal(std::mt19937_64 g) : g_(g) {}
  double next() {
    if (have_) return have_ = false, spare_;
    const double u1 = (static_cast<double>(g_() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    const double u2 = static_cast<double>(g_() >> 11) * 0x1.0p-53;          // [0, 1)
    const double r = std::sqrt(-2.0 * std::log(u1)), a = 6.283185307179586 * u2;
    spare_ = r * std::sin(a), have_ = true;
    return r * std::cos(a);
  }
  std::uint64_t bits() { return g_(); }

 private:
  std::mt19937_64 g_;
  bool have_ = false;
  double spare_ = 0;
};

void draw(Samples& out, int count, const TrainParams& p, const std::vector<double>& centres, Normal& n) {
  out.features = p.features;
  out.x.resize(static_cast<std::size_t>(count) * static_cast<std::size_t>(p.features));
  out.label.resize(static_cast<std::size_t>(count));
  const std::uint64_t centre_count = static_cast<std::uint64_t>(p.classes) * static_cast<std::uint64_t>(p.clusters);
  for (int i = 0; i < count; ++i) {
    const int c = static_cast<int>(n.bits() % centre_count);  // classes equally likely, as their centres
    out.label[static_cast<std::size_t>(i)] = c / p.clusters;
    float* row = out.x.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(p.features);
    for (int f = 0; f < p.features; ++f)
      row[f] = static_cast<float>(
          centres[static_cast<std::size_t>(c) * static_cast<std::size_t>(p.features) + static_cast<std::size_t>(f)] +
          p.noise * n.next());
  }
}

}  // namespace

Dataset make_dataset(const TrainParams& p) {
  Normal n(seeded_stream(p.seed, "train.data"));
  std::vector<double> centres(static_cast<std::size_t>(p.classes) * static_cast<std::size_t>(p.clusters) *
                              static_cast<std::size_t>(p.features));
  for (double& c : centres) c = n.next();
  Dataset d;
  draw(d.train, p.train_samples, p, centres, n);
  draw(d.test, p.test_samples, p, centres, n);
  return d;
}

Shard shard_of(int samples, int ranks, int rank) {
  const int each = samples / ranks;
  return {rank * each, each};
}

std::vector<int> batch_of(const Shard& s, int batch, int iteration) {
  std::vector<int> out(static_cast<std::size_t>(batch));
  const std::int64_t start = static_cast<std::int64_t>(iteration) * batch;
  for (int j = 0; j < batch; ++j) out[static_cast<std::size_t>(j)] = s.first + static_cast<int>((start + j) % s.size);
  return out;
}

}  // namespace trainvp
