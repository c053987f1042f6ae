// Every construct the CPU target rejects gives an error naming the kernel, the
// node and its location; the hand-written thread-level kernels pass.
#include <string>

#include "absl/strings/match.h"
#include "frontends/text/parser.h"
#include "gtest/gtest.h"
#include "targets/cpu/cpu_codegen.h"
#include "targets/cpu/cpu_test_util.h"
#include "targets/cpu/thread_level_check.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::cpu {
namespace {

// A module with one kernel `k` whose body is `body` (starting on line 6).
Module Parse(const std::string& params, const std::string& body, int threads = 1) {
  std::string text = "ir_version 1;\nproducer \"test\" \"0\";\n\nkernel k" + params +
                     "\n    grid(bx: 1) threads(" + std::to_string(threads) + ") {\n" + body +
                     "}\n";
  absl::StatusOr<Module> module = text::ParseModule(text, "t.tile");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *module : Module{};
}

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& where,
                 const std::string& what) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), where + ": error: in kernel 'k': cpu target: "))
      << status;
  EXPECT_TRUE(absl::StrContains(status.message(), what)) << status;
}

const char kBuffers[] = "(A: f32[16], B: f32[16], C: f32[16, 16])";

struct Rejected {
  std::string name;
  std::string body;
  std::string where;
  std::string what;
};

class ThreadLevelTest : public ::testing::TestWithParam<Rejected> {};

TEST_P(ThreadLevelTest, RejectsWithLocation) {
  const Rejected& r = GetParam();
  absl::Status status = CheckCpuThreadLevel(Parse(kBuffers, r.body, 4));
  ExpectError(status, absl::StatusCode::kUnimplemented, r.where, r.what);
  // The code generator's entry points refuse it the same way.
  absl::StatusOr<std::string> ir = EmitLlvmIr(Parse(kBuffers, r.body, 4), false);
  EXPECT_FALSE(ir.ok());
}

INSTANTIATE_TEST_SUITE_P(
    Constructs, ThreadLevelTest,
    ::testing::Values(
        Rejected{"copy", "  copy A -> B;\n", "t.tile:6:3",
                 "tile operation 'copy' is not thread-level; lower the module"},
        Rejected{"gemm",
                 "  gemm C, C -> C {transpose_a=false, transpose_b=false, policy=square, "
                 "clear_accum=true};\n",
                 "t.tile:6:3", "tile operation 'gemm' is not thread-level"},
        Rejected{"fill", "  fill A = 0.0;\n", "t.tile:6:3", "tile operation 'fill'"},
        Rejected{"reduce", "  reduce sum C -> A {dim=1, clear=true};\n", "t.tile:6:3",
                 "tile operation 'reduce'"},
        Rejected{"atomic_add", "  atomic_add A -> B;\n", "t.tile:6:3",
                 "tile operation 'atomic_add'"},
        Rejected{"cumsum", "  cumsum A -> B {dim=0, reverse=false};\n", "t.tile:6:3",
                 "tile operation 'cumsum'"},
        Rejected{"parallel", "  for i in 0 +: 16 parallel {\n    A[i] = B[i];\n  }\n", "t.tile:6:3",
                 "the parallel loop over 'i' is not thread-level"},
        Rejected{"pipelined",
                 "  for i in 0 +: 16 pipelined(num_stages=2) {\n    A[i] = B[i];\n  }\n",
                 "t.tile:6:3", "the pipelined loop over 'i' is not thread-level"},
        Rejected{"fragment", "  alloc F: fragment f32[16];\n", "t.tile:6:3",
                 "fragment buffer 'F' is not thread-level"},
        Rejected{"barrier",
                 "  for tx in 0 +: 4 thread_bound(x) {\n    A[tx] = 1.0;\n    barrier(block);\n"
                 "  }\n",
                 "t.tile:8:5",
                 "a barrier inside a thread_bound loop needs thread emulation, which the CPU "
                 "target does not implement"},
        Rejected{"local_across_threads",
                 "  alloc acc: local f32[1];\n  acc[0] = 0.0;\n"
                 "  for tx in 0 +: 4 thread_bound(x) {\n    acc[0] = acc[0] + A[tx];\n"
                 "    B[tx] = acc[0];\n  }\n",
                 "t.tile:6:3", "local buffer 'acc' is declared outside a thread_bound loop"}),
    [](const ::testing::TestParamInfo<Rejected>& info) { return info.param.name; });

