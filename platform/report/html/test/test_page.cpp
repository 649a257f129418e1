// The page: self-contained (no request to another file or host), sections and omitted notes,
// tables whose numeric cells carry the exact value and its pointer.
#include <gtest/gtest.h>

#include <string>

#include "platform/report/html/page.hpp"

namespace trainvp::html {
namespace test_page {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(HtmlPage, IsOneDocumentThatFetchesNothing) {
  Page p("run <x>", "sub");
  p.section("summary", "Summary", paragraph("hello & bye"));
  const std::string html = p.render();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>run &lt;x&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("hello &amp; bye"), std::string::npos);
  for (const char* remote : {"http://", "https://", "src=", "<link", "@import", "url(http"})
    EXPECT_EQ(html.find(remote), std::string::npos) << remote;
  // The error record comes before any other script, and the page marks itself ready last.
  EXPECT_LT(html.find("console.error"), html.find("<style>"));
  EXPECT_NE(html.find("id=\"js-errors\""), std::string::npos);
  EXPECT_NE(html.find("data-report-ready"), std::string::npos);
}

TEST(HtmlPage, AnOmittedSectionIsOneLineSayingWhy) {
  Page p("t", "s");
  p.omitted("pipeline", "Pipeline schedule", "the run has no pipeline");
  const std::string html = p.render();
  EXPECT_NE(
      html.find(
          "<p class=\"omitted\" data-omitted=\"pipeline\">Pipeline schedule: not drawn, the run has no pipeline.</p>"),
      std::string::npos);
  EXPECT_EQ(html.find("<section"), std::string::npos);
}

TEST(HtmlPage, NumericCellsCarryTheExactValueAndItsPointer) {
  Table t = key_values("summary", {{"iteration time", number_cell(16.745948471431014, "16.75 s", "/iteration_time_s")},
                                   {"model", text_cell("gpt2 <xl>")}});
  const std::string html = render(t);
  EXPECT_NE(html.find("data-table=\"summary\""), std::string::npos);
  EXPECT_NE(
      html.find("<td class=\"num\" data-value=\"16.745948471431014\" data-key=\"/iteration_time_s\">16.75 s</td>"),
      std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>gpt2 &lt;xl&gt;</td>"), std::string::npos);
}

TEST(HtmlPage, ASortableTableIsMarkedForTheScript) {
  Table t;
  t.sortable = true;
  t.head = {"idx"};
  t.rows = {{number_cell(2, "2")}, {number_cell(10, "10")}};
  EXPECT_NE(render(t).find("<table class=\"sortable\">"), std::string::npos);
}

}  // namespace test_page
}  // namespace trainvp::html
