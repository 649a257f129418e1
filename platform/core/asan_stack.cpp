#include "platform/core/asan_stack.hpp"

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace trainvp {

void reannounce_stack_to_asan() {
#if defined(__SANITIZE_ADDRESS__)
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* low = nullptr;
  std::size_t size = 0;
  const int rc = pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  if (rc != 0) return;
  // A "switch" to the stack we are on, with its real bounds; no fake stack is kept
  // (detect_stack_use_after_return is off: scripts/check-sanitizers).
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, low, size);
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
}

}  // namespace trainvp
