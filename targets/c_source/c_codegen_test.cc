// The vendor-neutral emitter under a toy dialect: every vendor spelling comes
// from the Dialect, and errors name the dialect's target and language.
#include "targets/c_source/c_codegen.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "targets/c_source/library_call.h"

namespace tile_ir::c_source {
namespace {

class ToyDialect final : public Dialect {
 public:
  std::string target() const override { return "toy"; }
  std::string language() const override { return "Toy"; }
  std::string lowering() const override { return "LowerForToy"; }
  int64_t max_threads_per_block() const override { return 64; }
  const std::vector<std::string>& reserved_words() const override {
    static const auto* words = new std::vector<std::string>{"tid", "bid"};
    return *words;
  }
  absl::Status CheckType(ScalarType type) const override {
    if (type == ScalarType::kF64) return absl::UnimplementedError("f64 has no Toy form");
    return absl::OkStatus();
  }
  std::string ValueType(ScalarType type) const override {
    return absl::StrCat("t_", DataType(type).ToString());
  }
  std::string WidenToF32(ScalarType) const override { return "widen"; }
  std::string NarrowFrom(ScalarType, ScalarType) const override { return "narrow"; }
  std::string KernelOpen(const KernelNode&, const std::string& symbol, int64_t threads,
                         const std::string& params) const override {
    return absl::StrCat("toy_kernel<", threads, "> ", symbol, "(", params, ") {");
  }
  std::string BufferParam(ScalarType element, const std::string& name, int index) const override {
    return absl::StrCat("buf<", MemoryType(element), ", ", index, "> ", name);
  }
  std::string ScalarParam(ScalarType type, const std::string& name, int index) const override {
    return absl::StrCat("arg<", ValueType(type), ", ", index, "> ", name);
  }
  std::vector<std::string> SharedPoolDecl(int64_t bytes) const override {
    return {absl::StrCat("pool smem(", bytes, ");")};
  }
  std::string SharedBufferDecl(const std::string& type, const std::string& name,
                               int64_t offset) const override {
    return absl::StrCat("view<", type, "> ", name, " = smem.at(", offset, ");");
  }
  std::string BlockIndex(int axis) const override { return absl::StrCat("bid(", axis, ")"); }
  std::string ThreadIndex(int axis) const override { return absl::StrCat("tid(", axis, ")"); }
  std::string Barrier(BarrierScope scope) const override { return "sync();"; }
  int max_vector_move_bytes() const override { return 0; }
  std::optional<std::string> MathFunction(const std::string& name, ScalarType type) const override {
    if (type != ScalarType::kF32) return std::nullopt;
    return "toy_" + name;
  }
  std::optional<CExpr> EmitTargetCall(const Call& node, CallContext& context) const override {
    if (!absl::StartsWith(node.name, "toy.")) return std::nullopt;
    return EmitRegisteredLibraryCall(node, "toy.", *this, context);
  }
};

absl::StatusOr<std::string> Emit(const std::string& kernel, int ir_version = 1) {
  absl::StatusOr<Module> module = text::ParseModule(
      absl::StrCat("ir_version ", ir_version, ";\nproducer \"test\" \"1\";\n\n", kernel),
      "toy.tile");
  if (!module.ok()) return module.status();
  return EmitModuleSource(*module, ToyDialect(), "// toy\n");
}

TEST(CCodegenTest, EverySpellingComesFromTheDialect) {
  ASSERT_TRUE(RegisterLibraryIntrinsic("toy.", "toy.poke", 3, 1, "test").ok());
  absl::StatusOr<std::string> source = Emit(R"(kernel k<N: i32>(X: f32[64], s: f32)
    grid(bx: N) threads(64) {
  alloc S: shared f32[64] offset(0);
  for tid in 0 +: 64 thread_bound(x) {
    S[tid] = exp(X[tid] * s);
    barrier(block);
    X[tid] = S[63 - tid] + cast<f32>(bx);
    eval toy.poke(X[tid], s, 4);
  }
}
)");
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ(*source, R"(// toy

toy_kernel<64> k(buf<t_f32, 0> X, arg<t_f32, 1> s, arg<t_i32, 2> N) {
  pool smem(256);
  const t_i32 bx = bid(0);
  view<t_f32> S = smem.at(0);
  const t_i32 tid_1 = tid(0);
  S[tid_1] = toy_exp(X[tid_1] * s);
  sync();
  X[tid_1] = S[63 - tid_1] + static_cast<t_f32>(bx);
  tl::poke<4>(&X[tid_1], s);
}
)");
}

// C's '^' with every operand that is itself an operation parenthesized, narrow results
// wrapped back to their type, and vector lanes one at a time.
TEST(CCodegenTest, XorIsCsCaretWithParenthesizedOperands) {
  absl::StatusOr<std::string> source =
      Emit(R"(kernel k(X: i32[64], B: u8[64], L: i32[64]) grid(bx: 1) threads(16) {
  for tid in 0 +: 16 thread_bound(x) {
    X[tid] = (X[tid] ^ tid % 8) * 8 + (tid ^ 3);
    B[tid] = B[tid] ^ 255_u8;
    L[ramp(tid * 4, 1, 4)] = L[ramp(tid * 4, 1, 4)] ^ broadcast(tid, 4);
  }
}
)",
           2);
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ(*source, R"(// toy

toy_kernel<16> k(buf<t_i32, 0> X, buf<t_u8, 1> B, buf<t_i32, 2> L) {
  const t_i32 tid_1 = tid(0);
  X[tid_1] = (X[tid_1] ^ (tid_1 % 8)) * 8 + (tid_1 ^ 3);
  B[tid_1] = static_cast<t_u8>(B[tid_1] ^ static_cast<t_u8>(255));
  {
    __align__(16) t_i32 values[4];
    #pragma unroll
    for (int lane = 0; lane < 4; ++lane) {
      values[lane] = L[tid_1 * 4 + lane] ^ tid_1;
    }
    #pragma unroll
    for (int lane = 0; lane < 4; ++lane) {
      L[tid_1 * 4 + lane] = values[lane];
    }
  }
}
)");
}

