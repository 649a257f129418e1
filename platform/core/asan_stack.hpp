#pragma once
// SystemC 2.3.4 tells AddressSanitizer about its coroutine switches, but announces the switch back
// to the main stack as a switch to an empty stack. After sc_start returns ASan therefore has no
// bounds for the main stack: an exception thrown there cannot clear the poison of the frames it
// unwinds ("ASan is ignoring requested __asan_handle_no_return"), and later calls that reuse
// those addresses draw false stack-buffer-overflow reports (scripts/sanitizers/README.md).
// Call this after sc_start returns: in an ASan build it gives ASan the current thread's real stack
// bounds again; in any other build it does nothing.
namespace trainvp {

void reannounce_stack_to_asan();

}  // namespace trainvp
