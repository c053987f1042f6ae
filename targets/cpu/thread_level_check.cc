// A visitor that finds the first construct the CPU code generator cannot take.
#include "targets/cpu/thread_level_check.h"

#include <cstddef>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "targets/cpu/cpu_diagnostics.h"
#include "tile_ir/visitor.h"

namespace tile_ir::cpu {
namespace {

constexpr char kLowerFirst[] = "; lower the module with the CPU pipeline (LowerForCpu) first";

class ThreadLevelChecker : public IRVisitor {
 public:
  explicit ThreadLevelChecker(const KernelNode& kernel) : kernel_(kernel) {}

  absl::Status Check() {
    VisitKernel(kernel_);
    return error_;
  }

 protected:
  void VisitFor(const For& node) override {
    if (node.for_kind == ForKind::kParallel || node.for_kind == ForKind::kPipelined) {
      return Fail(node.loc(),
                  absl::StrCat("the ", std::string(ForKindName(node.for_kind)), " loop over '",
                               node.var->name, "' is not thread-level", kLowerFirst));
    }
    bool thread_bound = node.for_kind == ForKind::kThreadBound;
    if (thread_bound) thread_loops_.push_back(&node);
    IRVisitor::VisitFor(node);
    if (thread_bound) thread_loops_.pop_back();
  }

  void VisitBarrier(const Barrier& node) override {
    if (thread_loops_.empty()) return;
    Fail(node.loc(),
         "a barrier inside a thread_bound loop needs thread emulation, which the CPU target "
         "does not implement");
  }

  void VisitAllocate(const Allocate& node) override {
    if (node.buffer->scope == MemoryScope::kFragment) {
      return Fail(node.loc(), absl::StrCat("fragment buffer '", node.buffer->name,
                                           "' is not thread-level", kLowerFirst));
    }
    if (node.buffer->scope == MemoryScope::kLocal) {
      locals_[node.buffer.get()] = LocalInfo{&node, thread_loops_.size(), {}};
    }
    IRVisitor::VisitAllocate(node);
  }

  void VisitBufferUse(const Buffer& buffer) override {
    auto it = locals_.find(buffer.get());
    if (it == locals_.end()) return;
    LocalInfo& local = it->second;
    // The thread loop entered first after the declaration (null: none), whose
    // threads would each need their own copy.
    const For* owner = thread_loops_.size() > local.depth ? thread_loops_[local.depth] : nullptr;
    local.owners.insert(owner);
    if (local.owners.size() > 1) {
      Fail(local.decl->loc(),
           absl::StrCat("local buffer '", buffer->name,
                        "' is declared outside a thread_bound loop and used both inside it and "
                        "elsewhere; the CPU runs a block's threads one after another over one "
                        "copy of it, so per-thread values would not survive; declare it inside "
                        "the loop"));
    }
  }

  void VisitCopy(const Copy& node) override { FailTileOp(node, "copy"); }
  void VisitGemm(const Gemm& node) override { FailTileOp(node, "gemm"); }
  void VisitFill(const Fill& node) override { FailTileOp(node, "fill"); }
  void VisitReduce(const Reduce& node) override { FailTileOp(node, "reduce"); }
  void VisitAtomicAdd(const AtomicAdd& node) override { FailTileOp(node, "atomic_add"); }
  void VisitCumsum(const Cumsum& node) override { FailTileOp(node, "cumsum"); }

 private:
  struct LocalInfo {
    const Allocate* decl;
    size_t depth;  // thread loops around the declaration
    absl::flat_hash_set<const For*> owners;
  };

  void FailTileOp(const StmtNode& node, const char* name) {
    Fail(node.loc(), absl::StrCat("tile operation '", name, "' is not thread-level", kLowerFirst));
  }

  void Fail(const SourceLoc& loc, const std::string& message) {
    if (error_.ok()) error_ = KernelError(absl::StatusCode::kUnimplemented, kernel_, loc, message);
  }

  const KernelNode& kernel_;
  std::vector<const For*> thread_loops_;
  absl::flat_hash_map<const BufferNode*, LocalInfo> locals_;
  absl::Status error_;
};

}  // namespace

absl::Status CheckCpuThreadLevel(const Module& module) {
  for (const Kernel& kernel : module.kernels) {
    absl::Status status = ThreadLevelChecker(*kernel).Check();
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace tile_ir::cpu
