// The padded-reductions analysis (padded_reductions.h): a walk in program order that follows
// which tiles hold copy padding along which dims.
#include "passes/analysis/padded_reductions.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "passes/analysis/padded_reductions_internal.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes {
namespace {

using padding::EdgeFacts;
using padding::LetValues;
using padding::Padding;
using padding::PaddingState;
using padding::PadKind;
using padding::PadValue;
using padding::TilePadding;

// The dims of a region that are not constant 1: a copy pairs them up between its two sides.
std::vector<int> NonUnitDims(const Region& region) {
  std::vector<int> dims;
  for (size_t d = 0; d < region.ranges.size(); ++d) {
    if (AsConstInt(region.ranges[d].extent) != 1) dims.push_back(static_cast<int>(d));
  }
  return dims;
}

bool ContainsSelect(const Expr& e, const LetValues& lets) {
  if (e == nullptr) return false;
  switch (e->kind()) {
    case ExprKind::kSelect: return true;
    case ExprKind::kVar: {
      auto let = lets.find(As<Var>(e));
      return let != lets.end() && ContainsSelect(let->second, lets);
    }
    case ExprKind::kUnary: return ContainsSelect(As<Unary>(e)->a, lets);
    case ExprKind::kCast: return ContainsSelect(As<Cast>(e)->value, lets);
    case ExprKind::kBinary:
      return ContainsSelect(As<Binary>(e)->a, lets) || ContainsSelect(As<Binary>(e)->b, lets);
    case ExprKind::kCall:
      for (const Expr& arg : As<Call>(e)->args) {
        if (ContainsSelect(arg, lets)) return true;
      }
      return false;
    default: return false;
  }
}

// What each reduce kind needs the padding to hold, its identity, for the remedy; none for the
// kinds to which the zeros are neutral while they stay zeros.
std::optional<std::string> NeutralOnlyAs(ReduceKind kind, DataType dtype) {
  switch (kind) {
    case ReduceKind::kMax: return dtype.is_float() ? "-inf" : "the type's lowest value";
    case ReduceKind::kMin: return dtype.is_float() ? "inf" : "the type's highest value";
    case ReduceKind::kProd: return "1";
    case ReduceKind::kBitAnd: return "-1 (all bits set)";
    default: return std::nullopt;
  }
}

class Walker {
 public:
  explicit Walker(const KernelNode& kernel) : kernel_(kernel), edges_(kernel) {}

  std::vector<PaddedReduction> Run() {
    Walk(kernel_.body);
    return std::move(findings_);
  }

 private:
  void Walk(const Stmt& s) {
    if (s == nullptr) return;
    switch (s->kind()) {
      case StmtKind::kSeq:
        for (const Stmt& stmt : As<Seq>(s)->stmts) Walk(stmt);
        return;
      case StmtKind::kFor: {
        const For& loop = *As<For>(s);
        if (loop.for_kind == ForKind::kParallel) return WalkElementwise(loop.body, false);
        return Walk(loop.body);
      }
      case StmtKind::kIf: return WalkIf(*As<If>(s));
      case StmtKind::kLet: {
        const Let& let = *As<Let>(s);
        edges_.AddLet(let.var.get(), let.value);
        lets_[let.var.get()] = let.value;
        return;
      }
      case StmtKind::kCopy: return OnCopy(*As<Copy>(s));
      case StmtKind::kGemm: return OnGemm(*As<Gemm>(s));
      case StmtKind::kReduce: return OnReduce(*As<Reduce>(s));
      case StmtKind::kFill: state_.erase(As<Fill>(s)->dst.buffer.get()); return;
      case StmtKind::kCumsum: state_.erase(As<Cumsum>(s)->dst.buffer.get()); return;
      case StmtKind::kAtomicAdd: state_.erase(As<AtomicAdd>(s)->dst.buffer.get()); return;
      default: return;
    }
  }

