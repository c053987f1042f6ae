// The sections of a compiled kernel's cache artifact.
#include "runtime/jit/artifact.h"

#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "runtime/jit/cache_entry.h"
#include "targets/target_registry.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {

std::string PackCompiledKernel(const targets::CompiledKernel& compiled) {
  // Without source locations: the key hashes the kernel's text without them, so one entry
  // serves every source of the same kernel and must not name any one of them (nor carry a
  // host's paths).
  return PackSections({{"lowered", Print(compiled.lowered)},
                       {"entry", compiled.binary.entry},
                       {"shared_bytes", absl::StrCat(compiled.binary.dynamic_shared_bytes)},
                       {compiled.binary.format, compiled.binary.bytes}});
}

absl::StatusOr<targets::CompiledKernel> UnpackCompiledKernel(std::string_view artifact,
                                                             std::string_view kernel_name) {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> sections =
      UnpackSections(artifact);
  if (!sections.ok()) return sections.status();
  if (sections->size() != 4 || (*sections)[0].first != "lowered" ||
      (*sections)[1].first != "entry" || (*sections)[2].first != "shared_bytes") {
    return absl::DataLossError(
        "jit: the artifact is not lowered, entry, shared_bytes and a binary");
  }
  // The intrinsics the lowering emits (cuda.gemm_ss, ...) are known once the
  // families are (targets/target_registry.h), before anything in this process lowered.
  (void)targets::LinkedTargets();
  // Read as printed text: a statement keeps no location rather than its line in the artifact,
  // so that what a loaded kernel reports (a broken `require`) names no place it does not know.
  absl::StatusOr<Module> lowered =
      text::ParsePrintedModule((*sections)[0].second, "<cached lowered module>");
  if (!lowered.ok()) return lowered.status();
  targets::CompiledKernel compiled;
  compiled.kernel = std::string(kernel_name);
  compiled.lowered = *std::move(lowered);
  compiled.binary.entry = std::move((*sections)[1].second);
  if (!absl::SimpleAtoi((*sections)[2].second, &compiled.binary.dynamic_shared_bytes)) {
    return absl::DataLossError("jit: bad shared_bytes section");
  }
  compiled.binary.format = std::move((*sections)[3].first);
  compiled.binary.bytes = std::move((*sections)[3].second);
  return compiled;
}

}  // namespace tile_ir::runtime::jit
