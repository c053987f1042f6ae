// Object code the CPU target compiled (targets/cpu/object_code.h) linked into
// this process with ORC, libm and the C runtime resolved from the process:
// the one way CPU code enters a process. The CPU device loads every kernel
// through it, fresh or from the kernel cache, and targets/cpu's tests link the
// kernels they run with it.
#ifndef RUNTIME_CPU_OBJECT_LINKER_H_
#define RUNTIME_CPU_OBJECT_LINKER_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "targets/cpu/cpu_codegen.h"

namespace llvm::orc {
class LLJIT;
}  // namespace llvm::orc

namespace tile_ir::runtime::cpu {

// One linked object. Owns the code: the block function stays valid for its
// lifetime and may be called from any thread.
class LinkedObject {
 public:
  // Links `object` and resolves `entry`, the block function of `kernel` (named
  // in errors).
  static absl::StatusOr<std::unique_ptr<LinkedObject>> Link(std::string_view object,
                                                            std::string_view entry,
                                                            std::string_view kernel);
  ~LinkedObject();

  tile_ir::cpu::BlockFn block_fn() const { return block_fn_; }

 private:
  LinkedObject(std::unique_ptr<llvm::orc::LLJIT> jit, tile_ir::cpu::BlockFn block_fn);

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  tile_ir::cpu::BlockFn block_fn_;
};

}  // namespace tile_ir::runtime::cpu

#endif  // RUNTIME_CPU_OBJECT_LINKER_H_
