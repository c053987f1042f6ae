// Layout inference: collects fragments and the operations that tie their
// layouts together, solves the constraints in the order the header gives, and
// rebuilds the fragment buffers with their layouts.
#include "passes/transforms/layout_inference.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/analysis/lane_reduction.h"
#include "tile_ir/mutator.h"
#include "tile_ir/printer.h"
#include "tile_ir/structural_equal.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

bool IsFragment(const Buffer& buffer) { return buffer->scope == MemoryScope::kFragment; }

bool CoversBuffer(const Region& region) {
  const std::vector<Expr>& shape = region.buffer->shape;
  for (size_t d = 0; d < region.ranges.size(); ++d) {
    if (AsConstInt(region.ranges[d].min) != 0) return false;
    const Expr& extent = region.ranges[d].extent;
    std::optional<int64_t> constant = AsConstInt(extent);
    bool same = constant ? constant == AsConstInt(shape[d]) : StructuralEqual(extent, shape[d]);
    if (!same) return false;
  }
  return true;
}

bool SameShape(const BufferNode& a, const BufferNode& b) {
  if (a.rank() != b.rank()) return false;
  for (int d = 0; d < a.rank(); ++d) {
    if (!StructuralEqual(a.shape[d], b.shape[d])) return false;
  }
  return true;
}

// Two whole fragments whose layouts must agree: through a reduction over
// `dim`, or elementwise (a scan along `dim`, or a copy with dim -1).
struct Link {
  bool reduce = false;
  const BufferNode* src = nullptr;
  const BufferNode* dst = nullptr;
  int dim = -1;
  bool keeps_dim = false;
};

// The fragments other than the stored one, of its shape, that `store`'s value reads at exactly
// the indices it writes.
std::vector<const BufferNode*> SameIndexLoads(const Store& store) {
  class Finder : public IRVisitor {
   public:
    explicit Finder(const Store& store) : store_(store) {}
    using IRVisitor::Visit;
    std::vector<const BufferNode*> found;

   protected:
    void VisitBufferLoad(const BufferLoad& node) override {
      const BufferNode* buffer = node.buffer.get();
      if (IsFragment(node.buffer) && buffer != store_.buffer.get() &&
          SameShape(*buffer, *store_.buffer) && SameIndices(node.indices, store_.indices) &&
          std::find(found.begin(), found.end(), buffer) == found.end()) {
        found.push_back(buffer);
      }
      IRVisitor::VisitBufferLoad(node);
    }

   private:
    static bool SameIndices(const std::vector<Expr>& a, const std::vector<Expr>& b) {
      if (a.size() != b.size()) return false;
      for (size_t d = 0; d < a.size(); ++d) {
        if (!StructuralEqual(a[d], b[d])) return false;
      }
      return true;
    }
    const Store& store_;
  };
  Finder finder(store);
  finder.Visit(store.value);
  return finder.found;
}

class FragmentUses : public IRVisitor {
 public:
  std::vector<const BufferNode*> fragments;  // allocated, in program order
  std::vector<const Allocate*> allocations;  // of `fragments`, in the same order
  std::vector<const Gemm*> gemms;            // with a fragment accumulator
  std::vector<const Gemm*> register_a_gemms;  // with a fragment A operand
  std::vector<Link> links;

