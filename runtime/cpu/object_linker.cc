// ORC's LLJIT over one object file, for the host machine the object was made for.
#include "runtime/cpu/object_linker.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "targets/cpu/object_code.h"

namespace tile_ir::runtime::cpu {
namespace {

absl::Status LlvmError(const std::string& what, llvm::Error error) {
  return absl::InternalError(absl::StrCat("cpu: ", what, ": ", llvm::toString(std::move(error))));
}

}  // namespace

LinkedObject::LinkedObject(std::unique_ptr<llvm::orc::LLJIT> jit, tile_ir::cpu::BlockFn block_fn)
    : jit_(std::move(jit)), block_fn_(block_fn) {}

LinkedObject::~LinkedObject() = default;

absl::StatusOr<std::unique_ptr<LinkedObject>> LinkedObject::Link(std::string_view object,
                                                                 std::string_view entry,
                                                                 std::string_view kernel) {
  absl::StatusOr<llvm::orc::JITTargetMachineBuilder> machine = tile_ir::cpu::ObjectMachineBuilder();
  if (!machine.ok()) return machine.status();
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*machine)).create();
  if (!jit) return LlvmError("cannot create the JIT", jit.takeError());
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return LlvmError("cannot search the process for symbols", process.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  // ORC keeps its own copy: the caller's bytes (a cache entry) may go.
  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(object.data(), object.size()), absl::StrCat(std::string(kernel), ".o"));
  if (llvm::Error error = (*jit)->addObjectFile(std::move(buffer))) {
    return LlvmError(
        absl::StrCat("cannot add the object code of kernel '", std::string(kernel), "'"),
        std::move(error));
  }
  auto address = (*jit)->lookup(llvm::StringRef(entry.data(), entry.size()));
  if (!address) {
    return LlvmError(absl::StrCat("cannot link kernel '", std::string(kernel), "'"),
                     address.takeError());
  }
  return std::unique_ptr<LinkedObject>(
      new LinkedObject(std::move(*jit), address->toPtr<tile_ir::cpu::BlockFn>()));
}

}  // namespace tile_ir::runtime::cpu