// '&', '|' and shifts as C's, operands parenthesized as for '^'; the shift amount modulo the
// width (a constant one reduced), narrow results wrapped; reinterpret through the dialect's bit
// cast; atomic max and min through the device library, or in place on a thread's own array.
TEST(CCodegenTest, BitOperationsReinterpretAndAtomicExtremes) {
  absl::StatusOr<std::string> source = Emit(R"(kernel k(X: i32[64], B: u8[64], F: f32[64], M: f32[2])
    grid(bx: 1) threads(16) {
  alloc acc: local i32[1];
  for tid in 0 +: 16 thread_bound(x) {
    X[tid] = (X[tid] >> tid) & 255 | X[tid] << 35;
    B[tid] = B[tid] << 4_u8 | B[tid] >> cast<u8>(tid);
    X[tid + 16] = reinterpret<i32>(F[tid]) ^ -1;
    eval atomic_max_at(M[0], F[tid]);
    eval atomic_min_at(M[1], reinterpret<f32>(X[tid]));
    eval atomic_max_at(acc[0], X[tid]);
  }
}
)",
                                            5);
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ(*source, R"(// toy

toy_kernel<16> k(buf<t_i32, 0> X, buf<t_u8, 1> B, buf<t_f32, 2> F, buf<t_f32, 3> M) {
  t_i32 acc[1];
  const t_i32 tid_1 = tid(0);
  X[tid_1] = ((X[tid_1] >> (tid_1 & 31)) & 255) | (X[tid_1] << 3);
  B[tid_1] = static_cast<t_u8>(static_cast<t_u8>(B[tid_1] << static_cast<t_u8>(4)) | static_cast<t_u8>(B[tid_1] >> (static_cast<t_u8>(tid_1) & 7)));
  X[tid_1 + 16] = tl::bit_cast<t_i32>(F[tid_1]) ^ -1;
  tl::atomic_max(&M[0], F[tid_1]);
  tl::atomic_min(&M[1], tl::bit_cast<t_f32>(X[tid_1]));
  acc[0] = tl::max(acc[0], X[tid_1]);
}
)");
  absl::StatusOr<std::string> packed = Emit(R"(kernel k(Q: i4[64]) grid(bx: 1) threads(16) {
  for tid in 0 +: 16 thread_bound(x) {
    eval atomic_min_at(Q[tid], 1_i4);
  }
}
)",
                                            5);
  ASSERT_FALSE(packed.ok());
  EXPECT_TRUE(absl::StrContains(
      packed.status().message(),
      "atomic_min_at on i4 has no Toy form (no atomic update of that type)"))
      << packed.status();
}

TEST(CCodegenTest, ErrorsNameTheTargetAndItsLimits) {
  absl::StatusOr<std::string> wide = Emit(R"(kernel k(X: f32[1]) grid(bx: 1) threads(128) {
  for tx in 0 +: 128 thread_bound(x) {
    X[0] = 1.0;
  }
}
)");
  ASSERT_FALSE(wide.ok());
  EXPECT_TRUE(
      absl::StrContains(wide.status().message(), "toy target: a block of 128 threads (at most 64"))
      << wide.status();
  absl::StatusOr<std::string> f64 = Emit(R"(kernel k(X: f64[1]) grid(bx: 1) threads(1) {
  X[0] = 1.0_f64;
}
)");
  ASSERT_FALSE(f64.ok());
  EXPECT_TRUE(absl::StrContains(f64.status().message(), "toy target: f64 has no Toy form"))
      << f64.status();
  absl::StatusOr<std::string> math = Emit(R"(kernel k(X: f16[1]) grid(bx: 1) threads(1) {
  X[0] = exp(X[0]);
}
)");
  ASSERT_FALSE(math.ok());
  EXPECT_TRUE(absl::StrContains(math.status().message(), "intrinsic 'exp' on f16 has no Toy form"))
      << math.status();
}

}  // namespace
}  // namespace tile_ir::c_source