 protected:
  void VisitAllocate(const Allocate& node) override {
    if (IsFragment(node.buffer)) {
      fragments.push_back(node.buffer.get());
      allocations.push_back(&node);
    }
    IRVisitor::VisitAllocate(node);
  }
  void VisitGemm(const Gemm& node) override {
    if (IsFragment(node.c.buffer)) gemms.push_back(&node);
    if (IsFragment(node.a.buffer)) register_a_gemms.push_back(&node);
    IRVisitor::VisitGemm(node);
  }
  void VisitReduce(const Reduce& node) override {
    if (Whole(node.src, node.dst)) {
      bool keeps = node.dst.buffer->rank() == node.src.buffer->rank();
      links.push_back({true, node.src.buffer.get(), node.dst.buffer.get(), node.dim, keeps});
    }
    IRVisitor::VisitReduce(node);
  }
  void VisitCumsum(const Cumsum& node) override {
    // An in-place scan (TileLang's T.cumsum(F)) links its fragment to itself, which marks
    // the fragment's rows as scanned.
    bool in_place = node.src.buffer == node.dst.buffer && IsFragment(node.src.buffer) &&
                    CoversBuffer(node.src) && CoversBuffer(node.dst);
    if (in_place || (Whole(node.src, node.dst) && SameShape(*node.src.buffer, *node.dst.buffer))) {
      links.push_back({false, node.src.buffer.get(), node.dst.buffer.get(), node.dim, false});
    }
    IRVisitor::VisitCumsum(node);
  }
  void VisitCopy(const Copy& node) override {
    if (Whole(node.src, node.dst) && SameShape(*node.src.buffer, *node.dst.buffer)) {
      links.push_back({false, node.src.buffer.get(), node.dst.buffer.get(), -1, false});
    }
    IRVisitor::VisitCopy(node);
  }
  // An element-wise statement `F[i, j] = f(G[i, j], ...)`: F and every fragment G of F's shape
  // read at the very indices F is written at share a layout, so that each thread computes the
  // elements it holds from values it holds (a cast of an accumulator stays in place).
  void VisitStore(const Store& node) override {
    if (IsFragment(node.buffer)) {
      for (const BufferNode* source : SameIndexLoads(node)) {
        links.push_back({false, source, node.buffer.get(), -1, false});
      }
      for (const Broadcast& read : BroadcastLoads(node)) broadcasts.push_back(read);
    }
    IRVisitor::VisitStore(node);
  }

 public:
  // `F[i, j] = f(v[i], ...)`: a store to fragment F reading fragment v at F's indices less the
  // one of dimension `dim` (or with 0 there, v keeping the dimension with extent 1).
  struct Broadcast {
    const BufferNode* stored = nullptr;
    const BufferNode* vector = nullptr;
    int dim = -1;
  };
  std::vector<Broadcast> broadcasts;

 private:
  static std::vector<Broadcast> BroadcastLoads(const Store& store) {
    class Finder : public IRVisitor {
     public:
      explicit Finder(const Store& store) : store_(store) {}
      using IRVisitor::Visit;
      std::vector<Broadcast> found;

     protected:
      void VisitBufferLoad(const BufferLoad& node) override {
        if (IsFragment(node.buffer) && node.buffer != store_.buffer) {
          int dim = BroadcastDim(node.indices, node.buffer->rank());
          if (dim >= 0) found.push_back({store_.buffer.get(), node.buffer.get(), dim});
        }
        IRVisitor::VisitBufferLoad(node);
      }

     private:
      // The dimension of the store's indices that `indices` leave out (or pin to 0 in a
      // vector of the same rank, whose extent there the caller checks), else -1.
      int BroadcastDim(const std::vector<Expr>& indices, int rank) const {
        const std::vector<Expr>& stored = store_.indices;
        for (size_t dim = 0; dim < stored.size(); ++dim) {
          bool match = true;
          if (static_cast<size_t>(rank) + 1 == stored.size()) {
            for (size_t d = 0, k = 0; d < stored.size() && match; ++d) {
              if (d == dim) continue;
              match = StructuralEqual(indices[k++], stored[d]);
            }
          } else if (static_cast<size_t>(rank) == stored.size()) {
            for (size_t d = 0; d < stored.size() && match; ++d) {
              match = d == dim ? AsConstInt(indices[d]) == 0 && !AsConstInt(stored[d])
                               : StructuralEqual(indices[d], stored[d]);
            }
          } else {
            return -1;
          }
          if (match) return static_cast<int>(dim);
        }
        return -1;
      }
      const Store& store_;
    };
    Finder finder(store);
    finder.Visit(store.value);
    return finder.found;
  }

