// Position-independent object code for the host CPU from thread-level IR:
// what the CPU target's Compile gives and the runtime links with ORC
// (runtime/cpu/object_linker.h), fresh or from the kernel cache.
#ifndef TARGETS_CPU_OBJECT_CODE_H_
#define TARGETS_CPU_OBJECT_CODE_H_

#include <string>

#include "absl/status/statusor.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "tile_ir/module.h"

namespace tile_ir::cpu {

// The LLVM optimization level object code is made at.
inline constexpr int kObjectOptLevel = 3;
// What else the object depends on, for cache keys.
inline constexpr char kObjectOptions[] = "opt_level=3,reloc=pic,object";

// The host's machine, with relocations that let ORC link the object at any address.
absl::StatusOr<llvm::orc::JITTargetMachineBuilder> ObjectMachineBuilder();

// An ELF object holding `<kernel>_block` for every kernel of `lowered`.
absl::StatusOr<std::string> EmitObjectCode(const Module& lowered);

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_OBJECT_CODE_H_
