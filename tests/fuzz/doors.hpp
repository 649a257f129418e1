#pragma once
// The doors a user's input comes in by, as the fuzz target (tests/fuzz/target.cpp) and the
// regression test of kept fuzz inputs (tests/test_fuzz_regressions.cpp) drive them: a scenario
// file, `--set POINTER=VALUE`, a `--faults` document and a sweep SPEC. Each door runs what
// `trainvp validate` (or `trainvp sweep --dry-run`) runs, up to and excluding elaboration.
//
// One fuzz input is: a door byte (its value mod 4), then for every door but the scenario a byte
// choosing the base scenario (mod the number of shipped scenarios), then the text:
//   0 scenario  the scenario file's bytes
//   1 --set     one assignment POINTER=VALUE per line, applied to the base in order
//   2 --faults  the --faults file's bytes, applied to the base
//   3 SPEC      a sweep SPEC's bytes; its points are applied to the base (its "base" is not read)
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainvp::fuzz {

enum class Door : std::uint8_t { Scenario = 0, Set = 1, Faults = 2, Spec = 3 };
constexpr int kDoors = 4;

// A shipped file: its path relative to scenarios/ and its JSON.
struct Shipped {
  std::string name;
  nlohmann::json doc;
  std::string dir;  // the file's directory: where its relative paths (/workload/hf_config) are found
};

// Every scenario (a JSON object with the key "trainvp") under `scenarios_dir`, sorted by path:
// the bases the doors other than the scenario door apply their input to.
std::vector<Shipped> shipped_scenarios(const std::string& scenarios_dir);
// Every sweep SPEC (a JSON object with the key "sweep") under `scenarios_dir`, sorted by path.
std::vector<Shipped> shipped_specs(const std::string& scenarios_dir);

// A fuzz input for `door` on base number `base` (ignored by the scenario door) with `text`.
std::string encode(Door door, std::size_t base, const std::string& text);

// Largest sweep a SPEC input expands, and the points of it that are validated: the dry run
// validates all of up to 10^6 points, which costs seconds, not a new kind of check.
constexpr std::size_t kMaxExpandedPoints = 4096;
constexpr std::size_t kMaxValidatedPoints = 16;

// What became of one input.
struct Outcome {
  enum Kind { Accepted, InputError, Defect } kind = Accepted;
  std::string what;  // the error's message (InputError, Defect)
};

// Runs one input through its door. An input error is one of trainvp's own (ScenarioError,
// sweep::PointError, sweep::SweepInputError: exit 2, the expected end of a bad input); any other
// exception is a Defect (it would end as exit 1 with a library's message, or worse).
Outcome run_input(const std::uint8_t* data, std::size_t size, const std::vector<Shipped>& bases);
Outcome run_input(const std::string& input, const std::vector<Shipped>& bases);

}  // namespace trainvp::fuzz