 protected:

 private:
  static bool Whole(const Region& src, const Region& dst) {
    return IsFragment(src.buffer) && IsFragment(dst.buffer) && src.buffer != dst.buffer &&
           CoversBuffer(src) && CoversBuffer(dst);
  }
};

class LayoutSolver {
 public:
  LayoutSolver(const KernelNode& kernel, const TargetInfo& target, const FragmentUses& uses)
      : kernel_(kernel), target_(target), uses_(uses) {
    for (const BufferNode* fragment : uses_.fragments) {
      if (fragment->layout) layouts_.emplace(fragment, *fragment->layout);
    }
  }

  // The layouts of the fragments that had none.
  absl::StatusOr<absl::flat_hash_map<const BufferNode*, Layout>> Solve() {
    int64_t threads = target_.ThreadsExecutingBlock(kernel_.launch);
    if (threads > 1) {
      if (absl::Status status = AssignGemmLayouts(); !status.ok()) return status;
      Propagate();
      if (AssignRegisterOperandLayouts()) Propagate();
      for (const Link& link : uses_.links) {
        if (link.dim < 0 || layouts_.contains(link.src) || layouts_.contains(link.dst)) continue;
        // A reduction's rows spread over lanes in vector runs (its destination then follows,
        // replicated over each row's lanes); a scan's, or a reduction's that cannot spread,
        // stay on one thread each, the destination row (or scanned row) on its source row's
        // thread in compact registers.
        std::optional<Layout> spread =
            link.reduce && !Scanned(link.src)
                ? RowSpreadLayout(link.src->shape, link.dim, threads, VectorElements(*link.src))
                : std::nullopt;
        if (spread) {
          layouts_.emplace(link.src, *std::move(spread));
        } else {
          Layout rows = ThreadPerRowLayout(link.src->shape, link.dim, threads);
          layouts_.emplace(link.dst, link.reduce ? CyclicLayout(link.dst->shape, threads)
                                                 : CopyLayout(rows));
          layouts_.emplace(link.src, std::move(rows));
        }
        Propagate();
      }
    }
    absl::flat_hash_map<const BufferNode*, Layout> inferred;
    for (const BufferNode* fragment : uses_.fragments) {
      if (fragment->layout) continue;
      auto it = layouts_.find(fragment);
      Layout layout = it != layouts_.end() ? it->second
                      : threads > 1        ? CyclicLayout(fragment->shape, threads)
                                           : SingleThreadLayout(fragment->shape);
      inferred.emplace(fragment, SimplifyLayout(layout, fragment->shape));
    }
    return inferred;
  }

