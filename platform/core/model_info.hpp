#pragma once
// What `trainvp describe` says about a model beyond its parameters: its TLM sockets (or, for a
// model that has none, the C++ interfaces it meets the others through) and the statistics it
// reports in results.json. Each model declares its own once, beside its class (a static
// `info()`), and writes those statistics in its `report()`.
#include <string>
#include <vector>

namespace trainvp {

struct SocketInfo {
  std::string name;      // the member, e.g. "dma"
  std::string protocol;  // TLM direction and protocol, e.g. "initiator, AT (multi-passthrough)"
  std::string connects;  // what is bound to it
};

struct StatInfo {
  std::string name;  // the key in each of the model's results.json entries
  std::string unit;  // "s", "bytes", "count", "fraction", ...
  std::string meaning;
  std::string when = {};  // empty: in every entry of the model; else the setting that makes it appear
};

// A named source of notifications (platform/core/trace_source.hpp) that listeners connect to.
struct TraceSourceInfo {
  std::string name;       // as its TraceSources table knows it, e.g. "phase_end"
  std::string arguments;  // what each notification carries
  std::string meaning;
};

struct ModelInfo {
  std::string name;  // as `trainvp describe model NAME` knows it
  std::string help;
  std::vector<std::string> schemas;  // the parameter schemas it is configured by (describe)
  // Where its entries are in results.json: an array's elements ("links[*]") or one object
  // ("health.detector"), dots stepping into objects. Empty: it writes no entry of its own.
  std::string results;
  std::vector<SocketInfo> sockets;
  std::vector<StatInfo> statistics;
  // A model without TLM sockets (a gate, an observer, a solver) meets the others through narrow
  // C++ interfaces instead: `protocol` names the interface and whether it serves or calls it.
  std::vector<SocketInfo> interfaces = {};
  // A model with no statistics of its own: where its figures are reported instead.
  std::string reported_by = {};
  std::vector<TraceSourceInfo> trace_sources = {};  // in the order of its TraceSources table
};

}  // namespace trainvp
