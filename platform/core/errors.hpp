#pragma once
// Errors in user input. Every one names the JSON pointer of the offending value, what was
// found there and what was expected, so the CLI can print one clear line and exit 2.
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace trainvp {

// A pointer as a message shows it: cut to 200 characters when a hostile document makes it long.
std::string clip_pointer(const std::string& pointer);

struct ScenarioError : std::runtime_error {
  ScenarioError(std::string path, const std::string& message)
      : std::runtime_error((path.empty() ? std::string("/") : clip_pointer(path)) + ": " + message),
        path(std::move(path)) {}
  std::string path;  // JSON pointer ("" for the document root)
};

// A simulation that cannot go on (a stall, a time limit): a run-time failure, exit 1.
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "/a/b" + "c" -> "/a/b/c", escaping '~' and '/' as RFC 6901 requires.
std::string ptr_join(const std::string& path, const std::string& key);
std::string ptr_join(const std::string& path, std::size_t index);

// A short rendering of a JSON value for messages: strings quoted, long values cut. It never
// serializes more than it shows: a 100 MB or 100,000-deep value costs as much as a short one.
std::string describe_found(const nlohmann::json& value);

// The first `max_chars` characters of `value`'s JSON text ("..." appended when cut), written
// without recursion and without building the whole text.
std::string bounded_dump(const nlohmann::json& value, std::size_t max_chars);

// The most characters of a user's value that an error message echoes.
constexpr std::size_t kMaxEchoChars = 80;

// `text` in double quotes for a message, cut to kMaxEchoChars (at a UTF-8 character boundary)
// with "..." when longer.
std::string quote_clipped(const std::string& text, std::size_t max_chars = kMaxEchoChars);

[[noreturn]] void fail_expected(const std::string& path, const std::string& expected, const nlohmann::json& found);

}  // namespace trainvp
