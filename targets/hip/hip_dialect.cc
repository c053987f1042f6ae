// The HIP spellings of the C++-source code generator.
#include "targets/hip/hip_dialect.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "targets/c_source/c_types.h"
#include "targets/c_source/library_call.h"

namespace tile_ir::hip {
namespace {

using c_source::CallContext;
using c_source::CExpr;
using c_source::Primary;

constexpr const char* kAxes[] = {"x", "y", "z"};

// HIP's f32 function for an IR math intrinsic; its f64 function drops the 'f'.
const char* F32Function(const std::string& name) {
  static const auto* functions = new absl::flat_hash_map<std::string, const char*>{
      {"exp", "expf"},     {"exp2", "exp2f"}, {"log", "logf"}, {"log2", "log2f"}, {"sqrt", "sqrtf"},
      {"rsqrt", "rsqrtf"}, {"tanh", "tanhf"}, {"erf", "erff"}, {"sin", "sinf"},   {"cos", "cosf"},
      {"floor", "floorf"}, {"ceil", "ceilf"}, {"pow", "powf"}, {"fma", "fmaf"},   {"abs", "fabsf"}};
  auto it = functions->find(name);
  return it == functions->end() ? nullptr : it->second;
}

class Hip final : public c_source::Dialect {
 public:
  std::string target() const override { return "hip"; }
  std::string language() const override { return "HIP"; }
  std::string lowering() const override { return "LowerForHip"; }

  const std::vector<std::string>& reserved_words() const override {
    static const auto* words = new std::vector<std::string>{
        "threadIdx", "blockIdx",     "blockDim",  "gridDim",   "warpSize",    "hip",
        "uint2",     "uint4",        "float2",    "float4",    "int2",        "int4",
        "half",      "hip_bfloat16", "atomicAdd", "atomicCAS", "HIP_VERSION", "HIP_DYNAMIC_SHARED"};
    return *words;
  }

  absl::Status CheckType(ScalarType type) const override {
    if (c_source::IsFp8(type)) {
      return absl::UnimplementedError(absl::StrCat(
          DataType(type).ToString(), " has no HIP form (HIP 5.2's headers have no fp8 types)"));
    }
    return absl::OkStatus();
  }

  std::string ValueType(ScalarType type) const override {
    switch (type) {
      case ScalarType::kVoid: return "void";
      case ScalarType::kBool: return "bool";
      case ScalarType::kI4:
      case ScalarType::kI8: return "signed char";
      case ScalarType::kI16: return "short";
      case ScalarType::kI32: return "int";
      case ScalarType::kI64: return "long long";
      case ScalarType::kU8: return "unsigned char";
      case ScalarType::kF16: return "__half";
      case ScalarType::kBF16: return "hip_bfloat16";
      case ScalarType::kF32: return "float";
      case ScalarType::kF64: return "double";
      case ScalarType::kF8E4M3:
      case ScalarType::kF8E5M2: break;  // refused by CheckType
    }
    return "void";
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

  std::string KernelOpen(const std::string& name, int64_t threads,
                         const std::string& params) const override {
    return absl::StrCat("extern \"C\" __global__ void __launch_bounds__(", threads, ") ", name, "(",
                        params, ") {");
  }
  std::string BufferParam(ScalarType element, const std::string& name, int) const override {
    return absl::StrCat(MemoryType(element), "* ", name);
  }
  std::string ScalarParam(ScalarType type, const std::string& name, int) const override {
    return absl::StrCat(ValueType(type), " ", name);
  }
  std::vector<std::string> SharedPoolDecl(int64_t) const override {
    // Dynamic LDS: the host passes SharedMemoryBytes at launch.
    return {"extern __shared__ __align__(128) unsigned char smem[];"};
  }
  std::string SharedBufferDecl(const std::string& type, const std::string& name,
                               int64_t offset) const override {
    return absl::StrCat(type, "* ", name, " = reinterpret_cast<", type, "*>(smem + ", offset, ");");
  }
  std::string BlockIndex(int axis) const override { return absl::StrCat("blockIdx.", kAxes[axis]); }
  std::string ThreadIndex(int axis) const override {
    return absl::StrCat("threadIdx.", kAxes[axis]);
  }
  std::string Barrier(BarrierScope scope) const override {
    return scope == BarrierScope::kWarp ? "tl::wave_barrier();" : "__syncthreads();";
  }

  std::optional<std::string> MathFunction(const std::string& name, ScalarType type) const override {
    const char* f32 = F32Function(name);
    if (f32 == nullptr) return std::nullopt;
    if (type == ScalarType::kF32) return std::string(f32);
    if (type == ScalarType::kF64) return name == "abs" ? "fabs" : name;
    if (type == ScalarType::kF16 || type == ScalarType::kBF16) return "tl::" + name;
    return std::nullopt;
  }

  std::optional<CExpr> EmitTargetCall(const Call& node, CallContext& context) const override {
    // Copies are synchronous here (has_async_copy is false); the device
    // library's commit and wait are empty, kept for IR written by hand.
    if (node.name == "async_commit") return Primary("tl::cp_async_commit()");
    if (node.name == "async_wait") {
      std::optional<int64_t> pending =
          node.args.size() == 1 ? AsConstInt(node.args[0]) : std::nullopt;
      if (!pending || *pending < 0) {
        return context.Fail("async_wait needs a non-negative integer literal");
      }
      return Primary(absl::StrCat("tl::cp_async_wait<", *pending, ">()"));
    }
    if (!absl::StartsWith(node.name, kHipIntrinsicPrefix)) return std::nullopt;
    return c_source::EmitRegisteredLibraryCall(node, kHipIntrinsicPrefix, *this, context);
  }
};

}  // namespace

const c_source::Dialect& HipDialect() {
  static const Hip* dialect = new Hip;
  return *dialect;
}

}  // namespace tile_ir::hip
