#include "platform/sweep/sweep.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "platform/core/self_exe.hpp"
#include "platform/sweep/best.hpp"
#include "platform/sweep/input_error.hpp"
#include "platform/sweep/plot.hpp"
#include "platform/sweep/progress.hpp"
#include "platform/sweep/resolve.hpp"
#include "platform/sweep/runner.hpp"
#include "platform/sweep/store.hpp"

namespace trainvp::sweep {

namespace fs = std::filesystem;

namespace {

// An exclusive flock on DIR/.lock for the lifetime of the sweep: two sweeps in one DIR would
// overwrite each other's points.
class DirLock {
 public:
  explicit DirLock(const fs::path& dir) {
    std::string path = (dir / ".lock").string();
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot create \"" + path + "\": " + std::strerror(errno));
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw SweepInputError("\"" + dir.string() + "\" is in use by another trainvp sweep");
    }
  }
  ~DirLock() { ::close(fd_); }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_ = -1;
};

// The file's first `limit` bytes ("" when it cannot be read).
std::string read_text(const fs::path& p, std::size_t limit = std::size_t(1) << 30) {
  std::ifstream in(p, std::ios::binary);
  std::string s;
  char buf[65536];
  while (in && s.size() < limit) {
    in.read(buf, static_cast<std::streamsize>(std::min(sizeof buf, limit - s.size())));
    s.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  return s;
}

void write_atomic(const fs::path& p, const std::string& text) {
  fs::path tmp = p;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("cannot write \"" + tmp.string() + "\"");
  }
  fs::rename(tmp, p);
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// The metrics of a finished point, read from its results.json; names of metrics absent there
// are added to `missing`.
std::vector<json> read_metrics(const fs::path& results, const std::vector<MetricSpec>& metrics,
                               std::vector<std::string>& missing) {
  json doc = json::parse(read_text(results));
  std::vector<json> out;
  for (auto& m : metrics) {
    json::json_pointer jp(m.pointer);
    if (!doc.contains(jp)) {
      out.push_back(nullptr);
      missing.push_back(m.name);
      continue;
    }
    const json& v = doc.at(jp);
    out.push_back(v.is_structured() ? json(v.dump()) : v);
  }
  return out;
}

}  // namespace

