#include "frontends/cpp/builder.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tile_ir/mutator.h"
#include "tile_ir/verifier.h"

namespace tile_ir::dsl {
namespace {

thread_local KernelBuilder* active_builder = nullptr;

// Replaces buffers by their annotated versions everywhere they appear.
class ApplyLayouts : public IRMutator {
 public:
  explicit ApplyLayouts(const absl::flat_hash_map<const BufferNode*, Layout>& layouts)
      : layouts_(layouts) {}

 protected:
  Buffer MutateBuffer(const Buffer& buffer) override {
    auto it = layouts_.find(buffer.get());
    if (it == layouts_.end()) return buffer;
    auto [done, inserted] = replaced_.try_emplace(buffer.get());
    if (inserted) {
      done->second = BufferNode::Make(buffer->name, buffer->dtype, buffer->shape, buffer->scope,
                                      buffer->strides, it->second);
    }
    return done->second;
  }

 private:
  const absl::flat_hash_map<const BufferNode*, Layout>& layouts_;
  absl::flat_hash_map<const BufferNode*, Buffer> replaced_;
};

}  // namespace

SourceLoc ToSourceLoc(const Loc& loc) {
  return SourceLoc{loc.file_name(), static_cast<int>(loc.line()), static_cast<int>(loc.column())};
}

KernelBuilder::KernelBuilder(std::string name, Loc loc)
    : name_(std::move(name)), loc_(ToSourceLoc(loc)), previous_(active_builder) {
  blocks_.emplace_back();
  active_builder = this;
}

KernelBuilder::~KernelBuilder() {
  if (active_builder == this) active_builder = previous_;
}

KernelBuilder& KernelBuilder::Active() {
  if (active_builder == nullptr) {
    // Using the API outside a kernel is a programming error in the caller's
    // C++ code, not bad input: there is no IR to attach a message to.
    std::fprintf(stderr,
                 "tile_ir::dsl: a kernel-building function was called with no KernelBuilder "
                 "active on this thread\n");
    std::abort();
  }
  return *active_builder;
}

std::string KernelBuilder::FreshName(const std::string& hint) {
  std::string base = hint.empty() ? "v" : hint;
  std::string name = base;
  for (int suffix = 1; names_.contains(name); ++suffix) name = absl::StrCat(base, "_", suffix);
  names_.insert(name);
  return name;
}

E KernelBuilder::Dim(const std::string& name, DataType dtype) {
  VarRef v = Var::Make(FreshName(name), dtype);
  dims_.push_back(v);
  return E(v);
}

Tensor KernelBuilder::Param(const std::string& name, DataType dtype, std::vector<E> shape,
                            std::vector<E> strides) {
  std::vector<Expr> dims, stride_exprs;
  for (const E& e : shape) dims.push_back(e.expr());
  for (const E& e : strides) stride_exprs.push_back(e.expr());
  Buffer buffer = BufferNode::Make(FreshName(name), dtype, std::move(dims), MemoryScope::kGlobal,
                                   std::move(stride_exprs));
  params_.push_back(tile_ir::Param{buffer, nullptr});
  return Tensor(buffer);
}

E KernelBuilder::Scalar(const std::string& name, DataType dtype) {
  VarRef v = Var::Make(FreshName(name), dtype);
  params_.push_back(tile_ir::Param{nullptr, v});
  return E(v);
}

void KernelBuilder::Require(E condition, Loc loc) {
  requirements_.push_back({condition.expr(), ToSourceLoc(loc)});
}

std::vector<E> KernelBuilder::Launch(std::vector<E> grid, std::vector<int64_t> threads, Loc loc) {
  if (launched_) errors_.push_back(absl::StrCat(ToSourceLoc(loc).ToString(), ": error: in kernel '",
                                                name_, "': Launch called twice"));
  launched_ = true;
  static constexpr const char* kNames[] = {"bx", "by", "bz"};
  std::vector<E> indices;
  launch_.grid.clear();
  for (size_t i = 0; i < grid.size(); ++i) {
    VarRef v = Var::Make(FreshName(i < 3 ? kNames[i] : "b"), kI32);
    Expr extent = grid[i].expr();
    if (extent->dtype() != kI32 && extent->dtype().is_int()) extent = Cast::Make(kI32, extent);
    launch_.grid.push_back({v, extent});
    indices.push_back(E(v));
  }
  launch_.threads = std::move(threads);
  return indices;
}

void KernelBuilder::Cluster(std::vector<int64_t> extents) { launch_.cluster = std::move(extents); }

void KernelBuilder::UseSwizzle(int panel_size, SwizzleOrder order) {
  launch_.swizzle = BlockSwizzle{panel_size, order};
}

void KernelBuilder::Append(Stmt stmt) { blocks_.back().push_back(std::move(stmt)); }

Stmt KernelBuilder::Block(const std::function<void()>& body, const SourceLoc& loc) {
  blocks_.emplace_back();
  body();
  std::vector<Stmt> stmts = std::move(blocks_.back());
  blocks_.pop_back();
  return Seq::Make(std::move(stmts), loc);
}

void KernelBuilder::AnnotateLayout(const Buffer& buffer, Layout layout) {
  layouts_[buffer.get()] = std::move(layout);
}

absl::StatusOr<Kernel> KernelBuilder::Finish() {
  if (finished_) return absl::FailedPreconditionError("KernelBuilder::Finish called twice");
  finished_ = true;
  if (active_builder == this) active_builder = previous_;
  if (!launched_) {
    errors_.push_back(absl::StrCat(loc_.ToString(), ": error: in kernel '", name_,
                                   "': no Launch(grid, threads) was given"));
  }
  if (blocks_.size() != 1) {
    errors_.push_back(absl::StrCat(loc_.ToString(), ": error: in kernel '", name_,
                                   "': Finish called inside an open loop or branch"));
  }
  if (!errors_.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors_, "\n"));
  Kernel kernel = KernelNode::Make(name_, dims_, params_, launch_,
                                   Seq::Make(std::move(blocks_.front()), loc_), loc_,
                                   requirements_);
  if (!layouts_.empty()) {
    ApplyLayouts apply(layouts_);
    kernel = apply.MutateKernel(kernel);
  }
  std::vector<Diagnostic> diagnostics = VerifyKernel(*kernel);
  if (!diagnostics.empty()) {
    std::vector<std::string> lines;
    for (const Diagnostic& d : diagnostics) lines.push_back(d.ToString());
    return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
  }
  return kernel;
}

Module MakeModule(std::vector<Kernel> kernels) {
  Module module;
  module.producer = "tile-cpp";
  module.producer_version = "0.1.0";
  module.kernels = std::move(kernels);
  return module;
}

}  // namespace tile_ir::dsl
