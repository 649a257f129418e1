// The libFuzzer target: every door of tests/fuzz/doors.hpp in one binary, chosen by the input's
// first byte. One target rather than four: one build, one corpus and one run cover every door, and
// the doors share most of their code (the JSON reader, --set, the section loaders), so what the
// fuzzer learns on one door's inputs helps the others. scripts/fuzz builds and runs it.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/fuzz/doors.hpp"

namespace {
std::vector<trainvp::fuzz::Shipped> g_bases;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_bases = trainvp::fuzz::shipped_scenarios(TRAINVP_SOURCE_DIR "/scenarios");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const trainvp::fuzz::Outcome o = trainvp::fuzz::run_input(data, size, g_bases);
  if (o.kind == trainvp::fuzz::Outcome::Defect) {
    // Not an input error: a defect. Aborting makes libFuzzer keep the input as crash-<sha1>.
    std::fprintf(stderr, "trainvp fuzz: %s\n", o.what.c_str());
    std::abort();
  }
  return 0;
}

// SystemC's shared library calls sc_main from its own main(); libFuzzer's main() runs instead,
// but the symbol must exist for the link.
extern "C" int sc_main(int, char*[]) { return 0; }
