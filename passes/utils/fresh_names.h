// Fresh variable and buffer names for passes that add declarations: a kernel
// declares each name once (docs/TEXT_FORMAT.md), so new names must avoid all
// names already declared anywhere in it.
#ifndef PASSES_UTILS_FRESH_NAMES_H_
#define PASSES_UTILS_FRESH_NAMES_H_

#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

class FreshNames {
 public:
  // Takes every name the kernel declares: dimensions, parameters, grid
  // variables, loop and let variables, allocated buffers. Layout inputs live
  // in a namespace of their own and are not taken.
  explicit FreshNames(const KernelNode& kernel);

  // `base` when it is a valid identifier not taken yet, else `base_1`,
  // `base_2`, ...; the result is taken from then on.
  std::string Fresh(std::string_view base);

 private:
  absl::flat_hash_set<std::string> taken_;
  // The next suffix to try per base, so that many requests for one base
  // cost linear time.
  absl::flat_hash_map<std::string, int> next_suffix_;
};

// `s` with every loop and let variable it declares renamed to a fresh name, and their uses
// inside it with them: a copy to put beside the original (nothing in a kernel may be declared
// twice).
Stmt RenameDeclared(const Stmt& s, FreshNames& names);

}  // namespace tile_ir::passes

#endif  // PASSES_UTILS_FRESH_NAMES_H_
