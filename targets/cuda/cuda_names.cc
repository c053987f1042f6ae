// The reserved words of emitted CUDA C++ and the identifier sanitizer.
#include "targets/cuda/cuda_names.h"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace tile_ir::cuda {
namespace {

// C++20 keywords and alternative tokens, CUDA's built-in variables and the
// names emitted code uses unqualified (its shared pool, the device library's
// namespace, CUDA math functions, vector types).
const absl::flat_hash_set<std::string>& ReservedWords() {
  static const auto* words =
      new absl::flat_hash_set<std::string>{"alignas",       "alignof",      "and",
                                           "and_eq",        "asm",          "auto",
                                           "bitand",        "bitor",        "bool",
                                           "break",         "case",         "catch",
                                           "char",          "char8_t",      "char16_t",
                                           "char32_t",      "class",        "compl",
                                           "concept",       "const",        "consteval",
                                           "constexpr",     "constinit",    "const_cast",
                                           "continue",      "co_await",     "co_return",
                                           "co_yield",      "decltype",     "default",
                                           "delete",        "do",           "double",
                                           "dynamic_cast",  "else",         "enum",
                                           "explicit",      "export",       "extern",
                                           "false",         "float",        "for",
                                           "friend",        "goto",         "if",
                                           "inline",        "int",          "long",
                                           "mutable",       "namespace",    "new",
                                           "noexcept",      "not",          "not_eq",
                                           "nullptr",       "operator",     "or",
                                           "or_eq",         "private",      "protected",
                                           "public",        "register",     "reinterpret_cast",
                                           "requires",      "return",       "short",
                                           "signed",        "sizeof",       "static",
                                           "static_assert", "static_cast",  "struct",
                                           "switch",        "template",     "this",
                                           "thread_local",  "throw",        "true",
                                           "try",           "typedef",      "typeid",
                                           "typename",      "union",        "unsigned",
                                           "using",         "virtual",      "void",
                                           "volatile",      "wchar_t",      "while",
                                           "xor",           "xor_eq",       "main",
                                           "std",           "NULL",         "threadIdx",
                                           "blockIdx",      "blockDim",     "gridDim",
                                           "warpSize",      "smem",         "tl",
                                           "cuda",          "uint2",        "uint4",
                                           "float2",        "float4",       "int2",
                                           "int4",          "half",         "nv_bfloat16",
                                           "atomicAdd",     "atomicCAS",    "expf",
                                           "exp",           "exp2f",        "exp2",
                                           "logf",          "log",          "log2f",
                                           "log2",          "sqrtf",        "sqrt",
                                           "rsqrtf",        "rsqrt",        "tanhf",
                                           "tanh",          "erff",         "erf",
                                           "sinf",          "sin",          "cosf",
                                           "cos",           "floorf",       "floor",
                                           "ceilf",         "ceil",         "powf",
                                           "pow",           "fmaf",         "fma",
                                           "fabsf",         "fabs",         "fminf",
                                           "fmin",          "fmaxf",        "fmax",
                                           "min",           "max",          "abs",
                                           "assert",        "printf",       "memcpy",
                                           "memset",        "CUDA_VERSION", "CUDART_VERSION",
                                           "INFINITY",      "NAN"};
  return *words;
}

bool IsIdentifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// Identifiers with "__" anywhere or "_" and a capital first belong to the
// implementation (and CUDA's headers use them).
bool IsImplementationName(std::string_view name) {
  if (name.find("__") != std::string_view::npos) return true;
  return name.size() >= 2 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1]));
}

std::string Sanitize(std::string_view hint) {
  std::string name;
  for (char c : hint) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    char next = ok ? c : '_';
    if (next == '_' && !name.empty() && name.back() == '_') continue;
    name += next;
  }
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || name[0] == '_') {
    name = "v" + name;
  }
  return name;
}

}  // namespace

bool IsUsableKernelName(std::string_view name) {
  return IsIdentifier(name) && !IsImplementationName(name) &&
         !ReservedWords().contains(std::string(name));
}

CudaNames::CudaNames() = default;

bool CudaNames::Reserve(const std::string& name) {
  if (ReservedWords().contains(name)) return false;
  return taken_.insert(name).second;
}

std::string CudaNames::Fresh(std::string_view hint) {
  std::string base = Sanitize(hint);
  std::string name = base;
  for (int suffix = 1; ReservedWords().contains(name) || taken_.contains(name); ++suffix) {
    name = absl::StrCat(base, "_", suffix);
  }
  taken_.insert(name);
  return name;
}

const std::string& CudaNames::Declare(const void* key, std::string_view hint) {
  return by_key_[key] = Fresh(hint);
}

const std::string* CudaNames::Find(const void* key) const {
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : &it->second;
}

}  // namespace tile_ir::cuda
