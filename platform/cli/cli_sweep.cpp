#include "platform/cli/cli_sweep.hpp"
#include "platform/cli/exit_codes.hpp"
#include "platform/cli/help_text.hpp"
#include "platform/cli/scenario_path.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <stdexcept>

#include "platform/core/errors.hpp"
#include "platform/report/build_record.hpp"
#include "platform/sweep/export.hpp"
#include "platform/sweep/input_error.hpp"
#include "platform/sweep/merge.hpp"
#include "platform/sweep/plot.hpp"
#include "platform/sweep/resolve.hpp"
#include "platform/sweep/spec.hpp"
#include "platform/sweep/store.hpp"
#include "platform/sweep/sweep.hpp"

namespace trainvp {

namespace {

namespace fs = std::filesystem;
using namespace trainvp::sweep;

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs `body`, mapping exceptions to messages and exit codes. `spec_file` prefixes SPEC errors.
int guarded(const char* cmd, const std::string* spec_file, const std::function<int()>& body) {
  try {
    return body();
  } catch (const Usage& e) {
    std::cerr << "trainvp: " << e.what() << "\n(trainvp " << cmd << " --help for usage)\n";
    return kBadInput;
  } catch (const ScenarioError& e) {
    std::cerr << "trainvp: error: " << (spec_file && !spec_file->empty() ? *spec_file + ": " : "") << e.what() << "\n";
    return kBadInput;
  } catch (const PointError& e) {
    std::cerr << "trainvp: error: " << (spec_file && !spec_file->empty() ? *spec_file + ": " : "") << e.what() << "\n";
    return kBadInput;
  } catch (const SweepInputError& e) {
    std::cerr << "trainvp: error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "trainvp: " << cmd << " failed: " << e.what() << "\n";
    return kRunFailed;
  }
}

// Walks the arguments: `take(opt)` returns the next one as opt's value.
struct ArgReader {
  const std::vector<std::string>& args;
  std::size_t i = 0;
  bool more() const { return i < args.size(); }
  const std::string& next() { return args[i++]; }
  std::string value(const std::string& opt) {
    if (i >= args.size()) throw Usage(opt + " needs a value");
    return args[i++];
  }
};

int positive_int(const std::string& opt, const std::string& v, int max) {
  char* end = nullptr;
  long x = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end || x < 1 || x > max)
    throw Usage(opt + " expects an integer in [1, " + std::to_string(max) + "], found \"" + v + "\"");
  return static_cast<int>(x);
}

// The plot's database and directory: DIR/sweep.db, or a .db file and its directory.
std::string plot_dir_of(const std::string& dir_or_db) {
  fs::path db(sweep_db_path(dir_or_db));
  return db.parent_path().empty() ? std::string(".") : db.parent_path().string();
}

Store open_store(const std::string& dir_or_db) {
  try {
    return Store::open(sweep_db_path(dir_or_db));
  } catch (const std::runtime_error& e) {
    throw SweepInputError(e.what());
  }
}

}  // namespace

int cli_sweep(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::cout << help_of("sweep"), kOk;
  SweepOptions o;
  return guarded("sweep", &o.spec_file, [&] {
    ArgReader r{args};
    while (r.more()) {
      std::string s = r.next();
      if (s == "-o" || s == "--output") o.out_dir = r.value(s);
      else if (s.rfind("--output=", 0) == 0) o.out_dir = s.substr(9);
      else if (s == "-j" || s == "--jobs") o.jobs = positive_int(s, r.value(s), 4096);
      else if (s.rfind("--jobs=", 0) == 0) o.jobs = positive_int("--jobs", s.substr(7), 4096);
      else if (s.size() > 2 && s.rfind("-j", 0) == 0) o.jobs = positive_int("-j", s.substr(2), 4096);
      else if (s == "--shard" || s.rfind("--shard=", 0) == 0) {
        std::string v = s == "--shard" ? r.value(s) : s.substr(8);
        try {
          o.shard = parse_shard(v);
        } catch (const std::invalid_argument& e) {
          throw Usage(e.what());
        }
      } else if (s == "--resume") o.resume = true;
      else if (s == "--dry-run") o.dry_run = true;
      else if (!s.empty() && s[0] == '-') throw Usage("unknown option " + s);
      else if (o.spec_file.empty()) o.spec_file = s;
      else throw Usage("unexpected argument " + s);
    }
    if (o.spec_file.empty()) throw Usage("missing SPEC");
    o.spec_file = find_scenario(o.spec_file);
    if (o.out_dir.empty() && !o.dry_run) throw Usage("missing -o DIR (the sweep directory)");
    if (const char* child = std::getenv("TRAINVP_SWEEP_CHILD"); child && *child) o.child_program = child;
    o.progress = isatty(STDERR_FILENO) != 0;
    o.build = build_record().dump();
    return run_sweep(o, std::cout, std::cerr);
  });
}

