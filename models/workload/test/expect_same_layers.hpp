#pragma once
// Two layer tables equal field by field, every field the platform reads (the HF import against the
// zoo, a frozen workload against its original), each mismatch reported with its layer's name.
#include <gtest/gtest.h>

#include <vector>

#include "models/workload/layer.hpp"

namespace trainvp::test {

inline void expect_same_layers(const std::vector<Layer>& a, const std::vector<Layer>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Layer &x = a[i], &y = b[i];
    SCOPED_TRACE(x.name);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.params, y.params);
    EXPECT_EQ(x.grad_bytes, y.grad_bytes);
    EXPECT_EQ(x.fwd_flops, y.fwd_flops);
    EXPECT_EQ(x.bwd_input_flops, y.bwd_input_flops);
    EXPECT_EQ(x.bwd_weight_flops, y.bwd_weight_flops);
    EXPECT_EQ(x.fwd_bytes, y.fwd_bytes);
    EXPECT_EQ(x.bwd_input_bytes, y.bwd_input_bytes);
    EXPECT_EQ(x.bwd_weight_bytes, y.bwd_weight_bytes);
    EXPECT_EQ(x.activation_bytes, y.activation_bytes);
    EXPECT_EQ(x.fwd_kernels, y.fwd_kernels);
    EXPECT_EQ(x.bwd_input_kernels, y.bwd_input_kernels);
    EXPECT_EQ(x.bwd_weight_kernels, y.bwd_weight_kernels);
    EXPECT_EQ(x.part, y.part);
    EXPECT_EQ(x.tp_fwd_bytes, y.tp_fwd_bytes);
    EXPECT_EQ(x.tp_bwd_bytes, y.tp_bwd_bytes);
    EXPECT_EQ(x.tp_replicated.fwd_flops, y.tp_replicated.fwd_flops);
    EXPECT_EQ(x.tp_replicated.bwd_input_flops, y.tp_replicated.bwd_input_flops);
    EXPECT_EQ(x.tp_replicated.bwd_weight_flops, y.tp_replicated.bwd_weight_flops);
    EXPECT_EQ(x.tp_replicated.fwd_bytes, y.tp_replicated.fwd_bytes);
    EXPECT_EQ(x.tp_replicated.bwd_input_bytes, y.tp_replicated.bwd_input_bytes);
    EXPECT_EQ(x.tp_replicated.bwd_weight_bytes, y.tp_replicated.bwd_weight_bytes);
    EXPECT_EQ(x.fwd_time_ps, y.fwd_time_ps);
    EXPECT_EQ(x.bwd_input_time_ps, y.bwd_input_time_ps);
    EXPECT_EQ(x.bwd_weight_time_ps, y.bwd_weight_time_ps);
    ASSERT_EQ(x.matrices.size(), y.matrices.size());
    for (std::size_t m = 0; m < x.matrices.size(); ++m) {
      EXPECT_EQ(x.matrices[m].rows, y.matrices[m].rows);
      EXPECT_EQ(x.matrices[m].cols, y.matrices[m].cols);
    }
  }
}

}  // namespace trainvp::test
