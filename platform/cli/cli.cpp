#include "platform/cli/cli.hpp"
#include "platform/cli/cli_report.hpp"
#include "platform/cli/cli_sweep.hpp"
#include "platform/cli/completion.hpp"
#include "platform/cli/exit_codes.hpp"
#include "platform/cli/help_text.hpp"
#include "platform/cli/man_page.hpp"
#include "platform/cli/scenario_path.hpp"
#include "platform/cli/workload_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "platform/report/build_record.hpp"
#include "platform/report/describe.hpp"
#include "platform/report/kernel_table.hpp"
#include "platform/core/errors.hpp"
#include "platform/report/output_files.hpp"
#include "platform/report/results.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/simulation.hpp"
#include "platform/core/units.hpp"

namespace trainvp {

namespace {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Options common to run and validate.
struct ScenarioArgs {
  std::string file;
  std::vector<std::string> sets;
  std::string output;
  std::string faults;
  bool quiet = false;
  bool progress = false;
  bool resolved = false;
  bool report = false;
};

ScenarioArgs parse_scenario_args(const std::vector<std::string>& args, bool is_run) {
  ScenarioArgs a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& s = args[i];
    auto value = [&](const char* opt) -> std::string {
      if (i + 1 >= args.size()) throw UsageError(std::string(opt) + " needs a value");
      return args[++i];
    };
    if (s == "--set") a.sets.push_back(value("--set"));
    else if (s.rfind("--set=", 0) == 0) a.sets.push_back(s.substr(6));
    else if (s == "--faults") a.faults = value("--faults");
    else if (is_run && (s == "-o" || s == "--output")) a.output = value("-o");
    else if (is_run && (s == "-q" || s == "--quiet")) a.quiet = true;
    else if (is_run && s == "--progress") a.progress = true;
    else if (is_run && s == "--report") a.report = true;
    else if (!is_run && s == "--resolved") a.resolved = true;
    else if (!s.empty() && s[0] == '-') throw UsageError("unknown option " + s);
    else if (a.file.empty()) a.file = s;
    else throw UsageError("unexpected argument " + s);
  }
  if (a.file.empty()) throw UsageError("missing scenario FILE");
  a.file = find_scenario(a.file);
  return a;
}

// The command ends the process, so its cluster is left to the operating system. SystemC 2.3.4
// unregisters each module, port and export by a linear search of its registry, so tearing down N
// devices costs O(N^2): a quarter of an 8,192-GPU run's process time
// (docs/performance.md#flow-fidelity-round-3-2026-12-06-40) and half of validating Llama 3's 16,384
// GPUs. Held by a static, it stays reachable memory, which LeakSanitizer does not report. Only for
// a simulation whose outputs are written and closed, or one that writes none.
void leave_to_the_os(std::unique_ptr<Simulation> sim) {
  [[maybe_unused]] static Simulation* left = nullptr;
  left = sim.release();
}

int cmd_validate(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::cout << help_of("validate"), kOk;
  ScenarioArgs a = parse_scenario_args(args, false);
  Scenario s = load_scenario_file(a.file, a.sets, a.faults);
  // Elaborate without running: the fabric must build and every fault target must match a name.
  leave_to_the_os(std::make_unique<Simulation>(s, false, true));  // elaboration writes nothing
  if (a.resolved) {
    std::cout << s.resolved.dump(2) << "\n";
  } else if (s.collective_bench) {
    std::cout << "ok: " << s.name << ": " << s.cluster.gpus.size() << " GPUs (" << s.cluster.nodes << " x "
              << s.cluster.gpus_per_node << "), " << op_name(s.bench.op) << " (" << algo_name(s.bench.algorithm)
              << ") over " << s.bench.communicator.size() << " ranks, " << s.bench.sizes.size() << " size"
              << (s.bench.sizes.size() == 1 ? "" : "s") << "\n";
  } else if (s.chakra) {
    std::size_t nodes = 0;
    for (const auto& t : s.chakra_workload.trace_of) nodes += t->nodes.size();
    std::cout << "ok: " << s.name << ": " << s.cluster.gpus.size() << " GPUs (" << s.cluster.nodes << " x "
              << s.cluster.gpus_per_node << "), Chakra traces " << s.chakra_workload.traces << " (" << nodes
              << " nodes, " << s.chakra_workload.plan->collectives.size() << " collectives, "
              << s.chakra_workload.plan->p2p.size() << " sends)\n";
  } else if (!s.jobs.empty()) {
    std::cout << "ok: " << s.name << ": " << s.cluster.gpus.size() << " GPUs (" << s.cluster.nodes << " x "
              << s.cluster.gpus_per_node << "), " << s.jobs.size() << " jobs:";
    for (const JobConfig& j : s.jobs) {
      std::cout << " " << j.name << " (";
      if (j.kind == JobKind::Checkpoint)
        std::cout << "checkpoint, " << j.nodes.size() << " writer node" << (j.nodes.size() == 1 ? "" : "s") << ", "
                  << j.checkpoint.storage.size() << " storage)";
      else
        std::cout << j.scenario->workload.model << ", " << j.nodes.size() << " node" << (j.nodes.size() == 1 ? "" : "s")
                  << ", " << j.scenario->training.iterations << " iterations)";
    }
    std::cout << "\n";
  } else {
    std::cout << "ok: " << s.name << ": " << s.cluster.gpus.size() << " GPUs (" << s.cluster.nodes << " x "
              << s.cluster.gpus_per_node << "), " << s.workload.model << " (" << s.workload.layers.size() << " layers, "
              << s.workload.total_params() << " parameters), " << s.training.iterations << " iterations\n";
  }
  return kOk;
}

int cmd_run(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::cout << help_of("run"), kOk;
  ScenarioArgs a = parse_scenario_args(args, true);
  Scenario s = load_scenario_file(a.file, a.sets, a.faults);
  if (!a.output.empty()) {
    s.output.dir = a.output;
    s.resolved["output"]["dir"] = a.output;
  }
  // -q promises a silent run (scripts, CI): it wins over --progress.
  auto owned = std::make_unique<Simulation>(s, !a.quiet && (a.progress || isatty(STDERR_FILENO) != 0));
  Simulation& sim = *owned;
  sim.run();
  RunResults r = collect_results(sim);
  write_run_outputs(s.output.dir, r, sim.context().trace);
  const std::filesystem::path dir(s.output.dir);
  if (!sim.waves_tmp().empty()) {
    sim.keep_waves();
    std::filesystem::rename(sim.waves_tmp(), dir / s.output.waves_file());
  }
  // A waveform file of an earlier run (or the other format) would now be misleading.
  std::error_code ec;
  for (const char* name : {"waves.vcd", "waves.fst"})
    if (sim.waves_tmp().empty() || name != s.output.waves_file()) std::filesystem::remove(dir / name, ec);
  // The page is written after the run's files, from them: it shows what results.json holds.
  const std::string report = a.report ? write_run_report(s.output.dir) : "";
  if (!a.quiet) {
    std::cout << r.summary << "  results in " << s.output.dir << "/\n";
    if (!report.empty()) std::cout << "  report in " << report << " (open it in a browser)\n";
  }
  leave_to_the_os(std::move(owned));  // every output is written and closed (the waves above)
  return kOk;
}

int cmd_describe_topology(const std::vector<std::string>& args) {
  bool as_json = false;
  std::vector<std::string> rest;
  for (auto& a : args) {
    if (a == "--json") as_json = true;
    else rest.push_back(a);
  }
  ScenarioArgs a = parse_scenario_args(rest, false);
  Scenario s = load_scenario_file(a.file, a.sets, a.faults);
  // Elaboration only (it writes nothing): the fabric's names and links exist once it is built.
  auto sim = std::make_unique<Simulation>(s, false, true);
  nlohmann::ordered_json t = sim->fabric().describe();
  leave_to_the_os(std::move(sim));
  const json placement = parallel_placement(s);
  if (!placement.is_null()) t["parallel"] = placement;
  if (as_json) {
    std::cout << t.dump(2) << "\n";
    return kOk;
  }
  std::cout << "devices (" << t["devices"].size() << "):\n";
  for (auto& d : t["devices"])
    std::printf("  %-24s %s\n", d["name"].get<std::string>().c_str(), d["kind"].get<std::string>().c_str());
  std::cout << "links (" << t["links"].size() << ", full duplex; bandwidth per direction):\n";
  for (auto& l : t["links"])
    std::printf("  %-44s %-9s %10s %10s\n", l["name"].get<std::string>().c_str(), l["kind"].get<std::string>().c_str(),
                format_bandwidth_bps(l["bandwidth_bps"].get<double>()).c_str(),
                format_time_s(l["latency_s"].get<double>()).c_str());
  std::cout << "GPU to NIC:\n";
  for (auto& g : t["gpus"])
    std::printf("  rank %-5d %-20s %s\n", g["rank"].get<int>(), g["name"].get<std::string>().c_str(),
                g["nic"].get<std::string>().c_str());
  if (placement.is_null()) return kOk;
  std::printf("parallel layout (tp %d x pp %d x dp %d, order %s): GPU -> [tp, pp, dp]\n", placement["tp"].get<int>(),
              placement["pp"].get<int>(), placement["dp"].get<int>(), placement["order"].get<std::string>().c_str());
  for (auto& r : placement["ranks"])
    std::printf("  rank %-5d %-20s tp %-3d pp %-3d dp %d\n", r["rank"].get<int>(), r["gpu"].get<std::string>().c_str(),
                r["tp"].get<int>(), r["pp"].get<int>(), r["dp"].get<int>());
  std::cout << "pipeline stages (layers per model chunk):\n";
  for (auto& st : placement["stages"])
    for (auto& c : st["chunks"]) {
      const auto& names = c["layers"];
      std::printf("  stage %-3d chunk %-3d %3zu layers: %s .. %s\n", st["stage"].get<int>(), c["chunk"].get<int>(),
                  names.size(), names.front().get<std::string>().c_str(), names.back().get<std::string>().c_str());
    }
  return kOk;
}

int positive_option(const std::vector<std::string>& args, std::size_t& i, const char* opt) {
  if (i + 1 >= args.size()) throw UsageError(std::string(opt) + " needs a value");
  const std::string& v = args[++i];
  char* end = nullptr;
  long x = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end || x < 1 || x > 1000000000)
    throw UsageError(std::string(opt) + " expects a positive integer, found \"" + v + "\"");
  return static_cast<int>(x);
}

