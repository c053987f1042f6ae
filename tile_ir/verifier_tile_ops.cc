// Checks of regions and tile operations: memory scopes each operation needs,
// shapes that agree where they are constant, and regions inside their buffers.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tile_ir/verifier_expr.h"
#include "tile_ir/verifier_kernel.h"

namespace tile_ir::verifier {
namespace {

using Extents = std::vector<std::optional<int64_t>>;

// The extents of a region that CheckRegion accepted; nullopt where not constant.
Extents ConstExtents(const Region& region) {
  Extents extents;
  for (const Range& range : region.ranges) {
    extents.push_back(range.extent ? AsConstInt(range.extent) : std::nullopt);
  }
  return extents;
}

std::string FormatExtents(const Extents& extents) {
  return absl::StrCat("[",
                      absl::StrJoin(extents, ", ",
                                    [](std::string* out, const auto& e) {
                                      absl::StrAppend(out, e ? absl::StrCat(*e) : "?");
                                    }),
                      "]");
}

// "'A' (shared)": how messages name an operand's buffer.
std::string NameWithScope(const BufferNode& buffer) {
  return absl::StrCat("'", buffer.name, "' (", std::string(MemoryScopeName(buffer.scope)), ")");
}

// Whether two lists of extents may be equal: they are unless some pair of
// constants differs.
bool MayBeEqual(const Extents& a, const Extents& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] && b[i] && *a[i] != *b[i]) return false;
  }
  return true;
}

// Whether the extents agree once dimensions of constant extent 1 are dropped
// (a [1, 64] tile copies to a [64] one). When the counts differ, a symbolic
// extent might still be 1, so only all-constant lists can be told apart.
bool MayBeEqualIgnoringUnitDims(const Extents& a, const Extents& b) {
  auto drop_units = [](const Extents& extents) {
    Extents kept;
    for (const auto& e : extents) {
      if (!e || *e != 1) kept.push_back(e);
    }
    return kept;
  };
  auto all_constant = [](const Extents& extents) {
    for (const auto& e : extents) {
      if (!e) return false;
    }
    return true;
  };
  Extents kept_a = drop_units(a);
  Extents kept_b = drop_units(b);
  if (kept_a.size() != kept_b.size()) return !(all_constant(a) && all_constant(b));
  return MayBeEqual(kept_a, kept_b);
}

// The end of [min, min + extent) as text, without overflowing.
std::string RangeEnd(int64_t min, int64_t extent) {
  if (min > 0 && extent > std::numeric_limits<int64_t>::max() - min) {
    return absl::StrCat(min, " + ", extent);
  }
  return absl::StrCat(min + extent);
}

}  // namespace

bool KernelVerifier::CheckRegion(const Region& region, absl::string_view role, const Site& site) {
  if (!region.buffer) {
    sink_.Report(site, absl::StrCat("missing ", role, " buffer"));
    return false;
  }
  const BufferNode& buffer = *region.buffer;
  if (!scope_.HasBuffer(&buffer)) sink_.Report(site, scope_.UndefinedBufferMessage(buffer));
  if (static_cast<int>(region.ranges.size()) != buffer.rank()) {
    sink_.Report(site, absl::StrCat("the ", role, " region of '", buffer.name, "' has ",
                                    region.ranges.size(), " ranges, but the buffer has rank ",
                                    buffer.rank()));
    return false;
  }
  for (size_t d = 0; d < region.ranges.size(); ++d) {
    const Range& range = region.ranges[d];
    std::string where = absl::StrCat(" of the ", role, " region in dimension ", d);
    bool has_min = CheckIntegerExpr(range.min, absl::StrCat("start", where), scope_, site, sink_);
    bool has_extent =
        CheckIntegerExpr(range.extent, absl::StrCat("extent", where), scope_, site, sink_);
    std::optional<int64_t> extent = has_extent ? AsConstInt(range.extent) : std::nullopt;
    if (extent && *extent <= 0) {
      sink_.Report(site, absl::StrCat("extent", where, " is ", *extent, "; it must be positive"));
      continue;
    }
    // A region of a global tensor may reach past its edges, as a tile does at a ragged edge:
    // the accesses outside are masked (bound-predication skips the stores and reads zeros).
    // That is legal with symbolic shapes, so it stays legal once specialize-dims makes a
    // shape constant. Buffers on chip have no masking.
    if (buffer.scope == MemoryScope::kGlobal) continue;
    std::optional<int64_t> min = has_min ? AsConstInt(range.min) : std::nullopt;
    std::optional<int64_t> size = buffer.shape[d] ? AsConstInt(buffer.shape[d]) : std::nullopt;
    if (!min || !extent || !size) continue;
    // min >= 0 and extent > 0 here; `size - min` is taken only when it cannot overflow (a
    // negative constant size, which the buffer's own check reports, is exceeded by any region).
    if (*min < 0 || *min > *size || *extent > *size - *min) {
      sink_.Report(site,
                   absl::StrCat(role, " region [", *min, ", ", RangeEnd(*min, *extent), ") of '",
                                buffer.name, "' exceeds dimension ", d, " of size ", *size));
    }
  }
  return true;
}