 private:
  absl::Status AssignGemmLayouts() {
    absl::flat_hash_map<const BufferNode*, const Gemm*> asked_by;
    for (const Gemm* gemm : uses_.gemms) {
      const BufferNode* c = gemm->c.buffer.get();
      if (c->layout) continue;
      std::optional<Layout> layout = target_.FragmentLayoutForGemm(*gemm, kernel_);
      if (!layout) continue;
      auto [it, first] = asked_by.emplace(c, gemm);
      if (first) {
        layouts_.emplace(c, *std::move(layout));
      } else if (!SameLayout(layouts_.at(c), *layout)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "kernel '", kernel_.name, "': fragment '", c->name,
            "' is the accumulator of two gemms that need different layouts on target '",
            target_.name(), "' (at ", Where(it->second->loc()), " and ", Where(gemm->loc()),
            "); accumulate into separate fragments"));
      }
    }
    return absl::OkStatus();
  }

  // A fragment A operand that nothing has laid out yet takes the layout in which the target's
  // gemm reads it from registers (a tile loaded or computed for the gemm alone); one that an
  // accumulator's layout reached keeps it (attention's P = cast(S)), and the target reads it
  // from registers where the two coincide. Whether anything was assigned.
  bool AssignRegisterOperandLayouts() {
    bool assigned = false;
    for (const Gemm* gemm : uses_.register_a_gemms) {
      const BufferNode* a = gemm->a.buffer.get();
      if (a->layout || layouts_.contains(a)) continue;
      std::optional<Layout> layout = target_.RegisterOperandLayoutForGemm(*gemm, kernel_);
      if (!layout) continue;
      layouts_.emplace(a, *std::move(layout));
      assigned = true;
    }
    return assigned;
  }

  // Spreads layouts along the links until nothing changes.
  void Propagate() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (const Link& link : uses_.links) {
        auto src = layouts_.find(link.src);
        auto dst = layouts_.find(link.dst);
        if (src != layouts_.end() && dst == layouts_.end()) {
          layouts_.emplace(link.dst, link.reduce ? ReducedLayoutFor(link, src->second)
                                                 : CopyLayout(src->second));
          changed = true;
        } else if (dst != layouts_.end() && src == layouts_.end() && !dst->second.replicated()) {
          layouts_.emplace(link.src, link.reduce
                                         ? ExpandedLayout(dst->second, link.dim,
                                                          link.src->shape[link.dim], link.keeps_dim)
                                         : CopyLayout(dst->second));
          changed = true;
        }
      }
    }
  }

  // A reduction's destination: replicated over the lanes holding each source row where the
  // source spreads rows over lanes (so the reduction finishes with shuffles and the row vector
  // is at hand in every lane that holds the row), else where the row's first element lives.
  Layout ReducedLayoutFor(const Link& link, const Layout& src) const {
    std::vector<int64_t> shape;
    for (const Expr& extent : link.src->shape) {
      std::optional<int64_t> value = AsConstInt(extent);
      if (!value) return ReducedLayout(src, link.dim, link.keeps_dim);
      shape.push_back(*value);
    }
    std::optional<Layout> replicated = LaneReplicatedReducedLayout(
        SimplifyLayout(src, link.src->shape), shape, link.dim, link.keeps_dim,
        target_.warp_size(), target_.ThreadsExecutingBlock(kernel_.launch));
    return replicated ? *std::move(replicated) : ReducedLayout(src, link.dim, link.keeps_dim);
  }

  // Whether a cumsum reads or writes `fragment`: a scan runs along rows inside threads.
  bool Scanned(const BufferNode* fragment) const {
    for (const Link& link : uses_.links) {
      if (!link.reduce && link.dim >= 0 && (link.src == fragment || link.dst == fragment)) {
        return true;
      }
    }
    return false;
  }

  // The elements of one vector access of the target for the narrowest element type among the
  // fragments of `fragment`'s shape (which element-wise statements tie to its layout).
  int64_t VectorElements(const BufferNode& fragment) const {
    int bits = fragment.dtype.bits();
    for (const BufferNode* other : uses_.fragments) {
      if (SameShape(*other, fragment)) bits = std::min(bits, other->dtype.bits());
    }
    return std::max<int64_t>(1, int64_t{target_.max_vector_bytes()} * 8 / std::max(bits, 8));
  }

  static std::string Where(const SourceLoc& loc) {
    return loc.known() ? loc.ToString() : "an unknown location";
  }

  const KernelNode& kernel_;
  const TargetInfo& target_;
  const FragmentUses& uses_;
  absl::flat_hash_map<const BufferNode*, Layout> layouts_;
};

// Rebuilds buffers with the layouts given (none where the value is empty).
class LayoutRewriter : public IRMutator {
 public:
  explicit LayoutRewriter(absl::flat_hash_map<const BufferNode*, std::optional<Layout>> layouts)
      : layouts_(std::move(layouts)) {}

 protected:
  Buffer MutateBuffer(const Buffer& buffer) override {
    auto done = rebuilt_.find(buffer.get());
    if (done != rebuilt_.end()) return done->second;
    auto layout = layouts_.find(buffer.get());
    if (layout == layouts_.end()) return buffer;
    Buffer result = BufferNode::Make(buffer->name, buffer->dtype, buffer->shape, buffer->scope,
                                     buffer->strides, layout->second);
    rebuilt_.emplace(buffer.get(), result);
    return result;
  }