int cli_sweep_export(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::cout << help_of("sweep-export"), kOk;
  return guarded("sweep-export", nullptr, [&] {
    std::string dir, output;
    ArgReader r{args};
    while (r.more()) {
      std::string s = r.next();
      if (s == "--csv") continue;  // the one format, and the default
      if (s == "-o" || s == "--output") output = r.value(s);
      else if (!s.empty() && s[0] == '-') throw Usage("unknown option " + s + " (the export format is --csv)");
      else if (dir.empty()) dir = s;
      else throw Usage("unexpected argument " + s);
    }
    if (dir.empty()) throw Usage("missing DIR");
    Store store = open_store(dir);
    if (output.empty()) {
      write_csv(store, std::cout);
      std::cout.flush();
      if (!std::cout) throw std::runtime_error("cannot write to stdout");
      return kOk;
    }
    std::ofstream f(output, std::ios::trunc);
    write_csv(store, f);
    f.flush();
    if (!f) throw std::runtime_error("cannot write \"" + output + "\"");
    return kOk;
  });
}

int cli_merge(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::cout << help_of("merge"), kOk;
  return guarded("merge", nullptr, [&] {
    std::vector<std::string> paths;
    for (auto& a : args) {
      if (!a.empty() && a[0] == '-') throw Usage("unknown option " + a);
      paths.push_back(a);
    }
    if (paths.size() < 2) throw Usage("expected OUT and at least one sweep DIR");
    std::string out_dir = paths.front();
    paths.erase(paths.begin());
    MergeSummary m = merge_sweeps(out_dir, paths);
    std::cout << "merged " << m.inputs << (m.inputs == 1 ? " sweep" : " sweeps") << " into " << m.db_path << ": "
              << m.rows << " points (" << m.ok << " ok, " << m.failed << " failed, ";
    if (m.infeasible) std::cout << m.infeasible << " infeasible, ";
    std::cout << m.pending << " pending)";
    if (m.points_total) std::cout << " of " << m.points_total << " in the sweep";
    std::cout << "\n";
    if (!m.best.empty()) std::cout << m.best << "\n";
    if (m.points_total > m.rows)
      std::cerr << "trainvp: merge: note: " << m.points_total - m.rows
                << " points of the sweep are in none of the inputs (a shard not run or not merged?)\n";

    Store store = open_store(m.db_path);
    auto meta = store.meta();
    SweepSpec spec;
    try {
      spec = parse_spec(json::parse(meta["spec"]), meta["spec_file"]);
    } catch (const std::exception& e) {
      std::cerr << "trainvp: merge: warning: the stored spec does not parse (" << e.what() << "); no plots drawn\n";
      return kOk;
    }
    if (!spec.plots.empty() && m.ok == 0) std::cerr << "trainvp: merge: no point succeeded; no plots drawn\n";
    else
      for (auto& pl : spec.plots) {
        PlotRequest req{pl.x,     pl.y,    pl.by,  pl.where, (fs::path(out_dir) / "plots" / pl.file).string(),
                        pl.title, pl.logx, pl.logy};
        try {
          std::cout << "plot: " << draw_plot(store, req).output << "\n";
        } catch (const std::exception& e) {
          std::cerr << "trainvp: merge: warning: plot " << pl.file << " not drawn: " << e.what() << "\n";
        }
      }
    return kOk;
  });
}

int cli_plot(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::cout << help_of("plot"), kOk;
  return guarded("plot", nullptr, [&] {
    std::string dir;
    PlotRequest req;
    ArgReader r{args};
    while (r.more()) {
      std::string s = r.next();
      if (s == "--x") req.x = r.value(s);
      else if (s == "--y") req.y = r.value(s);
      else if (s == "--by") req.by = r.value(s);
      else if (s == "--where") {
        std::string w = r.value(s);
        auto eq = w.find('=');
        if (eq == std::string::npos || eq == 0) throw Usage("--where expects COLUMN=VALUE, found \"" + w + "\"");
        req.where.emplace_back(w.substr(0, eq), parse_cli_value(w.substr(eq + 1)));
      } else if (s == "--logx") req.logx = true;
      else if (s == "--logy") req.logy = true;
      else if (s == "--title") req.title = r.value(s);
      else if (s == "-o" || s == "--output") req.output = r.value(s);
      else if (!s.empty() && s[0] == '-') throw Usage("unknown option " + s);
      else if (dir.empty()) dir = s;
      else throw Usage("unexpected argument " + s);
    }
    if (dir.empty()) throw Usage("missing DIR");
    if (req.x.empty() || req.y.empty()) throw Usage("--x and --y are required");
    Store store = open_store(dir);
    if (req.output.empty())
      req.output = (fs::path(plot_dir_of(dir)) / "plots" / default_plot_file(req.x, req.y, req.by)).string();
    PlotResult res = draw_plot(store, req);
    std::cout << "plot: " << res.output << " (" << res.points << " points, " << res.series
              << (res.series == 1 ? " series" : " series") << "; script " << res.script << ")\n";
    if (res.scatter && store.meta()["design"] != "random")
      std::cerr << "trainvp: plot: note: points of a series share an x (another parameter varies), so they are "
                   "not joined by lines; separate them with --by or fix them with --where\n";
    return kOk;
  });
}

}  // namespace trainvp
