// The families of the linked targets, in the matrix's column order.
#include "tools/tile_matrix/all_probers.h"

#include "targets/target_registry.h"
#include "tools/tile_matrix/target_prober.h"

namespace tile_ir::matrix {

Probers AllProbers() {
  Probers probers;
  for (const std::string& family : targets::LinkedTargets().FamilyNames()) {
    probers.push_back(MakeTargetProber(targets::LinkedTargets(), family));
  }
  return probers;
}

}  // namespace tile_ir::matrix
