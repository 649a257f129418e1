// The AT helpers against each other through the base-protocol checker (transfers serialize at the
// memory's bandwidth and respond a latency later, with no violation), and the checker against
// deliberately broken initiators and targets, which it must flag.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "platform/core/test/at_modules.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/test/own_process.hpp"
#include "platform/core/tlm/protocol_checker.hpp"

namespace trainvp {
namespace test_protocol_checker {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

bool flagged(const ProtocolChecker& c, const std::string& what) {
  for (const std::string& v : c.violations())
    if (v.find(what) != std::string::npos) return true;
  return false;
}

TEST(AtMemoryThroughChecker, TransfersSerializeAtTheBandwidthAndRespondALatencyLater) {
  in_own_process([] {
    const double bytes_per_s = 100e9;
    const std::int64_t latency_ps = 50000;
    const std::uint32_t bytes = 4096;
    const int n = 5;
    test::InitiatorModule ini("ini");
    ProtocolChecker chk("chk");
    test::MemoryModule mem("mem", bytes_per_s, latency_ps);
    ini.out.bind(chk.in);
    chk.out.bind(mem.in);
    std::vector<std::int64_t> done;
    for (int k = 0; k < n; ++k)
      ini.at.transfer(0, k % 2 ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND, 0x1000u * k, bytes, nullptr,
                      [&](tlm::tlm_generic_payload& p) {
                        EXPECT_TRUE(p.is_response_ok());
                        done.push_back(now_ps());
                      });
    sc_core::sc_start();
    // Queued together: the k-th is through the data path after (k+1) transfer times.
    const std::int64_t transfer_ps = std::llround(bytes / bytes_per_s * 1e12);
    ASSERT_EQ(done.size(), static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) EXPECT_EQ(done[static_cast<std::size_t>(k)], (k + 1) * transfer_ps + latency_ps) << k;
    EXPECT_EQ(mem.mem.bytes_served(), std::uint64_t{bytes} * n);
    EXPECT_TRUE(chk.violations().empty()) << chk.violations().front();
    EXPECT_EQ(chk.begun(), static_cast<std::uint64_t>(n));
    EXPECT_EQ(chk.completed(), static_cast<std::uint64_t>(n));
    EXPECT_EQ(chk.in_progress(), 0u);
  });
}

// A target or an initiator whose every reply is scripted by the test.
struct ScriptedInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<ScriptedInitiator> out;
  std::function<tlm::tlm_sync_enum(tlm::tlm_generic_payload&, tlm::tlm_phase&)> reply = [](auto&, auto&) {
    return tlm::TLM_ACCEPTED;
  };
  explicit ScriptedInitiator(sc_core::sc_module_name n) : sc_module(n), out("out") {
    out.register_nb_transport_bw(this, &ScriptedInitiator::bw);
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time&) { return reply(p, ph); }
  tlm::tlm_sync_enum send(tlm::tlm_generic_payload& p, tlm::tlm_phase ph) {
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    return out->nb_transport_fw(p, ph, t);
  }
};

struct ScriptedTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<ScriptedTarget> in;
  std::function<tlm::tlm_sync_enum(tlm::tlm_generic_payload&, tlm::tlm_phase&)> reply = [](auto&, auto&) {
    return tlm::TLM_ACCEPTED;
  };
  explicit ScriptedTarget(sc_core::sc_module_name n) : sc_module(n), in("in") {
    in.register_nb_transport_fw(this, &ScriptedTarget::fw);
  }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time&) { return reply(p, ph); }
  tlm::tlm_sync_enum send(tlm::tlm_generic_payload& p, tlm::tlm_phase ph) {
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    return in->nb_transport_bw(p, ph, t);
  }
};

// Builds initiator -> checker -> target, elaborates, and runs `script` on them.
void scripted(const std::function<void(ScriptedInitiator&, ScriptedTarget&, ProtocolChecker&, PayloadPool&)>& script) {
  in_own_process([&] {
    ScriptedInitiator ini("ini");
    ProtocolChecker chk("chk");
    ScriptedTarget tgt("tgt");
    ini.out.bind(chk.in);
    chk.out.bind(tgt.in);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate: the sockets are bound from here on
    PayloadPool pool;
    script(ini, tgt, chk, pool);
  });
}

TEST(ProtocolChecker, AcceptsTheFullFourPhaseSequenceAndItsShortcuts) {
  scripted([](ScriptedInitiator& ini, ScriptedTarget& tgt, ProtocolChecker& chk, PayloadPool& pool) {
    tlm::tlm_generic_payload& a = *pool.acquire();
    ini.send(a, tlm::BEGIN_REQ);
    tgt.send(a, tlm::END_REQ);
    a.set_response_status(tlm::TLM_OK_RESPONSE);
    tgt.send(a, tlm::BEGIN_RESP);
    ini.send(a, tlm::END_RESP);
    tlm::tlm_generic_payload& b = *pool.acquire();  // accepted and answered at once
    tgt.reply = [](tlm::tlm_generic_payload& p, tlm::tlm_phase&) {
      p.set_response_status(tlm::TLM_OK_RESPONSE);
      return tlm::TLM_COMPLETED;
    };
    ini.send(b, tlm::BEGIN_REQ);
    tlm::tlm_generic_payload& c =
        *pool.acquire();  // END_REQ on the return path, BEGIN_RESP then END_RESP on its return
    tgt.reply = [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph) {
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    };
    ini.reply = [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph) {
      ph = tlm::END_RESP;
      return tlm::TLM_UPDATED;
    };
    ini.send(c, tlm::BEGIN_REQ);
    c.set_response_status(tlm::TLM_OK_RESPONSE);
    tgt.send(c, tlm::BEGIN_RESP);
    EXPECT_TRUE(chk.violations().empty()) << chk.violations().front();
    EXPECT_EQ(chk.completed(), 3u);
    EXPECT_EQ(chk.in_progress(), 0u);
  });
}

