#pragma once
// Binds a unit test's socket pairs through a ProtocolChecker each, so every hop of the wiring is
// checked against the TLM-2.0 base protocol, and asserts that none saw a violation (and, for a run
// that drained, that every transaction it saw completed).
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platform/core/tlm/protocol_checker.hpp"

namespace trainvp::test {

class CheckedWiring {
 public:
  // from (an initiator socket) -> checker -> to (a target socket); call during elaboration.
  template <class Initiator, class Target>
  void bind(Initiator& from, Target& to) {
    checkers_.push_back(std::make_unique<ProtocolChecker>(("chk" + std::to_string(checkers_.size())).c_str()));
    from.bind(checkers_.back()->in);
    checkers_.back()->out.bind(to);
  }
  void expect_no_violations() const {
    for (const auto& c : checkers_)
      for (const std::string& v : c->violations()) ADD_FAILURE() << v;
  }
  std::size_t violations() const {
    std::size_t n = 0;
    for (const auto& c : checkers_) n += c->violations().size();
    return n;
  }
  void expect_all_completed() const {
    for (const auto& c : checkers_) EXPECT_EQ(c->in_progress(), 0u) << c->name();
  }
  const std::vector<std::unique_ptr<ProtocolChecker>>& checkers() const { return checkers_; }

 private:
  std::vector<std::unique_ptr<ProtocolChecker>> checkers_;
};

}  // namespace trainvp::test
