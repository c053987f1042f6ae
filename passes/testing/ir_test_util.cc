// The text-form helpers of pass tests.
#include "passes/testing/ir_test_util.h"

#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "gtest/gtest.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"

namespace tile_ir::passes::testing {

Module ParseOrDie(std::string_view kernel_text) {
  absl::StatusOr<Module> module = text::ParseModule(
      // The newest version, so that tests may use every operator; printing stamps the lowest
      // version that holds the module.
      absl::StrCat("ir_version ", kIrVersion, ";\nproducer \"test\" \"1\";\n\n",
                   std::string(kernel_text)),
      "test.tile");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : Module{};
}

std::string Canonical(std::string_view kernel_text) { return Print(ParseOrDie(kernel_text)); }

std::string PrintVerified(const Module& module) {
  absl::Status valid = Verify(module);
  EXPECT_TRUE(valid.ok()) << valid << "\n" << Print(module);
  return Print(module);
}

}  // namespace tile_ir::passes::testing
