// Which tensor maps a lowered kernel's TMA loads and stores name (tensor_maps.h).
#include "targets/cuda/tensor_maps.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "targets/cuda/intrinsics.h"
#include "tile_ir/visitor.h"

namespace tile_ir::cuda {
namespace {

class TmaCalls : public IRVisitor {
 public:
  using IRVisitor::Visit;
  std::vector<const Call*> calls;

 protected:
  void VisitCall(const Call& node) override {
    IRVisitor::VisitCall(node);
    if (TmaTileRank(node) != 0) calls.push_back(&node);
  }
};

// The rank r for which `call` calls intrinsic(r), or 0.
int RankOfCallTo(const Call& call, std::string (*intrinsic)(int rank)) {
  for (int rank = kTmaMinRank; rank <= kTmaMaxRank; ++rank) {
    if (call.name == intrinsic(rank)) return rank;
  }
  return 0;
}

// TensorMapOf with the kernel's divisibility known.
absl::StatusOr<TensorMapUse> UseOf(const Call& call, const KernelNode& kernel,
                                   const passes::Divisibility& divisibility) {
  auto refuse = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel '", kernel.name, "': ", call.name, ": ", why));
  };
  const bool load = TmaLoadRank(call) != 0;
  const int rank = TmaTileRank(call);
  if (rank == 0) return refuse("is not a TMA load or store");
  const size_t num_args = (load ? kTmaLoadFixedArgs : kTmaStoreFixedArgs) + rank;
  if (call.args.size() != num_args) {
    return refuse(absl::StrCat("takes ", num_args, " arguments, not ", call.args.size()));
  }
  const BufferLoad* tensor = As<BufferLoad>(call.args[1]);
  if (tensor == nullptr) return refuse("argument 1 must name a global tensor (an element load)");
  const Buffer& buffer = tensor->buffer;
  if (buffer->rank() != rank) {
    return refuse(absl::StrCat("'", buffer->name, "' has rank ", buffer->rank(), ", not the ", rank,
                               " the call gives coordinates for"));
  }
  // The region the call moves: from its coordinates, one matrix of the tile's shape.
  const Expr& rows = call.args[num_args - 2];
  const Expr& cols = call.args[num_args - 1];
  Region region{buffer, {}};
  const size_t first_coordinate = num_args - 2 - rank;
  for (int d = 0; d < rank; ++d) {
    Expr extent = d == rank - 2 ? rows : d == rank - 1 ? cols : Int(1, rows->dtype());
    region.ranges.push_back({call.args[first_coordinate + d], std::move(extent)});
  }
  if (std::string why = TmaTileWhyNot(kernel, region, {rows, cols}, divisibility); !why.empty()) {
    return refuse(why);
  }
  TensorMapUse use;
  use.param = static_cast<int>(std::find_if(kernel.params.begin(), kernel.params.end(),
                                            [&](const Param& p) { return p.buffer == buffer; }) -
                               kernel.params.begin());
  use.rank = rank;
  use.element = buffer->dtype.scalar();
  use.box_rows = *AsConstInt(rows);
  use.box_cols = kTmaSwizzleBytes / (buffer->dtype.bits() / 8);
  return use;
}

}  // namespace

std::optional<int> TensorMapDataType(ScalarType type) {
  switch (type) {
    case ScalarType::kBool:
    case ScalarType::kU8:
    case ScalarType::kI8:
    case ScalarType::kF8E4M3:
    case ScalarType::kF8E5M2: return 0;  // UINT8: the bytes as they are
    case ScalarType::kI16: return 1;     // UINT16: the bits as they are
    case ScalarType::kU16: return 1;
    case ScalarType::kU32: return 2;
    case ScalarType::kU64: return 4;
    case ScalarType::kF16: return 6;
    case ScalarType::kBF16: return 9;
    case ScalarType::kF32: return 7;
    case ScalarType::kI32: return 3;
    case ScalarType::kF64: return 8;
    case ScalarType::kI64: return 5;
    default: return std::nullopt;
  }
}

std::string TmaLoadIntrinsic(int rank) { return absl::StrCat("cuda.tma_load_", rank, "d"); }

std::string TmaLoadPairIntrinsic(int rank) {
  return absl::StrCat("cuda.tma_load_pair_", rank, "d");
}

int TmaLoadRank(const Call& call) {
  const int rank = RankOfCallTo(call, TmaLoadIntrinsic);
  return rank != 0 ? rank : RankOfCallTo(call, TmaLoadPairIntrinsic);
}

bool IsTmaLoadPair(const Call& call) { return RankOfCallTo(call, TmaLoadPairIntrinsic) != 0; }

std::string TmaStoreIntrinsic(int rank) { return absl::StrCat("cuda.tma_store_", rank, "d"); }

int TmaStoreRank(const Call& call) { return RankOfCallTo(call, TmaStoreIntrinsic); }

