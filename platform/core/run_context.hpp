#pragma once
// What every model of one run shares: the timeline, the event counter, seeded randomness and
// the progress hook. One per simulation; models hold a reference.
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "platform/core/calendar.hpp"
#include "platform/core/hash.hpp"
#include "platform/core/trace.hpp"

namespace trainvp {

// A random stream named `name` under `seed`: independent streams per name, so that adding one does
// not change the draws of the others (determinism across scenario edits as well as across runs).
// The basis is FNV's offset basis a digit short (1469598103934665603, not ...6037): every named
// stream's draws depend on it, so it stays.
inline std::mt19937_64 seeded_stream(std::uint64_t seed, const std::string& name) {
  return std::mt19937_64(fnv1a64(name, 1469598103934665603ull ^ seed));
}

struct RunContext {
  explicit RunContext(std::uint64_t seed_, bool trace_enabled) : seed(seed_), trace(trace_enabled) {}

  std::uint64_t seed;
  TraceRecorder trace;
  std::uint64_t events = 0;                             // model-level events (phases, TLM phases, ...)
  std::function<void(int iteration)> on_iteration_end;  // progress reporting; may be empty

  // An independent random stream per named model (seeded by the scenario's seed).
  std::mt19937_64 rng_for(const std::string& model_name) const { return seeded_stream(seed, model_name); }

  // The run's shared timed-notification queue (calendar.hpp), made when a model first asks for it:
  // during elaboration, as it spawns a process.
  EventCalendar& calendar() {
    if (!calendar_) calendar_ = std::make_unique<EventCalendar>();
    return *calendar_;
  }

 private:
  std::unique_ptr<EventCalendar> calendar_;
};

}  // namespace trainvp
