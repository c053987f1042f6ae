// The CUDA spellings of the C++-source code generator.
#include "targets/cuda/cuda_dialect.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "targets/c_source/global_kernel_dialect.h"
#include "targets/c_source/library_call.h"
#include "targets/cuda/intrinsics.h"
#include "targets/cuda/tensor_maps.h"
#include "tile_ir/visitor.h"

namespace tile_ir::cuda {
namespace {

using c_source::CallContext;
using c_source::CExpr;

class Cuda final : public c_source::GlobalKernelDialect {
 public:
  std::string target() const override { return "cuda"; }
  std::string language() const override { return "CUDA"; }
  std::string lowering() const override { return "LowerForCuda"; }
  int64_t max_threads_z() const override { return 64; }

  const std::vector<std::string>& reserved_words() const override {
    static const auto* words = new std::vector<std::string>(
        WithBuiltinWords({"cuda", "nv_bfloat16", "CUDA_VERSION", "CUDART_VERSION"}));
    return *words;
  }

  std::string WidenToF32(ScalarType from) const override {
    switch (from) {
      case ScalarType::kF16: return "__half2float";
      case ScalarType::kBF16: return "__bfloat162float";
      default: return "static_cast<float>";
    }
  }

  std::string NarrowFrom(ScalarType wide, ScalarType to) const override {
    bool f64 = wide == ScalarType::kF64;
    switch (to) {
      case ScalarType::kF16: return f64 ? "__double2half" : "__float2half_rn";
      case ScalarType::kBF16: return f64 ? "__double2bfloat16" : "__float2bfloat16_rn";
      default: return ValueType(to);  // fp8's constructors: saturating, to nearest even
    }
  }

  std::optional<CExpr> EmitTargetCall(const Call& node, CallContext& context) const override {
    if (std::optional<CExpr> async = c_source::EmitAsyncCopyCall(node, context)) return async;
    if (!absl::StartsWith(node.name, kCudaIntrinsicPrefix)) return std::nullopt;
    if (TmaLoadRank(node) != 0) return EmitTmaLoad(node, context);
    if (TmaStoreRank(node) != 0) return EmitTmaStore(node, context);
    if (node.name == "cuda.producer_warps" || node.name == "cuda.producer_leader" ||
        node.name == "cuda.consumer_leader") {
      // warp_specialize.h's marker, which warp-roles replaces with a thread-index test.
      return context.Fail(absl::StrCat(
          node.name, " marks a role of a warp-specialized kernel; the warp-roles pass "
          "(after insert-barriers) gives that branch its threads, and it did not run"));
    }
    return c_source::EmitRegisteredLibraryCall(node, kCudaIntrinsicPrefix, *this, context);
  }

  // The tensor maps of the kernel's TMA loads and stores (tensor_maps.h), after its dimensions.
  absl::StatusOr<std::vector<std::string>> DerivedParams(const KernelNode& kernel) const override {
    absl::StatusOr<std::vector<TensorMapUse>> maps = CollectTensorMaps(kernel);
    if (!maps.ok()) return maps.status();
    std::vector<std::string> params;
    for (size_t i = 0; i < maps->size(); ++i) {
      params.push_back(absl::StrCat("const __grid_constant__ tl::TensorMap ",
                                    TensorMapParamName(static_cast<int>(i))));
    }
    return params;
  }

 protected:
  // A kernel whose warpgroups set their own register counts (setmaxnreg, warp-roles) states
  // one block per multiprocessor: only with a register cap at entry does ptxas allocate each
  // role's code within the count its setmaxnreg sets (HOPPER.md; without it, the consumers
  // of a 384-thread kernel get the 168 registers of an even split).
  int MinBlocksPerMultiprocessor(const KernelNode& kernel) const override {
    return SetsWarpgroupRegisters(kernel) ? 1 : 0;
  }
  std::string NarrowFloatType(ScalarType type) const override {
    switch (type) {
      case ScalarType::kF8E4M3: return "__nv_fp8_e4m3";
      case ScalarType::kF8E5M2: return "__nv_fp8_e5m2";
      case ScalarType::kF16: return "__half";
      default: return "__nv_bfloat16";  // kBF16, the only other narrow float
    }
  }
  std::string WarpBarrier() const override { return "__syncwarp();"; }
  // A kernel of thread-block clusters (warp-specialize's pairs, cuda:sm_90a{cluster=2}) states
  // their shape, so that an ordinary launch of a grid of whole clusters runs it.
  std::string KernelAttributes(const KernelNode& kernel) const override {
    if (kernel.launch.cluster.empty()) return "";
    std::vector<int64_t> dims = kernel.launch.cluster;
    dims.resize(3, 1);
    return absl::StrCat("__cluster_dims__(", absl::StrJoin(dims, ", "), ") ");
  }

