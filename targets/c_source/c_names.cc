// The reserved words of emitted C++ source and the identifier sanitizer.
#include "targets/c_source/c_names.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tile_ir::c_source {
namespace {

// C++20 keywords and alternative tokens and the names emitted code uses
// unqualified in every dialect (its shared pool, the device library's
// namespace, C math functions); dialects add their built-ins.
const absl::flat_hash_set<std::string>& ReservedWords() {
  static const auto* words = new absl::flat_hash_set<std::string>{"alignas",
                                                                  "alignof",
                                                                  "and",
                                                                  "and_eq",
                                                                  "asm",
                                                                  "auto",
                                                                  "bitand",
                                                                  "bitor",
                                                                  "bool",
                                                                  "break",
                                                                  "case",
                                                                  "catch",
                                                                  "char",
                                                                  "char8_t",
                                                                  "char16_t",
                                                                  "char32_t",
                                                                  "class",
                                                                  "compl",
                                                                  "concept",
                                                                  "const",
                                                                  "consteval",
                                                                  "constexpr",
                                                                  "constinit",
                                                                  "const_cast",
                                                                  "continue",
                                                                  "co_await",
                                                                  "co_return",
                                                                  "co_yield",
                                                                  "decltype",
                                                                  "default",
                                                                  "delete",
                                                                  "do",
                                                                  "double",
                                                                  "dynamic_cast",
                                                                  "else",
                                                                  "enum",
                                                                  "explicit",
                                                                  "export",
                                                                  "extern",
                                                                  "false",
                                                                  "float",
                                                                  "for",
                                                                  "friend",
                                                                  "goto",
                                                                  "if",
                                                                  "inline",
                                                                  "int",
                                                                  "long",
                                                                  "mutable",
                                                                  "namespace",
                                                                  "new",
                                                                  "noexcept",
                                                                  "not",
                                                                  "not_eq",
                                                                  "nullptr",
                                                                  "operator",
                                                                  "or",
                                                                  "or_eq",
                                                                  "private",
                                                                  "protected",
                                                                  "public",
                                                                  "register",
                                                                  "reinterpret_cast",
                                                                  "requires",
                                                                  "return",
                                                                  "short",
                                                                  "signed",
                                                                  "sizeof",
                                                                  "static",
                                                                  "static_assert",
                                                                  "static_cast",
                                                                  "struct",
                                                                  "switch",
                                                                  "template",
                                                                  "this",
                                                                  "thread_local",
                                                                  "throw",
                                                                  "true",
                                                                  "try",
                                                                  "typedef",
                                                                  "typeid",
                                                                  "typename",
                                                                  "union",
                                                                  "unsigned",
                                                                  "using",
                                                                  "virtual",
                                                                  "void",
                                                                  "volatile",
                                                                  "wchar_t",
                                                                  "while",
                                                                  "xor",
                                                                  "xor_eq",
                                                                  "main",
                                                                  "std",
                                                                  "NULL",
                                                                  "smem",
                                                                  "tl",
                                                                  "expf",
                                                                  "exp",
                                                                  "exp2f",
                                                                  "exp2",
                                                                  "logf",
                                                                  "log",
                                                                  "log2f",
                                                                  "log2",
                                                                  "sqrtf",
                                                                  "sqrt",
                                                                  "rsqrtf",
                                                                  "rsqrt",
                                                                  "tanhf",
                                                                  "tanh",
                                                                  "erff",
                                                                  "erf",
                                                                  "sinf",
                                                                  "sin",
                                                                  "cosf",
                                                                  "cos",
                                                                  "floorf",
                                                                  "floor",
                                                                  "ceilf",
                                                                  "ceil",
                                                                  "powf",
                                                                  "pow",
                                                                  "fmaf",
                                                                  "fma",
                                                                  "fabsf",
                                                                  "fabs",
                                                                  "fminf",
                                                                  "fmin",
                                                                  "fmaxf",
                                                                  "fmax",
                                                                  "min",
                                                                  "max",
                                                                  "abs",
                                                                  "assert",
                                                                  "printf",
                                                                  "memcpy",
                                                                  "memset",
                                                                  "INFINITY",
                                                                  "NAN"};
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
// implementation (and the vendors' headers use them).
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

bool IsUsableKernelName(const Dialect& dialect, std::string_view name) {
  if (!IsIdentifier(name) || IsImplementationName(name)) return false;
  const std::vector<std::string>& own = dialect.reserved_words();
  return !ReservedWords().contains(std::string(name)) &&
         std::find(own.begin(), own.end(), name) == own.end();
}

std::vector<std::string> KernelSymbols(const Module& module, const Dialect& dialect) {
  absl::flat_hash_set<std::string> taken;
  for (const Kernel& kernel : module.kernels) {
    if (IsUsableKernelName(dialect, kernel->name)) taken.insert(kernel->name);
  }
  std::vector<std::string> symbols;
  for (const Kernel& kernel : module.kernels) {
    if (IsUsableKernelName(dialect, kernel->name)) {
      symbols.push_back(kernel->name);
      continue;
    }
    // Sanitize gives a letter first and no "__"; the prefix keeps clear of the implementation's
    // names and of the dialect's words, the suffix of a second kernel deriving the same stem.
    const std::string stem = absl::StrCat("tl_", Sanitize(kernel->name), "_kernel");
    std::string symbol = stem;
    for (int n = 2; taken.contains(symbol) || !IsUsableKernelName(dialect, symbol); ++n) {
      symbol = absl::StrCat(stem, n);
    }
    taken.insert(symbol);
    symbols.push_back(std::move(symbol));
  }
  return symbols;
}

std::string KernelSymbol(const Module& module, const Dialect& dialect, std::string_view kernel) {
  std::vector<std::string> symbols = KernelSymbols(module, dialect);
  for (size_t i = 0; i < module.kernels.size(); ++i) {
    if (module.kernels[i]->name == kernel) return symbols[i];
  }
  return std::string(kernel);
}

CNames::CNames(const Dialect& dialect)
    : dialect_reserved_(dialect.reserved_words().begin(), dialect.reserved_words().end()) {}

bool CNames::IsReserved(const std::string& name) const {
  return ReservedWords().contains(name) || dialect_reserved_.contains(name);
}

bool CNames::Reserve(const std::string& name) {
  if (IsReserved(name)) return false;
  return taken_.insert(name).second;
}

std::string CNames::Fresh(std::string_view hint) {
  std::string base = Sanitize(hint);
  std::string name = base;
  for (int suffix = 1; IsReserved(name) || taken_.contains(name); ++suffix) {
    name = absl::StrCat(base, "_", suffix);
  }
  taken_.insert(name);
  return name;
}

const std::string& CNames::Declare(const void* key, std::string_view hint) {
  return by_key_[key] = Fresh(hint);
}

const std::string* CNames::Find(const void* key) const {
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : &it->second;
}

}  // namespace tile_ir::c_source
