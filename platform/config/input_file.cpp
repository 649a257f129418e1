#include "platform/config/input_file.hpp"

#include <filesystem>

#include "platform/config/document.hpp"

namespace trainvp {

namespace fs = std::filesystem;
using nlohmann::json;

std::string find_input_file(const std::string& given, const std::string& scenario_dir, const std::string& pointer,
                            const std::string& what) {
  if (given.empty()) fail_expected(pointer, "a path to a " + what, json(given));
  const fs::path p(given);
  if (p.is_absolute()) return given;
  std::error_code ec;
  if (!scenario_dir.empty()) {
    const fs::path beside = fs::path(scenario_dir) / p;
    if (fs::exists(beside, ec)) return beside.lexically_normal().string();
  }
  if (fs::exists(p, ec)) return given;
  throw ScenarioError(
      pointer, "no " + what + " \"" + given + "\": not in " +
                   (scenario_dir.empty() ? std::string() : "the scenario's directory (" + scenario_dir + ") nor in ") +
                   "the current directory");
}

std::string message_of(const ScenarioError& e) {
  const std::string w = e.what();
  const std::string prefix = (e.path.empty() ? std::string("/") : clip_pointer(e.path)) + ": ";
  return w.compare(0, prefix.size(), prefix) == 0 ? w.substr(prefix.size()) : w;
}

json read_json_input(const std::string& file, const std::string& pointer, const std::string& what,
                     std::uintmax_t max_bytes, const std::string& size_hint) {
  const std::string where = what + " \"" + file + "\"";
  // A device or a huge file named by a hostile scenario is refused before it is read.
  std::error_code ec;
  if (fs::exists(file, ec) && !fs::is_directory(file, ec)) {
    if (!fs::is_regular_file(file, ec)) throw ScenarioError(pointer, where + ": not a regular file");
    if (fs::file_size(file, ec) > max_bytes)
      throw ScenarioError(pointer,
                          where + ": larger than " + std::to_string(max_bytes >> 20) + " MiB (" + size_hint + ")");
  }
  try {
    return read_json_file(file, what);
  } catch (const ScenarioError& e) {
    // read_json_file names the file, and the line and column of a problem in its text.
    throw ScenarioError(pointer, (e.path.empty() ? "" : where + " at " + clip_pointer(e.path) + ": ") + message_of(e));
  }
}

}  // namespace trainvp
