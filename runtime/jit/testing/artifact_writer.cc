// Writes the cache artifact of an operator's kernel, lowered for CUDA's sm_90a,
// to a file: what a first process stores and a later one reads. Lowering needs
// no GPU and no NVRTC, so the cubin section is a placeholder.
//   artifact_writer OP OUTPUT
#include <fstream>
#include <iostream>
#include <string>

#include "ops/op_suite.h"
#include "runtime/jit/artifact.h"
#include "targets/cuda/cuda_lowering.h"

int main(int argc, char** argv) {
  using namespace tile_ir;
  if (argc != 3) {
    std::cerr << "usage: artifact_writer OP OUTPUT\n";
    return 2;
  }
  const ops::OpCase* op = ops::FindOp(argv[1]);
  if (op == nullptr) {
    std::cerr << "no operator '" << argv[1] << "'\n";
    return 2;
  }
  absl::StatusOr<Kernel> kernel = op->build();
  if (!kernel.ok()) {
    std::cerr << kernel.status() << "\n";
    return 1;
  }
  absl::StatusOr<Module> lowered =
      cuda::LowerForCuda(Module{kIrVersion, "artifact_writer", "0", {*kernel}}, "sm_90a");
  if (!lowered.ok()) {
    std::cerr << lowered.status() << "\n";
    return 1;
  }
  targets::CompiledKernel compiled;
  compiled.kernel = op->name;
  compiled.lowered = *std::move(lowered);
  compiled.binary.format = "cubin";
  compiled.binary.entry = op->name;
  compiled.binary.dynamic_shared_bytes = 1024;
  compiled.binary.bytes = "placeholder: lowering only";
  std::ofstream(argv[2], std::ios::binary | std::ios::trunc)
      << runtime::jit::PackCompiledKernel(compiled);
  return 0;
}
