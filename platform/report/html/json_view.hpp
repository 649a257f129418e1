#pragma once
// Reading a run's or sweep's JSON files for the report: each value is reached through a view that
// knows its file and JSON pointer, so a missing key or a wrong type is one error naming both
// (ScenarioError: the command exits 2).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainvp::html {

class JsonView {
 public:
  JsonView(const nlohmann::json& value, std::string file, std::string pointer = "");

  const nlohmann::json& raw() const { return *v_; }
  const std::string& pointer() const { return ptr_; }
  const std::string& file() const { return file_; }

  // An object holding `key` with a non-null value.
  bool has(const std::string& key) const;
  JsonView operator[](const std::string& key) const;  // throws when missing
  JsonView operator[](std::size_t i) const;           // throws when out of range
  std::vector<JsonView> items() const;                // an array's elements; throws for another type

  double number() const;
  std::string text() const;
  bool boolean() const;
  // `key`'s number, or `fallback` when the key is missing or null.
  double number_or(const std::string& key, double fallback) const;
  std::string text_or(const std::string& key, const std::string& fallback) const;

  [[noreturn]] void fail(const std::string& expected) const;

 private:
  const nlohmann::json* v_;
  std::string file_, ptr_;
};

// Reads and parses a JSON file as the scenario reader does (depth-limited, strict); a file that
// cannot be read or parsed is a ScenarioError naming it (`role`: "results file") and the line.
nlohmann::json read_input_json(const std::string& path, const std::string& role);

}  // namespace trainvp::html
