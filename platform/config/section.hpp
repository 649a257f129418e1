#pragma once
// What the section loaders share: reading the optional members of the scenario document.
#include "platform/core/params.hpp"

namespace trainvp {

// obj[key], or null when `obj` is not an object or has no such key.
const json& member(const json& obj, const char* key);

// An optional object's value as its schema reads it: `v`, or {} when absent (null).
const json& object_or_empty(const json& v);

}  // namespace trainvp