TEST(ProtocolChecker, FlagsASecondBeginReqBeforeEndReq) {
  scripted([](ScriptedInitiator& ini, ScriptedTarget&, ProtocolChecker& chk, PayloadPool& pool) {
    ini.send(*pool.acquire(), tlm::BEGIN_REQ);
    EXPECT_TRUE(chk.violations().empty());
    ini.send(*pool.acquire(), tlm::BEGIN_REQ);
    EXPECT_TRUE(flagged(chk, "request exclusion rule"));
  });
}

TEST(ProtocolChecker, FlagsASecondBeginRespBeforeEndResp) {
  scripted([](ScriptedInitiator& ini, ScriptedTarget& tgt, ProtocolChecker& chk, PayloadPool& pool) {
    tgt.reply = [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph) {
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    };
    tlm::tlm_generic_payload &a = *pool.acquire(), &b = *pool.acquire();
    ini.send(a, tlm::BEGIN_REQ);
    ini.send(b, tlm::BEGIN_REQ);
    a.set_response_status(tlm::TLM_OK_RESPONSE);
    b.set_response_status(tlm::TLM_OK_RESPONSE);
    tgt.send(a, tlm::BEGIN_RESP);  // the initiator holds it (TLM_ACCEPTED)
    EXPECT_TRUE(chk.violations().empty());
    tgt.send(b, tlm::BEGIN_RESP);
    EXPECT_TRUE(flagged(chk, "response exclusion rule"));
  });
}

TEST(ProtocolChecker, FlagsOutOfSequencePhases) {
  scripted([](ScriptedInitiator& ini, ScriptedTarget& tgt, ProtocolChecker& chk, PayloadPool& pool) {
    tlm::tlm_generic_payload& a = *pool.acquire();
    ini.send(a, tlm::BEGIN_REQ);
    ini.send(a, tlm::END_RESP);  // before any BEGIN_RESP
    EXPECT_TRUE(flagged(chk, "END_RESP after BEGIN_REQ"));
    tgt.send(*pool.acquire(), tlm::END_REQ);  // a transaction that never began
    EXPECT_TRUE(flagged(chk, "not in progress"));
    ini.send(*pool.acquire(), tlm::END_REQ);  // a target's phase on the forward path
    EXPECT_TRUE(flagged(chk, "on the forward path"));
  });
}

TEST(ProtocolChecker, FlagsAResponseOrCompletionWithoutStatusAndARequestWithOne) {
  scripted([](ScriptedInitiator& ini, ScriptedTarget& tgt, ProtocolChecker& chk, PayloadPool& pool) {
    tlm::tlm_generic_payload& a = *pool.acquire();
    ini.send(a, tlm::BEGIN_REQ);
    tgt.send(a, tlm::BEGIN_RESP);  // status still TLM_INCOMPLETE_RESPONSE
    EXPECT_TRUE(flagged(chk, "BEGIN_RESP without a response status"));
    tlm::tlm_generic_payload& b = *pool.acquire();
    b.set_response_status(tlm::TLM_OK_RESPONSE);
    ini.send(b, tlm::BEGIN_REQ);
    EXPECT_TRUE(flagged(chk, "response status other than TLM_INCOMPLETE_RESPONSE"));
    tgt.reply = [](tlm::tlm_generic_payload&, tlm::tlm_phase&) { return tlm::TLM_COMPLETED; };  // no status
    ini.send(*pool.acquire(), tlm::BEGIN_REQ);
    EXPECT_TRUE(flagged(chk, "TLM_COMPLETED for BEGIN_REQ without a response status"));
  });
}

TEST(ProtocolChecker, FlagsIllegalReturns) {
  scripted([](ScriptedInitiator& ini, ScriptedTarget& tgt, ProtocolChecker& chk, PayloadPool& pool) {
    tgt.reply = [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph) {
      ph = tlm::END_RESP;  // not a phase a target may return
      return tlm::TLM_UPDATED;
    };
    ini.send(*pool.acquire(), tlm::BEGIN_REQ);
    EXPECT_TRUE(flagged(chk, "TLM_UPDATED with phase END_RESP returned for BEGIN_REQ"));
    tgt.reply = [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph) {
      ph = tlm::END_REQ;  // a changed phase must come with TLM_UPDATED
      return tlm::TLM_ACCEPTED;
    };
    tlm::tlm_generic_payload no_mm;
    ini.send(no_mm, tlm::BEGIN_REQ);
    EXPECT_TRUE(flagged(chk, "phase changed on a TLM_ACCEPTED return"));
    EXPECT_TRUE(flagged(chk, "no memory manager"));
  });
}

}  // namespace test_protocol_checker
}  // namespace trainvp