int run_sweep(const SweepOptions& o, std::ostream& out, std::ostream& err) {
  const auto t_start = std::chrono::steady_clock::now();
  SweepSpec spec = read_spec_file(o.spec_file);
  std::vector<Point> points = expand(spec);
  json base = base_document(spec);
  const std::vector<std::string> infeasible = validate_points(spec, base, points);  // by index
  std::vector<Point> slice = shard_slice(points, o.shard);
  const std::string shard_text = o.shard.all() ? "" : " shard " + o.shard.text();
  std::size_t n_infeasible = 0;
  for (auto& p : slice) n_infeasible += !infeasible[p.index].empty();

  if (o.dry_run) {
    out << "# sweep " << spec.name << ": " << design_name(spec.design) << " of " << points.size() << " points"
        << (o.shard.all() ? "" : ", shard " + o.shard.text() + " holds " + std::to_string(slice.size()))
        << "; every point is valid";
    if (!spec.infeasible.empty()) out << "; " << n_infeasible << " infeasible (not run)";
    out << "\n";
    out << "idx\tid";
    for (auto& p : spec.params) out << "\t" << p.path;
    if (!spec.infeasible.empty()) out << "\tinfeasible";
    out << "\n";
    for (auto& p : slice) {
      out << p.index << "\t" << p.id;
      for (auto& [path, v] : p.params) out << "\t" << v.dump();
      if (!spec.infeasible.empty()) out << "\t" << first_line(infeasible[p.index]);
      out << "\n";
    }
    return 0;
  }

  const fs::path dir(o.out_dir);
  std::error_code ec;
  fs::create_directories(dir / "points", ec);
  if (ec) throw std::runtime_error("cannot create \"" + (dir / "points").string() + "\": " + ec.message());
  DirLock lock(dir);
  const fs::path db_path = dir / "sweep.db";
  if (fs::exists(db_path) && !o.resume)
    throw SweepInputError("\"" + dir.string() + "\" already holds a sweep (sweep.db); add --resume to continue it, " +
                          "or choose another -o");
  if (fs::exists(db_path)) {
    try {
      auto old = Store::open(db_path.string()).meta();
      std::string old_shard = old.count("shard") ? old["shard"] : "";
      if (old_shard != (o.shard.all() ? "all" : o.shard.text()))
        err << "trainvp: sweep: note: " << dir.string() << " held shard " << old_shard << "; it now holds "
            << (o.shard.all() ? "all" : o.shard.text()) << "\n";
    } catch (const std::exception&) {
      // Not a readable sweep.db: it is replaced below.
    }
  }

  std::vector<ColumnInfo> columns;
  for (auto& p : spec.params)
    columns.push_back({p.path, "parameter", p.path, "", p.has_range ? scale_name(p.scale) : ""});
  for (auto& m : spec.metrics) columns.push_back({m.name, "metric", m.pointer, m.unit, ""});
  std::map<std::string, std::string> meta = {
      {"format", std::to_string(kSweepFormatVersion)},
      {"name", spec.name},
      {"description", spec.description},
      {"spec", spec.doc.dump()},
      {"spec_file", fs::absolute(spec.file).lexically_normal().string()},
      {"base", spec.base},
      {"design", design_name(spec.design)},
      {"shard", o.shard.all() ? "all" : o.shard.text()},
      {"points_total", std::to_string(points.size())},
      {"points_in_db", std::to_string(slice.size())},
      {"trainvp_version", TRAINVP_VERSION},
      {"build", o.build},
  };
  Store store = Store::create(db_path.string(), columns, meta);

  auto make_row = [&](const Point& p) {
    PointRow r;
    r.id = p.id;
    r.idx = static_cast<std::int64_t>(p.index);
    for (auto& [path, v] : p.params) r.params.push_back(v);
    r.metrics.assign(spec.metrics.size(), nullptr);
    return r;
  };

  // Decide what runs: with --resume, a point whose point.json says ok for the same scenario
  // (and whose results.json is there) is reused.
  struct Job {
    const Point* point;
    fs::path dir;
    std::string hash;
    std::vector<std::string> argv;
  };
  std::vector<Job> jobs;
  std::vector<PointRow> reused;
  std::set<std::string> warned;
  auto warn_missing = [&](const std::vector<std::string>& missing, const std::string& id, auto&& sink) {
    for (auto& name : missing)
      if (warned.insert(name).second) {
        std::string ptr;
        for (auto& m : spec.metrics)
          if (m.name == name) ptr = m.pointer;
        sink("trainvp: sweep: warning: metric \"" + name + "\" (" + ptr + ") is not in results.json of point " + id +
             "; it is stored as NULL");
      }
  };
  const std::string program = o.child_program.empty() ? self_executable() : o.child_program;
  if (program.empty()) throw std::runtime_error("cannot read /proc/self/exe: the sweep has no program to run");
  std::vector<PointRow> infeasible_rows;
  for (auto& p : slice) {
    Job j{&p, dir / "points" / p.id, scenario_hash(point_document(base, p)), {}};
    if (!infeasible[p.index].empty()) {
      // Refused at load, as `trainvp run` would refuse it (exit 2): recorded, not run.
      PointRow r = make_row(p);
      r.status = "infeasible";
      r.exit_code = 2;
      r.error = infeasible[p.index];
      fs::remove_all(j.dir, ec);
      fs::create_directories(j.dir, ec);
      if (ec) throw std::runtime_error("cannot create \"" + j.dir.string() + "\": " + ec.message());
      json rec = {{"id", p.id},
                  {"idx", p.index},
                  {"parameters", json::parse(canonical_assignment(p.params))},
                  {"scenario_hash", j.hash},
                  {"status", r.status},
                  {"exit_code", r.exit_code},
                  {"error", r.error}};
      write_atomic(j.dir / "point.json", rec.dump(2) + "\n");
      infeasible_rows.push_back(std::move(r));
      continue;
    }
    if (o.resume) {
      try {
        json rec = json::parse(read_text(j.dir / "point.json"));
        if (rec.at("status") == "ok" && rec.at("scenario_hash") == j.hash && fs::exists(j.dir / "results.json")) {
          PointRow r = make_row(p);
          std::vector<std::string> missing;
          r.metrics = read_metrics(j.dir / "results.json", spec.metrics, missing);
          warn_missing(missing, p.id, [&](const std::string& s) { err << s << "\n"; });
          r.status = "ok";
          r.exit_code = rec.value("exit_code", json(nullptr));
          r.wall_s = rec.value("wall_s", json(nullptr));
          reused.push_back(std::move(r));
          continue;
        }
      } catch (const std::exception&) {
        // No usable record: run the point again.
      }
    }
    j.argv = {program, "run", spec.base};
    for (auto& s : point_overrides(spec, p)) {
      j.argv.push_back("--set");
      j.argv.push_back(s);
    }
    for (const char* a : {"-q", "-o"}) j.argv.push_back(a);
    j.argv.push_back(fs::absolute(j.dir).lexically_normal().string());
    jobs.push_back(std::move(j));
  }

  store.begin();
  for (auto& p : slice) store.put(make_row(p));
  for (auto& r : reused) store.put(r);
  for (auto& r : infeasible_rows) store.put(r);
  store.commit();

  std::vector<ProcessSpec> specs;
  for (auto& j : jobs) {
    fs::remove_all(j.dir, ec);
    fs::create_directories(j.dir, ec);
    if (ec) throw std::runtime_error("cannot create \"" + j.dir.string() + "\": " + ec.message());
    specs.push_back({j.argv, (j.dir / "stdout.txt").string(), (j.dir / "stderr.txt").string()});
  }

  std::size_t ok = reused.size(), failed = 0;
  Progress progress(err, jobs.size(), o.progress);
  ProcessPool pool(o.jobs > 0 ? o.jobs : available_cpus());
  bool finished = pool.run(
      specs,
      [&](std::size_t i, const ProcessResult& r) {
        const Job& j = jobs[i];
        PointRow row = make_row(*j.point);
        std::string stderr_text = trim(read_text(j.dir / "stderr.txt", 64 * 1024));
        std::string error;
        bool good = r.ok();
        if (good) {
          try {
            std::vector<std::string> missing;
            row.metrics = read_metrics(j.dir / "results.json", spec.metrics, missing);
            warn_missing(missing, j.point->id, [&](const std::string& s) { progress.note(s); });
          } catch (const std::exception& e) {
            good = false;
            error = std::string("exit code 0 but no readable results.json (") + e.what() + ")";
          }
        } else {
          error = r.signal || !r.spawn_error.empty() ? describe_result(r) : "";
          if (!stderr_text.empty()) error += (error.empty() ? "" : "\n") + stderr_text;
          if (error.empty()) error = describe_result(r) + " with nothing on stderr";
          if (error.size() > 2000) error = error.substr(0, 2000) + "...";
        }
        row.status = good ? "ok" : "failed";
        row.exit_code = r.spawn_error.empty() ? json(r.exit_code) : json(nullptr);
        row.wall_s = r.wall_s;
        if (!good) row.error = error;

        json rec = {{"id", j.point->id},
                    {"idx", j.point->index},
                    {"parameters", json::parse(canonical_assignment(j.point->params))},
                    {"command", j.argv},
                    {"scenario_hash", j.hash},
                    {"status", row.status},
                    {"exit_code", row.exit_code},
                    {"signal", r.signal ? json(r.signal) : json(nullptr)},
                    {"wall_s", r.wall_s},
                    {"error", row.error}};
        write_atomic(j.dir / "point.json", rec.dump(2) + "\n");
        store.put(row);
        (good ? ok : failed)++;
        progress.done(good);
        if (!good)
          progress.note("trainvp: sweep: point #" + std::to_string(j.point->index) + " " + j.point->id + " (" +
                        describe_assignment(j.point->params) + ") failed: " + first_line(error) +
                        (stderr_text.empty() ? "" : "; see " + (j.dir / "stderr.txt").string()));
      },
      [&] { progress.tick(); });
  progress.finish();

  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  if (!finished) {
    int sig = pool.interrupt_signal();
    std::size_t left = slice.size() - ok - failed;
    err << "trainvp: sweep interrupted by " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ": " << left
        << (left == 1 ? " point" : " points") << " unfinished (pending in " << db_path.string()
        << "); continue with --resume\n";
    return 128 + sig;
  }

  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", wall);
  out << "sweep " << spec.name << shard_text << ": " << slice.size() << " points"
      << (o.shard.all() ? "" : " of " + std::to_string(points.size())) << ", " << ok << " ok, " << failed << " failed";
  if (!spec.infeasible.empty()) out << ", " << n_infeasible << " infeasible";
  if (!reused.empty()) out << " (" << reused.size() << " resumed)";
  out << " in " << secs << " s; " << db_path.string() << "\n";
  if (spec.best) out << record_best(store, *spec.best, o.shard.all() ? "" : " (of this shard)") << "\n";

  if (!spec.plots.empty()) {
    if (!o.shard.all()) {
      out << "plots: drawn by `trainvp merge` once every shard has run\n";
    } else if (ok == 0) {
      err << "trainvp: sweep: no point succeeded; no plots drawn\n";
    } else {
      for (auto& pl : spec.plots) {
        PlotRequest req{pl.x, pl.y, pl.by, pl.where, (dir / "plots" / pl.file).string(), pl.title, pl.logx, pl.logy};
        try {
          PlotResult res = draw_plot(store, req);
          out << "plot: " << res.output << "\n";
        } catch (const std::exception& e) {
          err << "trainvp: sweep: warning: plot " << pl.file << " not drawn: " << e.what() << "\n";
        }
      }
    }
  }
  return failed ? 1 : 0;
}

}  // namespace trainvp::sweep