 private:
  absl::flat_hash_map<const BufferNode*, std::optional<Layout>> layouts_;
  absl::flat_hash_map<const BufferNode*, Buffer> rebuilt_;
};

// Whether `expr` names only the kernel's dims, which specialize-dims can make constants.
bool NamesOnlyDims(const KernelNode& kernel, const Expr& expr) {
  class Finder : public IRVisitor {
   public:
    explicit Finder(const KernelNode& kernel) : kernel_(kernel) {}
    using IRVisitor::Visit;
    bool only_dims = true;

   protected:
    void VisitVar(const Var& node) override {
      bool is_dim = false;
      for (const VarRef& dim : kernel_.dims) is_dim |= dim.get() == &node;
      only_dims &= is_dim;
    }

   private:
    const KernelNode& kernel_;
  };
  Finder finder(kernel);
  finder.Visit(expr);
  return finder.only_dims;
}

// A fragment is spread over the registers of the block's threads, and a thread's registers
// are a fixed set, so its extents must be known when the kernel is compiled. A symbolic one
// (a whole row of N elements) is refused here, in the user's terms, before any layout uses it.
absl::Status CheckConstantExtents(const KernelNode& kernel, const FragmentUses& uses) {
  for (const Allocate* allocation : uses.allocations) {
    const BufferNode& fragment = *allocation->buffer;
    for (int d = 0; d < fragment.rank(); ++d) {
      if (AsConstInt(fragment.shape[d])) continue;
      std::string extent = Print(fragment.shape[d]);
      // Dims become constants with --static-shapes; other names (a let) stay names in shapes.
      std::string what_to_do =
          NamesOnlyDims(kernel, fragment.shape[d])
              ? absl::StrCat("use a constant tile size (loop over the dimension in tiles), or "
                             "give its value when compiling (tile-translate --shapes, "
                             "tile-run and the runtime do so by themselves; the "
                             "specialize-dims pass) so that ",
                             extent, " is a constant")
              : "write the extent as a literal";
      std::string where =
          allocation->loc().known() ? absl::StrCat(allocation->loc().ToString(), ": ") : "";
      return absl::InvalidArgumentError(absl::StrCat(
          where, "in kernel '", kernel.name, "': fragment '", fragment.name, "' has extent ",
          extent, " in dimension ", d,
          ", which is not a compile-time constant; fragments live in registers and need "
          "constant extents: ",
          what_to_do));
    }
  }
  return absl::OkStatus();
}

// Layouts written by the user are kept, and everything after this pass reads a fragment
// layout's first two outputs as the element's (thread, register); one with fewer is refused
// here, where layouts are spread from it, when the block runs on several threads (with one,
// thread-binding gives every fragment one thread's local tile and reads no layout).
absl::Status CheckWrittenLayouts(const KernelNode& kernel, const FragmentUses& uses,
                                 int64_t threads) {
  if (threads <= 1) return absl::OkStatus();
  for (const Allocate* allocation : uses.allocations) {
    const BufferNode& fragment = *allocation->buffer;
    if (!fragment.layout || fragment.layout->outputs.size() >= 2) continue;
    std::string where =
        allocation->loc().known() ? absl::StrCat(allocation->loc().ToString(), ": ") : "";
    return absl::InvalidArgumentError(absl::StrCat(
        where, "in kernel '", kernel.name, "': the layout of fragment '", fragment.name,
        "' has ", fragment.layout->outputs.size(),
        " output; a fragment layout maps an element to (thread, register): give both, or "
        "leave the layout out for layout-inference to choose"));
  }
  return absl::OkStatus();
}

