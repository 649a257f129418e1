#include "models/workload/torch_profile.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

#include "platform/core/errors.hpp"

namespace trainvp {

using nlohmann::json;

namespace {

constexpr const char* kLayerPrefix = "layer:";
constexpr const char* kModulePrefix = "nn.Module: ";
constexpr const char* kBackwardPrefix = "autograd::engine::evaluate_function: ";
constexpr const char* kOptimizerPrefix = "Optimizer.step#";
constexpr double kMaxDurUs = 1e9;  // 1,000 s: far beyond one step; keeps picoseconds in range

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// One complete ("ph": "X") event.
struct Event {
  std::size_t index = 0;  // in traceEvents, for error pointers
  std::string name, thread;
  double ts = 0, dur = 0;  // microseconds, as the trace holds them
  std::int64_t seq = -1, external = -1;
  std::int64_t fwd_thread = -1;  // "Fwd thread id": 0 on forward operators, the forward's thread on backward ones
  bool kernel = false;
  const json* dims = nullptr;  // args["Input Dims"]
  int parent = -1;             // enclosing event on the same thread
  double end() const { return ts + dur; }
};

std::int64_t to_ps(double us) { return std::llround(us * 1e6); }

std::optional<std::int64_t> int_arg(const json& args, const char* key, const std::string& pointer) {
  auto it = args.find(key);
  if (it == args.end()) return std::nullopt;
  if (!it->is_number_integer()) fail_expected(ptr_join(pointer, key), "an integer", *it);
  return it->get<std::int64_t>();
}

std::vector<Event> read_events(const json& trace, std::string& base) {
  const json* list = &trace;
  base.clear();
  if (trace.is_object()) {
    auto it = trace.find("traceEvents");
    if (it == trace.end() || !it->is_array())
      throw ScenarioError("/traceEvents",
                          "expected a Chrome trace: an array of events or an object with a traceEvents array");
    list = &*it;
    base = "/traceEvents";
  } else if (!trace.is_array()) {
    fail_expected("", "a Chrome trace: an array of events or an object with a traceEvents array", trace);
  }
  std::vector<Event> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& e = (*list)[i];
    const std::string p = ptr_join(base, i);
    if (!e.is_object()) fail_expected(p, "an event object", e);
    auto ph = e.find("ph");
    if (ph == e.end() || *ph != "X") continue;  // metadata, flows, counters, instant events
    Event ev;
    ev.index = i;
    auto name = e.find("name"), ts = e.find("ts"), dur = e.find("dur");
    if (name == e.end() || !name->is_string())
      fail_expected(ptr_join(p, "name"), "the event's name (a string)", name == e.end() ? json() : *name);
    if (ts == e.end() || !ts->is_number() || !std::isfinite(ts->get<double>()))
      fail_expected(ptr_join(p, "ts"), "a start time in microseconds", ts == e.end() ? json() : *ts);
    if (dur == e.end() || !dur->is_number() || !(dur->get<double>() >= 0 && dur->get<double>() <= kMaxDurUs))
      fail_expected(ptr_join(p, "dur"), "a duration in microseconds, 0 to 1e9", dur == e.end() ? json() : *dur);
    ev.name = name->get<std::string>();
    ev.ts = ts->get<double>();
    ev.dur = dur->get<double>();
    // pid and tid are numbers or strings ("CPU functions"): the pair names the thread.
    auto pid = e.find("pid"), tid = e.find("tid");
    ev.thread = (pid == e.end() ? "" : pid->dump()) + "/" + (tid == e.end() ? "" : tid->dump());
    auto cat = e.find("cat");
    ev.kernel = cat != e.end() && *cat == "kernel";
    auto args = e.find("args");
    if (args != e.end()) {
      const std::string ap = ptr_join(p, "args");
      if (!args->is_object()) fail_expected(ap, "an object", *args);
      ev.seq = int_arg(*args, "Sequence number", ap).value_or(-1);
      ev.external = int_arg(*args, "External id", ap).value_or(-1);
      ev.fwd_thread = int_arg(*args, "Fwd thread id", ap).value_or(-1);
      auto dims = args->find("Input Dims");
      if (dims != args->end()) {
        if (!dims->is_array()) fail_expected(ptr_join(ap, "Input Dims"), "an array of shapes", *dims);
        ev.dims = &*dims;
      }
    }
    out.push_back(std::move(ev));
  }
  return out;
}

// Each CPU event's enclosing event on its thread (by time: start inside the parent's range).
void link_parents(std::vector<Event>& ev) {
  std::map<std::string, std::vector<int>> by_thread;
  for (std::size_t i = 0; i < ev.size(); ++i)
    if (!ev[i].kernel) by_thread[ev[i].thread].push_back(static_cast<int>(i));
  for (auto& [thread, ids] : by_thread) {
    std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) {
      return ev[a].ts != ev[b].ts ? ev[a].ts < ev[b].ts : ev[a].end() > ev[b].end();  // outer first
    });
    std::vector<int> stack;
    for (int i : ids) {
      while (!stack.empty() && ev[stack.back()].end() <= ev[i].ts) stack.pop_back();
      ev[i].parent = stack.empty() ? -1 : stack.back();
      stack.push_back(i);
    }
  }
}

