// The HIP spellings of the C++-source code generator.
#include "targets/hip/hip_dialect.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "targets/c_source/c_types.h"
#include "targets/c_source/global_kernel_dialect.h"
#include "targets/c_source/library_call.h"

namespace tile_ir::hip {
namespace {

using c_source::CallContext;
using c_source::CExpr;

class Hip final : public c_source::GlobalKernelDialect {
 public:
  std::string target() const override { return "hip"; }
  std::string language() const override { return "HIP"; }
  std::string lowering() const override { return "LowerForHip"; }

  const std::vector<std::string>& reserved_words() const override {
    static const auto* words = new std::vector<std::string>(
        WithBuiltinWords({"hip", "hip_bfloat16", "HIP_VERSION", "HIP_DYNAMIC_SHARED"}));
    return *words;
  }

  absl::Status CheckType(ScalarType type) const override {
    if (c_source::IsFp8(type)) {
      return absl::UnimplementedError(absl::StrCat(
          DataType(type).ToString(), " has no HIP form (HIP 5.2's headers have no fp8 types)"));
    }
    return absl::OkStatus();
  }

  std::string WidenToF32(ScalarType from) const override {
    return from == ScalarType::kF16 ? "__half2float" : "static_cast<float>";
  }

  std::string NarrowFrom(ScalarType wide, ScalarType to) const override {
    bool f64 = wide == ScalarType::kF64;
    if (to == ScalarType::kF16) return f64 ? "tl::double_to_half" : "__float2half_rn";
    // hip_bfloat16's constructor from float rounds to nearest even.
    return f64 ? "tl::double_to_bf16" : "hip_bfloat16";
  }

  std::optional<CExpr> EmitTargetCall(const Call& node, CallContext& context) const override {
    // Copies are synchronous here (has_async_copy is false); the device
    // library's commit and wait are empty, kept for IR written by hand.
    if (std::optional<CExpr> async = c_source::EmitAsyncCopyCall(node, context)) return async;
    if (!absl::StartsWith(node.name, kHipIntrinsicPrefix)) return std::nullopt;
    return c_source::EmitRegisteredLibraryCall(node, kHipIntrinsicPrefix, *this, context);
  }

 protected:
  std::string NarrowFloatType(ScalarType type) const override {
    switch (type) {
      case ScalarType::kF16: return "__half";
      case ScalarType::kBF16: return "hip_bfloat16";
      default: return "void";  // fp8: refused by CheckType
    }
  }
  std::string WarpBarrier() const override { return "tl::wave_barrier();"; }
  bool HasNarrowMath(ScalarType type) const override {
    return type == ScalarType::kF16 || type == ScalarType::kBF16;
  }
};

}  // namespace

const c_source::Dialect& HipDialect() {
  static const Hip* dialect = new Hip;
  return *dialect;
}

}  // namespace tile_ir::hip
