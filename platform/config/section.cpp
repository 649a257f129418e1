#include "platform/config/section.hpp"

#include <cctype>

namespace trainvp {

const json& member(const json& obj, const char* key) {
  static const json null_value;
  auto it = obj.find(key);
  return it == obj.end() ? null_value : *it;
}

const json& object_or_empty(const json& v) {
  static const json empty = json::object();
  return v.is_null() ? empty : v;
}

bool safe_name(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

}  // namespace trainvp