DType dtype_option(const std::vector<std::string>& args, std::size_t& i) {
  if (i + 1 >= args.size()) throw UsageError("--dtype needs a value");
  auto d = dtype_from_name(args[++i]);
  if (!d) throw UsageError("--dtype expects fp32, tf32, bf16, fp16 or fp8, found \"" + args[i] + "\"");
  return *d;
}

// --kernels, --gpu PRESET, --tp T, --sequence-parallel (describe model and workload): true when
// args[i] was one of them.
bool kernel_option(const std::vector<std::string>& args, std::size_t& i, bool& kernels, KernelView& view) {
  const std::string& s = args[i];
  if (s == "--kernels") kernels = true;
  else if (s == "--sequence-parallel") view.sequence_parallel = true;
  else if (s == "--tp") view.tp = positive_option(args, i, "--tp");
  else if (s == "--gpu") {
    if (i + 1 >= args.size()) throw UsageError("--gpu needs a preset name");
    view.gpu = args[++i];
  } else return false;
  return true;
}

// The workload's kernel table (--kernels) or its layer table.
std::string workload_description(const Workload& w, bool kernels, const KernelView& view, bool as_json) {
  if (kernels) {
    nlohmann::ordered_json t;
    try {
      t = kernel_table_json(w, view);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    return as_json ? t.dump(2) + "\n" : kernel_table_text(t);
  }
  const nlohmann::ordered_json table = workload_table_json(w, w.convention);
  return as_json ? table.dump(2) + "\n" : workload_table_text(table);
}

// describe workload FILE: a scenario's workload (after --set), a config.json's at --batch/--seq/--dtype, or
// a profiler trace's (gradients in --dtype).
int cmd_describe_workload(const std::vector<std::string>& args) {
  bool as_json = false, shape_given = false, seq_given = false, batch_given = false, kernels = false;
  KernelView view;
  std::string file;
  std::vector<std::string> sets;
  WorkloadShape shape;
  shape.batch = 1;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& s = args[i];
    if (kernel_option(args, i, kernels, view)) continue;
    if (s == "--json") as_json = true;
    else if (s == "--set") {
      if (i + 1 >= args.size()) throw UsageError("--set needs a value");
      sets.push_back(args[++i]);
    } else if (s.rfind("--set=", 0) == 0) sets.push_back(s.substr(6));
    else if (s == "--batch") shape.batch = positive_option(args, i, "--batch"), shape_given = batch_given = true;
    else if (s == "--seq") shape.seq = positive_option(args, i, "--seq"), shape_given = seq_given = true;
    else if (s == "--dtype") shape.dtype = shape.grad_dtype = dtype_option(args, i), shape_given = true;
    else if (!s.empty() && s[0] == '-') throw UsageError("unknown option " + s);
    else if (file.empty()) file = s;
    else throw UsageError("unexpected argument " + s);
  }
  if (file.empty()) throw UsageError("describe workload: missing FILE");
  file = find_scenario(file);
  Workload w;
  const WorkloadFileKind kind = workload_file_kind(file);
  if (kind == WorkloadFileKind::Scenario) {
    if (shape_given)
      throw UsageError("--batch, --seq and --dtype are for a config.json; for a scenario use --set /workload/...");
    w = scenario_workload(file, sets);
  } else if (kind == WorkloadFileKind::TorchTrace) {
    // A trace's times are of the batch it recorded: only the gradient dtype is the reader's to choose.
    if (!sets.empty() || batch_given || seq_given)
      throw UsageError("a profiler trace takes --dtype only (its times are those of the step it recorded)");
    w = torch_trace_workload(file, shape.dtype);
  } else {
    if (!sets.empty()) throw UsageError("--set is for a scenario; for a config.json use --batch, --seq and --dtype");
    // Without --seq, the default 1024 or the config's longest sequence, whichever is shorter.
    if (!seq_given) shape.seq = std::min(shape.seq, hf_config_max_seq(file));
    w = hf_config_workload(file, shape);
  }
  std::cout << workload_description(w, kernels, view, as_json);
  return kOk;
}

