// Writes the sample modules that need ir_version N (RequiredIrVersion: the version writers
// stamp) as <name>.tilepb and <name>.expected.tile into a new testdata/compat/v<N>/ folder,
// once per released ir_version:
//   bazel run //testdata/compat:write_compat_files -- $PWD/testdata/compat/v<N>
// Modules an older version can hold are frozen in that version's folder already. It refuses
// to overwrite: frozen files are never regenerated, only added to.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "testdata/compat/sample_modules.h"
#include "tile_ir/printer.h"
#include "tile_ir/serialization.h"
#include "tile_ir/version.h"

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
  const std::string folder = dir.filename().string();
  long version = 0;
  if (folder.size() < 2 || folder[0] != 'v' ||
      (version = std::strtol(folder.c_str() + 1, nullptr, 10)) < 1 ||
      version > tile_ir::kIrVersion) {
    std::fprintf(stderr, "%s: the folder must be named v<N>, N an ir_version from 1 to %lld\n",
                 dir.c_str(), static_cast<long long>(tile_ir::kIrVersion));
    return 2;
  }
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    std::fprintf(stderr, "%s: %s\n", dir.c_str(), error.message().c_str());
    return 1;
  }
  int written = 0;
  for (const tile_ir::compat::SampleModule& sample : tile_ir::compat::SampleModules()) {
    if (tile_ir::RequiredIrVersion(sample.module) != version) continue;
    ++written;
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
  if (written == 0) {
    std::fprintf(stderr, "no sample module needs ir_version %ld; add one to sample_modules.cc\n",
                 version);
    return 1;
  }
  return 0;
}