void KernelVerifier::CheckCopy(const Copy& node, const Site& site) {
  bool src_ok = CheckRegion(node.src, "source", site);
  bool dst_ok = CheckRegion(node.dst, "destination", site);
  if (!src_ok || !dst_ok) return;
  Extents src = ConstExtents(node.src);
  Extents dst = ConstExtents(node.dst);
  if (!MayBeEqualIgnoringUnitDims(src, dst)) {
    sink_.Report(site, absl::StrCat("source extents ", FormatExtents(src),
                                    " differ from destination extents ", FormatExtents(dst),
                                    " (unit dimensions aside)"));
  }
}

void KernelVerifier::CheckGemm(const Gemm& node, const Site& site) {
  bool a_ok = CheckRegion(node.a, "A", site);
  bool b_ok = CheckRegion(node.b, "B", site);
  bool c_ok = CheckRegion(node.c, "C", site);
  for (const auto& [role, region] : {std::pair{"A", &node.a}, std::pair{"B", &node.b}}) {
    if (!region->buffer) continue;
    MemoryScope scope = region->buffer->scope;
    if (scope != MemoryScope::kShared && scope != MemoryScope::kFragment) {
      sink_.Report(site, absl::StrCat("operand ", role, " ", NameWithScope(*region->buffer),
                                      " must be in shared or fragment memory"));
    }
  }
  if (node.c.buffer) {
    const BufferNode& c = *node.c.buffer;
    if (c.scope != MemoryScope::kFragment && c.scope != MemoryScope::kLocal) {
      sink_.Report(site, absl::StrCat("accumulator C ", NameWithScope(c),
                                      " must be in fragment or local memory"));
    }
    if (!c.dtype.is_float() && c.dtype != kI32) {
      sink_.Report(site, absl::StrCat("accumulator C '", c.name,
                                      "' must hold a float type or i32, not ", c.dtype.ToString()));
    }
  }
  if (!a_ok || !b_ok || !c_ok) return;

  // Each operand is a matrix once leading unit dimensions are dropped (a
  // [1, 64, 32] slice of a stage buffer is a 64x32 matrix).
  auto as_matrix = [&](const Region& region, absl::string_view role) -> std::optional<Extents> {
    Extents extents = ConstExtents(region);
    size_t leading_units = 0;
    while (extents.size() - leading_units > 2 && extents[leading_units] == 1) ++leading_units;
    if (extents.size() - leading_units != 2) {
      sink_.Report(site, absl::StrCat(role,
                                      " must be a 2-D region (leading unit dimensions aside), "
                                      "but has ",
                                      extents.size() - leading_units, " dimensions"));
      return std::nullopt;
    }
    return Extents(extents.begin() + leading_units, extents.end());
  };
  std::optional<Extents> a = as_matrix(node.a, "A");
  std::optional<Extents> b = as_matrix(node.b, "B");
  std::optional<Extents> c = as_matrix(node.c, "C");
  if (!a || !b || !c) return;
  // C[M, N] (+)= op(A)[M, K] * op(B)[K, N].
  struct Dim {
    const char* name;
    const char* first_operand;
    std::optional<int64_t> first;
    const char* second_operand;
    std::optional<int64_t> second;
  };
  const Dim dims[] = {
      {"M", "A", (*a)[node.transpose_a ? 1 : 0], "C", (*c)[0]},
      {"N", "B", (*b)[node.transpose_b ? 0 : 1], "C", (*c)[1]},
      {"K", "A", (*a)[node.transpose_a ? 0 : 1], "B", (*b)[node.transpose_b ? 1 : 0]},
  };
  for (const Dim& dim : dims) {
    if (dim.first && dim.second && *dim.first != *dim.second) {
      sink_.Report(site,
                   absl::StrCat("shapes disagree: ", dim.name, " is ", *dim.first, " in ",
                                dim.first_operand, " but ", *dim.second, " in ", dim.second_operand,
                                " (transpose_a=", node.transpose_a ? "true" : "false",
                                ", transpose_b=", node.transpose_b ? "true" : "false", ")"));
    }
  }
}

