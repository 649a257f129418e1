// The MLP's gradient against central finite differences of its loss, and its determinism.
#include <gtest/gtest.h>

#include <cmath>

#include "models/train/mlp.hpp"

namespace trainvp {
namespace test_mlp {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TrainParams small() {
  TrainParams p;
  p.features = 5, p.classes = 3, p.clusters = 2, p.noise = 0.5, p.train_samples = 8, p.test_samples = 8;
  p.hidden = {7, 6};
  return p;
}

TEST(TrainMlp, ParameterCountIsWeightsAndBiases) {
  Mlp m({5, 7, 6, 3});
  EXPECT_EQ(m.parameters(), 5u * 7 + 7 + 7 * 6 + 6 + 6 * 3 + 3);
  EXPECT_EQ(m.parameters(), mlp_parameters(5, {7, 6}, 3));
  EXPECT_EQ(mlp_parameters(64, {512, 256}, 10), 64u * 512 + 512 + 512 * 256 + 256 + 256 * 10 + 10);
}

TEST(TrainMlp, GradientMatchesCentralDifferencesOfTheLoss) {
  const TrainParams p = small();
  const Dataset d = make_dataset(p);
  Mlp m({p.features, 7, 6, p.classes});
  std::vector<float> w = m.initial(3);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] += 0.01f * static_cast<float>(i % 5);  // non-zero biases too
  const std::vector<int> batch = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<float> g(m.parameters(), 0.0f);
  m.gradient_sum(w, d.train, batch, g);
  int checked = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const float h = 1e-3f;
    std::vector<float> up = w, down = w;
    up[i] += h, down[i] -= h;
    const double fd =
        (m.evaluate(up, d.train).loss - m.evaluate(down, d.train).loss) / (static_cast<double>(up[i]) - down[i]);
    EXPECT_NEAR(g[i], fd, 2e-3 + 1e-2 * std::fabs(fd)) << "parameter " << i;
    checked += std::fabs(fd) > 1e-3;
  }
  EXPECT_GT(checked, static_cast<int>(w.size()) / 2);  // most parameters have a gradient to check
}

TEST(TrainMlp, SameInputsGiveTheSameBits) {
  const TrainParams p = small();
  const Dataset d = make_dataset(p);
  Mlp m({p.features, 7, 6, p.classes});
  const std::vector<float> w = m.initial(5);
  std::vector<float> a(m.parameters(), 0.0f), b(m.parameters(), 0.0f);
  const Mlp::Sums sa = m.gradient_sum(w, d.train, {3, 1, 4, 1, 5}, a);
  const Mlp::Sums sb = m.gradient_sum(w, d.train, {3, 1, 4, 1, 5}, b);
  EXPECT_EQ(a, b);
  EXPECT_EQ(sa.loss, sb.loss);
  EXPECT_EQ(m.initial(5), w);
  EXPECT_NE(m.initial(6), w);
}

TEST(TrainMlp, LossOfUniformLogitsIsLogClasses) {
  // All weights zero: every logit 0, softmax uniform, loss log(classes) per sample.
  const TrainParams p = small();
  const Dataset d = make_dataset(p);
  Mlp m({p.features, 7, p.classes});
  const std::vector<float> zero(m.parameters(), 0.0f);
  EXPECT_NEAR(m.evaluate(zero, d.test).loss, d.test.size() * std::log(3.0), 1e-9);
}

TEST(TrainMlp, DotSumsEveryTerm) {
  std::vector<float> a(19), b(19);
  float expect = 0;
  for (int i = 0; i < 19; ++i) a[i] = static_cast<float>(i), b[i] = 2.0f, expect += 2.0f * static_cast<float>(i);
  EXPECT_EQ(dot(a.data(), b.data(), 19), expect);  // small integers: exact in any order
}

}  // namespace test_mlp
}  // namespace trainvp
