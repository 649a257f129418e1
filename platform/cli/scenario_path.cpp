#include "platform/cli/scenario_path.hpp"

#include <cstdlib>
#include <filesystem>

#include "platform/core/errors.hpp"
#include "platform/core/self_exe.hpp"

namespace trainvp {

namespace fs = std::filesystem;

std::vector<std::string> scenario_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* p = std::getenv("TRAINVP_PATH"); p && *p) {
    std::string list = p;
    for (std::size_t start = 0;;) {
      std::size_t colon = list.find(':', start);
      std::string d = list.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!d.empty()) dirs.push_back(d);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  dirs.push_back(".");  // NAME.json here, for a NAME given without .json
  if (const std::string exe = self_executable(); !exe.empty())
    dirs.push_back((fs::path(exe).parent_path().parent_path() / "share" / "trainvp" / "scenarios").string());
  return dirs;
}

std::string find_scenario(const std::string& name) {
  std::error_code ec;
  if (name.empty() || fs::exists(name, ec) || fs::path(name).is_absolute()) return name;
  const std::vector<std::string> dirs = scenario_search_dirs();
  for (const std::string& d : dirs)
    for (const std::string& candidate : {name, name + ".json"}) {
      fs::path p = fs::path(d) / candidate;
      if (fs::is_regular_file(p, ec)) return p.string();
    }
  std::string where;
  for (const std::string& d : dirs) where += (where.empty() ? "" : ", ") + d;
  throw ScenarioError("", "no scenario \"" + name + "\": not a file, and neither " + name + " nor " + name +
                              ".json is in " + (where.empty() ? "any search directory" : where) +
                              " (trainvp --help: the search path)");
}

}  // namespace trainvp
