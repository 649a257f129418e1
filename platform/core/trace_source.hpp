#pragma once
// The one observer mechanism of the models, as ns-3's trace sources: a model announces each kind
// of event through a named TraceSource member, and listeners connect to it, directly or by name
// through the model's TraceSources table (whose names `trainvp describe` lists from ModelInfo).
// A source calls its listeners in the order they connected, as the per-class listener lists it
// replaces did, so runs are unchanged.
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace trainvp {

// What the table holds: the name, and the type of the listeners (checked on connect by name).
class TraceSourceBase {
 public:
  explicit TraceSourceBase(const char* name) : name_(name) {}
  TraceSourceBase(const TraceSourceBase&) = delete;
  TraceSourceBase& operator=(const TraceSourceBase&) = delete;
  virtual ~TraceSourceBase() = default;
  const char* name() const { return name_; }

 private:
  const char* name_;
};

template <class... Args>
class TraceSource : public TraceSourceBase {
 public:
  using Listener = std::function<void(Args...)>;
  using TraceSourceBase::TraceSourceBase;

  void connect(Listener l) { listeners_.push_back(std::move(l)); }
  bool empty() const { return listeners_.empty(); }
  // Tells every listener, in the order they connected.
  void operator()(Args... args) const {
    for (const Listener& l : listeners_) l(args...);
  }

 private:
  std::vector<Listener> listeners_;
};

// A model's sources by name: connect("phase_end", f) finds the source and checks that f takes
// what it announces.
class TraceSources {
 public:
  explicit TraceSources(std::vector<TraceSourceBase*> sources) : sources_(std::move(sources)) {}
  const std::vector<TraceSourceBase*>& all() const { return sources_; }

  // Throws std::invalid_argument for a name it does not have, or a listener of another type.
  template <class... Args>
  void connect(const std::string& name, std::function<void(Args...)> listener) const {
    for (TraceSourceBase* s : sources_)
      if (name == s->name()) {
        auto* typed = dynamic_cast<TraceSource<Args...>*>(s);
        if (!typed) throw std::invalid_argument("trace source " + name + ": the listener takes other arguments");
        typed->connect(std::move(listener));
        return;
      }
    throw std::invalid_argument("no trace source " + name);
  }

 private:
  std::vector<TraceSourceBase*> sources_;
};

}  // namespace trainvp
