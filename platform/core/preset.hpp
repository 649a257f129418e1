#pragma once
// Parameter objects that start from a named preset: "NAME", {"preset": "NAME", <overrides>}, or
// every key given (a custom part, model "custom"). GPUs and aggregator CPUs read theirs this way.
#include <string>
#include <vector>

#include "platform/core/errors.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

// `presets`: objects with `name` and `values` (a JSON object in `schema`); `what` names the part
// in messages ("GPU", "CPU"). Returns the resolved object, with `preset` echoed when one was named.
template <class T, class Preset>
json load_from_preset(const ParamSet<T>& schema, T& out, const json& value, const std::string& path,
                      const std::vector<Preset>& presets, const std::string& what) {
  std::string list;
  for (auto& p : presets) list += (list.empty() ? "" : ", ") + ("\"" + p.name + "\"");
  json obj = value;
  std::string preset_path = path;
  if (value.is_string()) obj = json{{"preset", value}};
  else if (!value.is_object())
    fail_expected(path, "a " + what + " preset name (" + list + ") or a " + what + " object", value);
  else preset_path = ptr_join(path, "preset");
  json merged = json::object();
  if (obj.contains("preset")) {
    const json& name = obj["preset"];
    const Preset* found = nullptr;
    for (auto& p : presets)
      if (name.is_string() && p.name == name.get<std::string>()) found = &p;
    if (!found) fail_expected(preset_path, "a " + what + " preset: one of " + list, name);
    merged = found->values;
    merged["model"] = found->name;
  }
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (it.key() != "preset") merged[it.key()] = it.value();
  if (!merged.contains("model")) merged["model"] = "custom";
  // Errors name the user's path even for keys that came from the preset: they cannot fail there.
  json resolved = schema.load(out, merged, path);
  if (obj.contains("preset")) resolved["preset"] = obj["preset"];
  return resolved;
}

}  // namespace trainvp
