// Which tensor maps a lowered kernel's TMA loads and stores name (tensor_maps.h).
#include "targets/cuda/tensor_maps.h"

#include <algorithm>
#include <optional>

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

}  // namespace

std::optional<int> TensorMapDataType(ScalarType type) {
  switch (type) {
    case ScalarType::kBool:
    case ScalarType::kU8:
    case ScalarType::kI8:
    case ScalarType::kF8E4M3:
    case ScalarType::kF8E5M2: return 0;  // UINT8: the bytes as they are
    case ScalarType::kI16: return 1;     // UINT16: the bits as they are
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

int TmaLoadRank(const Call& call) { return RankOfCallTo(call, TmaLoadIntrinsic); }

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
  }
}

absl::StatusOr<TensorMapUse> TensorMapOf(const Call& call, const KernelNode& kernel) {
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
  auto param = std::find_if(kernel.params.begin(), kernel.params.end(),
                            [&](const Param& p) { return p.buffer == buffer; });
  if (param == kernel.params.end() || buffer->scope != MemoryScope::kGlobal) {
    return refuse(absl::StrCat("'", buffer->name, "' is not a buffer parameter of the kernel"));
  }
  if (buffer->rank() != rank || buffer->layout || !buffer->strides.empty()) {
    return refuse(absl::StrCat("'", buffer->name, "' is not a dense tensor of rank ", rank));
  }
  std::optional<int64_t> rows = AsConstInt(call.args[num_args - 2]);
  std::optional<int64_t> cols = AsConstInt(call.args[num_args - 1]);
  const int64_t bytes = buffer->dtype.bits() / 8;
  if (bytes == 0 || buffer->dtype.lanes() != 1 || !TensorMapDataType(buffer->dtype.scalar())) {
    return refuse(absl::StrCat("'", buffer->name, "' has elements the TMA does not move (",
                               buffer->dtype.ToString(), ")"));
  }
  if (!rows || !cols || *rows <= 0 || *rows > kTmaMaxBoxRows || *rows % 8 != 0 ||
      *cols <= 0 || (*cols * bytes) % kTmaSwizzleBytes != 0) {
    return refuse(absl::StrCat("the tile must be at most ", kTmaMaxBoxRows,
                               " rows (a multiple of 8) of whole ", kTmaSwizzleBytes,
                               "-byte rows"));
  }
  TensorMapUse use;
  use.param = static_cast<int>(param - kernel.params.begin());
  use.rank = rank;
  use.element = buffer->dtype.scalar();
  use.box_rows = *rows;
  use.box_cols = kTmaSwizzleBytes / bytes;
  return use;
}

absl::StatusOr<std::vector<TensorMapUse>> CollectTensorMaps(const KernelNode& kernel) {
  TmaCalls finder;
  finder.Visit(kernel.body);
  std::vector<TensorMapUse> uses;
  for (const Call* call : finder.calls) {
    absl::StatusOr<TensorMapUse> use = TensorMapOf(*call, kernel);
    if (!use.ok()) return use.status();
    if (std::find(uses.begin(), uses.end(), *use) == uses.end()) uses.push_back(*use);
  }
  return uses;
}

std::string TensorMapParamName(int index) { return absl::StrCat("tl_tensor_map_", index); }

}  // namespace tile_ir::cuda
