// Loads the Verilated grad_reduce variants (rtl_plugin.cpp, one module per LANES and wave format)
// on first use. The quickstart, and any run without a CXL device, loads none.
#include "models/cxl/rtl_engine.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "platform/core/errors.hpp"
#include "platform/core/self_exe.hpp"

namespace trainvp {

namespace fs = std::filesystem;

const std::vector<int>& rtl_lanes_available() {
  static const std::vector<int> lanes = [] {
    std::vector<int> v;
    std::istringstream in(TRAINVP_RTL_LANES);  // "8,16,32" from rtl/CMakeLists.txt, "" without the RTL
    for (std::string item; std::getline(in, item, ',');)
      if (!item.empty()) v.push_back(std::stoi(item));
    return v;
  }();
  return lanes;
}

bool rtl_available() { return !rtl_lanes_available().empty(); }

const char* rtl_verilator_version() { return TRAINVP_VERILATOR_VERSION; }

std::string rtl_module_name(int lanes, WaveFormat waves) {
  return "grad_reduce_l" + std::to_string(lanes) + (waves == WaveFormat::Fst ? "_fst" : "") + ".so";
}

std::vector<std::string> rtl_module_dirs() {
  std::vector<std::string> dirs;
  if (const char* d = std::getenv("TRAINVP_RTL_DIR"); d && *d) return {d};
  const std::string exe = self_executable();
  if (!exe.empty()) dirs.push_back((fs::path(exe).parent_path().parent_path() / "lib" / "trainvp" / "rtl").string());
  dirs.push_back(TRAINVP_RTL_BUILD_DIR);
  return dirs;
}

namespace {

using Create = RtlEngine* (*)();

// A module, once loaded, stays loaded: engines it made may live until the process ends.
Create load_module(int lanes, WaveFormat waves) {
  static std::mutex mu;
  static std::map<std::string, Create> loaded;
  const std::string name = rtl_module_name(lanes, waves);
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = loaded.find(name); it != loaded.end()) return it->second;
  std::string looked;
  for (const std::string& dir : rtl_module_dirs()) {
    const fs::path path = fs::path(dir) / name;
    std::error_code ec;
    looked += (looked.empty() ? "" : ", ") + dir;
    if (!fs::is_regular_file(path, ec)) continue;
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw RunError("cannot load the grad_reduce module " + path.string() + ": " + dlerror());
    auto abi = reinterpret_cast<int (*)()>(dlsym(h, "trainvp_rtl_plugin_abi"));
    auto mod_lanes = reinterpret_cast<int (*)()>(dlsym(h, "trainvp_rtl_plugin_lanes"));
    auto create = reinterpret_cast<Create>(dlsym(h, "trainvp_rtl_plugin_create"));
    if (!abi || !mod_lanes || !create || abi() != kRtlPluginAbi || mod_lanes() != lanes)
      throw RunError(path.string() + " is not a grad_reduce LANES " + std::to_string(lanes) +
                     " module of this trainvp (interface " + std::to_string(kRtlPluginAbi) +
                     "): rebuild it with `cmake --build BUILD --target trainvp_rtl`");
    return loaded[name] = create;
  }
  throw RunError("the Verilated grad_reduce LANES " + std::to_string(lanes) + " (" +
                 (waves == WaveFormat::Fst ? "FST" : "VCD") + " waves) is not built: no " + name + " in " + looked +
                 ". The quickstart's build makes no RTL; `cmake --build BUILD --target trainvp_rtl` (or a plain "
                 "`cmake --build BUILD`) makes every variant");
}

}  // namespace

std::unique_ptr<RtlEngine> make_rtl_engine(int lanes, WaveFormat waves) {
  if (!rtl_available())
    throw std::invalid_argument("this build has no Verilated grad_reduce (configured with -DTRAINVP_RTL=OFF)");
  const auto& have = rtl_lanes_available();
  if (std::find(have.begin(), have.end(), lanes) == have.end())
    throw std::invalid_argument("no grad_reduce variant with LANES " + std::to_string(lanes));
  return std::unique_ptr<RtlEngine>(load_module(lanes, waves)());
}

}  // namespace trainvp
