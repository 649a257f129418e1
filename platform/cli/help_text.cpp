#include "platform/cli/help_text.hpp"

namespace trainvp {

namespace {

const char* kMainHelp =
    "usage: trainvp <command> [options]\n"
    "\n"
    "A SystemC/TLM-2.0 virtual platform of GPU training nodes and clusters.\n"
    "\n"
    "commands:\n"
    "  run FILE        simulate a scenario and write results (trainvp run --help)\n"
    "  validate FILE   check a scenario without running it\n"
    "  describe        list every parameter, GPU preset and zoo model\n"
    "  describe model NAME   a platform model's parameters, sockets and statistics, or a zoo model's layers\n"
    "  describe workload FILE  the layer table of a scenario's workload, a Hugging Face config.json\n"
    "                          or a PyTorch profiler trace\n"
    "  convert FILE [-o OUT]   the scenario with its workload frozen into an explicit layer list\n"
    "  report DIR [-o FILE]  one self-contained HTML page of a run or a sweep (open it in a browser)\n"
    "  sweep SPEC -o DIR     run a parameter sweep in parallel processes (trainvp sweep --help)\n"
    "  sweep-export DIR      write a sweep's sweep.db as CSV\n"
    "  merge OUT DIR...      merge the shards of a sweep into OUT/sweep.db\n"
    "  plot DIR --x P --y M  plot a sweep's results with gnuplot\n"
    "  version [--json]      print the version, or the build record as JSON\n"
    "  help-man COMMAND      print COMMAND's man page (roff; `trainvp` for this page)\n"
    "  completion bash       print the bash completion script\n"
    "\n"
    "FILE (and SPEC) is a path, or a name: a path that exists is used as given; otherwise NAME and\n"
    "NAME.json are looked up in each directory of $TRAINVP_PATH (separated by :), then in the\n"
    "current directory, then in the installed scenarios, PREFIX/share/trainvp/scenarios beside\n"
    "PREFIX/bin/trainvp (so `trainvp run quickstart` and `trainvp sweep sweeps/batch-scaling\n"
    "-o DIR` work anywhere).\n"
    "\n"
    "exit codes: 0 success, 1 run failed (stall, time limit, I/O), 2 bad input or usage\n";

const char* kRunHelp =
    "usage: trainvp run FILE [-o DIR] [--faults F] [--set /json/pointer=VALUE]... [-q] [--progress]\n"
    "                    [--report]\n"
    "\n"
    "Simulates the scenario FILE and writes DIR/results.json, DIR/iterations.csv,\n"
    "DIR/link_series.json (each link's busy time over the run), DIR/trace.json (open it in\n"
    "ui.perfetto.dev) and, with faults, DIR/faults.json (every fault injected, generated\n"
    "ones included). DIR defaults to /output/dir, else out/<name>.\n"
    "FILE is a path or a scenario name (trainvp --help: the search path).\n"
    "\n"
    "  -o, --output DIR   output directory\n"
    "  --faults F         replace the scenario's faults (and fault_generator) by the list in F,\n"
    "                     e.g. an earlier run's DIR/faults.json: replays its campaign exactly\n"
    "  --set P=VALUE      set the value at JSON pointer P before validation; VALUE is parsed\n"
    "                     as JSON, else taken as a string (--set /cluster/nodes=4,\n"
    "                     --set /workload/model=gpt2-small); repeatable\n"
    "  -q, --quiet        no summary on stdout and no progress line (-q wins over --progress)\n"
    "  --progress         a one-line progress display on stderr (simulated time, iterations\n"
    "                     done of planned, rate, time left); on by default when stderr is a\n"
    "                     terminal\n"
    "  --report           also write DIR/report.html, the page of `trainvp report DIR`; the\n"
    "                     summary names it\n"
    "\n"
    "With TRAINVP_CHECK_TLM=1 in the environment, every socket pair of the fabric goes through a\n"
    "TLM-2.0 base-protocol checker: a violation fails the run, a clean run says so on stderr.\n";

const char* kReportHelp =
    "usage: trainvp report DIR [-o FILE]\n"
    "\n"
    "Writes one self-contained HTML page (inline SVG and CSS, a little plain script, nothing\n"
    "fetched from the network) of DIR, a run's output directory or a sweep's (docs/report.md).\n"
    "A run's page: the summary (what ran, iteration time, throughput, MFU, fidelity, the scenario\n"
    "with every default), iteration time over the run with faults, detections, diagnoses,\n"
    "mitigation actions and the SLO band, the time split per stage and rank, one iteration's\n"
    "pipeline schedule (from trace.json) and collectives, link utilization by tier with the\n"
    "hottest links, and with health, jobs or workload.train their sections. A sweep's page\n"
    "(DIR/sweep.db, or a .db file): the design, the best point, the SPEC's plots, infeasible and\n"
    "failed points with their errors, and a sortable table of every point. A section the input\n"
    "has no data for says so in one line. The same input gives a byte-identical page. FILE is\n"
    "written whole or not at all.\n"
    "\n"
    "  -o, --output FILE  write to FILE (default DIR/report.html)\n"
    "\n"
    "exit codes: 0 written, 1 cannot write FILE, 2 bad or missing input (the file and JSON\n"
    "pointer named) or usage\n";

const char* kValidateHelp =
    "usage: trainvp validate FILE [--faults F] [--set /json/pointer=VALUE]... [--resolved]\n"
    "\n"
    "Checks FILE (after the overrides) and prints one line, or the first error with its\n"
    "JSON pointer. The cluster is elaborated (not run), so a fabric that cannot be built and\n"
    "a fault target that matches nothing are caught too. Nothing is simulated or written.\n"
    "FILE is a path or a scenario name, as for run.\n"
    "\n"
    "  --faults F, --set P=VALUE   as for run\n"
    "  --resolved         print the resolved scenario (defaults filled in) as JSON\n";

const char* kDescribeHelp =
    "usage: trainvp describe [--json | --markdown]\n"
    "       trainvp describe models [--json | --markdown]\n"
    "       trainvp describe model NAME [--batch B] [--seq S] [--image-size N] [--dtype D] [KERNELS] [--json]\n"
    "       trainvp describe topology FILE [--set /json/pointer=VALUE]... [--json]\n"
    "       trainvp describe workload FILE [--set /json/pointer=VALUE]... [KERNELS] [--json]\n"
    "       trainvp describe workload CONFIG.json [--batch B] [--seq S] [--dtype D] [KERNELS] [--json]\n"
    "       trainvp describe workload TRACE.json [--dtype D] [--json]\n"
    "\n"
    "Without arguments: every scenario key (type, units, default, range, meaning), the GPU\n"
    "presets, the zoo models and the platform models (gpu, link_dir, forwarder,\n"
    "collective_engine, parallel_sync, failslow_monitor, ...) with their sockets or interfaces\n"
    "and statistics; `models` lists those alone (--markdown: the table of docs/architecture.md).\n"
    "With `model NAME`: a platform model's parameters, sockets and\n"
    "statistics; for a zoo model, its layers with parameters,\n"
    "forward/backward FLOPs per micro-batch, activation and gradient bytes. With\n"
    "`topology FILE`: every device (GPU, NIC, NVSwitch, PCIe switch, root complex, switch,\n"
    "leaf, spine, core) and link of the scenario's cluster, by the names results and faults use; with\n"
    "training.parallel, each GPU's (tp, pp, dp) coordinate and the layers of each pipeline stage.\n"
    "With `workload FILE`: the layer table (as for a zoo model) of any workload: a scenario's\n"
    "(zoo model, /workload/hf_config, /workload/torch_profile or explicit layers, after the\n"
    "overrides), that of a Hugging Face config.json (model_type gpt2, bert, llama, mistral,\n"
    "mixtral; docs/workloads.md) at --batch, --seq and --dtype, or that of a torch.profiler\n"
    "Chrome trace of one step (its measured times; --dtype sets the gradient bytes).\n"
    "KERNELS (--kernels [--gpu PRESET] [--tp T] [--sequence-parallel]): instead of the layer\n"
    "table, each layer's kernels (GEMM shapes, attention, memory-bound) on one of T\n"
    "tensor-parallel ranks of GPU PRESET, with the kernel model's time and efficiency of each\n"
    "(docs/models.md#kernels).\n"
    "\n"
    "  --batch B          samples per micro-batch (default 1)\n"
    "  --seq S            tokens per sample (default 1024, or the model's maximum if less)\n"
    "  --image-size N     pixels per side for vision models (default 224)\n"
    "  --dtype D          fp32|tf32|bf16|fp16|fp8 (default bf16)\n"
    "  --kernels          the kernels of each layer with their time and efficiency\n"
    "  --gpu PRESET       the GPU of --kernels (default H100-SXM5-80GB)\n"
    "  --tp T             --kernels of one of T tensor-parallel ranks (default 1)\n"
    "  --sequence-parallel  --kernels with sequence parallelism\n"
    "  --json             print JSON: {parameters, layers: [...], ...}\n"
    "  --markdown         print the key table of docs/scenario-format.md (scripts/update-docs)\n";

const char* kConvertHelp =
    "usage: trainvp convert FILE [-o OUT]\n"
    "\n"
    "Writes the scenario FILE with its workload (a zoo model, a Hugging Face config or explicit\n"
    "layers) replaced by the explicit layer list it expands to (/workload/layers, with the\n"
    "workload's name, transformer dimensions and every per-layer figure the simulator uses:\n"
    "FLOPs, bytes and kernels per phase, tensor-parallel parts, weight matrices), so an import\n"
    "can be inspected, edited and frozen. The other keys of FILE are kept as written; the\n"
    "layers are for its batch, seq and dtypes. Running the result gives the same results as\n"
    "running FILE. The result is validated before it is written; OUT is written whole or not\n"
    "at all. FILE is a path or a scenario name, as for run.\n"
    "\n"
    "  -o, --output OUT   write to OUT (default: standard output)\n";

const char* kSweepHelp =
    "usage: trainvp sweep SPEC -o DIR [-j N] [--shard I/N] [--resume] [--dry-run]\n"
    "\n"
    "Runs every point of the sweep SPEC (a JSON file: base scenario, parameters by JSON\n"
    "pointer, design grid|zip|random; docs/sweeps.md). Every point is validated first; each\n"
    "runs as its own `trainvp run` process into DIR/points/ID/; DIR/sweep.db holds one row per\n"
    "point (parameters, status, metrics, wall time). Plots named by the SPEC are drawn into\n"
    "DIR/plots/ at the end. A point refused at one of the SPEC's `infeasible` pointers (a layout\n"
    "that does not fit in HBM) is recorded as infeasible with its error and not run; the SPEC's\n"
    "`best` names the point with the lowest (highest) value of a metric in the summary.\n"
    "SPEC is a path or a name, as FILE of run (sweeps/NAME for a shipped sweep).\n"
    "\n"
    "  -o, --output DIR   sweep directory (refused if it already holds a sweep, unless --resume)\n"
    "  -j, --jobs N       points run at once (default: the CPUs this process may use)\n"
    "  --shard I/N        run only shard I of N (1 <= I <= N): the points whose idx % N == I-1;\n"
    "                     merge the shards' DIRs with `trainvp merge`\n"
    "  --resume           reuse points of DIR that finished ok with the same scenario; run the rest\n"
    "  --dry-run          validate and list the points (idx, id, values); run nothing\n"
    "\n"
    "exit codes: 0 every point succeeded, 1 some point failed (the others still ran),\n"
    "2 bad SPEC, bad point or usage, 128+N interrupted by signal N (--resume continues)\n";

const char* kExportHelp =
    "usage: trainvp sweep-export DIR [--csv] [-o FILE]\n"
    "\n"
    "Writes the points table of DIR/sweep.db (or of a .db file) as CSV, one row per point in\n"
    "idx order, to FILE or stdout.\n";

const char* kMergeHelp =
    "usage: trainvp merge OUT DIR...\n"
    "\n"
    "Merges the sweep.db of each DIR (shards of one sweep, or .db files) into OUT/sweep.db and\n"
    "draws the SPEC's plots into OUT/plots/. A point in several inputs must agree in every\n"
    "column but wall_s (a finished row replaces a pending one); inputs of different sweeps are\n"
    "refused.\n";

const char* kPlotHelp =
    "usage: trainvp plot DIR --x COLUMN --y COLUMN [--by COLUMN] [--where COLUMN=VALUE]...\n"
    "                    [--logx] [--logy] [--title TEXT] [-o FILE.svg|.png|.pdf]\n"
    "\n"
    "Plots the finished points of DIR/sweep.db with gnuplot: y against x, one series per value\n"
    "of --by. Columns are parameter pointers (/cluster/nodes) or metric names\n"
    "(iteration_time_s). Quantities such as \"400Gbps\" are plotted as numbers and the axis names\n"
    "the unit. The gnuplot script (data inline) is written beside the image as FILE.gp.\n"
    "\n"
    "  --where C=VALUE    keep only points whose column C equals VALUE (JSON, else a string)\n"
    "  --logx, --logy     logarithmic axes (x is logarithmic by default for a log-scale range)\n"
    "  -o FILE            default DIR/plots/<y>-vs-<x>[-by-<by>].svg\n";

const char* kVersionHelp =
    "usage: trainvp version [--json]\n"
    "\n"
    "Prints the version and the scenario format it reads. With --json, the build record that\n"
    "results.json (/build) and sweep.db (its `build` metadata) carry too: version, git_revision\n"
    "(\"unknown\" outside a git checkout; \"-dirty\" with uncommitted changes), build_type,\n"
    "systemc (the library in use), verilator and rtl_lanes (the RTL variants compiled in; \"\" and\n"
    "[] without the RTL).\n"
    "\n"
    "  --json             print the build record as JSON\n";

const char* kHelpManHelp =
    "usage: trainvp help-man COMMAND\n"
    "\n"
    "Prints the man page of COMMAND (trainvp for the main page) in roff, made from the same text\n"
    "as `trainvp COMMAND --help` (and, for describe, `trainvp describe`). The build writes every\n"
    "page with it; `cmake --install` installs them.\n";

const char* kCompletionHelp =
    "usage: trainvp completion bash\n"
    "\n"
    "Prints the bash completion script: commands, each command's options (from its --help) and\n"
    "the JSON pointers of every scenario key (from the schema registry) for --set. Installed as\n"
    "PREFIX/share/bash-completion/completions/trainvp.\n";

}  // namespace

const std::vector<CommandHelp>& command_helps() {
  static const std::vector<CommandHelp> list = {
      {"trainvp", "a virtual platform of GPU training clusters", kMainHelp},
      {"run", "simulate a scenario and write its results", kRunHelp},
      {"validate", "check a scenario without running it", kValidateHelp},
      {"describe", "every scenario key, GPU preset, zoo and platform model; a model; a topology; a workload",
       kDescribeHelp},
      {"convert", "freeze a scenario's workload into an explicit layer list", kConvertHelp},
      {"report", "write a self-contained HTML page of a run or a sweep", kReportHelp},
      {"sweep", "run a parameter sweep in parallel processes", kSweepHelp},
      {"sweep-export", "write a sweep's sweep.db as CSV", kExportHelp},
      {"merge", "merge the shards of a sweep", kMergeHelp},
      {"plot", "plot a sweep's results with gnuplot", kPlotHelp},
      {"version", "print the version or the build record", kVersionHelp},
      {"help-man", "print a command's man page", kHelpManHelp},
      {"completion", "print the bash completion script", kCompletionHelp},
  };
  return list;
}

const char* help_of(const std::string& command) {
  for (auto& c : command_helps())
    if (command == c.name) return c.help;
  return nullptr;
}

}  // namespace trainvp
