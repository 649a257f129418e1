#include "platform/config/chakra_workload.hpp"

#include <filesystem>
#include <regex>
#include <set>

#include "platform/config/input_file.hpp"
#include "platform/config/section.hpp"
#include "platform/core/errors.hpp"

namespace trainvp {

namespace fs = std::filesystem;
using json = nlohmann::json;

const ParamSet<ChakraRaw>& chakra_schema() {
  static const ParamSet<ChakraRaw> s = [] {
    ParamSet<ChakraRaw> p(
        "chakra_workload", "/workload/chakra",
        "Chakra execution traces (MLCommons; ASTRA-sim's input) run as they are: every rank executes its "
        "trace's DAG once, compute on its GPU, collectives and sends over the fabric.");
    p.text("traces", &ChakraRaw::traces, nullptr,
           "The traces: a prefix P of P.<rank>.et files (ASTRA-sim's convention), a path with {rank} in it, a "
           "directory holding one <name>.<rank>.et per rank, or one file that every rank runs")
        .required("traces")
        .nested("comm_groups", "object or string", nullptr,
                "Process groups the collectives name in pg_name: {\"<name>\": [ranks in ring order]} (or "
                "{\"<name>\": {\"ranks\": [...]}}), or the path of such a JSON file (ASTRA-sim's "
                "--comm-group-configuration); a collective without pg_name runs over every rank")
        .choice("algorithm", &ChakraRaw::algorithm, "ring",
                NameTable<CollectiveAlgo>{{"ring", CollectiveAlgo::Ring},
                                          {"tree", CollectiveAlgo::Tree},
                                          {"hierarchical", CollectiveAlgo::Hierarchical}},
                "All-reduce algorithm: ring, tree or hierarchical (the other collectives run as rings, broadcast "
                "pipelined from its root)")
        .choice("dtype", &ChakraRaw::dtype, "bf16", dtype_names(),
                "Peak rate for compute nodes timed by roofline (those without a recorded duration)");
    return p;
  }();
  return s;
}

namespace {

std::string rank_file(const std::string& prefix, int r) { return prefix + "." + std::to_string(r) + ".et"; }

// The per-rank files of `given` (or one file for all), resolved as other workload inputs are:
// beside the scenario, then in the current directory.
std::vector<std::string> trace_files(const std::string& given, int ranks, const std::string& scenario_dir,
                                     const std::string& pointer, bool& replicated) {
  if (given.empty()) fail_expected(pointer, "a path to Chakra traces", json(given));
  std::vector<fs::path> bases;
  if (fs::path(given).is_absolute()) bases.push_back(given);
  else {
    if (!scenario_dir.empty()) bases.push_back(fs::path(scenario_dir) / given);
    bases.push_back(given);
  }
  std::error_code ec;
  std::vector<std::string> out;
  replicated = false;
  const auto placeholder = given.find("{rank}");
  for (const fs::path& b : bases) {
    const std::string base = b.lexically_normal().string();
    if (placeholder != std::string::npos) {
      auto file = [&](int r) {
        std::string f = base;
        for (auto at = f.find("{rank}"); at != std::string::npos; at = f.find("{rank}"))
          f.replace(at, 6, std::to_string(r));
        return f;
      };
      if (!fs::exists(file(0), ec)) continue;
      for (int r = 0; r < ranks; ++r) out.push_back(file(r));
      return out;
    }
    if (fs::is_regular_file(b, ec)) {
      replicated = true;
      return {base};
    }
    std::string prefix = base;
    if (fs::is_directory(b, ec)) {  // exactly one family of <name>.<rank>.et
      static const std::regex name(R"((.*)\.(0|[1-9][0-9]*)\.et)");
      std::set<std::string> families;
      for (const auto& e : fs::directory_iterator(b, ec)) {
        std::smatch m;
        const std::string f = e.path().filename().string();
        if (std::regex_match(f, m, name)) families.insert(m[1].str());
      }
      if (families.size() != 1)
        throw ScenarioError(
            pointer, "directory \"" + base + "\" holds " +
                         (families.empty() ? std::string("no <name>.<rank>.et trace")
                                           : std::to_string(families.size()) + " families of <name>.<rank>.et traces") +
                         ": it must hold exactly one (or name the prefix)");
      prefix = (b / *families.begin()).lexically_normal().string();
    } else if (!fs::exists(rank_file(prefix, 0), ec)) {
      continue;
    }
    for (int r = 0; r < ranks; ++r) out.push_back(rank_file(prefix, r));
    if (fs::exists(rank_file(prefix, ranks), ec))
      throw ScenarioError(pointer, "there are traces for more ranks than the cluster's " + std::to_string(ranks) +
                                       " GPUs (" + rank_file(prefix, ranks) + " exists)");
    return out;
  }
  throw ScenarioError(
      pointer, "no Chakra trace \"" + given +
                   "\": neither a file, a directory of <name>.<rank>.et, "
                   "a prefix P of P.0.et nor a path with {rank}, in " +
                   (scenario_dir.empty() ? std::string() : "the scenario's directory (" + scenario_dir + ") or ") +
                   "the current directory");
}

chakra::Groups load_groups(const json& value, const std::string& pointer, int ranks, const std::string& scenario_dir,
                           json& resolved) {
  chakra::Groups groups;
  if (value.is_null()) return groups;
  json obj = value;
  std::string where = pointer, in_file;
  if (value.is_string()) {
    const std::string file =
        find_input_file(value.get<std::string>(), scenario_dir, pointer, "communicator-group file");
    obj = read_json_input(file, pointer, "communicator-group file", 64ull << 20, "list each group's ranks once");
    in_file = "in \"" + file + "\" at ";
  }
  if (!obj.is_object()) fail_expected(pointer, "an object of process groups {\"name\": [ranks]}", obj);
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string gp = ptr_join("", it.key());
    auto fail = [&](const std::string& at, const std::string& expected, const json& found) {
      if (in_file.empty()) fail_expected(pointer + at, expected, found);
      throw ScenarioError(pointer, in_file + at + ": expected " + expected + ", found " + found.dump());
    };
    // ASTRA-sim's older files list the ranks; newer ones hold {"ranks": [...], "dimensions": [...]}.
    const bool object = it.value().is_object() && it.value().contains("ranks");
    const json& list = object ? it.value()["ranks"] : it.value();
    const std::string lp = object ? ptr_join(gp, "ranks") : gp;
    if (!list.is_array() || list.empty()) fail(lp, "a non-empty array of ranks (or {\"ranks\": [...]})", list);
    std::vector<int> members;
    std::set<int> seen;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& v = list[i];
      if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() >= ranks)
        fail(ptr_join(lp, i), "a rank in [0, " + std::to_string(ranks - 1) + "]", v);
      if (!seen.insert(v.get<int>()).second) fail(ptr_join(lp, i), "each rank once in a group", v);
      members.push_back(v.get<int>());
    }
    groups[it.key()] = members;
  }
  resolved = obj;
  return groups;
}

}  // namespace