// The nearest enclosing event (or the event itself) that `pick` accepts, or -1.
template <class Pred>
int nearest(const std::vector<Event>& ev, int i, Pred pick) {
  for (; i >= 0; i = ev[i].parent)
    if (pick(i)) return i;
  return -1;
}

// Parameters an operator takes: the argument positions of its weight and bias.
struct ParamOp {
  const char* name;
  int weight, bias;  // positions in Input Dims; -1: none
  enum { Matrix, Table, Conv, Vector } kind;
};
const ParamOp* param_op(const std::string& name) {
  static const ParamOp ops[] = {
      {"aten::linear", 1, 2, ParamOp::Matrix},         {"aten::embedding", 0, -1, ParamOp::Table},
      {"aten::embedding_bag", 0, -1, ParamOp::Table},  {"aten::conv1d", 1, 2, ParamOp::Conv},
      {"aten::conv2d", 1, 2, ParamOp::Conv},           {"aten::conv3d", 1, 2, ParamOp::Conv},
      {"aten::convolution", 1, 2, ParamOp::Conv},      {"aten::conv_transpose1d", 1, 2, ParamOp::Conv},
      {"aten::conv_transpose2d", 1, 2, ParamOp::Conv}, {"aten::conv_transpose3d", 1, 2, ParamOp::Conv},
      {"aten::layer_norm", 2, 3, ParamOp::Vector},     {"aten::group_norm", 2, 3, ParamOp::Vector},
      {"aten::batch_norm", 1, 2, ParamOp::Vector},     {"aten::instance_norm", 1, 2, ParamOp::Vector},
      {"aten::rms_norm", 2, -1, ParamOp::Vector},
  };
  for (const ParamOp& op : ops)
    if (name == op.name) return &op;
  return nullptr;
}

std::uint64_t numel(const std::vector<std::uint64_t>& s) {
  std::uint64_t n = 1;
  for (std::uint64_t d : s) n *= d;
  return n;
}

// A shape from Input Dims: non-negative integers; nullopt for anything else (a scalar, None, a
// list) and for a tensor beyond 2^36 elements, which no real parameter is: the sums stay far
// inside 2^63 bytes however many operators a trace holds.
constexpr std::uint64_t kMaxTensor = std::uint64_t{1} << 36;
std::optional<std::vector<std::uint64_t>> shape_at(const json* dims, int pos) {
  if (!dims || pos < 0 || static_cast<std::size_t>(pos) >= dims->size()) return std::nullopt;
  const json& s = (*dims)[static_cast<std::size_t>(pos)];
  if (!s.is_array() || s.empty()) return std::nullopt;
  std::vector<std::uint64_t> out;
  std::uint64_t n = 1;
  for (const json& d : s) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0 ||
        d.get<std::int64_t>() > static_cast<std::int64_t>(kMaxTensor))
      return std::nullopt;
    out.push_back(d.get<std::uint64_t>());
    if (out.back() > 0 && n > kMaxTensor / out.back()) return std::nullopt;
    n *= out.back();
  }
  return out;
}

void add_params(TorchProfile::LayerTimes& l, const ParamOp& op, const json* dims) {
  if (auto w = shape_at(dims, op.weight)) {
    l.params += numel(*w);
    if (op.kind == ParamOp::Matrix && w->size() == 2)
      l.matrices.push_back({(*w)[1], (*w)[0]});  // [out, in] -> in x out
    if (op.kind == ParamOp::Table && w->size() == 2) l.matrices.push_back({(*w)[0], (*w)[1]});
    if (op.kind == ParamOp::Conv && w->size() >= 2) l.matrices.push_back({numel(*w) / (*w)[0], (*w)[0]});
  }
  if (auto b = shape_at(dims, op.bias)) l.params += numel(*b);
}

}  // namespace

