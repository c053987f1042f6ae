// A visitor that finds the first construct a C++-source code generator cannot take.
#include "targets/c_source/thread_level_check.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "targets/c_source/diagnostics.h"
#include "targets/c_source/dialect.h"
#include "targets/c_source/shared_memory.h"
#include "tile_ir/visitor.h"

namespace tile_ir::c_source {
namespace {

int AxisIndex(ThreadAxis axis) {
  switch (axis) {
    case ThreadAxis::kY: return 1;
    case ThreadAxis::kZ: return 2;
    default: return 0;
  }
}

class ThreadLevelChecker : public IRVisitor {
 public:
  ThreadLevelChecker(const KernelNode& kernel, const Dialect& dialect)
      : kernel_(kernel),
        dialect_(dialect),
        lower_first_(absl::StrCat("; lower the module with the ", dialect.language(), " pipeline (",
                                  dialect.lowering(), ") first")) {
    for (int64_t extent : kernel.launch.threads) threads_ *= extent;
  }

  absl::Status Check() {
    CheckLaunch();
    if (error_.ok()) VisitKernel(kernel_);
    return error_;
  }

 protected:
  using IRVisitor::Visit;
  void Visit(const Stmt& stmt) override {
    if (!stmt) return;
    SourceLoc outer = loc_;
    if (stmt->loc().known()) loc_ = stmt->loc();
    IRVisitor::Visit(stmt);
    loc_ = outer;
  }
  void Visit(const Expr& expr) override {
    if (!expr) return;
    CheckType(loc_, expr->dtype());
    IRVisitor::Visit(expr);
  }

  void VisitFor(const For& node) override {
    if (node.for_kind == ForKind::kParallel || node.for_kind == ForKind::kPipelined) {
      return Fail(node.loc(),
                  absl::StrCat("the ", std::string(ForKindName(node.for_kind)), " loop over '",
                               node.var->name, "' is not thread-level", lower_first_));
    }
    if (node.for_kind == ForKind::kThreadBound) return VisitThreadLoop(node);
    RequireThreadLevel(node.loc(), "a loop");
    ++nested_;
    IRVisitor::VisitFor(node);
    --nested_;
  }

  void VisitIf(const If& node) override {
    RequireThreadLevel(node.loc(), "an if");
    ++nested_;
    IRVisitor::VisitIf(node);
    --nested_;
  }

  void VisitStore(const Store& node) override {
    RequireThreadLevel(node.loc(), "a store");
    IRVisitor::VisitStore(node);
  }
  void VisitEvaluate(const Evaluate& node) override {
    RequireThreadLevel(node.loc(), "an evaluation");
    IRVisitor::VisitEvaluate(node);
  }
  void VisitBarrier(const Barrier& node) override { RequireThreadLevel(node.loc(), "a barrier"); }

  void VisitAllocate(const Allocate& node) override {
    const BufferNode& buffer = *node.buffer;
    switch (buffer.scope) {
      case MemoryScope::kFragment:
        return Fail(node.loc(), absl::StrCat("fragment buffer '", buffer.name,
                                             "' is not thread-level", lower_first_));
      case MemoryScope::kGlobal:
        return Fail(node.loc(), absl::StrCat("global buffer '", buffer.name,
                                             "' cannot be allocated inside a kernel"));
      default: break;
    }
    CheckType(node.loc(), buffer.dtype);
    std::string scope(MemoryScopeName(buffer.scope));
    if (buffer.layout) {
      return Fail(node.loc(), absl::StrCat(scope, " buffer '", buffer.name,
                                           "' still has a layout; the ", dialect_.language(),
                                           " code generator takes buffers whose accesses "
                                           "lowering already mapped"));
    }
    if (!BufferElements(buffer)) {
      return Fail(node.loc(), absl::StrCat(scope, " buffer '", buffer.name,
                                           "' needs a constant shape (and strides)"));
    }
    if (buffer.scope == MemoryScope::kShared && !node.shared_offset) {
      return Fail(node.loc(), absl::StrCat("shared buffer '", buffer.name,
                                           "' has no offset(N) in the shared-memory pool; run "
                                           "plan-shared-memory for target ",
                                           dialect_.target(), " (", dialect_.lowering(), " does)"));
    }
    IRVisitor::VisitAllocate(node);
  }

  void VisitCopy(const Copy& node) override { FailTileOp(node, "copy"); }
  void VisitGemm(const Gemm& node) override { FailTileOp(node, "gemm"); }
  void VisitFill(const Fill& node) override { FailTileOp(node, "fill"); }
  void VisitReduce(const Reduce& node) override { FailTileOp(node, "reduce"); }
  void VisitAtomicAdd(const AtomicAdd& node) override { FailTileOp(node, "atomic_add"); }
  void VisitCumsum(const Cumsum& node) override { FailTileOp(node, "cumsum"); }

