// /workload/torch_profile: the trace is found beside the scenario file; problems in it are errors
// at /workload/torch_profile naming the event's pointer in the trace; a scenario's optimizer_time
// beats the trace's; the import's keys exclude the other workload sources.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "platform/config/scenario.hpp"
#include "platform/config/test/workload_doc.hpp"
#include "platform/config/torch_workload.hpp"
#include "platform/core/errors.hpp"

namespace trainvp {
namespace test_torch_workload {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

namespace fs = std::filesystem;
using json = nlohmann::json;
using test::doc_with;
using test::error_of;
using test::kWorkloads;

// A temporary directory holding one trace, removed at the end of the test.
struct TempTrace : test::TempJsonFile {
  explicit TempTrace(const json& trace) : TempJsonFile("trainvp-torch-", "step.pt.trace.json", trace) {}
};

json event(const std::string& name, double ts, double dur) {
  return {{"ph", "X"}, {"name", name}, {"pid", 1}, {"tid", 1}, {"ts", ts}, {"dur", dur}, {"args", json::object()}};
}

TEST(TorchWorkload, ShippedScenarioFindsItsTraceBesideIt) {
  const Scenario s = load_scenario_file(kWorkloads + "/tiny-gpt-torch-profile-ddp-8gpu.json", {});
  EXPECT_EQ(s.workload.model, "torch:tiny-gpt-cpu");
  EXPECT_EQ(s.workload.total_params(), 167680u);
  EXPECT_EQ(s.workload.total_grad_bytes(), 167680u * 4);  // fp32 gradients
  std::ifstream in(kWorkloads + "/torch/tiny-gpt-cpu.expected.json");
  const json want = json::parse(in);
  EXPECT_EQ(s.workload.optimizer_time_ps, want["optimizer_us"].get<std::int64_t>() * 1000000);  // its Optimizer.step
  EXPECT_FALSE(s.workload.sequence_model);
}

TEST(TorchWorkload, AGivenOptimizerTimeBeatsTheTraces) {
  TempTrace t(json{{"traceEvents", {event("layer:a", 0, 10), event("Optimizer.step#SGD.step", 20, 5)}}});
  Scenario s = load_scenario(doc_with({{"torch_profile", "step.pt.trace.json"}}), "t", t.dir.string());
  EXPECT_EQ(s.workload.model, "torch:step");
  EXPECT_EQ(s.workload.optimizer_time_ps, 5000000);
  EXPECT_EQ(s.workload.layers.at(0).fwd_time_ps, 10000000);
  s = load_scenario(doc_with({{"torch_profile", "step.pt.trace.json"}, {"optimizer_time", "1ms"}}), "t",
                    t.dir.string());
  EXPECT_EQ(s.workload.optimizer_time_ps, 1000000000);
}

TEST(TorchWorkload, ProblemsAreErrorsAtTheKeyNamingTheEventInTheTrace) {
  TempTrace t(json{{"traceEvents", {event("layer:a", 0, 10), event("aten::mm", 1, -1)}}});
  ScenarioError e = error_of(doc_with({{"torch_profile", "step.pt.trace.json"}}), t.dir.string());
  EXPECT_EQ(e.path, "/workload/torch_profile");
  EXPECT_NE(std::string(e.what()).find("at /traceEvents/1/dur: expected a duration"), std::string::npos) << e.what();
  e = error_of(doc_with({{"torch_profile", "nowhere.json"}}), t.dir.string());
  EXPECT_EQ(e.path, "/workload/torch_profile");
  EXPECT_NE(std::string(e.what()).find("no PyTorch profiler trace \"nowhere.json\""), std::string::npos) << e.what();
  e = error_of(doc_with({{"torch_profile", "step.pt.trace.json"}, {"model", "gpt2"}}), t.dir.string());
  EXPECT_EQ(e.path, "/workload");
  e = error_of(doc_with({{"torch_profile", "step.pt.trace.json"}, {"sequence", true}}), t.dir.string());
  EXPECT_EQ(e.path, "/workload/sequence");
}

TEST(TorchWorkload, NamesDropKinetosSuffixes) {
  EXPECT_EQ(torch_profile_name("a/host_1234.1700000000.pt.trace.json"), "torch:host_1234.1700000000");
  EXPECT_EQ(torch_profile_name("b/step.trace.json"), "torch:step");
  EXPECT_EQ(torch_profile_name("step.json"), "torch:step");
}

}  // namespace test_torch_workload
}  // namespace trainvp