void KernelVerifier::CheckFill(const Fill& node, const Site& site) {
  bool has_value = CheckExpr(node.value, "fill value", scope_, site, sink_);
  CheckRegion(node.dst, "destination", site);
  if (!has_value || !node.dst.buffer) return;
  if (node.value->dtype() != node.dst.buffer->dtype) {
    sink_.Report(
        site, absl::StrCat("the fill value is ", node.value->dtype().ToString(), ", but '",
                           node.dst.buffer->name, "' holds ", node.dst.buffer->dtype.ToString()));
  }
}

void KernelVerifier::CheckReduce(const Reduce& node, const Site& site) {
  bool src_ok = CheckRegion(node.src, "source", site);
  bool dst_ok = CheckRegion(node.dst, "destination", site);
  for (const auto& [role, region] :
       {std::pair{"source", &node.src}, std::pair{"destination", &node.dst}}) {
    if (region->buffer && region->buffer->scope == MemoryScope::kGlobal) {
      sink_.Report(site, absl::StrCat("the ", role, " ", NameWithScope(*region->buffer),
                                      " must not be global; copy it to shared or fragment "
                                      "memory first"));
    }
  }
  if (!src_ok || !dst_ok) return;
  const bool bitwise = node.reduce_kind == ReduceKind::kBitAnd ||
                       node.reduce_kind == ReduceKind::kBitOr ||
                       node.reduce_kind == ReduceKind::kBitXor;
  for (const auto& [role, region] :
       {std::pair{"source", &node.src}, std::pair{"destination", &node.dst}}) {
    if (bitwise && !region->buffer->dtype.is_int()) {
      sink_.Report(
          site,
          absl::StrCat("the reduction '", std::string(ReduceKindName(node.reduce_kind)),
                       "' takes integers, but the ", role, " ", NameWithScope(*region->buffer),
                       " holds ", region->buffer->dtype.ToString()));
    }
  }
  Extents src = ConstExtents(node.src);
  Extents dst = ConstExtents(node.dst);
  if (node.dim < 0 || static_cast<size_t>(node.dim) >= src.size()) {
    sink_.Report(
        site, absl::StrCat("dim ", node.dim, " is out of range for a source of rank ", src.size()));
    return;
  }
  // dst is src without dim, or keeps dim with extent 1.
  Extents expected = src;
  if (dst.size() + 1 == src.size()) {
    expected.erase(expected.begin() + node.dim);
  } else if (dst.size() == src.size() && dst[node.dim] == 1) {
    expected[node.dim] = 1;
  } else {
    sink_.Report(
        site, absl::StrCat("the destination has rank ", dst.size(), ", but reducing dim ", node.dim,
                           " of a rank ", src.size(), " source needs rank ", src.size() - 1,
                           " (or rank ", src.size(), " with extent 1 in dim ", node.dim, ")"));
    return;
  }
  if (!MayBeEqual(expected, dst)) {
    sink_.Report(site, absl::StrCat("destination extents ", FormatExtents(dst),
                                    " do not match source extents ", FormatExtents(src),
                                    " reduced over dim ", node.dim));
  }
}

void KernelVerifier::CheckAtomicAdd(const AtomicAdd& node, const Site& site) {
  bool src_ok = CheckRegion(node.src, "source", site);
  bool dst_ok = CheckRegion(node.dst, "destination", site);
  if (node.dst.buffer && node.dst.buffer->scope != MemoryScope::kGlobal &&
      node.dst.buffer->scope != MemoryScope::kShared) {
    sink_.Report(site, absl::StrCat("the destination ", NameWithScope(*node.dst.buffer),
                                    " must be in global or shared memory, where other threads "
                                    "can see the sums"));
  }
  if (!src_ok || !dst_ok) return;
  Extents src = ConstExtents(node.src);
  Extents dst = ConstExtents(node.dst);
  if (!MayBeEqualIgnoringUnitDims(src, dst)) {
    sink_.Report(site, absl::StrCat("source extents ", FormatExtents(src),
                                    " differ from destination extents ", FormatExtents(dst),
                                    " (unit dimensions aside)"));
  }
}

void KernelVerifier::CheckCumsum(const Cumsum& node, const Site& site) {
  bool src_ok = CheckRegion(node.src, "source", site);
  bool dst_ok = CheckRegion(node.dst, "destination", site);
  if (!src_ok || !dst_ok) return;
  Extents src = ConstExtents(node.src);
  Extents dst = ConstExtents(node.dst);
  if (node.dim < 0 || static_cast<size_t>(node.dim) >= src.size()) {
    sink_.Report(
        site, absl::StrCat("dim ", node.dim, " is out of range for a source of rank ", src.size()));
  }
  if (!MayBeEqual(src, dst)) {
    sink_.Report(site, absl::StrCat("destination extents ", FormatExtents(dst),
                                    " differ from source extents ", FormatExtents(src)));
  }
}

}  // namespace tile_ir::verifier
