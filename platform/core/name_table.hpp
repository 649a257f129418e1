#pragma once
// One table per enum of the names scenarios and results write for its values, so that a schema's
// choices, the name a result prints and the parse of a command-line option cannot disagree.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trainvp {

template <class E>
using NameTable = std::vector<std::pair<std::string, E>>;

// The name of `v` in `table`, or `unknown` when the table lacks it.
template <class E>
const char* name_in(const NameTable<E>& table, E v, const char* unknown = "?") {
  for (auto& [name, value] : table)
    if (value == v) return name.c_str();
  return unknown;
}

template <class E>
std::optional<E> value_in(const NameTable<E>& table, const std::string& name) {
  for (auto& [n, value] : table)
    if (n == name) return value;
  return std::nullopt;
}

// "\"a\", \"b\", \"c\"": the names as error messages list them.
template <class E>
std::string quoted_names(const NameTable<E>& table) {
  std::string list;
  for (auto& nv : table) list += (list.empty() ? "" : ", ") + ("\"" + nv.first + "\"");
  return list;
}

}  // namespace trainvp
