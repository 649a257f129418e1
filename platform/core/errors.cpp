#include "platform/core/errors.hpp"

namespace trainvp {

std::string ptr_join(const std::string& path, const std::string& key) {
  std::string escaped;
  for (char c : key) {
    if (c == '~') escaped += "~0";
    else if (c == '/') escaped += "~1";
    else escaped += c;
  }
  return path + "/" + escaped;
}

std::string ptr_join(const std::string& path, std::size_t index) { return path + "/" + std::to_string(index); }

std::string describe_found(const nlohmann::json& value) {
  std::string kind;
  switch (value.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: kind = "boolean"; break;
    case nlohmann::json::value_t::string: kind = "string"; break;
    case nlohmann::json::value_t::object: kind = "object"; break;
    case nlohmann::json::value_t::array: kind = "array"; break;
    default: kind = "number"; break;
  }
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return kind + " " + text;
}

void fail_expected(const std::string& path, const std::string& expected, const nlohmann::json& found) {
  throw ScenarioError(path, "expected " + expected + ", found " + describe_found(found));
}

}  // namespace trainvp
