#include "platform/config/sync_config.hpp"

#include "platform/config/scenario.hpp"

namespace trainvp {

const ParamSet<CompressionConfig>& compression_schema() {
  static const ParamSet<CompressionConfig> s = [] {
    ParamSet<CompressionConfig> p("compression", "/training/sync/compression",
                                  "Per-layer compression of what a strategy synchronizes (docs/strategies.md).");
    p.choice("kind", &CompressionConfig::kind, "none",
             {{"none", CompressionKind::None}, {"topk", CompressionKind::TopK}, {"powersgd", CompressionKind::PowerSgd}},
             "none; topk: ratio x n values plus 4-byte indices per layer, all-gathered; powersgd: (m + n) x rank "
             "values per m x n matrix in two all-reduces, plus the projection matmuls on the GPU")
        .number("ratio", &CompressionConfig::ratio, 0.01, "topk: fraction of each layer's values kept",
                Range::unit_open_closed())
        .integer("rank", &CompressionConfig::rank, 4, "powersgd: rank of the low-rank approximation", Range::at_least(1))
        .size("min_bytes", &CompressionConfig::min_bytes, "1MB",
              "Layers whose uncompressed synchronization is smaller stay uncompressed");
    return p;
  }();
  return s;
}

const ParamSet<ClassStreams>& class_streams_schema() {
  static const ParamSet<ClassStreams> s = [] {
    ParamSet<ClassStreams> p("class_streams", "/training/sync/class_streams",
                             "Which communication stream each size class of layerwise, blockwise and adaptive uses "
                             "(each in [0, comm_streams - 1]); classes may share a stream.");
    p.integer("large", &ClassStreams::large, nullptr, "Stream of units of more than large_bytes", Range::non_negative())
        .integer("medium", &ClassStreams::medium, nullptr, "Stream of units between small_bytes and large_bytes",
                 Range::non_negative())
        .integer("small", &ClassStreams::small, nullptr, "Stream of (packed) units of fewer than small_bytes",
                 Range::non_negative())
        .required("large")
        .required("medium")
        .required("small");
    return p;
  }();
  return s;
}

const ParamSet<ProfileEntry>& profile_schema() {
  static const ParamSet<ProfileEntry> s = [] {
    ParamSet<ProfileEntry> p("profile_layer", "/training/sync/profile/*",
                             "One layer of an explicit dreamddp profile. Every layer with parameters must appear once; "
                             "layers without parameters may appear (with their backward time).");
    p.text("layer", &ProfileEntry::layer, nullptr, "Layer name (as `trainvp describe model` lists it)")
        .time("bwd_time", &ProfileEntry::bwd_ps, nullptr,
              "Backward time of the layer (dX + dW of one micro-batch): from the previous layer's gradient to its own")
        .time("comm_time", &ProfileEntry::comm_ps, "0s", "Time of the layer's synchronization alone on the fabric")
        .required("layer")
        .required("bwd_time");
    return p;
  }();
  return s;
}

json finish_sync(SyncConfig& sc, const json& value, json resolved, const Workload& w, const std::string& path) {
  auto member = [&value](const char* key) -> const json* {
    return value.is_object() && value.contains(key) ? &value[key] : nullptr;
  };
  if (sc.small_bytes > sc.large_bytes)
    fail_expected(ptr_join(path, "small_bytes"), "a size <= large_bytes (" + std::to_string(sc.large_bytes) + " B)",
                  member("small_bytes") ? *member("small_bytes") : json(sc.small_bytes));
  if (sc.util_low > sc.util_high)
    fail_expected(ptr_join(path, "util_low"), "a utilization <= util_high (" + json(sc.util_high).dump() + ")",
                  member("util_low") ? *member("util_low") : json(sc.util_low));

  if (const json* c = member("compression")) {
    resolved["compression"] = compression_schema().load(sc.compression, *c, ptr_join(path, "compression"));
  } else {
    resolved["compression"] = compression_schema().load(sc.compression, json::object(), ptr_join(path, "compression"));
  }

  if (const json* cs = member("class_streams")) {
    std::string cp = ptr_join(path, "class_streams");
    resolved["class_streams"] = class_streams_schema().load(sc.class_streams, *cs, cp);
    sc.has_class_streams = true;
    for (auto [key, v] : {std::pair<const char*, int>{"large", sc.class_streams.large},
                          {"medium", sc.class_streams.medium},
                          {"small", sc.class_streams.small}})
      if (v >= sc.comm_streams)
        fail_expected(ptr_join(cp, key), "a stream in [0, " + std::to_string(sc.comm_streams - 1) + "] (comm_streams is " +
                                             std::to_string(sc.comm_streams) + ")",
                      json(v));
  }

  if (const json* prof = member("profile")) {
    std::string pp = ptr_join(path, "profile");
    if (!prof->is_array() || prof->empty()) fail_expected(pp, "a non-empty array of profile_layer objects", *prof);
    json out = json::array();
    std::vector<bool> seen(w.layers.size(), false);
    for (std::size_t i = 0; i < prof->size(); ++i) {
      std::string ep = ptr_join(pp, i);
      ProfileEntry e;
      out.push_back(profile_schema().load(e, (*prof)[i], ep));
      int found = -1;
      for (std::size_t l = 0; l < w.layers.size(); ++l)
        if (w.layers[l].name == e.layer) found = static_cast<int>(l);
      if (found < 0)
        fail_expected(ptr_join(ep, "layer"), "the name of a layer of the workload (`trainvp describe model` lists them)",
                      (*prof)[i]["layer"]);
      if (seen[static_cast<std::size_t>(found)])
        fail_expected(ptr_join(ep, "layer"), "each layer once: \"" + e.layer + "\" is repeated", (*prof)[i]["layer"]);
      seen[static_cast<std::size_t>(found)] = true;
      if (w.layers[static_cast<std::size_t>(found)].params == 0 && e.comm_ps > 0)
        fail_expected(ptr_join(ep, "comm_time"), "0s: layer \"" + e.layer + "\" has no parameters to synchronize",
                      (*prof)[i]["comm_time"]);
      sc.profile.push_back(e);
    }
    for (std::size_t l = 0; l < w.layers.size(); ++l)
      if (w.layers[l].params > 0 && !seen[l])
        throw ScenarioError(pp, "missing layer \"" + w.layers[l].name +
                                    "\": expected an entry for every layer with parameters");
    resolved["profile"] = out;
  }
  return resolved;
}

}  // namespace trainvp