 private:
  void CheckLaunch() {
    const std::vector<int64_t>& threads = kernel_.launch.threads;
    int64_t max_threads = dialect_.max_threads_per_block();
    int64_t max_z = dialect_.max_threads_z();
    if (threads_ > max_threads || (threads.size() > 2 && threads[2] > max_z)) {
      Fail(kernel_.loc,
           absl::StrCat("a block of ", threads_, " threads (at most ", max_threads, ", z at most ",
                        max_z, ") cannot launch"),
           absl::StatusCode::kInvalidArgument);
    }
    for (const Param& param : kernel_.params) {
      CheckType(kernel_.loc, param.is_buffer() ? param.buffer->dtype : param.scalar->dtype());
    }
    for (const VarRef& dim : kernel_.dims) CheckType(kernel_.loc, dim->dtype());
  }

  void VisitThreadLoop(const For& node) {
    int axis = AxisIndex(node.thread_axis);
    std::string name = absl::StrCat("thread_bound(", std::string(ThreadAxisName(node.thread_axis)),
                                    ") loop over '", node.var->name, "'");
    const std::vector<int64_t>& threads = kernel_.launch.threads;
    if (nested_ > 0) {
      return Fail(node.loc(), absl::StrCat("the ", name, " is inside a serial loop or an if; ",
                                           dialect_.language(),
                                           " maps only the thread loops at a kernel's top to "
                                           "thread indices"));
    }
    if (axis >= static_cast<int>(threads.size())) {
      return Fail(node.loc(), absl::StrCat("the ", name, " binds an axis the launch (",
                                           threads.size(), " thread axes) does not have"));
    }
    if ((bound_ | used_) & (1 << axis)) {
      return Fail(node.loc(), absl::StrCat("the ", name,
                                           " binds an axis that another thread loop bound "
                                           "already; one thread loop per axis"));
    }
    if (AsConstInt(node.min) != 0 || AsConstInt(node.extent) != threads[axis]) {
      return Fail(node.loc(), absl::StrCat("the ", name, " must run over 0 +: ", threads[axis],
                                           ", the launch's extent on that axis"));
    }
    bound_ |= 1 << axis;
    used_ |= 1 << axis;
    Visit(node.body);
    bound_ &= ~(1 << axis);
  }

  // Statements with effects need every axis of more than one thread bound.
  void RequireThreadLevel(const SourceLoc& loc, const char* what) {
    if (threads_ <= 1) return;
    const std::vector<int64_t>& threads = kernel_.launch.threads;
    for (size_t axis = 0; axis < threads.size(); ++axis) {
      if (threads[axis] > 1 && !(bound_ & (1 << axis))) {
        return Fail(loc, absl::StrCat(what,
                                      " outside the kernel's thread_bound loops would run "
                                      "on every one of the block's ",
                                      threads_, " threads; run thread-binding for target ",
                                      dialect_.target(), " (", dialect_.lowering(), " does)"));
      }
    }
  }

  void FailTileOp(const StmtNode& node, const char* name) {
    Fail(node.loc(), absl::StrCat("tile operation '", name, "' is not thread-level", lower_first_));
  }

  void Fail(const SourceLoc& loc, const std::string& message,
            absl::StatusCode code = absl::StatusCode::kUnimplemented) {
    if (error_.ok()) error_ = KernelError(code, kernel_, loc, dialect_.target(), message);
  }

  // Every value's type must have a form in the dialect.
  void CheckType(const SourceLoc& loc, DataType dtype) {
    if (dtype.is_void()) return;
    absl::Status supported = dialect_.CheckType(dtype.scalar());
    if (!supported.ok()) Fail(loc, std::string(supported.message()));
  }

  const KernelNode& kernel_;
  const Dialect& dialect_;
  std::string lower_first_;
  SourceLoc loc_;  // of the innermost located statement being visited
  int64_t threads_ = 1;
  int nested_ = 0;  // serial loops and ifs around the node
  int bound_ = 0;   // thread axes bound around the node, a bit per axis
  int used_ = 0;    // thread axes some loop bound
  absl::Status error_;
};

}  // namespace

absl::Status CheckThreadLevel(const KernelNode& kernel, const Dialect& dialect) {
  return ThreadLevelChecker(kernel, dialect).Check();
}

}  // namespace tile_ir::c_source
