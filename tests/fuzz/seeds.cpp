// Writes the fuzz target's seed corpus and dictionary from the tree as it is, so neither can drift
// from the shipped files or the schema registry (scripts/fuzz runs it before every fuzz run).
//   trainvp_fuzz_seeds SCENARIOS_DIR CORPUS_DIR DICT_FILE
// Corpus: every shipped scenario through the scenario door; its leaves as --set lines and its
// faults as a --faults document on itself; every sweep SPEC on its base (doors.hpp).
// Dictionary: every key, pointer, choice and unit of the schema registry, and every object key
// of the shipped files (the SPEC keys among them).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

#include "platform/config/schema_registry.hpp"
#include "tests/fuzz/doors.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using trainvp::fuzz::Door;
using trainvp::fuzz::Shipped;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_seed(const fs::path& dir, const std::string& label, const std::string& name, const std::string& bytes) {
  std::string file = label + "-" + name;
  for (char& c : file)
    if (c == '/' || c == '.') c = '_';
  std::ofstream(dir / file, std::ios::binary) << bytes;
}

// A libFuzzer dictionary entry: the bytes in double quotes, escaped.
std::string dict_entry(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c >= 0x20 && c < 0x7f) out += static_cast<char>(c);
    else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out + "\"";
}

void collect_keys(const json& v, std::set<std::string>& words) {
  std::vector<const json*> todo{&v};  // explicit stack: shipped files are shallow, but no recursion anyway
  while (!todo.empty()) {
    const json* cur = todo.back();
    todo.pop_back();
    if (cur->is_object())
      for (auto it = cur->begin(); it != cur->end(); ++it)
        words.insert("\"" + it.key() + "\""), todo.push_back(&it.value());
    else if (cur->is_array())
      for (auto& e : *cur) todo.push_back(&e);
  }
}

std::size_t base_index(const std::vector<Shipped>& bases, const std::string& spec_name, const json& spec) {
  if (!spec.contains("base") || !spec["base"].is_string()) return 0;
  std::string rel = (fs::path(spec_name).parent_path() / spec["base"].get<std::string>()).lexically_normal().string();
  for (std::size_t i = 0; i < bases.size(); ++i)
    if (bases[i].name == rel) return i;
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  if (argc != 4) {
    std::cerr << "usage: trainvp_fuzz_seeds SCENARIOS_DIR CORPUS_DIR DICT_FILE\n";
    return 2;
  }
  const fs::path scenarios(argv[1]), corpus(argv[2]);
  fs::create_directories(corpus);
  const auto bases = trainvp::fuzz::shipped_scenarios(scenarios.string());
  const auto specs = trainvp::fuzz::shipped_specs(scenarios.string());
  std::size_t seeds = 0;
  std::set<std::string> words;
  for (std::size_t i = 0; i < bases.size(); ++i) {
    const Shipped& b = bases[i];
    collect_keys(b.doc, words);
    write_seed(corpus, "scenario", b.name, encode(Door::Scenario, 0, read_text(scenarios / b.name))), ++seeds;
    std::string lines;
    const json leaves = b.doc.flatten();  // named: items() of a temporary would dangle
    for (auto& [ptr, v] : leaves.items()) lines += ptr + "=" + v.dump() + "\n";
    write_seed(corpus, "set", b.name, encode(Door::Set, i, lines)), ++seeds;
    if (b.doc.contains("faults") && !b.doc["faults"].empty()) {
      write_seed(corpus, "faults", b.name, encode(Door::Faults, i, json{{"faults", b.doc["faults"]}}.dump(2))), ++seeds;
      write_seed(corpus, "faults-list", b.name, encode(Door::Faults, i, b.doc["faults"].dump())), ++seeds;
    }
  }
  for (const Shipped& s : specs) {
    collect_keys(s.doc, words);
    const std::size_t base = base_index(bases, s.name, s.doc);
    write_seed(corpus, "spec", s.name, encode(Door::Spec, base, read_text(scenarios / s.name))), ++seeds;
    std::string lines;  // the SPEC's fixed set and every parameter's first value, as --set lines
    const json set = s.doc.value("set", json::object()), params = s.doc.value("parameters", json::array());
    for (auto& [ptr, v] : set.items()) lines += ptr + "=" + v.dump() + "\n";
    for (auto& p : params)
      if (p.contains("values") && !p["values"].empty())
        lines += p.value("path", "") + "=" + p["values"][0].dump() + "\n";
    write_seed(corpus, "set", s.name, encode(Door::Set, base, lines)), ++seeds;
  }

  for (const auto& schema : trainvp::all_schemas()) {
    std::vector<std::string> wheres;
    std::istringstream w(schema.where);
    for (std::string tok; w >> tok;) {
      while (!tok.empty() && (tok.back() == ',' || tok.back() == ')' || tok.back() == ';')) tok.pop_back();
      if (tok.empty() || tok[0] != '/' || tok.find('<') != std::string::npos) continue;  // "<kind>" is no pointer
      for (std::size_t star; (star = tok.find('*')) != std::string::npos;) tok.replace(star, 1, "0");
      wheres.push_back(tok);
    }
    for (const auto& p : schema.params) {
      words.insert("\"" + p.name + "\"");
      for (auto& where : wheres) words.insert((where == "/" ? "" : where) + "/" + p.name + "=");
      for (auto& c : p.choices) words.insert("\"" + c + "\"");
      std::istringstream u(p.units);
      for (std::string unit; u >> unit;) {
        if (unit.back() == ',') unit.pop_back();
        words.insert(unit);
      }
    }
  }
  std::ofstream dict(argv[3]);
  dict << "# Generated by trainvp_fuzz_seeds from the schema registry and scenarios/; do not edit.\n";
  for (auto& word : words) dict << dict_entry(word) << "\n";
  std::cout << "trainvp_fuzz_seeds: " << seeds << " seeds in " << corpus.string() << ", " << words.size()
            << " dictionary entries in " << argv[3] << "\n";
  return 0;
}

// SystemC's shared library references sc_main (its own main() calls it); this main() runs instead.
extern "C" int sc_main(int, char*[]) { return 0; }
