#include "platform/config/hf_workload.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "platform/config/document.hpp"
#include "platform/core/checked.hpp"
#include "platform/core/errors.hpp"

namespace trainvp {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxHfConfigBytes = std::uintmax_t{1} << 20;

std::string find_hf_config(const std::string& given, const std::string& scenario_dir, const std::string& pointer) {
  if (given.empty()) fail_expected(pointer, "a path to a Hugging Face config.json", json(given));
  const fs::path p(given);
  if (p.is_absolute()) return given;
  std::error_code ec;
  // The scenario's own directory first (a scenario and its config travel together, as a sweep
  // SPEC and its base do), then the current directory (as --faults F and -o DIR are read).
  if (!scenario_dir.empty()) {
    const fs::path beside = fs::path(scenario_dir) / p;
    if (fs::exists(beside, ec)) return beside.lexically_normal().string();
  }
  if (fs::exists(p, ec)) return given;
  throw ScenarioError(pointer, "no Hugging Face config \"" + given + "\": not in " +
                                   (scenario_dir.empty() ? std::string() : "the scenario's directory (" + scenario_dir + ") nor in ") +
                                   "the current directory");
}

namespace {

// ScenarioError's message without its leading "pointer: ".
std::string message_of(const ScenarioError& e) {
  const std::string w = e.what();
  const std::string prefix = (e.path.empty() ? std::string("/") : clip_pointer(e.path)) + ": ";
  return w.compare(0, prefix.size(), prefix) == 0 ? w.substr(prefix.size()) : w;
}

}  // namespace

HfModel read_hf_config(const std::string& file, const std::string& pointer) {
  const std::string where = "Hugging Face config \"" + file + "\"";
  // A config is a few kilobytes; a device or a huge file named by a hostile scenario is refused
  // before it is read (docs/reliability.md).
  std::error_code ec;
  if (fs::exists(file, ec) && !fs::is_directory(file, ec)) {
    if (!fs::is_regular_file(file, ec)) throw ScenarioError(pointer, where + ": not a regular file");
    if (fs::file_size(file, ec) > kMaxHfConfigBytes)
      throw ScenarioError(pointer, where + ": larger than " + std::to_string(kMaxHfConfigBytes >> 20) +
                                       " MiB (a config.json is a few kilobytes)");
  }
  json config;
  try {
    config = read_json_file(file, "Hugging Face config");
  } catch (const ScenarioError& e) {
    // read_json_file names the file, and the line and column of a problem in its text.
    throw ScenarioError(pointer, (e.path.empty() ? "" : where + " at " + clip_pointer(e.path) + ": ") + message_of(e));
  }
  try {
    return parse_hf_config(config);
  } catch (const ScenarioError& e) {
    // The config read on its own (describe workload): the key's pointer is the error's.
    if (pointer.empty()) throw ScenarioError(e.path, "in " + where + ": " + message_of(e));
    throw ScenarioError(pointer, where + " at " + (e.path.empty() ? "/" : clip_pointer(e.path)) + ": " + message_of(e));
  }
}

std::string hf_model_name(const std::string& file) {
  const fs::path p = fs::path(file).lexically_normal();
  std::string name = p.filename() == "config.json" && p.has_parent_path() ? p.parent_path().filename().string() : p.stem().string();
  if (name.empty() || name == "." || name == "..") name = p.stem().string();
  return "hf:" + name;
}

void build_hf_workload(Workload& w, const HfModel& m, const std::string& name, const std::string& path) {
  const int max_seq = m.config.max_positions;
  if (w.shape.seq > max_seq)
    fail_expected(ptr_join(path, "seq"),
                  "at most " + std::to_string(max_seq) + " tokens (the config's " + m.positions_key + ")", json(w.shape.seq));
  // Every activation and traffic size is batch x seq x a width (at most the widest per-token
  // tensor) x dtype bytes: require that, with room for the byte and kernel factors, to fit in 2^63.
  const auto tokens = checked_mul<std::uint64_t>(static_cast<std::uint64_t>(w.shape.batch), static_cast<std::uint64_t>(w.shape.seq));
  const double widest = std::ceil(hf_widest_per_token(m));
  if (!tokens || static_cast<double>(*tokens) * widest * 64 > 9.2e18)
    fail_expected(ptr_join(path, "batch"),
                  "a batch and seq whose activation sizes (batch x seq x " + std::to_string(static_cast<long long>(widest)) +
                      " elements x dtype bytes) fit in 2^63 bytes",
                  json(w.shape.batch));
  try {
    w.layers = build_hf_model(name, m, w.shape);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(path, e.what());
  }
  w.model = name;
  w.convention = m.architecture;
  w.dims = m.dims;
  w.sequence_model = true;
}

}  // namespace trainvp
