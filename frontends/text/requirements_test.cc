// Shape requirements (`require EXPR;`) through every form: parsed at the top of a kernel's
// body, printed back, carried by the protobuf and JSON forms, gated on ir_version 3, and
// checked by the verifier to be launch-time integer facts.
#include <gtest/gtest.h>

#include <string>

#include "frontends/text/parser.h"
#include "tile_ir/printer.h"
#include "tile_ir/serialization.h"
#include "tile_ir/verifier.h"

namespace tile_ir::text {
namespace {

constexpr char kGrouped[] = R"(ir_version 3;
producer "p" "v";

kernel grouped<M: i32, K: i32>(X: f16[M, K], Y: f16[M, K], groups: i32)
    grid(bx: ceildiv(M, 64)) threads(128) {
  require K % 32 == 0;
  require groups > 0 && K / 32 % groups == 0;
  copy X[bx * 64 +: 64, 0 +: K] -> Y[bx * 64 +: 64, 0 +: K];
}
)";

TEST(ShapeRequirementsTest, ParseAndPrintBackInOrder) {
  absl::StatusOr<Module> module = ParseModule(kGrouped, "grouped.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  const KernelNode& kernel = *module->kernels[0];
  ASSERT_EQ(kernel.requirements.size(), 2u);
  EXPECT_EQ(Print(kernel.requirements[0].condition), "K % 32 == 0");
  EXPECT_EQ(kernel.requirements[0].loc.line, 6);
  EXPECT_TRUE(Verify(*module).ok()) << Verify(*module);
  EXPECT_EQ(Print(*module), kGrouped);
}

TEST(ShapeRequirementsTest, SurviveProtobufAndJsonWithLocations) {
  absl::StatusOr<Module> module = ParseModule(kGrouped, "grouped.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Module> from_proto =
      ReadModuleProto(WriteModuleProto(*module), "grouped.tilepb");
  ASSERT_TRUE(from_proto.ok()) << from_proto.status();
  absl::StatusOr<Module> from_json = ReadModuleJson(WriteModuleJson(*module), "grouped.json");
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  PrintOptions with_locs;
  with_locs.print_locs = true;
  EXPECT_EQ(Print(*from_proto, with_locs), Print(*module, with_locs));
  EXPECT_EQ(Print(*from_json, with_locs), Print(*module, with_locs));
  EXPECT_EQ(from_proto->kernels[0]->requirements[1].loc.line, 7);
}

TEST(ShapeRequirementsTest, AModuleWithRequirementsIsVersion3) {
  absl::StatusOr<Module> module = ParseModule(kGrouped, "grouped.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(RequiredIrVersion(*module), 3);
  Module without = *module;
  without.kernels[0] = without.kernels[0]->WithRequirements({});
  EXPECT_EQ(RequiredIrVersion(without), 1);
}

TEST(ShapeRequirementsTest, AStoreToABufferNamedRequireIsAStore) {
  absl::StatusOr<Module> module = ParseModule(R"(ir_version 1;
producer "p" "v";

kernel k(require: f32[4]) grid(bx: 1) threads(1) {
  require[0] = 1.0;
}
)",
                                              "t.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_TRUE(module->kernels[0]->requirements.empty());
}

std::string VerifierError(const std::string& requirement) {
  const std::string text = "ir_version 3;\nproducer \"p\" \"v\";\n\n"
                           "kernel k<K: i32>(A: f32[K], eps: f32, n: i32)\n"
                           "    grid(bx: 1) threads(32) {\n  require " +
                           requirement + ";\n  A[0] = 1.0;\n}\n";
  absl::StatusOr<Module> module = ParseModule(text, "t.tile");
  if (!module.ok()) return std::string(module.status().message());
  absl::Status status = Verify(*module);
  return status.ok() ? "" : std::string(status.message());
}

TEST(ShapeRequirementsTest, TheVerifierKeepsThemToLaunchIntegers) {
  EXPECT_EQ(VerifierError("K % 32 == 0 && n >= 1"), "");
  EXPECT_NE(VerifierError("K + 1").find("a shape requirement must be a bool scalar, not i32"),
            std::string::npos)
      << VerifierError("K + 1");
  EXPECT_NE(VerifierError("eps > 0.0").find("cannot use 'eps' (f32)"), std::string::npos)
      << VerifierError("eps > 0.0");
  EXPECT_NE(VerifierError("A[0] > 0.0").find("'A'"), std::string::npos) << VerifierError("A[0]");
  EXPECT_NE(VerifierError("bx == 0").find("'bx'"), std::string::npos) << VerifierError("bx == 0");
}

}  // namespace
}  // namespace tile_ir::text
