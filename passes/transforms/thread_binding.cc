// Thread binding: fragments become per-thread registers, parallel nests become loops that
// each thread walks (guarded by the layouts) or shares out cyclically, and the body runs
// inside the block's thread-bound loops. One thread per block needs only serial loops.
#include "passes/transforms/thread_binding.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/analysis/fragment_threads.h"
#include "passes/transforms/thread_binding_internal.h"
#include "passes/utils/fresh_names.h"
#include "tile_ir/mutator.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes {
namespace {

using thread_binding::Contents;
using thread_binding::FragmentMap;
using thread_binding::Scan;

// T == 1: parallel loops run serially and fragments are whole local tiles.
class SingleThreadBinder : public IRMutator {
 protected:
  Stmt MutateFor(const For& node, const Stmt& self) override {
    Stmt body = MutateBody(node.body);
    if (node.for_kind != ForKind::kParallel && body == node.body) return self;
    ForKind kind = node.for_kind == ForKind::kParallel ? ForKind::kSerial : node.for_kind;
    return For::Make(node.var, node.min, node.extent, kind, std::move(body), node.loc(),
                     node.pipeline, node.thread_axis);
  }
  Buffer MutateBuffer(const Buffer& buffer) override {
    if (buffer->scope != MemoryScope::kFragment) return buffer;
    Buffer& local = locals_[buffer.get()];
    if (!local) {
      local = BufferNode::Make(buffer->name, buffer->dtype, buffer->shape, MemoryScope::kLocal,
                               buffer->strides);
    }
    return local;
  }

