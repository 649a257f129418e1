#pragma once
// Man pages made from the --help texts (help_text.hpp), so that they cannot drift from them: the
// usage lines become the SYNOPSIS and the rest the DESCRIPTION, verbatim (roff no-fill); the page
// of describe adds `trainvp describe`'s own output as SCENARIO KEYS. The build writes every page
// with `trainvp help-man COMMAND` (platform/cli/CMakeLists.txt); tests/test_install.cpp reads
// them back and compares them with --help.
#include <string>

namespace trainvp {

// The file name: "trainvp.1" for the main page, "trainvp-run.1", ...
std::string man_page_file(const std::string& command);
// The page in roff. Throws std::invalid_argument for an unknown command.
std::string man_page(const std::string& command);

}  // namespace trainvp