void RegisterTmaIntrinsics() {
  RegisterCudaLibraryIntrinsics();  // the fence the stores' tiles take
  for (int rank = kTmaMinRank; rank <= kTmaMaxRank; ++rank) {
    RegisterCudaIntrinsic(
        TmaStoreIntrinsic(rank), kTmaStoreFixedArgs + rank, 2,
        absl::StrCat("TMA store of the ROWS x COLS shared tile at arg 0 (128-byte swizzled) to "
                     "the tile at the ", rank, " coordinates from arg 2 on of the rank-", rank,
                     " tensor arg 1 names, as one bulk group (device/tma.cuh)"),
        /*async_copy=*/false, /*core_matrix_operands=*/{0},
        /*core_matrix_fence=*/"cuda.fence_proxy_async")
        .IgnoreError();
  }
  RegisterCudaIntrinsic(kTmaStoreWaitReadIntrinsic, 1, 0,
                        "waits until this thread's TMA stores have read their shared tiles (arg "
                        "0 names the tile that is written next)",
                        /*async_copy=*/false, /*core_matrix_operands=*/{0},
                        /*core_matrix_fence=*/"cuda.fence_proxy_async")
      .IgnoreError();
  for (int rank = kTmaMinRank; rank <= kTmaMaxRank; ++rank) {
    // Only a foreign registration of the name can fail; the emitter then names it.
    RegisterCudaIntrinsic(
        TmaLoadIntrinsic(rank), kTmaLoadFixedArgs + rank, 2,
        absl::StrCat("TMA load of the ROWS x COLS tile (the last two arguments) at the ", rank,
                     " coordinates from arg 3 on of the rank-", rank,
                     " tensor arg 1 names into the shared tile at arg 0 (128-byte swizzled), "
                     "counting its bytes on the mbarrier at arg 2 (device/tma.cuh)"),
        /*async_copy=*/true)
        .IgnoreError();
    RegisterCudaIntrinsic(
        TmaLoadPairIntrinsic(rank), kTmaLoadFixedArgs + rank, 2,
        absl::StrCat("TMA load of ", TmaLoadIntrinsic(rank),
                     "'s tile shared by the two blocks "
                     "of a cluster: each block loads half of its atom columns into both blocks' "
                     "shared tile at arg 0, counting the bytes on both blocks' mbarrier at arg 2 "
                     "(device/tma.cuh)"),
        /*async_copy=*/true)
        .IgnoreError();
  }
}

std::string TmaTileWhyNot(const KernelNode& kernel, const Region& global,
                          const std::vector<Expr>& tile, const passes::Divisibility& divisibility) {
  const BufferNode& tensor = *global.buffer;
  const std::string name = absl::StrCat("'", tensor.name, "'");
  const bool is_param = std::any_of(kernel.params.begin(), kernel.params.end(),
                                    [&](const Param& p) { return p.buffer == global.buffer; });
  if (!is_param || tensor.scope != MemoryScope::kGlobal) {
    return absl::StrCat(name, " is not a buffer parameter of the kernel in global memory");
  }
  const int rank = tensor.rank();
  if (rank < kTmaMinRank || rank > kTmaMaxRank) {
    return absl::StrCat(name, " has rank ", rank, "; the TMA moves tiles of tensors of rank ",
                        kTmaMinRank, " to ", kTmaMaxRank);
  }
  if (tensor.layout || !tensor.strides.empty()) {
    return absl::StrCat(name, " is not dense (it has strides or a layout)");
  }
  const int64_t element = tensor.dtype.bits() / 8;
  if (element == 0 || tensor.dtype.lanes() != 1 || !TensorMapDataType(tensor.dtype.scalar())) {
    return absl::StrCat(name, " has elements the TMA does not move (", tensor.dtype.ToString(),
                        ")");
  }
  std::optional<int64_t> rows = tile.size() == 2 ? AsConstInt(tile[0]) : std::nullopt;
  std::optional<int64_t> cols = tile.size() == 2 ? AsConstInt(tile[1]) : std::nullopt;
  if (!rows || !cols) {
    return absl::StrCat("the tile moved to or from ", name, " has no constant 2-D shape");
  }
  bool one_matrix = global.ranges.size() == static_cast<size_t>(rank);
  for (int d = 0; one_matrix && d + 2 < rank; ++d) {
    one_matrix = AsConstInt(global.ranges[d].extent) == 1;
  }
  if (!one_matrix || AsConstInt(global.ranges[rank - 2].extent) != rows ||
      AsConstInt(global.ranges[rank - 1].extent) != cols) {
    return absl::StrCat("the region of ", name, " does not match the ", *rows, " x ", *cols,
                        " tile (its shape in the last two dimensions, one element of each "
                        "other)");
  }
  if (*rows <= 0 || *rows > kTmaMaxBoxRows || *rows % 8 != 0 || *cols <= 0 ||
      (*cols * element) % kTmaSwizzleBytes != 0) {
    return absl::StrCat("the ", *rows, " x ", *cols, " tile of ", name, " is not at most ",
                        kTmaMaxBoxRows, " rows (a multiple of 8) of whole ", kTmaSwizzleBytes,
                        "-byte rows");
  }
  // The leading dimensions' pitches are multiples of the rows'.
  if (divisibility.Of(tensor.shape[rank - 1]) * element % 16 != 0) {
    return absl::StrCat("the pitch of the rows of ", name,
                        " is not proved a multiple of 16 bytes (constant shapes or a `require` "
                        "line prove it)");
  }
  return "";
}

passes::Divisibility TmaDivisibility(const KernelNode& kernel) {
  passes::Divisibility divisibility;
  divisibility.AddRequirements(kernel);
  divisibility.Visit(kernel.body);
  return divisibility;
}

absl::StatusOr<TensorMapUse> TensorMapOf(const Call& call, const KernelNode& kernel) {
  return UseOf(call, kernel, TmaDivisibility(kernel));
}

absl::StatusOr<std::vector<TensorMapUse>> CollectTensorMaps(const KernelNode& kernel) {
  TmaCalls finder;
  finder.Visit(kernel.body);
  const passes::Divisibility divisibility = TmaDivisibility(kernel);
  std::vector<TensorMapUse> uses;
  for (const Call* call : finder.calls) {
    absl::StatusOr<TensorMapUse> use = UseOf(*call, kernel, divisibility);
    if (!use.ok()) return use.status();
    if (std::find(uses.begin(), uses.end(), *use) == uses.end()) uses.push_back(*use);
  }
  return uses;
}

std::string TensorMapParamName(int index) { return absl::StrCat("tl_tensor_map_", index); }

}  // namespace tile_ir::cuda
