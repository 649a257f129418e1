#include "models/collectives/strategies/units.hpp"

#include <algorithm>

namespace trainvp {

std::vector<int> synced_layers(const Workload& w) {
  std::vector<int> out;
  for (int l = static_cast<int>(w.layers.size()) - 1; l >= 0; --l)
    if (w.layers[static_cast<std::size_t>(l)].params > 0) out.push_back(l);
  return out;
}

std::vector<LayerTraffic> layer_traffics(const Workload& w, DType value_dtype, const CompressionConfig& compression,
                                         int world) {
  std::vector<LayerTraffic> out;
  out.reserve(w.layers.size());
  for (const Layer& l : w.layers) out.push_back(layer_traffic(l, dtype_bytes(value_dtype), compression, world));
  return out;
}

SyncUnit make_unit(std::vector<int> layers, const std::vector<LayerTraffic>& traffic, int world) {
  SyncUnit u;
  std::vector<LayerTraffic> parts;
  for (int l : layers) {
    parts.push_back(traffic[static_cast<std::size_t>(l)]);
    u.bytes += parts.back().plain_bytes;
  }
  u.layers = std::move(layers);
  u.steps = sync_steps(parts, world);
  return u;
}

namespace {

int class_index(std::uint64_t bytes, const GroupingOptions& o) {
  if (bytes > o.large_bytes) return 0;
  if (bytes < o.small_bytes) return 2;
  return 1;
}

const char* kClassNames[] = {"large", "medium", "small"};

}  // namespace

std::vector<SyncUnit> grouped_units(const Workload& w, const std::vector<LayerTraffic>& traffic, int world,
                                    const GroupingOptions& opt) {
  const std::vector<int> order = synced_layers(w);
  // Blocks of adjacent parameter layers, in ready order.
  std::vector<std::vector<int>> blocks;
  for (std::size_t i = 0; i < order.size(); i += static_cast<std::size_t>(opt.block))
    blocks.emplace_back(
        order.begin() + static_cast<std::ptrdiff_t>(i),
        order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), i + static_cast<std::size_t>(opt.block))));
  // Classify; pack small blocks `pack` at a time. A pack is emitted where its last block is, so
  // units stay in the order they become ready.
  std::vector<SyncUnit> units;
  std::vector<int> pack;
  int packed = 0;
  auto close_pack = [&] {
    if (pack.empty()) return;
    units.push_back(make_unit(pack, traffic, world));
    units.back().size_class = kClassNames[2];
    pack.clear();
    packed = 0;
  };
  for (auto& b : blocks) {
    std::uint64_t bytes = 0;
    for (int l : b) bytes += traffic[static_cast<std::size_t>(l)].plain_bytes;
    int cls = class_index(bytes, opt);
    if (cls == 2 && opt.pack > 1) {
      pack.insert(pack.end(), b.begin(), b.end());
      if (++packed == opt.pack) close_pack();
      continue;
    }
    units.push_back(make_unit(b, traffic, world));
    units.back().size_class = kClassNames[cls];
  }
  close_pack();
  // In the order they become ready: by the ready position of each unit's last layer (a pack
  // that closed at the end of the backward may hold earlier layers than the units after it).
  std::vector<int> pos(w.layers.size(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) pos[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
  std::stable_sort(units.begin(), units.end(), [&pos](const SyncUnit& a, const SyncUnit& b) {
    return pos[static_cast<std::size_t>(a.layers.back())] < pos[static_cast<std::size_t>(b.layers.back())];
  });
  for (std::size_t u = 0; u < units.size(); ++u) {
    SyncUnit& unit = units[u];
    if (opt.class_streams.empty()) {
      unit.stream = static_cast<int>(u % static_cast<std::size_t>(opt.streams));
    } else {
      int cls = unit.size_class == kClassNames[0] ? 0 : unit.size_class == kClassNames[1] ? 1 : 2;
      unit.stream = opt.class_streams[static_cast<std::size_t>(cls)];
    }
  }
  return units;
}

std::vector<SyncUnit> per_layer_units(const Workload& w, const std::vector<LayerTraffic>& traffic, int world,
                                      int streams) {
  std::vector<SyncUnit> units;
  for (int l : synced_layers(w)) {
    units.push_back(make_unit({l}, traffic, world));
    units.back().stream = static_cast<int>((units.size() - 1) % static_cast<std::size_t>(streams));
  }
  return units;
}

std::vector<std::vector<int>> even_sets(int count, int sets) {
  std::vector<std::vector<int>> out(static_cast<std::size_t>(sets));
  int next = 0;
  for (int s = 0; s < sets; ++s) {
    int size = count / sets + (s < count % sets ? 1 : 0);
    for (int i = 0; i < size; ++i) out[static_cast<std::size_t>(s)].push_back(next++);
  }
  return out;
}

}  // namespace trainvp