// The shared buffers allocated with a layout of their own.
std::vector<const BufferNode*> SharedBuffersWithLayouts(const Stmt& body) {
  class Finder : public IRVisitor {
   public:
    using IRVisitor::Visit;
    std::vector<const BufferNode*> found;

   protected:
    void VisitAllocate(const Allocate& node) override {
      if (node.buffer->scope == MemoryScope::kShared && node.buffer->layout) {
        found.push_back(node.buffer.get());
      }
      IRVisitor::VisitAllocate(node);
    }
  };
  Finder finder;
  finder.Visit(body);
  return finder.found;
}

// First, so that the target sees the gemm operands it will lay out (FragmentLayoutForGemm).
Kernel DropSharedLayouts(const Kernel& kernel, const TargetInfo& target,
                         std::vector<std::string>* remarks) {
  if (target.ThreadsExecutingBlock(kernel->launch) <= 1) return kernel;
  absl::flat_hash_map<const BufferNode*, std::optional<Layout>> dropped;
  for (const BufferNode* shared : SharedBuffersWithLayouts(kernel->body)) {
    dropped.emplace(shared, std::nullopt);
    if (remarks == nullptr) continue;
    remarks->push_back(absl::StrCat(
        "layout-inference: kernel '", kernel->name, "': the layout written for shared buffer '",
        shared->name, "' is dropped: on target '", target.name(),
        "' shared tiles take the layouts its passes choose (a gemm operand's padding or "
        "swizzle) and are otherwise row-major; a shared layout only places elements, so "
        "values are unchanged"));
  }
  if (dropped.empty()) return kernel;
  return LayoutRewriter(std::move(dropped)).MutateKernel(kernel);
}

}  // namespace

absl::StatusOr<Kernel> InferFragmentLayouts(const Kernel& original, const TargetInfo& target,
                                            std::vector<std::string>* remarks) {
  Kernel kernel = DropSharedLayouts(original, target, remarks);
  FragmentUses uses;
  uses.Visit(kernel->body);
  // A fragment that broadcasts a reduced vector along the reduced dimension takes the layout
  // of the reduction's source (when of its shape), so that each thread finds the vector's
  // element of every row it holds among its own registers.
  for (const FragmentUses::Broadcast& read : uses.broadcasts) {
    for (size_t k = 0, n = uses.links.size(); k < n; ++k) {
      const Link link = uses.links[k];
      if (link.reduce && link.dst == read.vector && link.dim == read.dim &&
          link.src != read.stored && SameShape(*link.src, *read.stored)) {
        uses.links.push_back({false, link.src, read.stored, -1, false});
      }
    }
  }
  if (absl::Status status = CheckConstantExtents(*kernel, uses); !status.ok()) return status;
  if (absl::Status status =
          CheckWrittenLayouts(*kernel, uses, target.ThreadsExecutingBlock(kernel->launch));
      !status.ok()) {
    return status;
  }
  absl::StatusOr<absl::flat_hash_map<const BufferNode*, Layout>> inferred =
      LayoutSolver(*kernel, target, uses).Solve();
  if (!inferred.ok()) return inferred.status();
  if (inferred->empty()) return kernel;
  absl::flat_hash_map<const BufferNode*, std::optional<Layout>> layouts(inferred->begin(),
                                                                        inferred->end());
  return LayoutRewriter(std::move(layouts)).MutateKernel(kernel);
}

absl::StatusOr<bool> InferFragmentLayouts(Module& module, const TargetInfo& target) {
  return MapKernels(
      module, [&target](const Kernel& kernel) { return InferFragmentLayouts(kernel, target); });
}

PassInfo LayoutInferencePass() {
  PassInfo info;
  info.name = "layout-inference";
  info.description = "gives every fragment buffer a (thread, register) layout for the target";
  info.needs_target = true;
  info.run_kernel =
      EachKernel([](const Kernel& kernel, const PassOptions& options) -> absl::StatusOr<Kernel> {
        std::vector<std::string> remarks;
        absl::StatusOr<Kernel> result = InferFragmentLayouts(kernel, options.target(), &remarks);
        for (std::string& remark : remarks) options.Remark(std::move(remark));
        return result;
      });
  return info;
}

}  // namespace tile_ir::passes
