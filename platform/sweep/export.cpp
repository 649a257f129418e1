#include "platform/sweep/export.hpp"

#include <charconv>

namespace trainvp::sweep {

namespace {

std::string csv_field(const json& v) {
  if (v.is_null()) return "";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number_float()) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v.get<double>());
    return std::string(buf, r.ptr);
  }
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  bool quote = s.find_first_of(",\"\r\n") != std::string::npos || (!s.empty() && (s.front() == ' ' || s.back() == ' '));
  if (!quote) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

void write_csv(const Store& store, std::ostream& out) {
  auto names = store.point_columns();
  for (std::size_t i = 0; i < names.size(); ++i) out << (i ? "," : "") << csv_field(names[i]);
  out << "\n";
  for (auto& row : store.point_table()) {
    for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csv_field(row[i]);
    out << "\n";
  }
}

}  // namespace trainvp::sweep
