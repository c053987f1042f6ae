// Builds the seed corpora of the fuzz targets from the repository's modules:
//   make_seeds OUT_DIR DIR...
// reads every .tile, .bad (invalid text), .tilepb and .json file under the
// DIRs and writes, one file per input named by its content's hash:
//   OUT_DIR/text_parser   every text file whole, and each `// -----` section
//   OUT_DIR/proto_reader  every .tilepb file, and every module read, as .tilepb
//   OUT_DIR/json_reader   every .json module file, and every module read, as JSON
//   OUT_DIR/verifier      as proto_reader
//   OUT_DIR/cpu_pipeline  every module that verifies, as .tilepb
//   OUT_DIR/gpu_pipelines the same
//   OUT_DIR/kernel_args   the same, length-prefixed and followed by argument bytes
//   OUT_DIR/cache_entry   cache entries whose artifacts hold the modules' text
// Exit status 1 when a directory cannot be read or nothing was found.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "frontends/io/module_io.h"
#include "runtime/jit/cache_entry.h"
#include "tile_ir/printer.h"
#include "tile_ir/serialization.h"
#include "tile_ir/verifier.h"

namespace fs = std::filesystem;
namespace jit = tile_ir::runtime::jit;

namespace {

void WriteSeed(const fs::path& dir, const std::string& bytes) {
  char name[32];
  std::snprintf(name, sizeof(name), "%016zx", std::hash<std::string>{}(bytes));
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

// The sections of a file that --split-input-file would process.
std::vector<std::string> SplitSections(const std::string& text) {
  std::vector<std::string> sections(1);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line == "// -----") {
      sections.emplace_back();
    } else {
      sections.back() += line + "\n";
    }
  }
  return sections;
}

std::string ArgumentBytes(const std::string& module, std::mt19937_64& rng) {
  std::string bytes;
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>(module.size() >> (8 * i)));
  bytes += module;
  for (int i = 0; i < 64; ++i) bytes.push_back(static_cast<char>(rng()));
  return bytes;
}

class SeedWriter {
 public:
  explicit SeedWriter(fs::path out) : out_(std::move(out)) {
    for (const char* target : {"text_parser", "proto_reader", "json_reader", "verifier",
                               "cpu_pipeline", "gpu_pipelines", "kernel_args", "cache_entry"}) {
      fs::create_directories(out_ / target);
    }
  }

  void AddFile(const fs::path& path) {
    absl::StatusOr<std::string> contents = tile_ir::io::ReadFile(path.string());
    if (!contents.ok()) return;
    const std::string ext = path.extension().string();
    if (ext == ".tile" || ext == ".bad") {
      WriteSeed(out_ / "text_parser", *contents);
      const std::vector<std::string> sections = SplitSections(*contents);
      for (const std::string& section : sections) {
        if (sections.size() > 1) WriteSeed(out_ / "text_parser", section);
        if (ext == ".tile") AddModule(tile_ir::io::ReadModule(section, tile_ir::io::ModuleFormat::kText, path.string()));
      }
    } else if (ext == ".tilepb") {
      WriteSeed(out_ / "proto_reader", *contents);
      WriteSeed(out_ / "verifier", *contents);
      AddModule(tile_ir::ReadModuleProto(*contents, path.string()));
    } else if (ext == ".json") {
      absl::StatusOr<tile_ir::Module> module = tile_ir::ReadModuleJson(*contents, path.string());
      if (!module.ok()) return;  // JSON that is not a module (results, manifests)
      WriteSeed(out_ / "json_reader", *contents);
      AddModule(module);
    }
  }

  int modules() const { return modules_; }

 private:
  void AddModule(const absl::StatusOr<tile_ir::Module>& module) {
    if (!module.ok()) return;
    ++modules_;
    const std::string proto = tile_ir::WriteModuleProto(*module);
    WriteSeed(out_ / "proto_reader", proto);
    WriteSeed(out_ / "verifier", proto);
    WriteSeed(out_ / "json_reader", tile_ir::WriteModuleJson(*module));
    if (!tile_ir::Verify(*module).ok()) return;
    WriteSeed(out_ / "cpu_pipeline", proto);
    WriteSeed(out_ / "gpu_pipelines", proto);
    WriteSeed(out_ / "kernel_args", ArgumentBytes(proto, rng_));
    jit::CacheContext context;
    context.Set("target", "cpu");
    context.Set("ir", tile_ir::Print(*module));
    const std::string artifact = jit::PackSections({{"lowered", tile_ir::Print(*module)},
                                                    {"object", proto}});
    // Any secret: the fuzzer parses without one.
    WriteSeed(out_ / "cache_entry", jit::SerializeEntry(context, artifact, jit::EntrySecret{}));
  }

  fs::path out_;
  std::mt19937_64 rng_{16};
  int modules_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: make_seeds OUT_DIR DIR...\n";
    return 2;
  }
  SeedWriter writer(argv[1]);
  for (int i = 2; i < argc; ++i) {
    std::error_code error;
    for (fs::recursive_directory_iterator it(argv[i], error), end; !error && it != end;
         it.increment(error)) {
      if (it->is_regular_file()) writer.AddFile(it->path());
    }
    if (error) {
      std::cerr << "make_seeds: " << argv[i] << ": " << error.message() << "\n";
      return 1;
    }
  }
  if (writer.modules() == 0) {
    std::cerr << "make_seeds: no module found under the directories given\n";
    return 1;
  }
  std::cout << "make_seeds: " << writer.modules() << " modules into " << argv[1] << "\n";
  return 0;
}
