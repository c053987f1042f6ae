// Metal's atomics are 32-bit (atomic_int, atomic_uint) and float: an atomic update of another
// element type is refused naming it, not emitted as a call the device library lacks.
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "targets/metal/metal_codegen.h"

namespace tile_ir::metal {
namespace {

absl::StatusOr<std::string> Emit(const std::string& element) {
  const std::string text = "ir_version 7;\nproducer \"t\" \"1\";\n\nkernel k(T: " + element +
                           "[1], V: " + element +
                           "[32])\n    grid(bx: 1) threads(32) {\n"
                           "  for tx in 0 +: 32 thread_bound(x) {\n"
                           "    eval atomic_max_at(T[0], V[tx]);\n  }\n}\n";
  absl::StatusOr<Module> module = text::ParseModule(text, "k.tile");
  if (!module.ok()) return module.status();
  return EmitMetalSource(*module);
}

TEST(MetalAtomicsTest, ThirtyTwoBitUnsignedIsAtomicUint) {
  absl::StatusOr<std::string> source = Emit("u32");
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_TRUE(absl::StrContains(*source, "tl::atomic_max(&T[0], V[tx]);")) << *source;
}

TEST(MetalAtomicsTest, SixtyFourAndSixteenBitsAreRefusedByName) {
  for (const char* element : {"u64", "i64", "u16"}) {
    absl::StatusOr<std::string> source = Emit(element);
    ASSERT_FALSE(source.ok()) << element;
    EXPECT_TRUE(absl::StrContains(source.status().message(),
                                  absl::StrCat("atomic_max_at on ", element,
                                               " has no Metal form (no atomic update of that "
                                               "type)")))
        << source.status();
  }
}

}  // namespace
}  // namespace tile_ir::metal
