// The list of built-in passes. A new pass is one more line here.
#include "passes/all_passes.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "passes/remove_dead_code.h"
#include "passes/simplify.h"

namespace tile_ir::passes {
namespace {

void RegisterOrDie(PassRegistry& registry, PassInfo info) {
  std::string name = info.name;
  absl::Status registered = registry.Register(std::move(info));
  if (!registered.ok()) {
    std::fprintf(stderr, "cannot register built-in pass '%s': %s\n", name.c_str(),
                 std::string(registered.message()).c_str());
    std::abort();
  }
}

}  // namespace

void RegisterBuiltinPasses(PassRegistry& registry) {
  RegisterOrDie(registry, RemoveDeadCodePass());
  RegisterOrDie(registry, SimplifyPass());
}

const PassRegistry& BuiltinPassRegistry() {
  static const PassRegistry* registry = [] {
    auto* builtins = new PassRegistry;
    RegisterBuiltinPasses(*builtins);
    return builtins;
  }();
  return *registry;
}

}  // namespace tile_ir::passes
