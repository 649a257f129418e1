// golden_compare EXPECTED ACTUAL: exit 0 when ACTUAL (a fresh results.json) matches EXPECTED (the
// golden reference) field by field (tests/golden_compare/compare.hpp), else 1 with every difference listed.
// Regenerate references on purpose with scripts/update-goldens.
#include <cstdio>
#include <fstream>

#include "tests/golden_compare/compare.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: golden_compare EXPECTED.json ACTUAL.json\n");
    return 2;
  }
  nlohmann::json doc[2];
  for (int i = 0; i < 2; ++i) {
    std::ifstream in(argv[i + 1]);
    if (!in) {
      std::fprintf(stderr, "golden_compare: cannot read %s%s\n", argv[i + 1],
                   i == 0 ? " (a new scenario? create its reference with scripts/update-goldens)" : "");
      return 1;
    }
    doc[i] = nlohmann::json::parse(in);
  }
  const auto diffs = trainvp::golden::compare(doc[0], doc[1], trainvp::golden::default_options());
  for (const auto& d : diffs) std::printf("%s\n", d.c_str());
  if (!diffs.empty())
    std::printf("%s differs from the golden %s; if the change is meant, run scripts/update-goldens\n", argv[2], argv[1]);
  return diffs.empty() ? 0 : 1;
}