 private:
  // The tensor map a TMA load or store names, and its index among the kernel's (its kernel
  // parameter's number).
  static absl::StatusOr<std::pair<TensorMapUse, int>> TensorMapIndex(const Call& node,
                                                                      CallContext& context) {
    absl::StatusOr<TensorMapUse> use = TensorMapOf(node, context.kernel());
    if (!use.ok()) return use.status();
    absl::StatusOr<std::vector<TensorMapUse>> maps = CollectTensorMaps(context.kernel());
    if (!maps.ok()) return maps.status();
    return std::pair(*use, static_cast<int>(std::find(maps->begin(), maps->end(), *use) -
                                            maps->begin()));
  }

  // tl::tma_store_<rank>d<ROWS, COLS>(&<its tensor map>, &src, <coordinates>).
  static CExpr EmitTmaStore(const Call& node, CallContext& context) {
    return EmitTmaCall(node, context, "store", /*addresses=*/1);
  }

  // tl::tma_load_<rank>d<ROWS, COLS>(&<its tensor map>, &dst, &barrier, <coordinates>).
  static CExpr EmitTmaLoad(const Call& node, CallContext& context) {
    return EmitTmaCall(node, context, IsTmaLoadPair(node) ? "load_pair" : "load",
                       /*addresses=*/2);
  }

  // tl::tma_<kind>_<rank>d<ROWS, COLS>(&<its tensor map>, <addresses>, <coordinates>): argument 0
  // is the shared tile, argument 1 names the tensor, and `addresses` - 1 more element
  // addresses (a load's mbarrier) follow it before the coordinates.
  static CExpr EmitTmaCall(const Call& node, CallContext& context, std::string_view kind,
                           size_t addresses) {
    absl::StatusOr<std::pair<TensorMapUse, int>> map = TensorMapIndex(node, context);
    if (!map.ok()) return context.Fail(std::string(map.status().message()));
    const auto& [use, index] = *map;
    std::vector<const BufferLoad*> elements = {As<BufferLoad>(node.args[0])};
    for (size_t i = 2; i <= addresses; ++i) elements.push_back(As<BufferLoad>(node.args[i]));
    if (std::count(elements.begin(), elements.end(), nullptr) > 0 ||
        elements[0]->buffer->scope != MemoryScope::kShared) {
      return context.Fail(absl::StrCat(node.name, addresses == 1
                                                      ? ": argument 0 must be an element of "
                                                        "shared memory"
                                                      : ": arguments 0 and 2 must be elements of "
                                                        "shared memory"));
    }
    const size_t cols = node.args.size() - 1;
    std::string text = absl::StrCat("tl::tma_", absl::string_view(kind.data(), kind.size()), "_",
                                    use.rank, "d<", use.box_rows, ", ",
                                    *AsConstInt(node.args[cols]), ">(&", TensorMapParamName(index));
    for (const BufferLoad* element : elements) {
      absl::StrAppend(&text, ", ", context.AddressOf(*element).text);
    }
    for (size_t i = addresses + 1; i + 2 < node.args.size(); ++i) {
      absl::StrAppend(&text, ", ", context.Emit(node.args[i]).text);
    }
    return CExpr{absl::StrCat(text, ")")};
  }
};

}  // namespace

const c_source::Dialect& CudaDialect() {
  static const Cuda* dialect = new Cuda;
  return *dialect;
}

}  // namespace tile_ir::cuda
