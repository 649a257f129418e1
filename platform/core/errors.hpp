#pragma once
// Errors in user input. Every one names the JSON pointer of the offending value, what was
// found there and what was expected, so the CLI can print one clear line and exit 2.
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace trainvp {

struct ScenarioError : std::runtime_error {
  ScenarioError(std::string path, const std::string& message)
      : std::runtime_error((path.empty() ? std::string("/") : path) + ": " + message), path(std::move(path)) {}
  std::string path;  // JSON pointer ("" for the document root)
};

// A simulation that cannot go on (a stall, a time limit): a run-time failure, exit 1.
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "/a/b" + "c" -> "/a/b/c", escaping '~' and '/' as RFC 6901 requires.
std::string ptr_join(const std::string& path, const std::string& key);
std::string ptr_join(const std::string& path, std::size_t index);

// A short rendering of a JSON value for messages: strings quoted, long values cut.
std::string describe_found(const nlohmann::json& value);

[[noreturn]] void fail_expected(const std::string& path, const std::string& expected, const nlohmann::json& found);

}  // namespace trainvp
