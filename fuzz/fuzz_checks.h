// What the fuzz targets check beyond "no crash": a failed property aborts
// with a message, which libFuzzer reports as a crash with its input.
#ifndef FUZZ_FUZZ_CHECKS_H_
#define FUZZ_FUZZ_CHECKS_H_

#include <string_view>

#include "tile_ir/module.h"

namespace tile_ir::fuzz {

// Prints "fuzz check failed: <what>\n<detail>" to stderr and aborts.
[[noreturn]] void Fail(std::string_view what, std::string_view detail);

// For a module that verifies: its canonical text parses back, verifies and
// prints the same, and so do its .tilepb and JSON forms.
void CheckRoundTrips(const Module& module);

}  // namespace tile_ir::fuzz

#endif  // FUZZ_FUZZ_CHECKS_H_
