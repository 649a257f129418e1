#pragma once
// What the section loaders share: reading the optional members of the scenario document.
#include <string>

#include "platform/core/params.hpp"

namespace trainvp {

// obj[key], or null when `obj` is not an object or has no such key.
const json& member(const json& obj, const char* key);

// An optional object's value as its schema reads it: `v`, or {} when absent (null).
const json& object_or_empty(const json& v);

// A name that is safe as a file or folder name: letters, digits, '.', '_' and '-', not "." or
// ".." (run names, job names).
bool safe_name(const std::string& s);

}  // namespace trainvp