int cmd_describe(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::cout << help_of("describe"), kOk;
  if (!args.empty() && args[0] == "topology") return cmd_describe_topology({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "workload") return cmd_describe_workload({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "models") {
    if (args.size() > 2 || (args.size() == 2 && args[1] != "--json" && args[1] != "--markdown"))
      throw UsageError("describe models takes --json or --markdown (see trainvp describe --help)");
    const std::string how = args.size() == 2 ? args[1] : "";
    std::cout << (how == "--markdown" ? model_table()
                  : how == "--json"   ? describe_json()["models"].dump(2) + "\n"
                                      : describe_models_text());
    return kOk;
  }
  bool as_json = false, as_markdown = false;
  std::string model;
  WorkloadShape shape;
  shape.batch = 1;
  bool is_model = !args.empty() && args[0] == "model";
  bool seq_given = false, kernels = false;
  KernelView view;
  for (std::size_t i = is_model ? 1 : 0; i < args.size(); ++i) {
    const std::string& s = args[i];
    auto int_value = [&](const char* opt) { return positive_option(args, i, opt); };
    if (is_model && kernel_option(args, i, kernels, view)) continue;
    if (s == "--json") as_json = true;
    else if (!is_model && s == "--markdown") as_markdown = true;
    else if (is_model && s == "--batch") shape.batch = int_value("--batch");
    else if (is_model && s == "--seq") shape.seq = int_value("--seq"), seq_given = true;
    else if (is_model && s == "--image-size") shape.image_size = int_value("--image-size");
    else if (is_model && s == "--dtype") {
      if (i + 1 >= args.size()) throw UsageError("--dtype needs a value");
      auto d = dtype_from_name(args[++i]);
      if (!d) throw UsageError("--dtype expects fp32, tf32, bf16, fp16 or fp8, found \"" + args[i] + "\"");
      shape.dtype = shape.grad_dtype = *d;
    } else if (is_model && model.empty() && s[0] != '-') model = s;
    else throw UsageError("unexpected argument " + s + " (see trainvp describe --help)");
  }
  if (!is_model) {
    std::cout << (as_markdown ? schema_key_table() : as_json ? describe_json().dump(2) + "\n" : describe_text());
    return kOk;
  }
  if (model.empty()) throw UsageError("describe model: missing NAME");
  model = zoo_canonical_name(model);  // "gpt2" names gpt2-small
  // Without --seq, use the default 1024 or the model's longest sequence, whichever is shorter.
  const ZooModelInfo* info = find_zoo_model(model);
  if (!seq_given && info && info->max_seq > 0 && shape.seq > info->max_seq) shape.seq = info->max_seq;
  try {
    if (kernels) {
      Workload w;
      w.layers = build_zoo_model(model, shape);
      w.model = model;
      w.shape = shape;
      std::cout << workload_description(w, true, view, as_json);
    } else {
      std::cout << (as_json ? describe_model_json(model, shape).dump(2) + "\n" : describe_model_text(model, shape));
    }
  } catch (const std::invalid_argument& e) {
    throw ScenarioError("", e.what());
  }
  return kOk;
}

// convert FILE [-o OUT]: the scenario with its workload frozen into explicit layers.
int cmd_convert(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::cout << help_of("convert"), kOk;
  std::string file, out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& s = args[i];
    if (s == "-o" || s == "--output") {
      if (i + 1 >= args.size()) throw UsageError("-o needs a value");
      out = args[++i];
    } else if (!s.empty() && s[0] == '-') throw UsageError("unknown option " + s);
    else if (file.empty()) file = s;
    else throw UsageError("unexpected argument " + s);
  }
  if (file.empty()) throw UsageError("convert: missing FILE");
  const std::string text = convert_scenario(find_scenario(file));
  if (out.empty() || out == "-") return std::cout << text, kOk;
  // Written beside OUT and renamed onto it: OUT is either whole or untouched.
  const std::string tmp = out + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f.flush()) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw RunError("cannot write \"" + out + "\"");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, out, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw RunError("cannot write \"" + out + "\"");
  }
  return kOk;
}

