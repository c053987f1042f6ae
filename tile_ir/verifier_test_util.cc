// A valid GEMM kernel for the verifier tests and their error matcher.
#include "tile_ir/verifier_test_util.h"

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"

namespace tile_ir::verifier_testing {

GemmParts::GemmParts()
    : m(Var::Make("M")),
      n(Var::Make("N")),
      k(Var::Make("K")),
      a(BufferNode::Make("A", kF16, {m, k}, MemoryScope::kGlobal)),
      b(BufferNode::Make("B", kF16, {k, n}, MemoryScope::kGlobal)),
      c(BufferNode::Make("C", kF32, {m, n}, MemoryScope::kGlobal)),
      bx(Var::Make("bx")),
      by(Var::Make("by")),
      a_s(BufferNode::Make("A_s", kF16, {Int(128), Int(32)}, MemoryScope::kShared)),
      b_s(BufferNode::Make("B_s", kF16, {Int(32), Int(128)}, MemoryScope::kShared)),
      c_l(BufferNode::Make("C_l", kF32, {Int(128), Int(128)}, MemoryScope::kFragment)) {}

Launch GemmParts::DefaultLaunch() const {
  Launch launch;
  launch.grid = {{bx, Binary::Make(BinaryOp::kCeilDiv, n, Int(128))},
                 {by, Binary::Make(BinaryOp::kCeilDiv, m, Int(128))}};
  launch.threads = {128};
  launch.swizzle = BlockSwizzle{8, SwizzleOrder::kRowMajor};
  return launch;
}

Kernel GemmParts::WithLaunch(Launch launch, std::vector<Stmt> stmts) const {
  std::vector<Stmt> body = {Allocate::Make(a_s), Allocate::Make(b_s), Allocate::Make(c_l)};
  body.insert(body.end(), stmts.begin(), stmts.end());
  std::vector<Param> params = {{a, nullptr}, {b, nullptr}, {c, nullptr}};
  return KernelNode::Make("matmul", {m, n, k}, params, std::move(launch), Seq::Make(body),
                          kKernelLoc);
}

Kernel GemmParts::WithBody(std::vector<Stmt> stmts) const {
  return WithLaunch(DefaultLaunch(), std::move(stmts));
}

Kernel GemmParts::Valid() const {
  auto tile_start = [](const Expr& index, int64_t size) {
    return Binary::Make(BinaryOp::kMul, index, Int(size));
  };
  VarRef ko = Var::Make("ko");
  Stmt loop_body = Seq::Make({
      Copy::Make({a, {{tile_start(by, 128), Int(128)}, {tile_start(ko, 32), Int(32)}}},
                 Region::Full(a_s)),
      Copy::Make({b, {{tile_start(ko, 32), Int(32)}, {tile_start(bx, 128), Int(128)}}},
                 Region::Full(b_s)),
      Gemm::Make(Region::Full(a_s), Region::Full(b_s), Region::Full(c_l)),
  });
  PipelineInfo pipeline{3, {0, 1, 2}, {0, 0, 2}};
  return WithBody({
      Fill::Make(Region::Full(c_l), Float(0.0)),
      For::Make(ko, Int(0), Binary::Make(BinaryOp::kCeilDiv, k, Int(32)), ForKind::kPipelined,
                loop_body, SourceLoc{}, pipeline),
      Copy::Make(Region::Full(c_l),
                 {c, {{tile_start(by, 128), Int(128)}, {tile_start(bx, 128), Int(128)}}}),
  });
}

Region ConstRegion(const Buffer& buffer, std::vector<std::pair<int64_t, int64_t>> ranges) {
  Region region{buffer, {}};
  for (const auto& [min, extent] : ranges) region.ranges.push_back({Int(min), Int(extent)});
  return region;
}

Stmt LetAtUserLoc(Expr value, std::string name) {
  DataType type = value->dtype();
  return Let::Make(Var::Make(std::move(name), type), std::move(value), kUserLoc);
}

std::string DiagnosticsText(const std::vector<Diagnostic>& diagnostics) {
  return absl::StrJoin(diagnostics, "\n",
                       [](std::string* out, const Diagnostic& d) { out->append(d.ToString()); });
}

::testing::AssertionResult IsOneError(const std::vector<Diagnostic>& diagnostics,
                                      const std::string& substring, const SourceLoc& loc) {
  if (diagnostics.size() != 1) {
    return ::testing::AssertionFailure()
           << "expected one diagnostic, got " << diagnostics.size() << ":\n"
           << DiagnosticsText(diagnostics);
  }
  const Diagnostic& d = diagnostics[0];
  std::string text = d.ToString();
  std::string prefix = loc.ToString() + ": error: in kernel 'matmul': ";
  if (d.kernel != "matmul" || !(d.loc == loc) || !absl::StartsWith(text, prefix) ||
      !absl::StrContains(d.message, substring)) {
    return ::testing::AssertionFailure()
           << "expected \"" << prefix << "...\" containing \"" << substring << "\", got:\n"
           << text;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult HasOneError(const Kernel& kernel, const std::string& substring,
                                       const SourceLoc& loc) {
  return IsOneError(VerifyKernel(*kernel), substring, loc);
}

}  // namespace tile_ir::verifier_testing