TorchProfile parse_torch_profile(const json& trace) {
  std::string base;
  std::vector<Event> ev = read_events(trace, base);
  link_parents(ev);
  TorchProfile out;
  const int n = static_cast<int>(ev.size());

  // The layers' ranges.
  std::vector<int> layer_event;
  for (int i = 0; i < n; ++i)
    if (!ev[i].kernel && starts_with(ev[i].name, kLayerPrefix)) layer_event.push_back(i);
  out.layers_from = "record_function";
  if (layer_event.empty()) {
    // nn.Module ranges just inside the outermost ones (the model's children); the roots themselves
    // when they have no module inside.
    auto is_module = [&](int i) { return !ev[i].kernel && starts_with(ev[i].name, kModulePrefix); };
    std::vector<int> roots;
    for (int i = 0; i < n; ++i) {
      if (!is_module(i)) continue;
      int up = nearest(ev, ev[i].parent, is_module);
      if (up < 0) roots.push_back(i);
      else if (nearest(ev, ev[up].parent, is_module) < 0) layer_event.push_back(i);
    }
    if (layer_event.empty()) layer_event = roots;
    out.layers_from = "nn.Module";
  }
  if (layer_event.empty())
    throw ScenarioError("",
                        "no layers: the trace has neither record_function ranges named \"layer:NAME\" nor nn.Module "
                        "ranges (record with torch.profiler's with_stack=True, or wrap each layer in "
                        "record_function(\"layer:NAME\"))");
  std::stable_sort(layer_event.begin(), layer_event.end(), [&](int a, int b) { return ev[a].ts < ev[b].ts; });
  std::unordered_map<int, int> layer_of_event;  // event -> layer index
  std::map<std::string, int> seen;
  for (int i : layer_event) {
    const Event& e = ev[i];
    std::string name = e.name.substr(out.layers_from == "nn.Module" ? std::string(kModulePrefix).size()
                                                                    : std::string(kLayerPrefix).size());
    if (int inner = nearest(ev, e.parent, [&](int j) { return layer_of_event.count(j) > 0; }); inner >= 0)
      throw ScenarioError(ptr_join(base, e.index),
                          "layer \"" + name + "\" starts inside layer \"" +
                              out.layers[static_cast<std::size_t>(layer_of_event[inner])].name +
                              "\": layer ranges must not nest");
    if (int k = ++seen[name]; k > 1) {
      if (out.layers_from == "record_function")
        throw ScenarioError(ptr_join(base, e.index),
                            "layer \"" + name + "\" appears twice: record one step of one micro-batch");
      name += "." + std::to_string(k);  // a module called twice (shared weights): its calls apart
    }
    layer_of_event[i] = static_cast<int>(out.layers.size());
    TorchProfile::LayerTimes l;
    l.name = name;
    l.fwd_ps = to_ps(e.dur);
    out.layers.push_back(std::move(l));
  }

  // Forward operators inside each layer: their sequence numbers, and the parameters they take
  // (only the outermost parameter operator: aten::conv2d's inner aten::convolution takes the same).
  auto layer_around = [&](int i) {
    int l = nearest(ev, i, [&](int j) { return layer_of_event.count(j) > 0; });
    return l < 0 ? -1 : layer_of_event[l];
  };
  // Operators that do not record an autograd node carry the next node's sequence number, so one
  // number may sit on several forward operators: the node's own is the last of them to start.
  // Operators outside every layer (the loss) count too, so that their backward stays unattributed.
  std::vector<int> order;
  for (int i = 0; i < n; ++i)
    if (!ev[i].kernel) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ev[a].ts < ev[b].ts; });
  std::unordered_map<std::int64_t, int> layer_of_seq;  // -1: outside every layer
  std::vector<int> layer_of(static_cast<std::size_t>(n), -1);
  auto in_backward_or_step = [&](int i) {
    return nearest(ev, i, [&](int j) {
             return starts_with(ev[j].name, kBackwardPrefix) || starts_with(ev[j].name, kOptimizerPrefix);
           }) >= 0;
  };
  for (int i : order) {
    // Backward operators say so ("Fwd thread id" > 0) even where rounding to microseconds leaves
    // them outside their zero-length autograd function.
    if (ev[i].fwd_thread > 0 || in_backward_or_step(i)) continue;
    const int l = layer_around(i);
    layer_of[static_cast<std::size_t>(i)] = l;
    if (ev[i].seq >= 0) layer_of_seq[ev[i].seq] = l;
    if (l < 0) continue;
    if (const ParamOp* op = param_op(ev[i].name)) {
      const int up = nearest(ev, ev[i].parent, [&](int j) { return layer_of_event.count(j) || param_op(ev[j].name); });
      if (layer_of_event.count(up)) add_params(out.layers[static_cast<std::size_t>(l)], *op, ev[i].dims);
    }
  }

  // Backward: each autograd function goes to the layer of the forward operator with its sequence
  // number; operators inside it (and their kernels) follow it.
  // Where a kernel's time goes: layer l's forward (l), its backward (backward(l)), the optimizer.
  constexpr int None = -1, Optimizer = -2;
  auto backward = [](int l) { return -3 - l; };
  std::vector<int> bwd_of(static_cast<std::size_t>(n), None);  // layer of an event inside backward
  std::int64_t optimizer_ps = 0;
  bool has_optimizer = false;
  for (int i = 0; i < n; ++i) {
    if (ev[i].kernel) continue;
    if (starts_with(ev[i].name, kOptimizerPrefix) &&
        nearest(ev, ev[i].parent, [&](int j) { return starts_with(ev[j].name, kOptimizerPrefix); }) < 0) {
      optimizer_ps += to_ps(ev[i].dur);
      has_optimizer = true;
    }
    // The engine runs one function at a time per thread, so these do not nest (a 0-us function
    // at another's start only looks nested after the profiler's rounding): each one counts.
    if (!starts_with(ev[i].name, kBackwardPrefix)) continue;
    auto it = ev[i].seq >= 0 ? layer_of_seq.find(ev[i].seq) : layer_of_seq.end();
    if (it == layer_of_seq.end() || it->second < 0) {
      out.unattributed_bwd_ps += to_ps(ev[i].dur);
      continue;
    }
    bwd_of[static_cast<std::size_t>(i)] = it->second;
    auto& l = out.layers[static_cast<std::size_t>(it->second)];
    l.bwd_ps += to_ps(ev[i].dur);
    ++l.bwd_ops;
  }
  for (auto& [i, l] : layer_of_event) out.layers[static_cast<std::size_t>(l)].fwd_ops = 1;
  if (has_optimizer) out.optimizer_ps = optimizer_ps;

  // GPU traces: the kernels' own times replace the CPU ranges (which measure launches).
  std::unordered_map<std::int64_t, int> bucket_of_external;  // a launching operator's External id -> bucket
  for (int i = 0; i < n; ++i) {
    if (ev[i].kernel || ev[i].external < 0) continue;
    int b = None;
    if (int k = nearest(ev, i, [&](int j) { return bwd_of[static_cast<std::size_t>(j)] != None; }); k >= 0)
      b = backward(bwd_of[static_cast<std::size_t>(k)]);
    else if (layer_of[static_cast<std::size_t>(i)] >= 0) b = layer_of[static_cast<std::size_t>(i)];
    else if (nearest(ev, i, [&](int j) { return starts_with(ev[j].name, kOptimizerPrefix); }) >= 0) b = Optimizer;
    bucket_of_external.emplace(ev[i].external, b);
  }
  for (const Event& e : ev) out.gpu_kernels |= e.kernel;
  if (out.gpu_kernels) {
    for (auto& l : out.layers) l.fwd_ps = l.bwd_ps = 0, l.fwd_ops = l.bwd_ops = 0;
    out.unattributed_bwd_ps = 0;
    std::int64_t opt = 0;
    bool any_opt = false;
    for (const Event& e : ev) {
      if (!e.kernel) continue;
      auto it = bucket_of_external.find(e.external);
      const int b = it == bucket_of_external.end() ? None : it->second;
      if (b == Optimizer) opt += to_ps(e.dur), any_opt = true;
      else if (b >= 0)
        out.layers[static_cast<std::size_t>(b)].fwd_ps += to_ps(e.dur),
            ++out.layers[static_cast<std::size_t>(b)].fwd_ops;
      else if (b <= backward(0)) {
        auto& l = out.layers[static_cast<std::size_t>(-3 - b)];
        l.bwd_ps += to_ps(e.dur), ++l.bwd_ops;
      } else out.unattributed_bwd_ps += to_ps(e.dur);
    }
    out.optimizer_ps = any_opt ? opt : -1;
  }
  return out;
}

std::vector<Layer> torch_profile_layers(const TorchProfile& profile, DType grad_dtype) {
  std::vector<Layer> out;
  for (const auto& t : profile.layers) {
    Layer l;
    l.name = t.name;
    l.params = t.params;
    l.grad_bytes = t.params * dtype_bytes(grad_dtype);
    l.matrices = t.matrices;
    l.fwd_time_ps = t.fwd_ps;
    l.bwd_input_time_ps = t.bwd_ps / 2;  // as an explicit layer's bwd_time splits
    l.bwd_weight_time_ps = t.bwd_ps - t.bwd_ps / 2;
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace trainvp
