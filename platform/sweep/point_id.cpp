#include "platform/sweep/point_id.hpp"

#include <cstdio>

namespace trainvp::sweep {

std::string canonical_assignment(const Assignment& a) {
  nlohmann::json obj = nlohmann::json::object();
  for (auto& [path, value] : a) obj[path] = value;
  return obj.dump();
}

std::string point_id(const Assignment& a) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%012llx",
                static_cast<unsigned long long>(fnv1a64(canonical_assignment(a)) & 0xffffffffffffULL));
  return buf;
}

std::string describe_assignment(const Assignment& a) {
  std::string s;
  for (auto& [path, value] : a) {
    std::string v = value.dump();
    if (v.size() > 60) v = v.substr(0, 57) + "...";
    s += (s.empty() ? "" : ", ") + path + "=" + v;
  }
  return s;
}

}  // namespace trainvp::sweep