int cmd_version(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::cout << help_of("version"), kOk;
  if (args.size() == 1 && args[0] == "--json") return std::cout << build_record().dump(2) << "\n", kOk;
  if (!args.empty()) throw UsageError("unexpected argument " + args[0]);
  std::cout << "trainvp " << TRAINVP_VERSION << " (scenario format " << kScenarioFormatVersion << ")\n";
  return kOk;
}

int cmd_help_man(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::cout << help_of("help-man"), kOk;
  if (args.size() != 1) throw UsageError("help-man expects one COMMAND");
  if (!help_of(args[0])) throw UsageError("help-man: no command \"" + args[0] + "\"");
  std::cout << man_page(args[0]);
  return kOk;
}

int cmd_completion(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::cout << help_of("completion"), kOk;
  if (args.size() != 1 || args[0] != "bash") throw UsageError("completion expects `bash` (the one shell supported)");
  std::cout << bash_completion();
  return kOk;
}

}  // namespace

int cli_main(int argc, char* argv[]) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
    std::cout << help_of("trainvp");
    return args.empty() ? kBadInput : kOk;
  }
  std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "run") return cmd_run(args);
    if (cmd == "validate") return cmd_validate(args);
    if (cmd == "describe") return cmd_describe(args);
    if (cmd == "convert") return cmd_convert(args);
    if (cmd == "report") return cli_report(args);
    if (cmd == "sweep") return cli_sweep(args);
    if (cmd == "sweep-export") return cli_sweep_export(args);
    if (cmd == "merge") return cli_merge(args);
    if (cmd == "plot") return cli_plot(args);
    if (cmd == "version" || cmd == "--version") return cmd_version(args);
    if (cmd == "help-man") return cmd_help_man(args);
    if (cmd == "completion") return cmd_completion(args);
    throw UsageError("unknown command \"" + cmd + "\"");
  } catch (const UsageError& e) {
    std::cerr << "trainvp: " << e.what() << "\n(trainvp " << (help_of(cmd) ? cmd + " " : "") << "--help for usage)\n";
    return kBadInput;
  } catch (const ScenarioError& e) {
    std::cerr << "trainvp: error: " << e.what() << "\n";
    return kBadInput;
  } catch (const RunError& e) {
    std::cerr << "trainvp: run failed: " << e.what() << "\n";
    return kRunFailed;
  } catch (const std::exception& e) {
    std::cerr << "trainvp: " << e.what() << "\n";
    return kRunFailed;
  }
}

}  // namespace trainvp
