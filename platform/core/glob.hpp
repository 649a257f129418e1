#pragma once
// Shell-style name matching for targets: `*` (any run), `?` (one character), `[0-3]`/`[abc]`.
#include <string>

namespace trainvp {
bool glob_match(const std::string& pattern, const std::string& name);
}
