// C++ identifiers for the IR's variables and buffers in emitted source:
// readable (the IR's own name where it is a valid, unreserved identifier),
// unique within a kernel, and never one the emitted code or the dialect's
// headers use themselves (keywords, smem, tl, the math functions called
// unqualified, the dialect's built-ins such as threadIdx and vector types).
#ifndef TARGETS_C_SOURCE_C_NAMES_H_
#define TARGETS_C_SOURCE_C_NAMES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "targets/c_source/dialect.h"
#include "tile_ir/module.h"

namespace tile_ir::c_source {

// Whether `name` can be an exported kernel symbol as it is: a C identifier
// that no name of the emitted code or of the dialect's headers takes.
bool IsUsableKernelName(const Dialect& dialect, std::string_view name);

// The exported symbol of each kernel of `module`, in order: its own name where that is usable
// (IsUsableKernelName), else a legal one derived from it, "tl_<name>_kernel" ("main", which
// TileLang gives every kernel, is reserved in C++; "float" is a keyword), made unique among the
// module's kernel names and symbols. Only the emitted source and the launch see the symbol:
// errors, the cache and the APIs keep the kernel's name.
std::vector<std::string> KernelSymbols(const Module& module, const Dialect& dialect);
// The symbol of the kernel named `kernel` (KernelSymbols); the name itself when the module has
// no such kernel.
std::string KernelSymbol(const Module& module, const Dialect& dialect, std::string_view kernel);

class CNames {
 public:
  explicit CNames(const Dialect& dialect);

  // Takes `name` as it is (a kernel's symbol); false when it is not free.
  bool Reserve(const std::string& name);
  // Gives the IR node `key` an identifier derived from `hint` and returns it.
  const std::string& Declare(const void* key, std::string_view hint);
  // A fresh identifier tied to no node (loop bounds, temporaries).
  std::string Fresh(std::string_view hint);
  // The identifier of a declared node; nullptr when it was never declared.
  const std::string* Find(const void* key) const;

 private:
  bool IsReserved(const std::string& name) const;

  absl::flat_hash_set<std::string> dialect_reserved_;
  absl::flat_hash_set<std::string> taken_;
  absl::flat_hash_map<const void*, std::string> by_key_;
};

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_C_NAMES_H_
