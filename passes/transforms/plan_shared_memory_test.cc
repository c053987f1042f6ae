#include "passes/transforms/plan_shared_memory.h"

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "gtest/gtest.h"
#include "passes/pass/target_info.h"
#include "passes/testing/fake_targets.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/printer.h"
#include "tile_ir/serialization.h"
#include "tile_ir/verifier.h"

namespace tile_ir::passes {
namespace {

constexpr char kHeader[] = "ir_version 1;\nproducer \"test\" \"1\";\n\n";

absl::StatusOr<Module> Parse(std::string_view kernel_text) {
  return text::ParseModule(absl::StrCat(kHeader, std::string(kernel_text)), "test.tile");
}

Module ParseOrDie(std::string_view kernel_text) {
  absl::StatusOr<Module> module = Parse(kernel_text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : Module{};
}

std::string Canonical(std::string_view kernel_text) { return Print(ParseOrDie(kernel_text)); }

std::string Planned(std::string_view kernel_text, int64_t* total = nullptr,
                    const TargetInfo* target = nullptr) {
  Module module = ParseOrDie(kernel_text);
  absl::StatusOr<SharedMemoryPlan> plan = PlanSharedMemory(module.kernels[0], target);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return "";
  if (total != nullptr) *total = plan->total_bytes;
  module.kernels[0] = plan->kernel;
  absl::Status valid = Verify(module);
  EXPECT_TRUE(valid.ok()) << valid << "\n" << Print(module);
  return Print(module);
}

// test_gpu.tile_mm(A[first], B[first]): a matrix instruction reading its arguments as core
// matrices, as a target's gemm registers it.
void RegisterTileMm() {
  static const bool registered = [] {
    IntrinsicInfo mm;
    mm.name = "test_gpu.tile_mm";
    mm.num_args = 2;
    mm.result = IntrinsicInfo::ResultType::kVoid;
    mm.pure = false;
    RegisterIntrinsic(mm);
    return true;
  }();
  (void)registered;
}

TEST(PlanSharedMemoryTest, BuffersTheTargetAsksToAlignStartOnItsAlignment) {
  // P (4000 bytes) is placed first, the largest; test-gpu asks for the operand tiles of its
  // matrix instruction on 1024 bytes, so they start at 4096 and 6144, where other buffers would
  // start at 4000 and 6048.
  RegisterTileMm();
  int64_t total = 0;
  EXPECT_EQ(Planned(R"(
kernel k(O: f32[4]) grid(bx: 1) threads(1) {
  alloc P: shared f32[1000];
  alloc A_s: shared f16[16, 64];
  alloc B_s: shared f16[16, 64];
  P[0] = 1.0;
  eval test_gpu.tile_mm(A_s[0, 0], B_s[0, 0]);
  O[0] = P[0];
})",
                    &total, testing::FindFakeTarget("test-gpu")->get()),
            Canonical(R"(
kernel k(O: f32[4]) grid(bx: 1) threads(1) {
  alloc P: shared f32[1000] offset(0);
  alloc A_s: shared f16[16, 64] offset(4096);
  alloc B_s: shared f16[16, 64] offset(6144);
  P[0] = 1.0;
  eval test_gpu.tile_mm(A_s[0, 0], B_s[0, 0]);
  O[0] = P[0];
})"));
  EXPECT_EQ(total, 8192);
}

TEST(PlanSharedMemoryTest, WithoutATargetNothingAsksForMoreThan16Bytes) {
  RegisterTileMm();
  EXPECT_EQ(Planned(R"(
kernel k(O: f32[4]) grid(bx: 1) threads(1) {
  alloc P: shared f32[1000];
  alloc A_s: shared f16[16, 64];
  P[0] = 1.0;
  eval test_gpu.tile_mm(A_s[0, 0], A_s[0, 0]);
  O[0] = P[0];
})"),
            Canonical(R"(
kernel k(O: f32[4]) grid(bx: 1) threads(1) {
  alloc P: shared f32[1000] offset(0);
  alloc A_s: shared f16[16, 64] offset(4000);
  P[0] = 1.0;
  eval test_gpu.tile_mm(A_s[0, 0], A_s[0, 0]);
  O[0] = P[0];
})"));
}

TEST(PlanSharedMemoryTest, ReusesTheBytesOfBuffersThatAreDead) {
  int64_t total = 0;
  EXPECT_EQ(Planned(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(1) {
  alloc X: shared f32[64];
  alloc Y: shared f16[10];
  alloc Z: shared f32[32];
  X[0] = A[0];
  O[0] = X[0];
  Y[0] = 1.0_f16;
  Z[0] = A[1];
  O[1] = Z[0] + cast<f32>(Y[0]);
})",
                    &total),
            Canonical(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(1) {
  alloc X: shared f32[64] offset(0);
  alloc Y: shared f16[10] offset(128);
  alloc Z: shared f32[32] offset(0);
  X[0] = A[0];
  O[0] = X[0];
  Y[0] = 1.0_f16;
  Z[0] = A[1];
  O[1] = Z[0] + cast<f32>(Y[0]);
})"));
  EXPECT_EQ(total, 256);
}

TEST(PlanSharedMemoryTest, ALoopKeepsWhatItUsesAliveThroughout) {
  int64_t total = 0;
  EXPECT_EQ(Planned(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(1) {
  alloc X: shared f32[16];
  alloc Y: shared f32[16];
  for i in 0 +: 4 serial {
    X[i] = A[i];
    O[i] = X[i];
    Y[i] = A[i];
    alloc T: shared f32[8];
    T[0] = Y[i];
    O[i] = T[0];
  }
})",
                    &total),
            Canonical(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(1) {
  alloc X: shared f32[16] offset(0);
  alloc Y: shared f32[16] offset(64);
  for i in 0 +: 4 serial {
    X[i] = A[i];
    O[i] = X[i];
    Y[i] = A[i];
    alloc T: shared f32[8] offset(128);
    T[0] = Y[i];
    O[i] = T[0];
  }
})"));
  EXPECT_EQ(total, 160);
}

TEST(PlanSharedMemoryTest, TheArmsOfARoleSplitKeepWhatTheyUseAliveThroughout) {
  // The arms run concurrently: Y, used after X's last use in program order, must not take
  // X's bytes, which the other arm may still be using.
  testing::RegisterFakeIntrinsics();
  int64_t total = 0;
  EXPECT_EQ(Planned(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(1) {
  alloc X: shared f32[16];
  alloc Y: shared f32[16];
  if (test_gpu.first_role()) {
    X[0] = A[0];
  } else {
    Y[0] = A[1];
    O[0] = Y[0];
  }
})",
                    &total),
            Canonical(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(1) {
  alloc X: shared f32[16] offset(0);
  alloc Y: shared f32[16] offset(64);
  if (test_gpu.first_role()) {
    X[0] = A[0];
  } else {
    Y[0] = A[1];
    O[0] = Y[0];
  }
})"));
  EXPECT_EQ(total, 128);
}

TEST(PlanSharedMemoryTest, SizesFollowStridesAndPackedTypes) {
  int64_t total = 0;
  std::string out = Planned(R"(
kernel k(A: f32[64]) grid(bx: 1) threads(1) {
  alloc S: shared f32[4, 4] strides[5, 1];
  alloc P: shared i4[3];
  S[0, 0] = A[0];
  P[0] = 1_i4;
  A[1] = S[0, 0];
})",
                            &total);
  EXPECT_NE(out.find("alloc S: shared f32[4, 4] strides[5, 1] offset(0);"), std::string::npos);
  EXPECT_NE(out.find("alloc P: shared i4[3] offset(80);"), std::string::npos) << out;
  EXPECT_EQ(total, 82);  // 19 floats, aligned up to 80, then 2 bytes of i4
}

TEST(PlanSharedMemoryTest, ReportsSymbolicShapesAndTheTargetsLimit) {
  Module symbolic = ParseOrDie(R"(
kernel k<N: i32>(A: f32[N]) grid(bx: 1) threads(1) {
  alloc S: shared f32[N];
  S[0] = A[0];
})");
  absl::StatusOr<SharedMemoryPlan> plan = PlanSharedMemory(symbolic.kernels[0], nullptr);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("'S' needs a constant shape"), std::string::npos);

  testing::RegisterFakeIntrinsics();
  Module big = ParseOrDie(R"(
kernel big(A: f32[64]) grid(bx: 1) threads(1) {
  alloc S: shared f32[16384];
  S[0] = A[0];
})");
  absl::StatusOr<SharedMemoryPlan> changed =
      PlanSharedMemory(big.kernels[0], testing::FindFakeTarget("test-gpu")->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().message(),
            "in kernel 'big': plan-shared-memory: the kernel needs 65536 bytes of shared "
            "memory, more than the 49152 bytes target 'test-gpu' allows");
}

constexpr char kWithOffsets[] = R"(
kernel k(A: f32[64]) grid(bx: 1) threads(1) {
  alloc S: shared f32[16] offset(32);
  alloc L: local f32[4];
  S[0] = A[0];
})";

TEST(SharedOffsetTest, RoundTripsThroughTextProtoAndJson) {
  Module module = ParseOrDie(kWithOffsets);
  std::string text = Print(module);
  EXPECT_NE(text.find("alloc S: shared f32[16] offset(32);"), std::string::npos) << text;
  EXPECT_NE(text.find("alloc L: local f32[4];"), std::string::npos) << text;
  EXPECT_EQ(Canonical(text.substr(sizeof(kHeader) - 1)), text);
  absl::StatusOr<Module> from_proto = ReadModuleProto(WriteModuleProto(module), "test.tilepb");
  ASSERT_TRUE(from_proto.ok()) << from_proto.status();
  EXPECT_EQ(Print(*from_proto), text);
  absl::StatusOr<Module> from_json = ReadModuleJson(WriteModuleJson(module), "test.json");
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  EXPECT_EQ(Print(*from_json), text);
}

TEST(SharedOffsetTest, TheVerifierChecksOffsets) {
  EXPECT_TRUE(Verify(ParseOrDie(kWithOffsets)).ok());
  for (const char* bad : {
           "alloc L: local f32[4] offset(0);\n  L[0] = 1.0;",
           "alloc S: shared f32[4] offset(-16);\n  S[0] = 1.0;",
           "alloc S: shared f32[4] offset(6);\n  S[0] = 1.0;",
       }) {
    Module module =
        ParseOrDie(absl::StrCat("kernel k(A: f32[64]) grid(bx: 1) threads(1) {\n  ", bad, "\n}"));
    EXPECT_FALSE(Verify(module).ok()) << bad;
  }
}

}  // namespace
}  // namespace tile_ir::passes
