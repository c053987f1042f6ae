#include "targets/cuda/op_source_testing.h"

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "ops/op_suite.h"
#include "targets/cuda/cuda_codegen.h"
#include "targets/cuda/cuda_lowering.h"
#include "testdata/tile_files.h"

namespace tile_ir::cuda::testing {

absl::StatusOr<Module> ReadSuiteOp(const std::string& op) {
  absl::StatusOr<Module> module = text::ParseModule(
      tile_ir::testdata::ReadTextFile(absl::StrCat("ops/", op, ".tile")),
      absl::StrCat(op, ".tile"));
  if (!module.ok()) return module;
  return ops::SpecializeAtDefaultShapes(*std::move(module));
}

absl::StatusOr<std::string> SuiteOpCudaSource(const std::string& op, const std::string& arch,
                                              WgmmaUse wgmma) {
  absl::StatusOr<Module> module = ReadSuiteOp(op);
  if (!module.ok()) return module.status();
  absl::StatusOr<Module> lowered = LowerForCuda(*module, arch, wgmma);
  if (!lowered.ok()) return lowered.status();
  return EmitCudaSource(*lowered, {.arch = arch});
}

}  // namespace tile_ir::cuda::testing
