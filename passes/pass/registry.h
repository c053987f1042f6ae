// The table of passes by name that pipelines are resolved against.
#ifndef PASSES_PASS_REGISTRY_H_
#define PASSES_PASS_REGISTRY_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "passes/pass/pass.h"

namespace tile_ir::passes {

// Registration is explicit (see all_passes.h): no static initializers, so a
// binary holds exactly the passes it registers.
class PassRegistry {
 public:
  // Checks the pass before accepting it: a kebab-case name not yet taken, a
  // one-line description, one run function (run or run_kernel), and options with kebab-case names,
  // no duplicates and defaults of their declared type.
  absl::Status Register(PassInfo info);

  // nullptr when no pass has that name. The pointer stays valid for the
  // registry's lifetime.
  const PassInfo* Find(std::string_view name) const;

  // Every pass, sorted by name.
  std::vector<const PassInfo*> All() const;

  // Every name, sorted.
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, PassInfo, std::less<>> passes_;
};

// True for names like "simplify" and "lower-tile-ops": lowercase letters and
// digits in words joined by single dashes, starting with a letter.
bool IsKebabCase(std::string_view name);

}  // namespace tile_ir::passes

#endif  // PASSES_PASS_REGISTRY_H_
