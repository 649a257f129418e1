// golden_compare EXPECTED ACTUAL: exit 0 when ACTUAL (a fresh results.json) matches EXPECTED (the
// golden reference) field by field (tests/golden_compare/compare.hpp), else 1 with every difference listed.
// Regenerate references on purpose with scripts/update-goldens.
// Options (before the files): --tolerance R compares every number, integers included, to a
// relative R; --ignore POINTER (repeatable) leaves a subtree out; --max prints the largest relative
// difference and where. scripts/check-moved-goldens uses
// them to compare references made by different methods (fast-forward on and off).
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tests/golden_compare/compare.hpp"

int main(int argc, char** argv) {
  trainvp::golden::Options opt = trainvp::golden::default_options();
  std::vector<std::string> files;
  bool report_max = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--tolerance" && i + 1 < argc) opt.rel_tol = std::stod(argv[++i]), opt.integers_relative = true;
    else if (a == "--max") report_max = true;
    else if (a == "--ignore" && i + 1 < argc) opt.ignored.push_back(argv[++i]);
    else files.push_back(a);
  }
  if (files.size() != 2) {
    std::fprintf(stderr,
                 "usage: golden_compare [--tolerance R] [--ignore POINTER]... [--max] EXPECTED.json ACTUAL.json\n");
    return 2;
  }
  nlohmann::json doc[2];
  for (int i = 0; i < 2; ++i) {
    std::ifstream in(files[static_cast<std::size_t>(i)]);
    if (!in) {
      std::fprintf(stderr, "golden_compare: cannot read %s%s\n", files[static_cast<std::size_t>(i)].c_str(),
                   i == 0 ? " (a new scenario? create its reference with scripts/update-goldens)" : "");
      return 1;
    }
    doc[i] = nlohmann::json::parse(in);
  }
  const auto diffs = trainvp::golden::compare(doc[0], doc[1], opt);
  if (report_max) {
    const auto m = trainvp::golden::max_difference(doc[0], doc[1], opt);
    std::printf("largest relative difference: %.3g%s%s\n", m.relative, m.pointer.empty() ? "" : " at ",
                m.pointer.c_str());
  }
  for (const auto& d : diffs) std::printf("%s\n", d.c_str());
  if (!diffs.empty())
    std::printf("%s differs from the golden %s; if the change is meant, run scripts/update-goldens\n", files[1].c_str(),
                files[0].c_str());
  return diffs.empty() ? 0 : 1;
}
