// The trainvp executable. main() silences SystemC's banner (it would corrupt stdout, which
// carries results summaries and --json output) and enters through SystemC's own entry point.
#include <cstdlib>

#include "platform/cli/cli.hpp"

extern "C" int sc_elab_and_sim(int argc, char* argv[]);

extern "C" int sc_main(int argc, char* argv[]) { return trainvp::cli_main(argc, argv); }

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_elab_and_sim(argc, argv);
}
