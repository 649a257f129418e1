#pragma once
// The grad_reduce CSR map (rtl/grad_reduce_csr.sv, docs/rtl.md): byte offsets on the APB port
// and the bits the driver and the device use.
#include <cstdint>

namespace trainvp {

namespace csr {
constexpr std::uint32_t kId = 0x000, kParams = 0x004, kCtrl = 0x010, kConfig = 0x014, kStatus = 0x018, kError = 0x01C,
                        kIrqEn = 0x028;
constexpr std::uint32_t len(std::uint32_t slot) { return 0x100 + 16 * slot; }
constexpr std::uint32_t base_lo(std::uint32_t slot) { return 0x104 + 16 * slot; }
constexpr std::uint32_t base_hi(std::uint32_t slot) { return 0x108 + 16 * slot; }
// CTRL
constexpr std::uint32_t kStart = 1, kAbort = 2, kDoneClr = 4;
// STATUS
constexpr std::uint32_t kRunning = 1, kDone = 2, kIdle = 4;
// IRQ_EN
constexpr std::uint32_t kIrqDone = 1;
constexpr std::uint32_t kIdValue = 0x47524431;  // "GRD1"
}  // namespace csr

}  // namespace trainvp
