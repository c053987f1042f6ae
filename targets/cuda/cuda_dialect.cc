// The CUDA spellings of the C++-source code generator.
#include "targets/cuda/cuda_dialect.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "targets/c_source/c_types.h"
#include "targets/c_source/library_call.h"
#include "targets/cuda/intrinsics.h"

namespace tile_ir::cuda {
namespace {

using c_source::CallContext;
using c_source::CExpr;
using c_source::Primary;

constexpr const char* kAxes[] = {"x", "y", "z"};

// CUDA's f32 function for an IR math intrinsic; its f64 function drops the 'f'.
const char* F32Function(const std::string& name) {
  static const auto* functions = new absl::flat_hash_map<std::string, const char*>{
      {"exp", "expf"},     {"exp2", "exp2f"}, {"log", "logf"}, {"log2", "log2f"}, {"sqrt", "sqrtf"},
      {"rsqrt", "rsqrtf"}, {"tanh", "tanhf"}, {"erf", "erff"}, {"sin", "sinf"},   {"cos", "cosf"},
      {"floor", "floorf"}, {"ceil", "ceilf"}, {"pow", "powf"}, {"fma", "fmaf"},   {"abs", "fabsf"}};
  auto it = functions->find(name);
  return it == functions->end() ? nullptr : it->second;
}

class Cuda final : public c_source::Dialect {
 public:
  std::string target() const override { return "cuda"; }
  std::string language() const override { return "CUDA"; }
  std::string lowering() const override { return "LowerForCuda"; }
  int64_t max_threads_z() const override { return 64; }

  const std::vector<std::string>& reserved_words() const override {
    static const auto* words = new std::vector<std::string>{
        "threadIdx", "blockIdx",    "blockDim",  "gridDim",   "warpSize",     "cuda",
        "uint2",     "uint4",       "float2",    "float4",    "int2",         "int4",
        "half",      "nv_bfloat16", "atomicAdd", "atomicCAS", "CUDA_VERSION", "CUDART_VERSION"};
    return *words;
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
      case ScalarType::kF8E4M3: return "__nv_fp8_e4m3";
      case ScalarType::kF8E5M2: return "__nv_fp8_e5m2";
      case ScalarType::kF16: return "__half";
      case ScalarType::kBF16: return "__nv_bfloat16";
      case ScalarType::kF32: return "float";
      case ScalarType::kF64: return "double";
    }
    return "void";
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
    // Dynamic: the host passes SharedMemoryBytes at launch.
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
    return scope == BarrierScope::kWarp ? "__syncwarp();" : "__syncthreads();";
  }

  std::optional<std::string> MathFunction(const std::string& name, ScalarType type) const override {
    const char* f32 = F32Function(name);
    if (f32 == nullptr) return std::nullopt;
    if (type == ScalarType::kF32) return std::string(f32);
    if (type == ScalarType::kF64) return name == "abs" ? "fabs" : name;
    if (c_source::IsNarrowFloat(type)) return "tl::" + name;
    return std::nullopt;
  }

  std::optional<CExpr> EmitTargetCall(const Call& node, CallContext& context) const override {
    if (node.name == "async_commit") return Primary("tl::cp_async_commit()");
    if (node.name == "async_wait") {
      std::optional<int64_t> pending =
          node.args.size() == 1 ? AsConstInt(node.args[0]) : std::nullopt;
      if (!pending || *pending < 0) {
        return context.Fail("async_wait needs a non-negative integer literal");
      }
      return Primary(absl::StrCat("tl::cp_async_wait<", *pending, ">()"));
    }
    if (!absl::StartsWith(node.name, kCudaIntrinsicPrefix)) return std::nullopt;
    const CudaIntrinsic* intrinsic = FindCudaIntrinsic(node.name);
    if (intrinsic == nullptr) {
      return context.Fail(absl::StrCat("CUDA intrinsic '", node.name,
                                       "' is not registered (RegisterCudaIntrinsic)"));
    }
    if (static_cast<int>(node.args.size()) != intrinsic->num_args) {
      return context.Fail(absl::StrCat("CUDA intrinsic '", node.name, "' takes ",
                                       intrinsic->num_args, " arguments, not ", node.args.size()));
    }
    return c_source::EmitLibraryCall(node, kCudaIntrinsicPrefixSize, intrinsic->num_template_args,
                                     *this, context);
  }
};

}  // namespace

const c_source::Dialect& CudaDialect() {
  static const Cuda* dialect = new Cuda;
  return *dialect;
}

}  // namespace tile_ir::cuda