 private:
  absl::flat_hash_map<const BufferNode*, Buffer> locals_;
};

// The block's thread loops around `body`, and the flat thread index they define.
struct ThreadLoops {
  std::vector<VarRef> vars;  // x first
  std::vector<int64_t> extents;
  Expr flat;
};

ThreadLoops MakeThreadLoops(const Launch& launch, int64_t threads, FreshNames& names) {
  ThreadLoops loops;
  int64_t product = 1;
  for (int64_t extent : launch.threads) product *= extent;
  static constexpr const char* kNames[] = {"tx", "ty", "tz"};
  if (launch.threads.size() <= 1 || product != threads) {
    loops.vars = {Var::Make(names.Fresh("tx"))};
    loops.extents = {threads};
    loops.flat = loops.vars[0];
    return loops;
  }
  for (size_t axis = 0; axis < launch.threads.size(); ++axis) {
    loops.vars.push_back(Var::Make(names.Fresh(kNames[axis])));
    loops.extents.push_back(launch.threads[axis]);
  }
  loops.flat = Var::Make(names.Fresh("tid"));
  return loops;
}

Stmt WrapInThreadLoops(const ThreadLoops& loops, Stmt body) {
  static constexpr ThreadAxis kAxes[] = {ThreadAxis::kX, ThreadAxis::kY, ThreadAxis::kZ};
  if (loops.vars.size() > 1) {
    Expr flat = loops.vars[0];
    int64_t scale = 1;
    for (size_t axis = 1; axis < loops.vars.size(); ++axis) {
      scale *= loops.extents[axis - 1];
      flat = Op(BinaryOp::kAdd, flat, Op(BinaryOp::kMul, loops.vars[axis], Int(scale)));
    }
    std::vector<Stmt> stmts = {Let::Make(std::static_pointer_cast<const Var>(loops.flat), flat)};
    if (const Seq* seq = As<Seq>(body)) {
      stmts.insert(stmts.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      stmts.push_back(std::move(body));
    }
    body = Seq::Make(std::move(stmts));
  }
  for (size_t axis = 0; axis < loops.vars.size(); ++axis) {
    body = For::Make(loops.vars[axis], Int(0), Int(loops.extents[axis]), ForKind::kThreadBound,
                     std::move(body), {}, {}, kAxes[axis]);
  }
  return body;
}

// A fragment whose elements per thread exceed the registers a thread has is kept in local
// memory by the target's compiler, silently and far slower: say so where remarks are asked for.
void RemarkOnRegisterSpill(const KernelNode& kernel, const BufferNode& fragment, int64_t registers,
                           int64_t threads, const TargetInfo& target,
                           std::vector<std::string>* remarks) {
  const int64_t limit = target.max_registers_per_thread();
  if (remarks == nullptr || limit <= 0) return;
  const int64_t bytes = (registers * fragment.dtype.bits() + 7) / 8;
  const int64_t words = (bytes + 3) / 4;
  if (words <= limit) return;
  std::vector<std::string> shape;
  for (const Expr& extent : fragment.shape) shape.push_back(Print(extent));
  remarks->push_back(absl::StrCat(
      "in kernel '", kernel.name, "': thread-binding: fragment '", fragment.name, "' (",
      fragment.dtype.ToString(), "[", absl::StrJoin(shape, ", "), "]) holds ", registers,
      " elements per thread on ", threads, " threads (", bytes, " bytes, ", words,
      " registers), more than the ", limit, " registers a thread has on ", target.name(),
      ": the compiler keeps it in local memory, far slower than registers; a smaller tile or "
      "more threads per block keeps it in registers"));
}

}  // namespace

namespace thread_binding {

absl::Status StmtError(const KernelNode& kernel, const Stmt& stmt, std::string_view message) {
  std::string text = Print(stmt);
  text = text.substr(0, text.find('\n'));
  std::string loc = stmt->loc().known() ? absl::StrCat(stmt->loc().ToString(), ": ") : "";
  return absl::FailedPreconditionError(absl::StrCat(loc, "in kernel '", kernel.name,
                                                    "': thread-binding: ", std::string(message),
                                                    " (at `", text, "`)"));
}

}  // namespace thread_binding

absl::StatusOr<Kernel> BindThreads(const Kernel& kernel, const TargetInfo& target,
                                   std::vector<std::string>* remarks) {
  int64_t threads = target.ThreadsExecutingBlock(kernel->launch);
  Contents contents = Scan(kernel->body);
  if (threads <= 1) {
    return SingleThreadBinder().MutateKernel(kernel);
  }
  if (contents.thread_bound) {
    if (!contents.parallel && contents.fragment_allocs.empty()) return kernel;
    return absl::FailedPreconditionError(
        absl::StrCat("in kernel '", kernel->name,
                     "': thread-binding: the kernel already has "
                     "thread_bound loops but still has parallel loops or fragments"));
  }
  FragmentMap fragments;
  for (const BufferNode* buffer : contents.fragment_allocs) {
    absl::StatusOr<int64_t> registers = RegistersPerThread(*buffer, threads);
    if (!registers.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "in kernel '", kernel->name, "': thread-binding: ", registers.status().message()));
    }
    fragments[buffer] = {
        BufferNode::Make(buffer->name, buffer->dtype, {Int(*registers)}, MemoryScope::kLocal),
        *buffer->layout};
    RemarkOnRegisterSpill(*kernel, *buffer, *registers, threads, target, remarks);
  }
  FreshNames names(*kernel);
  ThreadLoops loops = MakeThreadLoops(kernel->launch, threads, names);
  absl::StatusOr<Stmt> body =
      thread_binding::BindStatements(*kernel, threads, std::move(fragments), loops.flat,
                                     target.max_vector_bytes(), target.warp_size(), names, remarks);
  if (!body.ok()) return body.status();
  return kernel->WithBody(WrapInThreadLoops(loops, *std::move(body)));
}

absl::StatusOr<bool> BindThreads(Module& module, const TargetInfo& target,
                                 std::vector<std::string>* remarks) {
  return MapKernels(module,
                    [&](const Kernel& kernel) { return BindThreads(kernel, target, remarks); });
}

PassInfo ThreadBindingPass() {
  PassInfo info;
  info.name = "thread-binding";
  info.description =
      "binds parallel loops and fragments to the threads that execute a block (serial loops "
      "and local tiles where one thread does)";
  info.needs_target = true;
  info.run_kernel = EachKernel([](const Kernel& kernel, const PassOptions& options) {
    return BindThreads(kernel, options.target(), options.remarks());
  });
  return info;
}

}  // namespace tile_ir::passes
