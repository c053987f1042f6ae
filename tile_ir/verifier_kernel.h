// The verifier of one kernel. Its checks are split by subject over
// verifier_kernel.cc (signature, launch, buffer declarations),
// verifier_stmt.cc (control flow and memory statements) and
// verifier_tile_ops.cc (regions and tile operations).
#ifndef TILE_IR_VERIFIER_KERNEL_H_
#define TILE_IR_VERIFIER_KERNEL_H_

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "tile_ir/module.h"
#include "tile_ir/nesting_limit.h"
#include "tile_ir/stmt.h"
#include "tile_ir/verifier_diagnostics.h"
#include "tile_ir/verifier_scope.h"

namespace tile_ir::verifier {

// Statement nesting beyond this is reported rather than followed: statements
// are checked recursively, and so are they in every pass. Readers refuse
// modules nested deeper than kMaxNestingDepth (nesting_limit.h); the rest is
// room for the loops that lowering wraps around statements.
inline constexpr int kMaxStmtDepth = 2 * kMaxNestingDepth;

class KernelVerifier {
 public:
  KernelVerifier(const KernelNode& kernel, DiagnosticSink& sink);
  void Run();

 private:
  // verifier_kernel.cc
  void CheckDimsAndScalars();
  void CheckBufferParams();
  void CheckLaunch();
  // Each shape requirement: a bool scalar over dimensions and integer scalars only.
  void CheckRequirements();
  // Reports an invalid identifier or a name already declared in this kernel.
  void Declare(const std::string& name, const Site& site);
  // dtype, shape and strides of a parameter or an allocation, and its layout.
  void CheckBufferDecl(const BufferNode& buffer, const NameScope& scope, const Site& site);
  void CheckLayout(const BufferNode& buffer, const Site& site);

  // verifier_stmt.cc
  void CheckStmt(const Stmt& stmt, const SourceLoc& enclosing_loc, int depth);
  // A required nested statement, in a block of its own.
  void CheckBody(const Stmt& body, absl::string_view role, const Site& site, int depth);
  void CheckSeq(const Seq& seq, const Site& site, int depth);
  void CheckFor(const For& loop, const Site& site, int depth);
  void CheckLoopKind(const For& loop, const Site& site);
  void CheckPipeline(const For& loop, const Site& site);
  void CheckIf(const If& node, const Site& site, int depth);
  void CheckLet(const Let& node, const Site& site);
  void CheckAllocate(const Allocate& node, const Site& site);
  void CheckStore(const Store& node, const Site& site);

  // verifier_tile_ops.cc
  // Checks the buffer, ranks, range types and constant bounds. Returns whether
  // the region has a buffer and one range per dimension, which the
  // operation-specific checks rely on.
  bool CheckRegion(const Region& region, absl::string_view role, const Site& site);
  void CheckCopy(const Copy& node, const Site& site);
  void CheckGemm(const Gemm& node, const Site& site);
  void CheckFill(const Fill& node, const Site& site);
  void CheckReduce(const Reduce& node, const Site& site);
  void CheckAtomicAdd(const AtomicAdd& node, const Site& site);
  void CheckCumsum(const Cumsum& node, const Site& site);

  const KernelNode& kernel_;
  DiagnosticSink& sink_;
  // What the body sees: dimensions, parameters, grid variables, then the
  // variables and buffers of the enclosing loops and blocks.
  NameScope scope_;
  // What grid extents and parameter shapes may use: values known at launch.
  NameScope launch_scope_{"kernel dimensions and scalar parameters"};
  // Every name declared so far: a name is declared once per kernel.
  absl::flat_hash_set<std::string> declared_names_;
};

}  // namespace tile_ir::verifier

#endif  // TILE_IR_VERIFIER_KERNEL_H_