  // The padding both branches leave (fewer false alarms than either's).
  void WalkIf(const If& node) {
    PaddingState before = state_;
    Walk(node.then_body);
    PaddingState then_state = std::move(state_);
    state_ = std::move(before);
    Walk(node.else_body);
    PaddingState merged;
    for (const auto& [buffer, dims] : then_state) {
      auto other = state_.find(buffer);
      if (other == state_.end()) continue;
      for (const auto& [dim, pad] : dims) {
        auto same = other->second.find(dim);
        if (same == other->second.end() || same->second.tensor != pad.tensor) continue;
        Padding kept = pad;
        kept.zero = pad.zero || same->second.zero;
        merged[buffer][dim] = kept;
      }
    }
    state_ = std::move(merged);
  }

  // The body of a parallel nest: each store to a tile replaces its padding by what the stored
  // value holds along each loop variable that indexes it.
  void WalkElementwise(const Stmt& s, bool masked) {
    if (s == nullptr) return;
    switch (s->kind()) {
      case StmtKind::kSeq:
        for (const Stmt& stmt : As<Seq>(s)->stmts) WalkElementwise(stmt, masked);
        return;
      case StmtKind::kFor: return WalkElementwise(As<For>(s)->body, masked);
      case StmtKind::kIf:
        WalkElementwise(As<If>(s)->then_body, true);
        WalkElementwise(As<If>(s)->else_body, true);
        return;
      case StmtKind::kLet: lets_[As<Let>(s)->var.get()] = As<Let>(s)->value; return;
      case StmtKind::kStore: return OnStore(*As<Store>(s), masked);
      default: return Walk(s);  // a tile op nested in the loop
    }
  }

  void OnStore(const Store& store, bool masked) {
    if (store.buffer->scope == MemoryScope::kGlobal) return;
    TilePadding written;
    if (!masked && !ContainsSelect(store.value, lets_)) {
      for (size_t d = 0; d < store.indices.size(); ++d) {
        const Var* var = As<Var>(store.indices[d]);
        if (var == nullptr) continue;
        PadValue value = padding::PadAlong(store.value, var, state_, lets_);
        if (value.kind != PadKind::kZero && value.kind != PadKind::kNonzero) continue;
        Padding pad = *value.origin;
        pad.zero = value.kind == PadKind::kZero;
        written[static_cast<int>(d)] = std::move(pad);
      }
    }
    Replace(store.buffer.get(), std::move(written));
  }

  void Replace(const BufferNode* buffer, TilePadding dims) {
    if (dims.empty()) {
      state_.erase(buffer);
    } else {
      state_[buffer] = std::move(dims);
    }
  }

  void OnCopy(const Copy& copy) {
    if (copy.dst.buffer->scope == MemoryScope::kGlobal) return;
    std::vector<int> from = NonUnitDims(copy.src);
    std::vector<int> to = NonUnitDims(copy.dst);
    TilePadding written;
    if (from.size() == to.size()) {
      const bool global = copy.src.buffer->scope == MemoryScope::kGlobal;
      auto source = state_.find(copy.src.buffer.get());
      for (size_t i = 0; i < from.size(); ++i) {
        if (global && edges_.MayPassEdge(copy.src, from[i])) {
          std::optional<int64_t> extent = AsConstInt(copy.src.ranges[from[i]].extent);
          written[to[i]] =
              Padding{copy.src.buffer->name, from[i],    copy.src.buffer->shape[from[i]],
                      extent.value_or(0),    copy.loc(), true};
        } else if (!global && source != state_.end() && source->second.contains(from[i])) {
          written[to[i]] = source->second.at(from[i]);
        }
      }
    }
    Replace(copy.dst.buffer.get(), std::move(written));
  }

  // A zero row of A is a zero row of the product, a zero column of B a zero column of it;
  // padding along the contracted dim adds zero products and is gone. An accumulating gemm adds
  // those zeros to what C held, so C keeps its own padding there (attention's S, prefilled with
  // select(..., 0, -inf), stays masked); padding that is no longer 0 reaches C either way.
  void OnGemm(const Gemm& gemm) {
    TilePadding written;
    if (!gemm.clear_accum) {
      if (auto old = state_.find(gemm.c.buffer.get()); old != state_.end()) written = old->second;
    }
    auto carry = [&](const Region& operand, int operand_dim, int c_dim) {
      auto source = state_.find(operand.buffer.get());
      if (source == state_.end() || !source->second.contains(operand_dim)) return;
      const Padding& pad = source->second.at(operand_dim);
      if (gemm.clear_accum || !pad.zero) written[c_dim] = pad;
    };
    carry(gemm.a, gemm.transpose_a ? 1 : 0, 0);
    carry(gemm.b, gemm.transpose_b ? 0 : 1, 1);
    Replace(gemm.c.buffer.get(), std::move(written));
  }

