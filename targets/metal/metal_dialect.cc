// The Metal spellings of the C++-source code generator.
#include "targets/metal/metal_dialect.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "targets/c_source/c_types.h"
#include "targets/c_source/library_call.h"

namespace tile_ir::metal {
namespace {

using c_source::CallContext;
using c_source::CExpr;
using c_source::Primary;

// Built-in parameters: thread positions for the emitted code (blockIdx and
// threadIdx, the Dialect's default spelling, so the walk is the same) and the device
// library's simdgroup gemm (tl_*), which every "metal." call receives last.
constexpr char kLibraryBuiltins[] = "tl_thread, tl_simdgroup, tl_simdgroups";

class Metal final : public c_source::Dialect {
 public:
  std::string target() const override { return "metal"; }
  std::string language() const override { return "Metal"; }
  std::string lowering() const override { return "LowerForMetal"; }
  int64_t max_threads_z() const override { return 1024; }

  const std::vector<std::string>& reserved_words() const override {
    static const auto* words = new std::vector<std::string>{"kernel",
                                                            "device",
                                                            "threadgroup",
                                                            "constant",
                                                            "thread",
                                                            "half",
                                                            "bfloat",
                                                            "uchar",
                                                            "ushort",
                                                            "uint",
                                                            "ulong",
                                                            "metal",
                                                            "blockIdx",
                                                            "threadIdx",
                                                            "smem_pool",
                                                            "tl_thread",
                                                            "tl_simdgroup",
                                                            "tl_simdgroups",
                                                            "uint2",
                                                            "uint3",
                                                            "uint4",
                                                            "float2",
                                                            "float4",
                                                            "int2",
                                                            "int4",
                                                            "select",
                                                            "clamp",
                                                            "mix",
                                                            "step",
                                                            "sign",
                                                            "dot",
                                                            "length",
                                                            "normalize",
                                                            "fract",
                                                            "round",
                                                            "trunc",
                                                            "saturate",
                                                            "any",
                                                            "all",
                                                            "as_type",
                                                            "mem_flags",
                                                            "simd_sum",
                                                            "simd_max",
                                                            "simd_min",
                                                            "copysign",
                                                            "threadgroup_barrier",
                                                            "simdgroup_barrier",
                                                            "atomic_int",
                                                            "atomic_uint",
                                                            "atomic_float",
                                                            "memory_order_relaxed",
                                                            "simdgroup_matrix",
                                                            "vec",
                                                            "packed_float4"};
    return *words;
  }

  absl::Status CheckType(ScalarType type) const override {
    if (type == ScalarType::kF64) {
      return absl::UnimplementedError("f64 has no Metal form (Metal has no 64-bit floats)");
    }
    if (c_source::IsFp8(type)) {
      return absl::UnimplementedError(
          absl::StrCat(DataType(type).ToString(), " has no Metal form (Metal has no fp8 types)"));
    }
    return absl::OkStatus();
  }

  // Metal's atomics: atomic_int and atomic_uint, and float (device memory, Metal 3); no 64-bit
  // or sub-word ones (metal.h).
  bool has_atomic(ScalarType type, bool) const override {
    return type == ScalarType::kI32 || type == ScalarType::kU32 || type == ScalarType::kF32;
  }

  std::string BitCast(ScalarType to, const std::string& value) const override {
    return absl::StrCat("as_type<", ValueType(to), ">(", value, ")");
  }
  std::string ValueType(ScalarType type) const override {
    switch (type) {
      case ScalarType::kVoid: return "void";
      case ScalarType::kBool: return "bool";
      case ScalarType::kI4:
      case ScalarType::kI8: return "char";
      case ScalarType::kI16: return "short";
      case ScalarType::kI32: return "int";
      case ScalarType::kI64: return "long";
      case ScalarType::kU8: return "uchar";
      case ScalarType::kU16: return "ushort";
      case ScalarType::kU32: return "uint";
      case ScalarType::kU64: return "ulong";
      case ScalarType::kF16: return "half";
      case ScalarType::kBF16: return "bfloat";
      case ScalarType::kF32: return "float";
      default: break;  // f64 and fp8: refused by CheckType
    }
    return "void";
  }
  bool has_f64() const override { return false; }
  std::string i64_suffix() const override { return "L"; }
  std::string WidenToF32(ScalarType) const override { return "static_cast<float>"; }
  // Metal's float -> half and float -> bfloat conversions round to nearest even.
  std::string NarrowFrom(ScalarType, ScalarType to) const override {
    return absl::StrCat("static_cast<", ValueType(to), ">");
  }

