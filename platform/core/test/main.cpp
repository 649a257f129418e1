// Test entry: SystemC's library defines main() and calls sc_main, so the tests enter there.
#include <cstdlib>

#include <gtest/gtest.h>

extern "C" int sc_elab_and_sim(int argc, char* argv[]);

extern "C" int sc_main(int argc, char* argv[]) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_elab_and_sim(argc, argv);
}
