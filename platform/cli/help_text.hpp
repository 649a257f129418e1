#pragma once
// The --help text of every trainvp command, in one place: `trainvp COMMAND --help` prints it,
// the man pages (man_page.hpp) and the completion's option lists (completion.hpp) are made from
// it, so none of them can drift from the others.
#include <string>
#include <vector>

namespace trainvp {

struct CommandHelp {
  const char* name;     // "run", ...; "trainvp" for the main help
  const char* summary;  // one line, for the man page's NAME
  const char* help;     // what --help prints
};

// The main help first, then every command.
const std::vector<CommandHelp>& command_helps();
// The help of a command ("trainvp" for the main help), nullptr for an unknown one.
const char* help_of(const std::string& command);

}  // namespace trainvp
