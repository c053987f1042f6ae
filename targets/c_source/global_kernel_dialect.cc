// The spellings that every dialect of the __global__-kernel family shares.
#include "targets/c_source/global_kernel_dialect.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "targets/c_source/c_types.h"

namespace tile_ir::c_source {
namespace {

// The C math library's f32 function for an IR math intrinsic; its f64 function drops the 'f'.
const char* F32Function(const std::string& name) {
  static const auto* functions = new absl::flat_hash_map<std::string, const char*>{
      {"exp", "expf"},   {"exp2", "exp2f"},   {"log", "logf"},     {"log2", "log2f"},
      {"sqrt", "sqrtf"}, {"rsqrt", "rsqrtf"}, {"tanh", "tanhf"},   {"erf", "erff"},
      {"sin", "sinf"},   {"cos", "cosf"},     {"floor", "floorf"}, {"ceil", "ceilf"},
      {"pow", "powf"},   {"fma", "fmaf"},     {"abs", "fabsf"},    {"exp2_ftz", "tl::exp2_ftz"}};
  auto it = functions->find(name);
  return it == functions->end() ? nullptr : it->second;
}

}  // namespace

std::string GlobalKernelDialect::ValueType(ScalarType type) const {
  switch (type) {
    case ScalarType::kVoid: return "void";
    case ScalarType::kBool: return "bool";
    case ScalarType::kI4:
    case ScalarType::kI8: return "signed char";
    case ScalarType::kI16: return "short";
    case ScalarType::kI32: return "int";
    case ScalarType::kI64: return "long long";
    case ScalarType::kU8: return "unsigned char";
    case ScalarType::kU16: return "unsigned short";
    case ScalarType::kU32: return "unsigned int";
    case ScalarType::kU64: return "unsigned long long";
    case ScalarType::kF8E4M3:
    case ScalarType::kF8E5M2:
    case ScalarType::kF16:
    case ScalarType::kBF16: return NarrowFloatType(type);
    case ScalarType::kF32: return "float";
    case ScalarType::kF64: return "double";
  }
  return "void";
}

std::string GlobalKernelDialect::KernelOpen(const KernelNode& kernel, const std::string& symbol,
                                            int64_t threads, const std::string& params) const {
  const int min_blocks = MinBlocksPerMultiprocessor(kernel);
  return absl::StrCat("extern \"C\" __global__ void __launch_bounds__(", threads,
                      min_blocks > 0 ? absl::StrCat(", ", min_blocks) : "", ") ",
                      KernelAttributes(kernel), symbol, "(", params, ") {");
}

std::string GlobalKernelDialect::BufferParam(ScalarType element, const std::string& name,
                                             int) const {
  return absl::StrCat(MemoryType(element), "* ", name);
}

std::string GlobalKernelDialect::ScalarParam(ScalarType type, const std::string& name, int) const {
  return absl::StrCat(ValueType(type), " ", name);
}

std::vector<std::string> GlobalKernelDialect::SharedPoolDecl(int64_t) const {
  // Dynamic: the host passes SharedMemoryBytes at launch. 1024 bytes: plan-shared-memory
  // places matrix-instruction operand tiles at multiples of 1024 (kCoreMatrixTileAlignment),
  // and a 128-byte swizzle is read by address bits, so the pool must start on one too.
  return {"extern __shared__ __align__(1024) unsigned char smem[];"};
}

std::string GlobalKernelDialect::SharedBufferDecl(const std::string& type, const std::string& name,
                                                  int64_t offset) const {
  return absl::StrCat(type, "* ", name, " = reinterpret_cast<", type, "*>(smem + ", offset, ");");
}

std::string GlobalKernelDialect::Barrier(BarrierScope scope) const {
  return scope == BarrierScope::kWarp ? WarpBarrier() : "__syncthreads();";
}

std::optional<std::string> GlobalKernelDialect::MathFunction(const std::string& name,
                                                             ScalarType type) const {
  const char* f32 = F32Function(name);
  if (f32 == nullptr) return std::nullopt;
  if (type == ScalarType::kF32) return std::string(f32);
  if (name == "exp2_ftz") return "tl::exp2_ftz";  // of every type: the device library has it
  if (type == ScalarType::kF64) return name == "abs" ? "fabs" : name;
  if (HasNarrowMath(type)) return "tl::" + name;
  return std::nullopt;
}

bool GlobalKernelDialect::HasNarrowMath(ScalarType type) const { return IsNarrowFloat(type); }

std::vector<std::string> GlobalKernelDialect::WithBuiltinWords(std::vector<std::string> own) {
  for (const char* word :
       {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "uint2", "uint4", "float2",
        "float4", "int2", "int4", "half", "atomicAdd", "atomicCAS"}) {
    own.push_back(word);
  }
  return own;
}

}  // namespace tile_ir::c_source
