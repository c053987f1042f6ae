// Writes the sample modules as <name>.tilepb and <name>.expected.tile into a new
// testdata/compat/v<N>/ folder, once per released ir_version:
//   bazel run //testdata/compat:write_compat_files -- $PWD/testdata/compat/v<N>
// It refuses to overwrite: frozen files are never regenerated, only added to.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "testdata/compat/sample_modules.h"
#include "tile_ir/printer.h"
#include "tile_ir/serialization.h"

namespace {

bool WriteNewFile(const std::filesystem::path& path, const std::string& contents) {
  if (std::filesystem::exists(path)) {
    std::fprintf(stderr, "%s exists; frozen files are never regenerated\n", path.c_str());
    return false;
  }
  std::ofstream file(path, std::ios::binary);
  file << contents;
  file.close();
  if (!file) {
    std::fprintf(stderr, "%s: write failed\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_compat_files OUTPUT_DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    std::fprintf(stderr, "%s: %s\n", dir.c_str(), error.message().c_str());
    return 1;
  }
  for (const tile_ir::compat::SampleModule& sample : tile_ir::compat::SampleModules()) {
    const std::string bytes = tile_ir::WriteModuleProto(sample.module);
    // The expected text is what a reader makes of the bytes, as the compat test compares it.
    absl::StatusOr<tile_ir::Module> read = tile_ir::ReadModuleProto(bytes, sample.name);
    if (!read.ok()) {
      std::fprintf(stderr, "%s\n", std::string(read.status().message()).c_str());
      return 1;
    }
    if (!WriteNewFile(dir / (sample.name + ".tilepb"), bytes) ||
        !WriteNewFile(dir / (sample.name + ".expected.tile"), tile_ir::Print(*read))) {
      return 1;
    }
  }
  return 0;
}