TEST(ThreadLevelTest, AcceptsThreadLevelKernels) {
  for (const char* file : {"elementwise.tile", "vector_access.tile", "gemm.tile", "reduction.tile",
                           "shared_local.tile", "conversions.tile", "int_division.tile",
                           "math.tile", "atomics.tile", "f32_loop_vectorized.tile"}) {
    absl::StatusOr<Module> module = test_util::ParseTestdata(file);
    ASSERT_TRUE(module.ok()) << module.status();
    EXPECT_TRUE(CheckCpuThreadLevel(*module).ok()) << file << ": " << CheckCpuThreadLevel(*module);
  }
  // A barrier outside thread loops, and a local used by one thread loop only.
  Module module = Parse(kBuffers,
                        "  alloc acc: local f32[1];\n  barrier(block);\n"
                        "  for tx in 0 +: 4 thread_bound(x) {\n    acc[0] = A[tx];\n"
                        "    B[tx] = acc[0];\n  }\n",
                        4);
  EXPECT_TRUE(CheckCpuThreadLevel(module).ok()) << CheckCpuThreadLevel(module);
}

TEST(CodegenErrorTest, NonConstantAllocationSize) {
  Module module = Parse("<N: i32>(A: f32[N])", "  alloc acc: local f32[N];\n  acc[0] = A[0];\n");
  ExpectError(EmitLlvmIr(module, false).status(), absl::StatusCode::kUnimplemented, "t.tile:6:3",
              "alloc 'acc' has a shape or strides that are not constant");
}

TEST(CodegenErrorTest, FrameLimit) {
  Module local = Parse(kBuffers, "  alloc big: local f32[300000];\n  big[0] = A[0];\n");
  ExpectError(EmitLlvmIr(local, false).status(), absl::StatusCode::kUnimplemented, "t.tile:6:3",
              "alloc 'big' (1200000 bytes) does not fit the CPU target's 1048576-byte block frame");
  Module pooled = Parse(kBuffers,
                        "  alloc s: shared f32[16] offset(0);\n"
                        "  alloc t: shared f32[16] offset(1048576);\n  t[0] = A[0];\n");
  ExpectError(EmitLlvmIr(pooled, false).status(), absl::StatusCode::kUnimplemented, "t.tile:7:3",
              "alloc 't' (64 bytes at shared offset 1048576) does not fit");
}

TEST(CodegenErrorTest, IntrinsicWithoutCpuLowering) {
  IntrinsicInfo shuffle;
  shuffle.name = "test.shuffle";
  shuffle.description = "a target intrinsic of another target";
  RegisterIntrinsic(shuffle);
  Module module = Parse(kBuffers, "  A[0] = test.shuffle(B[1]);\n");
  ExpectError(EmitLlvmIr(module, false).status(), absl::StatusCode::kUnimplemented, "t.tile:6:3",
              "intrinsic 'test.shuffle' has no CPU lowering");
}

TEST(CodegenErrorTest, AtomicAddOnBool) {
  Module module = Parse("(F: bool[4])", "  eval atomic_add_at(F[0], true);\n");
  ExpectError(EmitLlvmIr(module, false).status(), absl::StatusCode::kUnimplemented, "t.tile:6:3",
              "atomic_add_at of bool to an element of 'F' (bool) has no meaning");
}

TEST(CodegenErrorTest, InvalidModulesAndOptions) {
  Module mismatched = Parse(kBuffers, "  A[0] = B[0] + 1;\n");
  absl::Status status = EmitLlvmIr(mismatched, false).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "different types")) << status;

  Module fine = Parse(kBuffers, "  A[0] = B[0];\n");
  CpuCompileOptions options;
  options.opt_level = 7;
  status = EmitLlvmIr(fine, true, options).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "opt_level must be 0 to 3, not 7")) << status;

  auto code = test_util::CompileLowered(fine, "k");
  EXPECT_TRUE(code.ok()) << code.status();
  status = test_util::CompileLowered(fine, "missing").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(status.message(), "no kernel named 'missing'")) << status;
}

}  // namespace
}  // namespace tile_ir::cpu
