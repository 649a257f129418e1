#include "platform/core/build_info.hpp"

namespace trainvp {

const char* build_type() { return TRAINVP_BUILD_TYPE; }

}  // namespace trainvp
