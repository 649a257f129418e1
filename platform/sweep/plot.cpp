#include "platform/sweep/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "platform/sweep/input_error.hpp"
#include "platform/sweep/runner.hpp"
#include "platform/sweep/spec.hpp"
#include "platform/core/units.hpp"

namespace trainvp::sweep {

namespace fs = std::filesystem;

json parse_cli_value(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error&) {
    return text;
  }
}

namespace {

enum class Kind { Number, Quantity, Category };

struct Axis {
  Kind kind = Kind::Number;
  std::string label;
  std::vector<double> values;  // per row (category index for categories)
  std::vector<std::string> categories;
};

// The quantity a string holds and its value in base units, or nullopt.
std::optional<std::pair<Quantity, double>> quantity_of(const std::string& s) {
  if (!split_quantity(s)) return std::nullopt;
  try {
    return std::make_pair(Quantity::Bandwidth, parse_bandwidth_bps(s));
  } catch (const UnitError&) {
  }
  try {
    return std::make_pair(Quantity::Time, static_cast<double>(parse_time_ps(s)));
  } catch (const UnitError&) {
  }
  try {
    return std::make_pair(Quantity::Size, static_cast<double>(parse_size_bytes(s)));
  } catch (const UnitError&) {
  }
  try {
    return std::make_pair(Quantity::FlopRate, parse_flop_rate(s));
  } catch (const UnitError&) {
  }
  return std::nullopt;
}

// The display unit and the divisor from base units, chosen from the largest value. Dividing
// (not multiplying by 1e-9) keeps round values round: 8e12 bit/s is 8000 Gbps exactly.
std::pair<std::string, double> display_unit(Quantity q, double max_value) {
  switch (q) {
    case Quantity::Bandwidth: return {"Gbps", 1e9};
    case Quantity::FlopRate: return {"TFLOPS", 1e12};
    case Quantity::Frequency: return {"GHz", 1e9};
    case Quantity::Time:  // picoseconds
      if (max_value >= 1e12) return {"s", 1e12};
      if (max_value >= 1e9) return {"ms", 1e9};
      if (max_value >= 1e6) return {"us", 1e6};
      return {"ns", 1e3};
    case Quantity::Size:
      if (max_value >= 1e12) return {"TB", 1e12};
      if (max_value >= 1e9) return {"GB", 1e9};
      if (max_value >= 1e6) return {"MB", 1e6};
      if (max_value >= 1e3) return {"KB", 1e3};
      return {"bytes", 1};
  }
  return {"", 1};
}

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

Axis make_axis(const ColumnInfo& col, const std::vector<json>& vals, bool allow_category) {
  Axis a;
  std::string base_label = col.kind == "metric" ? col.name : col.pointer;
  bool numbers = std::all_of(vals.begin(), vals.end(), [](const json& v) { return v.is_number(); });
  if (numbers) {
    for (auto& v : vals) a.values.push_back(v.get<double>());
    a.label = base_label + (col.unit.empty() ? "" : " (" + col.unit + ")");
    return a;
  }
  std::vector<std::pair<Quantity, double>> qs;
  bool quantities = true;
  for (auto& v : vals) {
    auto q = v.is_string() ? quantity_of(v.get<std::string>()) : std::nullopt;
    if (!q || (!qs.empty() && q->first != qs.front().first)) {
      quantities = false;
      break;
    }
    qs.push_back(*q);
  }
  if (quantities && !qs.empty()) {
    double mx = 0;
    for (auto& q : qs) mx = std::max(mx, q.second);
    auto [unit, divisor] = display_unit(qs.front().first, mx);
    for (auto& q : qs) a.values.push_back(q.second / divisor);
    a.kind = Kind::Quantity;
    a.label = base_label + " (" + unit + ")";
    return a;
  }
  if (!allow_category)
    throw SweepInputError("\"" + col.name + "\" holds values that are neither numbers nor quantities (such as " +
                          text_of(vals.front()) + "); it cannot be a y axis");
  a.kind = Kind::Category;
  a.label = base_label;
  std::map<std::string, double> index;
  for (auto& v : vals) {
    std::string t = text_of(v);
    auto it = index.find(t);
    if (it == index.end()) {
      it = index.emplace(t, static_cast<double>(a.categories.size())).first;
      a.categories.push_back(t);
    }
    a.values.push_back(it->second);
  }
  return a;
}

bool same_value(const json& stored, const json& wanted) {
  if (stored.is_number() && wanted.is_number()) return stored.get<double>() == wanted.get<double>();
  if (stored.is_number() && wanted.is_boolean()) return stored.get<double>() == (wanted.get<bool>() ? 1.0 : 0.0);
  if (stored.is_string() && !wanted.is_string()) return stored.get<std::string>() == wanted.dump();
  return stored == wanted;
}

std::string gq(const std::string& s) {  // a gnuplot single-quoted string
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

// The shortest decimal that reads back as `v` (58.2, not 58.200000000000003); whole numbers up to
// 17 digits keep their digits (8000, not 8e+03).
std::string num(double v) {
  char buf[32];
  int precision = 1;
  for (; precision < 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  const int exponent = v != 0 && std::isfinite(v) ? static_cast<int>(std::floor(std::log10(std::fabs(v)))) : 0;
  if (exponent >= precision && exponent < 17) precision = exponent + 1;
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

// Explicit tics 1-2-5 (or 1..9) x 10^k over [lo, hi] for a log axis spanning less than three
// decades, where gnuplot would label one decade or none; "" otherwise.
std::string log_tics(double lo, double hi) {
  if (!(lo > 0) || hi / lo >= 1000) return "";
  for (const std::vector<double>& mantissas :
       {std::vector<double>{1, 2, 5}, std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}}) {
    std::vector<double> tics;
    for (int e = static_cast<int>(std::floor(std::log10(lo))) - 1; e <= static_cast<int>(std::ceil(std::log10(hi)));
         ++e)
      for (double m : mantissas) {
        double t = m * std::pow(10.0, e);
        if (t >= lo * 0.97 && t <= hi * 1.03) tics.push_back(t);
      }
    if (tics.size() >= 3 || mantissas.size() > 3) {
      std::string out;
      for (double t : tics) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", t);
        out += (out.empty() ? "" : ", ") + std::string(buf);
      }
      return out;
    }
  }
  return "";
}

std::size_t column_index(const std::vector<ColumnInfo>& cols, const std::string& name, const char* what) {
  for (std::size_t i = 0; i < cols.size(); ++i)
    if (cols[i].name == name) return i;
  std::string list;
  for (auto& c : cols) list += (list.empty() ? "" : ", ") + c.name;
  throw SweepInputError(std::string(what) + " \"" + name + "\" is not a column of this sweep; expected one of " + list);
}

}  // namespace

PlotResult draw_plot(const Store& store, const PlotRequest& req) {
  const auto& cols = store.columns();  // parameters, then metrics
  const std::size_t xi = column_index(cols, req.x, "--x"), yi = column_index(cols, req.y, "--y");
  const std::size_t bi = req.by.empty() ? 0 : column_index(cols, req.by, "--by");
  std::vector<std::size_t> wi;
  for (auto& [c, v] : req.where) wi.push_back(column_index(cols, c, "--where"));

  std::string ext = fs::path(req.output).extension().string();
  std::string terminal;
  if (ext == ".svg") terminal = "svg size 900,560 dynamic background rgb 'white' font 'sans,12'";
  else if (ext == ".png") terminal = "pngcairo size 1000,620 font 'sans,11'";
  else if (ext == ".pdf") terminal = "pdfcairo size 7in,4.3in font 'sans,10'";
  else throw SweepInputError("plot file \"" + req.output + "\" must end in .svg, .png or .pdf");

  const std::size_t nparams = store.parameters().size();
  auto value_at = [&](const PointRow& r, std::size_t col) -> const json& {
    return col < nparams ? r.params[col] : r.metrics[col - nparams];
  };
  std::vector<json> xs, ys, bs;
  for (auto& r : store.rows()) {
    if (r.status != "ok") continue;
    bool keep = true;
    for (std::size_t k = 0; k < wi.size(); ++k) keep = keep && same_value(value_at(r, wi[k]), req.where[k].second);
    if (!keep) continue;
    const json &x = value_at(r, xi), &y = value_at(r, yi);
    if (x.is_null() || y.is_null()) continue;
    xs.push_back(x);
    ys.push_back(y);
    bs.push_back(req.by.empty() ? json("") : value_at(r, bi));
  }
  if (xs.empty())
    throw SweepInputError("nothing to plot: no finished point" +
                          std::string(req.where.empty() ? "" : " matching --where") + " has both " + req.x + " and " +
                          req.y);

  Axis ax = make_axis(cols[xi], xs, true), ay = make_axis(cols[yi], ys, false);
  // Series in ascending order when the by values are numbers or quantities, else first seen.
  std::vector<std::string> series_names;
  std::vector<std::size_t> series_of(xs.size());
  {
    Axis ab = req.by.empty() ? Axis{} : make_axis(cols[bi], bs, true);
    std::vector<std::pair<double, std::string>> keys;
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < bs.size(); ++i) {
      std::string t = text_of(bs[i]);
      if (seen.emplace(t, keys.size()).second) keys.push_back({req.by.empty() ? 0 : ab.values[i], t});
    }
    if (!req.by.empty() && ab.kind != Kind::Category)
      std::stable_sort(keys.begin(), keys.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::map<std::string, std::size_t> order;
    for (auto& k : keys) order[k.second] = series_names.size(), series_names.push_back(k.second);
    for (std::size_t i = 0; i < bs.size(); ++i) series_of[i] = order[text_of(bs[i])];
  }

  PlotResult res;
  res.output = fs::absolute(req.output).lexically_normal().string();
  res.script = fs::path(res.output).replace_extension(".gp").string();
  res.points = xs.size();
  res.series = series_names.size();

  std::vector<std::vector<std::pair<double, double>>> data(series_names.size());
  for (std::size_t i = 0; i < xs.size(); ++i) data[series_of[i]].push_back({ax.values[i], ay.values[i]});
  for (auto& d : data) {
    std::stable_sort(d.begin(), d.end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (std::size_t k = 1; k < d.size(); ++k) res.scatter = res.scatter || d[k].first == d[k - 1].first;
  }
  // Lines join a series' points only when x determines the point within the series: not for a
  // random design (every parameter varies independently), nor when points share an x (a
  // parameter that is neither x nor --by nor fixed by --where varies).
  if (store.meta()["design"] == "random") res.scatter = true;

  auto meta = store.meta();
  bool logx = req.logx.value_or(cols[xi].scale == "log" && ax.kind != Kind::Category);
  bool logy = req.logy.value_or(false);
  if (logx && ax.kind == Kind::Category)
    throw SweepInputError("--logx needs a numeric x; " + req.x + " holds categories");
  for (double v : ax.values)
    if (logx && v <= 0) throw SweepInputError("--logx needs x > 0; " + req.x + " has " + num(v));
  for (double v : ay.values)
    if (logy && v <= 0) throw SweepInputError("--logy needs y > 0; " + req.y + " has " + num(v));

  std::ostringstream gp;
  gp << "# gnuplot script written by trainvp plot; the data is inline. Redraw with: gnuplot "
     << fs::path(res.script).filename().string() << "\n";
  gp << "set terminal " << terminal << "\n";
  gp << "set output " << gq(res.output) << "\n";
  gp << "set termoption noenhanced\n";
  std::string title = req.title.empty() ? meta["name"] + ": " + req.y + " vs " + req.x : req.title;
  gp << "set title " << gq(title) << "\n";
  gp << "set xlabel " << gq(ax.label) << "\n";
  gp << "set ylabel " << gq(ay.label) << "\n";
  gp << "set grid\n";
  if (req.by.empty()) gp << "unset key\n";
  else gp << "set key outside right top title " << gq(cols[bi].name) << "\n";
  if (logx) {
    gp << "set logscale x\n";
    // Few distinct x values (a grid's 1, 2, 4, 8): a tic at each; else 1-2-5 tics.
    std::vector<double> distinct = ax.values;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    std::string tics;
    if (distinct.size() <= 12)
      for (double v : distinct) tics += (tics.empty() ? "" : ", ") + num(v);
    else tics = log_tics(distinct.front(), distinct.back());
    if (!tics.empty()) gp << "set xtics (" << tics << ")\n";
  }
  if (logy) gp << "set logscale y\n";
  if (ax.kind == Kind::Category) {
    gp << "set xtics (";
    std::size_t longest = 0;
    for (std::size_t k = 0; k < ax.categories.size(); ++k) {
      gp << (k ? ", " : "") << gq(ax.categories[k]) << " " << k;
      longest = std::max(longest, ax.categories[k].size());
    }
    gp << ")\n";
    if (ax.categories.size() > 6 || longest > 12) gp << "set xtics rotate by -30\n";
    gp << "set xrange [-0.5:" << num(static_cast<double>(ax.categories.size()) - 0.5) << "]\n";
  } else {
    gp << "set autoscale xfix\n";
    gp << "set offsets graph 0.03, graph 0.03, 0, 0\n";
  }
  for (std::size_t s = 0; s < data.size(); ++s) {
    gp << "$s" << s << " << EOD\n";
    for (auto& [x, y] : data[s]) gp << num(x) << " " << num(y) << "\n";
    gp << "EOD\n";
  }
  gp << "plot ";
  for (std::size_t s = 0; s < data.size(); ++s) {
    gp << (s ? ", \\\n     " : "") << "$s" << s << " using 1:2 with "
       << (res.scatter ? "points pt 7 ps 0.7" : "linespoints pt 7 ps 0.8 lw 1.5") << " title " << gq(series_names[s]);
  }
  gp << "\n";

  std::error_code ec;
  fs::create_directories(fs::path(res.output).parent_path(), ec);
  if (ec)
    throw std::runtime_error("cannot create \"" + fs::path(res.output).parent_path().string() + "\": " + ec.message());
  {
    std::ofstream f(res.script, std::ios::trunc);
    f << gp.str();
    if (!f) throw std::runtime_error("cannot write \"" + res.script + "\"");
  }
  std::string log = res.script + ".log";
  ProcessResult r = run_process({{"gnuplot", res.script}, "", log});
  std::string errors;
  {
    std::ifstream in(log);
    std::stringstream ss;
    ss << in.rdbuf();
    errors = ss.str();
  }
  fs::remove(log, ec);
  if (!r.spawn_error.empty())
    throw std::runtime_error("cannot run gnuplot (" + r.spawn_error + "); install the Debian package gnuplot-nox");
  if (!r.ok()) throw std::runtime_error("gnuplot failed (" + describe_result(r) + ") on " + res.script + ": " + errors);
  if (!fs::exists(res.output)) throw std::runtime_error("gnuplot wrote no \"" + res.output + "\": " + errors);
  return res;
}

}  // namespace trainvp::sweep
