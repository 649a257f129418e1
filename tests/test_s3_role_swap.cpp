// S3's role swap on a congested link (docs/greyhound.md#s3-on-a-congested-link): in the shipped
// scenario the rank order decides which parallel dimension crosses the spine, and the bytes on the
// spine links are that dimension's closed form: a 2-way ring all-reduce sends each GPU's whole
// gradient once; the pipeline sends 16 micro-batches' boundary activations and their gradients.
// Every crossing byte counts on 2 spine links (leaf to spine, spine to leaf).
#include <gtest/gtest.h>

#include <string>

#include "platform/config/document.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace {

using nlohmann::json;

constexpr int kIterations = 2;

json run(const std::string& order) {
  json doc = read_json_file(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/greyhound/s3-congested-link-32gpu.json");
  doc["training"]["iterations"] = kIterations;
  doc["training"]["parallel"]["order"] = order;
  return test::simulate(doc);
}

TEST(S3RoleSwap, DataParallelFirstSendsEveryGradientAcrossTheSpine) {
  const json r = run("tp-pp-dp");
  const json& p = r["parallel"];
  double grads = 0;  // one GPU of each stage
  for (const json& s : p["stages"]) grads += s["memory"]["gradients_bytes"].get<double>();
  // 2 spine links x 8 TP ranks x 2 replicas of each stage, each sending its gradient once.
  const double per_iteration = 2.0 * 8 * 2 * grads;
  EXPECT_DOUBLE_EQ(r["link_tiers"]["spine_bytes"].get<double>(), kIterations * per_iteration);
}

TEST(S3RoleSwap, PipelineFirstSendsOnlyTheStageBoundaryAcrossTheSpine) {
  const json r = run("tp-dp-pp");
  const double boundary = r["parallel"]["boundary_bytes"];
  EXPECT_EQ(boundary, 2048.0 * 8192 * 2);  // seq x hidden x bf16, batch 1
  // 2 spine links x 2 replicas x 8 TP ranks x 16 micro-batches x (forward + backward).
  const double per_iteration = 2.0 * 2 * 8 * 16 * 2 * boundary;
  EXPECT_DOUBLE_EQ(r["link_tiers"]["spine_bytes"].get<double>(), kIterations * per_iteration);
}

}  // namespace
}  // namespace trainvp
