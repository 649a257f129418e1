#include "platform/core/self_exe.hpp"

#include <limits.h>
#include <unistd.h>

namespace trainvp {

std::string self_executable() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace trainvp
