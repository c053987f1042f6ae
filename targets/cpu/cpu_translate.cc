// cpu-translate: prints the LLVM IR or host assembly the CPU target generates
// for a .tile file (thread-level, or tile-level with --lower).
#include <iostream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "frontends/io/bounded_file.h"
#include "frontends/text/parser.h"
#include "targets/cpu/cpu_compiler.h"

namespace {

constexpr char kUsage[] =
    "usage: cpu-translate [--emit=llvm|llvm-raw|asm] [--lower] [--opt-level=N] FILE\n"
    "  Prints what the CPU target generates for the kernels of FILE (.tile text).\n"
    "  --emit=llvm      LLVM IR after LLVM's optimization for the host CPU (default)\n"
    "  --emit=llvm-raw  LLVM IR as generated, before optimization\n"
    "  --emit=asm       host assembly\n"
    "  --lower          run the CPU lowering pipeline first (for tile-level input)\n"
    "  --opt-level=N    LLVM optimization level, 0-3 (default 3)\n";

int Fail(const std::string& message) {
  std::cerr << "cpu-translate: " << message << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string emit = "llvm";
  std::string path;
  bool lower = false;
  tile_ir::cpu::CpuCompileOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (absl::StartsWith(arg, "--emit=")) {
      emit = arg.substr(7);
    } else if (arg == "--lower") {
      lower = true;
    } else if (absl::StartsWith(arg, "--opt-level=")) {
      if (!absl::SimpleAtoi(arg.substr(12), &options.opt_level)) {
        return Fail("--opt-level needs an integer, got '" + arg.substr(12) + "'");
      }
    } else if (absl::StartsWith(arg, "-") || !path.empty()) {
      return Fail("unexpected argument '" + arg + "'\n" + kUsage);
    } else {
      path = arg;
    }
  }
  if (emit != "llvm" && emit != "llvm-raw" && emit != "asm") {
    return Fail("--emit must be llvm, llvm-raw or asm, not '" + emit + "'");
  }
  if (path.empty()) return Fail(std::string("no input file\n") + kUsage);
  absl::StatusOr<std::string> text =
      tile_ir::io::ReadBoundedFile(path, tile_ir::io::kMaxModuleBytes);
  if (!text.ok()) return Fail(std::string(text.status().message()));
  absl::StatusOr<tile_ir::Module> module = tile_ir::text::ParseModule(*text, path);
  if (!module.ok()) return Fail(std::string(module.status().message()));
  if (lower) {
    module = tile_ir::cpu::LowerForCpu(*module, options);
    if (!module.ok()) return Fail(std::string(module.status().message()));
  }
  absl::StatusOr<std::string> output =
      emit == "asm" ? tile_ir::cpu::EmitAssembly(*module, options)
                    : tile_ir::cpu::EmitLlvmIr(*module, emit == "llvm", options);
  if (!output.ok()) return Fail(std::string(output.status().message()));
  std::cout << *output;
  return 0;
}