json load_chakra_workload(ChakraWorkload& c, const json& value, const std::string& path, int ranks,
                          const std::vector<int>& nodes_of, const std::string& scenario_dir) {
  json obj = value.is_string() ? json{{"traces", value}} : value;
  ChakraRaw r;
  json resolved = chakra_schema().load(r, obj, path);
  const std::string tp = ptr_join(path, "traces");
  c.traces = r.traces;
  c.algorithm = r.algorithm;
  c.dtype = r.dtype;
  json groups_resolved;
  c.groups =
      load_groups(member(obj, "comm_groups"), ptr_join(path, "comm_groups"), ranks, scenario_dir, groups_resolved);
  if (!groups_resolved.is_null()) resolved["comm_groups"] = groups_resolved;
  c.files = trace_files(r.traces, ranks, scenario_dir, tp, c.replicated);
  std::vector<const chakra::Trace*> of;
  try {
    for (const std::string& f : c.files) {
      std::error_code ec;
      if (!fs::is_regular_file(f, ec)) throw chakra::TraceError(f + ": is missing or not a regular file");
      c.trace_of.push_back(std::make_shared<const chakra::Trace>(chakra::read_trace(f)));
    }
    if (c.replicated) c.trace_of.assign(static_cast<std::size_t>(ranks), c.trace_of.front());
    for (const auto& t : c.trace_of) of.push_back(t.get());
    c.plan = std::make_shared<const chakra::Plan>(chakra::plan_run(of, c.groups));
  } catch (const chakra::TraceError& e) {
    throw ScenarioError(tp, e.what());
  } catch (const chakra::PlanError& e) {
    throw ScenarioError(tp, e.what());
  }
  // Hierarchical all-reduce needs equal GPU counts per node in each communicator.
  if (c.algorithm == CollectiveAlgo::Hierarchical)
    for (const chakra::CollectiveUse& u : c.plan->collectives) {
      if (u.comm_type != chakra::kAllReduce) continue;
      try {
        build_program(CollectiveOp::AllReduce, c.algorithm, u.ranks, 1, 1, nodes_of);
      } catch (const std::invalid_argument& e) {
        throw ScenarioError(ptr_join(path, "algorithm"),
                            "hierarchical cannot run the all-reduces of " +
                                (u.group.empty() ? std::string("every rank") : "process group \"" + u.group + "\"") +
                                ": " + e.what());
      }
    }
  return resolved;
}

}  // namespace trainvp
