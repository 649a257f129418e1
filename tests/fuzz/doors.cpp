#include "tests/fuzz/doors.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <typeinfo>

#include "platform/config/document.hpp"
#include "platform/config/scenario.hpp"
#include "platform/core/errors.hpp"
#include "platform/sweep/expand.hpp"
#include "platform/sweep/input_error.hpp"
#include "platform/sweep/resolve.hpp"
#include "platform/sweep/spec.hpp"

namespace trainvp::fuzz {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::vector<Shipped> shipped_with_key(const std::string& dir, const char* key) {
  std::vector<Shipped> out;
  for (auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    json doc = read_json_file(e.path().string());
    if (doc.is_object() && doc.contains(key))
      out.push_back({fs::relative(e.path(), dir).string(), std::move(doc), e.path().parent_path().string()});
  }
  std::sort(out.begin(), out.end(), [](const Shipped& a, const Shipped& b) { return a.name < b.name; });
  return out;
}

// The scenario's default name, as `trainvp run` derives it from the file.
std::string stem_of(const std::string& name) { return fs::path(name).stem().string(); }

// The number of points a SPEC expands to (as a double: a grid's product may be huge).
double point_count(const sweep::SweepSpec& spec) {
  if (spec.design == sweep::Design::Random) return spec.samples;
  if (spec.design == sweep::Design::Zip) return static_cast<double>(spec.params.at(0).values.size());
  double total = 1;
  for (auto& p : spec.params) total *= static_cast<double>(p.values.size());
  return total;
}

void run_spec(const std::string& text, const Shipped& base) {
  sweep::SweepSpec spec = sweep::parse_spec(parse_json_text(text, ""), "fuzz/spec.json");
  if (point_count(spec) > static_cast<double>(kMaxExpandedPoints)) return;
  std::vector<sweep::Point> points = sweep::expand(spec);
  if (points.size() > kMaxValidatedPoints) points.resize(kMaxValidatedPoints);
  json with_set = sweep::apply_spec_set(spec, base.doc);
  for (auto& p : points) sweep::point_overrides(spec, p);
  sweep::validate_points(spec, with_set, points);
}

void run_door(Door door, const std::string& text, const Shipped& base) {
  switch (door) {
    case Door::Scenario: load_scenario(parse_json_text(text, "\"fuzz.json\""), "fuzz"); return;
    case Door::Set: {
      json doc = base.doc;
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);)
        if (!line.empty()) apply_override(doc, line);
      load_scenario(doc, stem_of(base.name), base.dir);
      return;
    }
    case Door::Faults: {
      json doc = base.doc;
      apply_faults_document(doc, parse_json_text(text, "\"faults.json\""), "faults.json");
      load_scenario(doc, stem_of(base.name), base.dir);
      return;
    }
    case Door::Spec: run_spec(text, base); return;
  }
}

}  // namespace

std::vector<Shipped> shipped_scenarios(const std::string& scenarios_dir) {
  return shipped_with_key(scenarios_dir, "trainvp");
}
std::vector<Shipped> shipped_specs(const std::string& scenarios_dir) {
  return shipped_with_key(scenarios_dir, "sweep");
}

std::string encode(Door door, std::size_t base, const std::string& text) {
  std::string out(1, static_cast<char>(door));
  if (door != Door::Scenario) out.push_back(static_cast<char>(base));
  return out + text;
}

Outcome run_input(const std::uint8_t* data, std::size_t size, const std::vector<Shipped>& bases) {
  if (size == 0 || bases.empty()) return {};
  const Door door = static_cast<Door>(data[0] % kDoors);
  std::size_t skip = 1, base = 0;
  if (door != Door::Scenario) {
    if (size < 2) return {};
    base = data[1] % bases.size();
    skip = 2;
  }
  const std::string text(reinterpret_cast<const char*>(data) + skip, size - skip);
  const std::string where = "door " + std::to_string(static_cast<int>(door)) +
                            (door == Door::Scenario ? "" : " on " + bases[base].name) + ": ";
  try {
    run_door(door, text, bases[base]);
  } catch (const ScenarioError& e) {
    return {Outcome::InputError, e.what()};
  } catch (const sweep::PointError& e) {
    return {Outcome::InputError, e.what()};
  } catch (const sweep::SweepInputError& e) {
    return {Outcome::InputError, e.what()};
  } catch (const std::exception& e) {
    return {Outcome::Defect, where + "uncaught " + typeid(e).name() + ": " + e.what()};
  } catch (...) {
    return {Outcome::Defect, where + "uncaught exception of no std type"};
  }
  return {};
}

Outcome run_input(const std::string& input, const std::vector<Shipped>& bases) {
  return run_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size(), bases);
}

}  // namespace trainvp::fuzz
