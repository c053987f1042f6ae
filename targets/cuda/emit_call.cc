// Intrinsic calls: math (CUDA's functions on f32 and f64, the device library's
// on narrower floats), atomic adds, the software pipeline's cp.async group
// commit and wait, and the "cuda." intrinsics of lowering passes.
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "targets/cuda/cuda_types.h"
#include "targets/cuda/intrinsics.h"
#include "targets/cuda/kernel_emitter.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::cuda {
namespace {

// CUDA's f32 function for an IR math intrinsic; its f64 function drops the 'f'.
const char* F32Function(const std::string& name) {
  static const auto* functions = new absl::flat_hash_map<std::string, const char*>{
      {"exp", "expf"},     {"exp2", "exp2f"}, {"log", "logf"}, {"log2", "log2f"}, {"sqrt", "sqrtf"},
      {"rsqrt", "rsqrtf"}, {"tanh", "tanhf"}, {"erf", "erff"}, {"sin", "sinf"},   {"cos", "cosf"},
      {"floor", "floorf"}, {"ceil", "ceilf"}, {"pow", "powf"}, {"fma", "fmaf"},   {"abs", "fabsf"}};
  auto it = functions->find(name);
  return it == functions->end() ? nullptr : it->second;
}

}  // namespace

CExpr KernelEmitter::EmitCall(const Call& node) {
  if (node.name == kAtomicAddAt) return EmitAtomicAdd(node);
  if (node.name == "async_commit") return Primary("tl::cp_async_commit()");
  if (node.name == "async_wait") {
    std::optional<int64_t> pending =
        node.args.size() == 1 ? AsConstInt(node.args[0]) : std::nullopt;
    if (!pending || *pending < 0) return Fail("async_wait needs a non-negative integer literal");
    return Primary(absl::StrCat("tl::cp_async_wait<", *pending, ">()"));
  }
  if (absl::StartsWith(node.name, kCudaIntrinsicPrefix)) return EmitCudaIntrinsic(node);
  if (F32Function(node.name) != nullptr) return EmitMath(node);
  return Fail(absl::StrCat("intrinsic '", node.name, "' has no CUDA form"));
}

CExpr KernelEmitter::EmitMath(const Call& node) {
  ScalarType type = node.dtype().scalar();
  std::vector<std::string> args;
  for (const Expr& arg : node.args) args.push_back(EmitExpr(arg).text);
  std::string function;
  if (node.name == "abs" && DataType(type).is_int()) {
    // The device library's abs wraps like the IR (|-128| of an i8 is -128).
    CExpr call = Primary(absl::StrCat("tl::abs(", absl::StrJoin(args, ", "), ")"));
    return type == ScalarType::kI4 ? Primary(absl::StrCat("tl::wrap_i4(", call.text, ")")) : call;
  }
  if (type == ScalarType::kF32) {
    function = F32Function(node.name);
  } else if (type == ScalarType::kF64) {
    function = node.name == "abs" ? "fabs" : node.name;
  } else if (IsNarrowFloat(type)) {
    function = "tl::" + node.name;
  } else {
    return Fail(absl::StrCat("intrinsic '", node.name, "' on ", DataType(type).ToString(),
                             " has no CUDA form"));
  }
  return Primary(absl::StrCat(function, "(", absl::StrJoin(args, ", "), ")"));
}

CExpr KernelEmitter::EmitAtomicAdd(const Call& node) {
  const BufferLoad* target = node.args.size() == 2 ? As<BufferLoad>(node.args[0]) : nullptr;
  if (target == nullptr) return Fail("atomic_add_at needs a buffer element and a value");
  ScalarType type = target->buffer->dtype.scalar();
  if (type == ScalarType::kI4 || type == ScalarType::kBool) {
    return Fail(absl::StrCat("atomic_add_at on ", DataType(type).ToString(),
                             " has no CUDA form (no atomic add of that type)"));
  }
  if (target->buffer->scope == MemoryScope::kLocal) {
    // A thread's own array: nothing else writes it.
    Expr sum = Binary::Make(BinaryOp::kAdd, node.args[0], node.args[1]);
    CExpr element = EmitLoad(*target);
    return CExpr{absl::StrCat(element.text, " = ", EmitExpr(sum).text), 2};
  }
  CExpr address = AddressOf(*target);
  return Primary(
      absl::StrCat("tl::atomic_add(", address.text, ", ", EmitExpr(node.args[1]).text, ")"));
}

CExpr KernelEmitter::EmitCudaIntrinsic(const Call& node) {
  const CudaIntrinsic* intrinsic = FindCudaIntrinsic(node.name);
  if (intrinsic == nullptr) {
    return Fail(
        absl::StrCat("CUDA intrinsic '", node.name, "' is not registered (RegisterCudaIntrinsic)"));
  }
  if (static_cast<int>(node.args.size()) != intrinsic->num_args) {
    return Fail(absl::StrCat("CUDA intrinsic '", node.name, "' takes ", intrinsic->num_args,
                             " arguments, not ", node.args.size()));
  }
  size_t first_template = node.args.size() - intrinsic->num_template_args;
  std::vector<std::string> values;
  std::vector<std::string> template_args;
  for (size_t i = 0; i < node.args.size(); ++i) {
    const Expr& arg = node.args[i];
    if (i >= first_template) {
      const IntImm* literal = As<IntImm>(arg);
      if (literal == nullptr) {
        return Fail(absl::StrCat("argument ", i, " of '", node.name,
                                 "' is a template argument and must be an integer literal"));
      }
      template_args.push_back(IntLiteral(literal->value, arg->dtype().scalar()).text);
    } else if (const BufferLoad* load = As<BufferLoad>(arg)) {
      values.push_back(AddressOf(*load).text);
    } else {
      values.push_back(EmitExpr(arg).text);
    }
  }
  std::string function = absl::StrCat(
      "tl::", absl::StrReplaceAll(node.name.substr(kCudaIntrinsicPrefixSize), {{".", "::"}}));
  if (!template_args.empty())
    absl::StrAppend(&function, "<", absl::StrJoin(template_args, ", "), ">");
  return Primary(absl::StrCat(function, "(", absl::StrJoin(values, ", "), ")"));
}

}  // namespace tile_ir::cuda
