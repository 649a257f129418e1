#include "platform/core/errors.hpp"

#include <algorithm>
#include <vector>

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
  return kind + " " + bounded_dump(value, 60);
}

namespace {

// The length of the longest prefix of `s` of at most `n` bytes that does not split a UTF-8
// character.
std::size_t utf8_prefix(const std::string& s, std::size_t n) {
  if (n >= s.size()) return s.size();
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

// A scalar's JSON text, strings cut to about `room` characters first (a long string is never
// escaped whole).
std::string scalar_text(const nlohmann::json& v, std::size_t room) {
  if (!v.is_string()) return v.dump();
  const std::string& s = v.get_ref<const std::string&>();
  return nlohmann::json(s.substr(0, utf8_prefix(s, room + 1)))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string bounded_dump(const nlohmann::json& value, std::size_t max_chars) {
  using json = nlohmann::json;
  // An explicit stack of open containers: depth costs memory in proportion, never call stack.
  struct Open {
    const json* v;
    json::const_iterator it;
  };
  std::vector<Open> stack;
  std::string out;
  const std::size_t budget = max_chars + 1;  // one character more than fits tells "cut" from "whole"
  auto full = [&] { return out.size() >= budget; };
  auto emit = [&](const json& v) {  // writes v, or opens it
    if (v.is_object() || v.is_array()) {
      out += v.is_object() ? '{' : '[';
      stack.push_back({&v, v.cbegin()});
    } else {
      out += scalar_text(v, budget - std::min(out.size(), budget));
    }
  };
  emit(value);
  while (!stack.empty() && !full()) {
    Open& top = stack.back();
    if (top.it == top.v->cend()) {
      out += top.v->is_object() ? '}' : ']';
      stack.pop_back();
      continue;
    }
    if (top.it != top.v->cbegin()) out += ',';
    const json::const_iterator cur = top.it++;
    if (top.v->is_object()) out += scalar_text(json(cur.key()), budget - std::min(out.size(), budget)) + ':';
    if (!full()) emit(*cur);
  }
  if (out.size() <= max_chars && stack.empty()) return out;
  std::size_t keep = max_chars >= 3 ? max_chars - 3 : 0;
  return out.substr(0, utf8_prefix(out, keep)) + "...";
}

std::string clip_pointer(const std::string& p) {
  constexpr std::size_t kMax = 200;
  return p.size() <= kMax ? p : p.substr(0, utf8_prefix(p, kMax - 3)) + "...";
}

std::string quote_clipped(const std::string& text, std::size_t max_chars) {
  if (text.size() <= max_chars) return "\"" + text + "\"";
  std::size_t keep = max_chars >= 3 ? max_chars - 3 : 0;
  return "\"" + text.substr(0, utf8_prefix(text, keep)) + "...\" (" + std::to_string(text.size()) + " characters)";
}

void fail_expected(const std::string& path, const std::string& expected, const nlohmann::json& found) {
  throw ScenarioError(path, "expected " + expected + ", found " + describe_found(found));
}

}  // namespace trainvp
