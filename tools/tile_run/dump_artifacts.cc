// Writing a loaded kernel's artifacts to files.
#include "tools/tile_run/dump_artifacts.h"

#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tile_ir::tools {

absl::Status DumpArtifacts(const runtime::LoadedKernel& kernel, const std::string& device_name,
                           const std::string& dir) {
  std::vector<runtime::KernelArtifact> artifacts = kernel.artifacts();
  if (artifacts.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--dump-cubin: the ", device_name, " device keeps no compiled code to write"));
  }
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat("--dump-cubin: cannot create ", dir, ": ", error.message()));
  }
  for (const runtime::KernelArtifact& artifact : artifacts) {
    std::string path = (std::filesystem::path(dir) /
                        absl::StrCat(kernel.signature().name, ".", artifact.extension))
                           .string();
    std::ofstream file(path, std::ios::binary);
    file.write(artifact.contents.data(), static_cast<std::streamsize>(artifact.contents.size()));
    if (!file.good()) {
      return absl::PermissionDeniedError(absl::StrCat("--dump-cubin: cannot write ", path));
    }
  }
  return absl::OkStatus();
}

}  // namespace tile_ir::tools
