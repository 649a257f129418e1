#include "platform/config/hf_workload.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "platform/config/document.hpp"
#include "platform/config/input_file.hpp"
#include "platform/core/checked.hpp"
#include "platform/core/errors.hpp"

namespace trainvp {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxHfConfigBytes = std::uintmax_t{1} << 20;

std::string find_hf_config(const std::string& given, const std::string& scenario_dir, const std::string& pointer) {
  return find_input_file(given, scenario_dir, pointer, "Hugging Face config");
}

HfModel read_hf_config(const std::string& file, const std::string& pointer) {
  const std::string where = "Hugging Face config \"" + file + "\"";
  const json config =
      read_json_input(file, pointer, "Hugging Face config", kMaxHfConfigBytes, "a config.json is a few kilobytes");
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
  std::string name =
      p.filename() == "config.json" && p.has_parent_path() ? p.parent_path().filename().string() : p.stem().string();
  if (name.empty() || name == "." || name == "..") name = p.stem().string();
  return "hf:" + name;
}

void build_hf_workload(Workload& w, const HfModel& m, const std::string& name, const std::string& path) {
  const int max_seq = m.config.max_positions;
  if (w.shape.seq > max_seq)
    fail_expected(ptr_join(path, "seq"),
                  "at most " + std::to_string(max_seq) + " tokens (the config's " + m.positions_key + ")",
                  json(w.shape.seq));
  // Every activation and traffic size is batch x seq x a width (at most the widest per-token
  // tensor) x dtype bytes: require that, with room for the byte and kernel factors, to fit in 2^63.
  const auto tokens =
      checked_mul<std::uint64_t>(static_cast<std::uint64_t>(w.shape.batch), static_cast<std::uint64_t>(w.shape.seq));
  const double widest = std::ceil(hf_widest_per_token(m));
  if (!tokens || static_cast<double>(*tokens) * widest * 64 > 9.2e18)
    fail_expected(ptr_join(path, "batch"),
                  "a batch and seq whose activation sizes (batch x seq x " +
                      std::to_string(static_cast<long long>(widest)) + " elements x dtype bytes) fit in 2^63 bytes",
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