  void OnReduce(const Reduce& reduce) {
    auto source = state_.find(reduce.src.buffer.get());
    TilePadding src = source == state_.end() ? TilePadding{} : source->second;
    if (auto pad = src.find(reduce.dim); pad != src.end()) {
      std::optional<std::string> neutral =
          NeutralOnlyAs(reduce.reduce_kind, reduce.src.buffer->dtype);
      if (neutral || !pad->second.zero) Report(reduce, pad->second, neutral);
    }
    TilePadding written;
    if (!reduce.clear) {
      if (auto old = state_.find(reduce.dst.buffer.get()); old != state_.end()) {
        written = old->second;
      }
    }
    for (const auto& [dim, pad] : src) {
      if (dim != reduce.dim) written.emplace(dim < reduce.dim ? dim : dim - 1, pad);
    }
    Replace(reduce.dst.buffer.get(), std::move(written));
  }

  void Report(const Reduce& reduce, const Padding& pad, const std::optional<std::string>& neutral) {
    const std::string tile = reduce.src.buffer->name;
    const std::string size = Print(pad.size);
    std::string message =
        absl::StrCat("reduce ", std::string(ReduceKindName(reduce.reduce_kind)), " of '", tile,
                     "' along dim ", reduce.dim, " may combine elements past the edge of '",
                     pad.tensor, "' (dim ", pad.tensor_dim, ", size ", size, "; copied",
                     pad.copy_loc.known() ? " at " : "", pad.copy_loc.ToString(), ")");
    if (neutral) {
      absl::StrAppend(&message,
                      pad.zero ? ", which the copy filled with 0"
                               : ", which hold what an element-wise loop computed from the "
                                 "copy's zeros",
                      ": set them to ", *neutral,
                      " first, in a parallel loop storing select(<global index> < ", size, ", ",
                      tile, "[...], ", *neutral, ")");
    } else {
      absl::StrAppend(&message,
                      ", which an element-wise loop turned from 0 into other values (exp(x - m) "
                      "of 0 is not 0): store select(<global index> < ",
                      size, ", ..., 0) in that loop");
    }
    if (AsConstInt(pad.size)) {
      absl::StrAppend(&message, ", or use tiles that divide ", size);
    } else if (pad.tile_extent > 0) {
      absl::StrAppend(&message, ", or state that the tiles divide it: require ", size, " % ",
                      pad.tile_extent, " == 0;");
    }
    findings_.push_back({reduce.loc(), kernel_.name, std::move(message)});
  }

  const KernelNode& kernel_;
  EdgeFacts edges_;
  LetValues lets_;
  PaddingState state_;
  std::vector<PaddedReduction> findings_;
};

}  // namespace

std::vector<PaddedReduction> FindPaddedReductions(const KernelNode& kernel) {
  return Walker(kernel).Run();
}

std::string FormatPaddedReduction(const PaddedReduction& finding) {
  std::string where = finding.loc.ToString();
  return absl::StrCat(where, where.empty() ? "" : ": ", "kernel '", finding.kernel,
                      "': ", finding.message);
}

PassInfo PaddedReductionsPass() {
  PassInfo info;
  info.name = "padded-reductions";
  info.description =
      "remarks on reductions (max, min, prod, bitand; sum of exp(x)) that may combine the zeros "
      "a copy padded a tile with past a tensor's edge; changes nothing";
  info.run = [](Module& module, const PassOptions& options) -> absl::StatusOr<bool> {
    for (const Kernel& kernel : module.kernels) {
      for (const PaddedReduction& finding : FindPaddedReductions(*kernel)) {
        options.Remark(absl::StrCat("padded-reductions: ", FormatPaddedReduction(finding)));
      }
    }
    return false;
  };
  return info;
}

}  // namespace tile_ir::passes
