#pragma once
// Skips a test in a build without the Verilated engine (-DTRAINVP_RTL=OFF).
#include <gtest/gtest.h>

#include "models/cxl/rtl_engine.hpp"

#define TRAINVP_REQUIRE_RTL() \
  if (!::trainvp::rtl_available()) GTEST_SKIP() << "built without the RTL (-DTRAINVP_RTL=OFF)"
