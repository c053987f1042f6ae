// Statement checks: scoping of loops, lets and allocations, loop annotations,
// conditions and stores. Tile operations are in verifier_tile_ops.cc.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tile_ir/verifier_expr.h"
#include "tile_ir/verifier_kernel.h"

namespace tile_ir::verifier {
namespace {

// How a message names the statement it is about.
std::string DescribeStmt(const StmtNode& stmt) {
  switch (stmt.kind()) {
    case StmtKind::kSeq:
      return "block";
    case StmtKind::kFor: {
      const auto& loop = static_cast<const For&>(stmt);
      return loop.var ? absl::StrCat("for loop over '", loop.var->name, "'") : "for loop";
    }
    case StmtKind::kIf:
      return "if";
    case StmtKind::kLet: {
      const auto& let = static_cast<const Let&>(stmt);
      return let.var ? absl::StrCat("let '", let.var->name, "'") : "let";
    }
    case StmtKind::kAllocate: {
      const auto& alloc = static_cast<const Allocate&>(stmt);
      return alloc.buffer ? absl::StrCat("alloc '", alloc.buffer->name, "'") : "alloc";
    }
    case StmtKind::kStore: {
      const auto& store = static_cast<const Store&>(stmt);
      return store.buffer ? absl::StrCat("store to '", store.buffer->name, "'") : "store";
    }
    case StmtKind::kBarrier:
      return "barrier";
    case StmtKind::kEvaluate:
      return "eval";
    case StmtKind::kCopy:
      return "copy";
    case StmtKind::kGemm:
      return "gemm";
    case StmtKind::kFill:
      return "fill";
    case StmtKind::kReduce:
      return "reduce";
    case StmtKind::kAtomicAdd:
      return "atomic_add";
    case StmtKind::kCumsum:
      return "cumsum";
  }
  return "statement";
}

bool IsPowerOfTwo(int64_t value) { return value > 0 && (value & (value - 1)) == 0; }

}  // namespace

void KernelVerifier::CheckStmt(const Stmt& stmt, const SourceLoc& enclosing_loc, int depth) {
  // Statements without a location of their own are reported at the nearest
  // enclosing one that has one.
  Site site{stmt->loc().known() ? stmt->loc() : enclosing_loc, DescribeStmt(*stmt)};
  if (depth > kMaxStmtDepth) {
    sink_.Report(
        site, absl::StrCat("statements nested too deeply (more than ", kMaxStmtDepth, " levels)"));
    return;
  }
  switch (stmt->kind()) {
    case StmtKind::kSeq:
      return CheckSeq(static_cast<const Seq&>(*stmt), site, depth);
    case StmtKind::kFor:
      return CheckFor(static_cast<const For&>(*stmt), site, depth);
    case StmtKind::kIf:
      return CheckIf(static_cast<const If&>(*stmt), site, depth);
    case StmtKind::kLet:
      return CheckLet(static_cast<const Let&>(*stmt), site);
    case StmtKind::kAllocate:
      return CheckAllocate(static_cast<const Allocate&>(*stmt), site);
    case StmtKind::kStore:
      return CheckStore(static_cast<const Store&>(*stmt), site);
    case StmtKind::kBarrier:
      return;
    case StmtKind::kEvaluate:
      // Any call may be evaluated: a pure one whose value is unused is dead
      // code for a later pass to remove, not an error.
      CheckExpr(static_cast<const Evaluate&>(*stmt).value, "evaluated expression", scope_, site,
                sink_);
      return;
    case StmtKind::kCopy:
      return CheckCopy(static_cast<const Copy&>(*stmt), site);
    case StmtKind::kGemm:
      return CheckGemm(static_cast<const Gemm&>(*stmt), site);
    case StmtKind::kFill:
      return CheckFill(static_cast<const Fill&>(*stmt), site);
    case StmtKind::kReduce:
      return CheckReduce(static_cast<const Reduce&>(*stmt), site);
    case StmtKind::kAtomicAdd:
      return CheckAtomicAdd(static_cast<const AtomicAdd&>(*stmt), site);
    case StmtKind::kCumsum:
      return CheckCumsum(static_cast<const Cumsum&>(*stmt), site);
  }
}

void KernelVerifier::CheckBody(const Stmt& body, absl::string_view role, const Site& site,
                               int depth) {
  if (!body) {
    sink_.Report(site, absl::StrCat("missing ", role));
    return;
  }
  scope_.EnterFrame();
  CheckStmt(body, site.loc, depth + 1);
  scope_.ExitFrame();
}

void KernelVerifier::CheckSeq(const Seq& seq, const Site& site, int depth) {
  // Lets and allocations are visible to the end of their Seq.
  scope_.EnterFrame();
  for (size_t i = 0; i < seq.stmts.size(); ++i) {
    if (seq.stmts[i]) {
      CheckStmt(seq.stmts[i], site.loc, depth + 1);
    } else {
      sink_.Report(site, absl::StrCat("statement ", i, " is missing"));
    }
  }
  scope_.ExitFrame();
}

void KernelVerifier::CheckFor(const For& loop, const Site& site, int depth) {
  if (!loop.var) {
    sink_.Report(site, "missing loop variable");
  } else {
    Declare(loop.var->name, site);
    DataType t = loop.var->dtype();
    if (!t.is_int() || t.is_vector()) {
      sink_.Report(site,
                   absl::StrCat("the loop variable must be an integer scalar, not ", t.ToString()));
    }
  }
  // The bounds are evaluated before the loop, where its variable is not bound.
  for (const auto& [role, bound] :
       {std::pair{"loop start", &loop.min}, std::pair{"loop extent", &loop.extent}}) {
    if (!CheckIntegerExpr(*bound, role, scope_, site, sink_) || !loop.var) continue;
    DataType t = (*bound)->dtype();
    if (t.is_int() && t != loop.var->dtype()) {
      sink_.Report(site, absl::StrCat(role, " is ", t.ToString(), ", but the loop variable is ",
                                      loop.var->dtype().ToString()));
    }
  }
  std::optional<int64_t> extent = loop.extent ? AsConstInt(loop.extent) : std::nullopt;
  if (extent && *extent < 0) {
    sink_.Report(site, absl::StrCat("loop extent ", *extent, " is negative"));
  }
  CheckLoopKind(loop, site);

  scope_.EnterFrame();
  if (loop.var) scope_.AddVar(loop.var.get());
  CheckBody(loop.body, "loop body", site, depth);
  scope_.ExitFrame();
}

void KernelVerifier::CheckLoopKind(const For& loop, const Site& site) {
  std::string kind(ForKindName(loop.for_kind));
  if (loop.for_kind == ForKind::kThreadBound) {
    if (loop.thread_axis == ThreadAxis::kNone) {
      sink_.Report(site, "a thread_bound loop needs a thread axis (x, y or z)");
    }
  } else if (loop.thread_axis != ThreadAxis::kNone) {
    sink_.Report(site,
                 absl::StrCat("only thread_bound loops have a thread axis, but this ", kind,
                              " loop has axis ", std::string(ThreadAxisName(loop.thread_axis))));
  }
  if (loop.for_kind == ForKind::kPipelined) {
    CheckPipeline(loop, site);
  } else if (loop.pipeline != PipelineInfo{}) {
    sink_.Report(site, absl::StrCat("only pipelined loops have num_stages, order and stage, "
                                    "but this loop is ", kind));
  }
  if (loop.for_kind == ForKind::kVectorized && loop.extent) {
    // A symbolic extent may become a constant when the kernel is specialized.
    std::optional<int64_t> extent = AsConstInt(loop.extent);
    if (extent && (*extent < 2 || !IsPowerOfTwo(*extent))) {
      sink_.Report(site, absl::StrCat("a vectorized loop's extent must be a power of two of "
                                      "at least 2, not ", *extent));
    }
  }
}

// num_stages counts the pipeline's stages (the copies of its shared buffers).
// 0 is allowed and means no software pipelining: the loop runs as a serial
// one, so no statement can be given a stage. order and stage are empty (the
// planner chooses) or give one entry per statement of the loop body.
void KernelVerifier::CheckPipeline(const For& loop, const Site& site) {
  const PipelineInfo& pipeline = loop.pipeline;
  if (pipeline.num_stages < 0) {
    sink_.Report(site, absl::StrCat("num_stages must be at least 0, not ", pipeline.num_stages));
  }
  if (pipeline.order.empty() && pipeline.stage.empty()) return;
  const Seq* seq = As<Seq>(loop.body);
  size_t num_stmts = seq ? seq->stmts.size() : 1;
  if (pipeline.order.size() != num_stmts || pipeline.stage.size() != num_stmts) {
    sink_.Report(site, absl::StrCat("order and stage need one entry per statement of the "
                                    "loop body (", num_stmts, "), but have ",
                                    pipeline.order.size(), " and ", pipeline.stage.size()));
    return;
  }
  std::vector<bool> seen(num_stmts, false);
  for (int position : pipeline.order) {
    bool in_range = position >= 0 && static_cast<size_t>(position) < num_stmts;
    if (!in_range || seen[position]) {
      sink_.Report(site, absl::StrCat("order [", absl::StrJoin(pipeline.order, ", "),
                                      "] is not a permutation of 0..", num_stmts - 1));
      break;
    }
    seen[position] = true;
  }
  for (size_t i = 0; i < pipeline.stage.size(); ++i) {
    int stage = pipeline.stage[i];
    if (stage < 0 || stage >= pipeline.num_stages) {
      sink_.Report(site,
                   absl::StrCat("stage ", stage, " of statement ", i,
                                " is outside [0, num_stages) = [0, ", pipeline.num_stages, ")"));
    }
  }
}

void KernelVerifier::CheckIf(const If& node, const Site& site, int depth) {
  if (CheckExpr(node.cond, "condition", scope_, site, sink_) && node.cond->dtype() != kBool) {
    sink_.Report(site,
                 absl::StrCat("the condition must be bool, not ", node.cond->dtype().ToString()));
  }
  CheckBody(node.then_body, "then branch", site, depth);
  if (node.else_body) CheckBody(node.else_body, "else branch", site, depth);
}

void KernelVerifier::CheckLet(const Let& node, const Site& site) {
  // The value is checked before the variable is bound: a let cannot refer to itself.
  bool has_value = CheckExpr(node.value, "value", scope_, site, sink_);
  if (!node.var) {
    sink_.Report(site, "missing variable");
    return;
  }
  Declare(node.var->name, site);
  DataType t = node.var->dtype();
  if (t.is_void()) {
    sink_.Report(site, "a let variable cannot be void");
  } else if (has_value && node.value->dtype() != t) {
    sink_.Report(site, absl::StrCat("the variable is ", t.ToString(), ", but its value is ",
                                    node.value->dtype().ToString()));
  }
  scope_.AddVar(node.var.get());
}

void KernelVerifier::CheckAllocate(const Allocate& node, const Site& site) {
  if (!node.buffer) {
    sink_.Report(site, "missing buffer");
    return;
  }
  const BufferNode& buffer = *node.buffer;
  Declare(buffer.name, site);
  if (buffer.scope == MemoryScope::kGlobal) {
    sink_.Report(site,
                 "cannot allocate global memory (only kernel parameters are global); "
                 "allocate shared, fragment or local memory");
  }
  CheckBufferDecl(buffer, scope_, site);
  if (node.shared_offset) {
    // Element-aligned so that every element of the buffer is naturally aligned in the pool.
    int64_t element_bytes = std::max(1, buffer.dtype.bits() / 8);
    if (buffer.scope != MemoryScope::kShared) {
      sink_.Report(site, absl::StrCat("only shared buffers have an offset, but this one is ",
                                      std::string(MemoryScopeName(buffer.scope))));
    } else if (*node.shared_offset < 0 || *node.shared_offset % element_bytes != 0) {
      sink_.Report(site, absl::StrCat("shared offset ", *node.shared_offset,
                                      " must be a non-negative multiple of the element size (",
                                      element_bytes, " bytes)"));
    }
  }
  scope_.AddBuffer(&buffer);
}

void KernelVerifier::CheckStore(const Store& node, const Site& site) {
  bool indices_present = true;
  for (size_t i = 0; i < node.indices.size(); ++i) {
    std::string role = absl::StrCat("index ", i);
    if (!CheckExpr(node.indices[i], role, scope_, site, sink_)) {
      indices_present = false;
    } else if (!node.indices[i]->dtype().is_int()) {
      sink_.Report(site, absl::StrCat(role, " must be an integer, not ",
                                      node.indices[i]->dtype().ToString()));
    }
  }
  bool has_value = CheckExpr(node.value, "stored value", scope_, site, sink_);
  if (!node.buffer) {
    sink_.Report(site, "missing buffer");
    return;
  }
  const BufferNode& buffer = *node.buffer;
  if (!scope_.HasBuffer(&buffer)) sink_.Report(site, scope_.UndefinedBufferMessage(buffer));
  if (static_cast<int>(node.indices.size()) != buffer.rank()) {
    sink_.Report(
        site, absl::StrCat(node.indices.size(), " indices for a buffer of rank ", buffer.rank()));
    return;
  }
  if (!has_value || !indices_present) return;
  // As for loads, the last index gives the number of lanes stored (a ramp
  // stores a vector); the other indices are scalars or vectors of as many lanes.
  int lanes = node.indices.empty() ? 1 : node.indices.back()->dtype().lanes();
  for (size_t i = 0; i + 1 < node.indices.size(); ++i) {
    int index_lanes = node.indices[i]->dtype().lanes();
    if (index_lanes != 1 && index_lanes != lanes) {
      sink_.Report(site, absl::StrCat("index ", i, " has ", index_lanes,
                                      " lanes, but the last index has ", lanes));
    }
  }
  DataType expected = buffer.dtype.with_lanes(lanes);
  if (node.value->dtype() != expected) {
    sink_.Report(site,
                 absl::StrCat("the stored value is ", node.value->dtype().ToString(), ", but '",
                              buffer.name, "' at these indices takes ", expected.ToString()));
  }
}

}  // namespace tile_ir::verifier
