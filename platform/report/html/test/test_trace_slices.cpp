// One iteration's pipeline slices from a trace.json in the platform's one-event-per-line form.
#include <gtest/gtest.h>

#include "platform/core/errors.hpp"
#include "platform/core/test/temp_file.hpp"
#include "platform/report/html/trace_slices.hpp"

namespace trainvp::html {
namespace test_trace_slices {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

const char* kTrace =
    "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"node0\"}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":17,\"args\":{\"name\":\"gpu1 pipeline\"}},\n"
    "{\"ph\":\"X\",\"pid\":0,\"tid\":17,\"name\":\"F0\",\"cat\":\"pipeline\",\"ts\":0.0,\"dur\":1000.0,\"args\":{\"iteration\":1,\"micro_batch\":0}},\n"
    "{\"ph\":\"X\",\"pid\":0,\"tid\":17,\"name\":\"F1\",\"cat\":\"pipeline\",\"ts\":1000.0,\"dur\":500.0,\"args\":{\"iteration\":12,\"micro_batch\":1}},\n"
    "{\"ph\":\"X\",\"pid\":0,\"tid\":0,\"name\":\"fwd h0\",\"cat\":\"compute\",\"ts\":0.0,\"dur\":5.0,\"args\":{\"iteration\":1}},\n"
    "{\"ph\":\"X\",\"pid\":0,\"tid\":17,\"name\":\"B0\",\"cat\":\"pipeline\",\"ts\":2000.0,\"dur\":2000.0,\"args\":{\"iteration\":1,\"micro_batch\":0}}\n"
    "]}\n";

TEST(HtmlTraceSlices, ReadsOneIterationOfOneCategoryNamedByTrack) {
  const std::string path = test::write_temp("report-trace.json", kTrace);
  const auto slices = read_trace_slices(path, "pipeline", 1);
  ASSERT_EQ(slices.size(), 2u);  // not iteration 12, not the compute slice
  EXPECT_EQ(slices[0].track, "node0.gpu1 pipeline");
  EXPECT_EQ(slices[0].name, "F0");
  EXPECT_DOUBLE_EQ(slices[0].end_s, 1e-3);  // microseconds in the file
  EXPECT_EQ(slices[1].name, "B0");
  EXPECT_DOUBLE_EQ(slices[1].start_s, 2e-3);
}

TEST(HtmlTraceSlices, AFileInAnotherFormIsRefusedWithItsLine) {
  const std::string path = test::write_temp("report-trace-bad.json", "[{\"ph\":\"X\"}]\n");
  try {
    read_trace_slices(path, "pipeline", 1);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("line 1"), std::string::npos) << e.what();
  }
  const std::string broken = test::write_temp(
      "report-trace-broken.json",
      "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"pipeline\",\"args\":{\"iteration\":1},\n]}\n");
  try {
    read_trace_slices(broken, "pipeline", 1);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

}  // namespace test_trace_slices
}  // namespace trainvp::html
