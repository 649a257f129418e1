#include "platform/config/section.hpp"

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

}  // namespace trainvp