  std::string KernelOpen(const KernelNode&, const std::string& symbol, int64_t threads,
                         const std::string& params) const override {
    return absl::StrCat("[[max_total_threads_per_threadgroup(", threads, ")]] kernel void ", symbol,
                        "(", params, ") {");
  }
  std::string BufferParam(ScalarType element, const std::string& name, int index) const override {
    return absl::StrCat("device ", MemoryType(element), "* ", name, " [[buffer(", index, ")]]");
  }
  std::string ScalarParam(ScalarType type, const std::string& name, int index) const override {
    return absl::StrCat("constant ", ValueType(type), "& ", name, " [[buffer(", index, ")]]");
  }
  std::vector<std::string> BuiltinParams() const override {
    return {"uint3 blockIdx [[threadgroup_position_in_grid]]",
            "uint3 threadIdx [[thread_position_in_threadgroup]]",
            "uint tl_thread [[thread_index_in_threadgroup]]",
            "uint tl_simdgroup [[simdgroup_index_in_threadgroup]]",
            "uint tl_simdgroups [[simdgroups_per_threadgroup]]"};
  }
  std::vector<std::string> SharedPoolDecl(int64_t bytes) const override {
    // Static: a kernel's threadgroup memory is declared in it, 16-byte words
    // keeping the pool aligned for every element type.
    return {
        absl::StrCat("threadgroup uint4 smem_pool[", std::max<int64_t>((bytes + 15) / 16, 1), "];"),
        "threadgroup uchar* smem = reinterpret_cast<threadgroup uchar*>(smem_pool);"};
  }
  std::string SharedBufferDecl(const std::string& type, const std::string& name,
                               int64_t offset) const override {
    return absl::StrCat("threadgroup ", type, "* ", name, " = reinterpret_cast<threadgroup ", type,
                        "*>(smem + ", offset, ");");
  }
  std::string Barrier(BarrierScope scope) const override {
    return scope == BarrierScope::kWarp ? "simdgroup_barrier(mem_flags::mem_threadgroup);"
                                        : "threadgroup_barrier(mem_flags::mem_threadgroup);";
  }
  // Vector moves would need address-space-qualified casts; elements move one by one.
  int max_vector_move_bytes() const override { return 0; }
  std::string AlignedArrayPrefix() const override { return ""; }

  std::optional<std::string> MathFunction(const std::string& name, ScalarType type) const override {
    // exp2_ftz may flush subnormal results and need not: Metal's exp2 is one.
    const std::string function = name == "exp2_ftz" ? "exp2" : name;
    if (type == ScalarType::kBF16) return "tl::" + function;
    if (type != ScalarType::kF32 && type != ScalarType::kF16) return std::nullopt;
    if (name == "erf") return "tl::erf";
    if (name == "abs") return "fabs";
    return function;  // metal::exp, exp2, ..., overloaded for float and half
  }

  std::optional<CExpr> EmitTargetCall(const Call& node, CallContext& context) const override {
    if (std::optional<CExpr> async = c_source::EmitAsyncCopyCall(node, context)) return async;
    if (!absl::StartsWith(node.name, kMetalIntrinsicPrefix)) return std::nullopt;
    CExpr call = c_source::EmitRegisteredLibraryCall(node, kMetalIntrinsicPrefix, *this, context);
    // "...)" -> "..., tl_thread, tl_simdgroup, tl_simdgroups)"
    std::string text = call.text.substr(0, call.text.size() - 1);
    bool no_args = absl::EndsWith(text, "(");
    return Primary(absl::StrCat(text, no_args ? "" : ", ", kLibraryBuiltins, ")"));
  }
};

}  // namespace

const c_source::Dialect& MetalDialect() {
  static const Metal* dialect = new Metal;
  return *dialect;
}

}  // namespace tile_ir::metal
