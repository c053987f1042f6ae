// What pass tests do with kernels written as text: parse one under the
// standard module header, print it canonically, check that a result verifies.
#ifndef PASSES_TESTING_IR_TEST_UTIL_H_
#define PASSES_TESTING_IR_TEST_UTIL_H_

#include <string>
#include <string_view>

#include "tile_ir/module.h"

namespace tile_ir::passes::testing {

// The module of `kernel_text` under "ir_version 1; producer "test" "1";". A
// parse error fails the test (the module is then empty).
Module ParseOrDie(std::string_view kernel_text);

// The canonical text of a kernel written in a test, for comparisons that do
// not depend on how the test spells it.
std::string Canonical(std::string_view kernel_text);

// The canonical text of `module`; a module that does not verify fails the
// test, with the error and the module in the message.
std::string PrintVerified(const Module& module);

}  // namespace tile_ir::passes::testing

#endif  // PASSES_TESTING_IR_TEST_UTIL_H_
