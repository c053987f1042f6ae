#include "tools/common/targets.h"

#include "targets/cpu/cpu_target_info.h"

namespace tile_ir::cli {

void RegisterAllTargets() { cpu::RegisterCpuTarget(); }

}  // namespace tile_ir::cli
