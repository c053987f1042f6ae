// `tile-translate --self-contained` writes sources that the vendors' compilers take as they
// are, with no include path and no file of this tree: suite operators emitted that way compile
// with `nvcc -c` and `hipcc --genco`. Where a compiler is not installed its cases are skipped,
// with the reason, after the emission checks.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "targets/hip/hipcc_compiler.h"
#include "targets/target_registry.h"
#include "tools/tile_translate/tile_translate_main.h"

namespace tile_ir::tools {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string op;      // ops/<op>.tile
  std::string target;  // tile-translate's --target
  std::string arch;    // the compiler's
  bool hip = false;
};

std::string CaseName(const testing::TestParamInfo<Case>& info) {
  std::string name = absl::StrCat(info.param.op, "_", info.param.target);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

std::string ReadText(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// $CUDA_HOME/bin/nvcc (CUDA_HOME defaults to /usr/local/cuda), or why there is none.
absl::StatusOr<std::string> FindNvcc() {
  const char* home = std::getenv("CUDA_HOME");
  fs::path nvcc =
      fs::path(home != nullptr && *home != '\0' ? home : "/usr/local/cuda") / "bin" / "nvcc";
  if (!fs::exists(nvcc)) {
    return absl::NotFoundError(
        absl::StrCat("nvcc not found at ", nvcc.string(), " (set CUDA_HOME to the toolkit)"));
  }
  return nvcc.string();
}

// Runs `command` with its output in `log`; returns the exit status.
int RunCommand(const std::string& command, const fs::path& log) {
  int status = std::system(absl::StrCat(command, " > '", log.string(), "' 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class SelfContainedCompileTest : public testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() { (void)targets::LinkedTargets(); }
};

TEST_P(SelfContainedCompileTest, EmitsASourceTheCompilerTakesAsItIs) {
  const Case& c = GetParam();
  std::string input = absl::StrCat("ops/", c.op, ".tile");
  std::string target = "--target=" + c.target;
  std::vector<std::string> args = {"tile-translate", input, target, "--self-contained"};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  std::ostringstream out, err;
  ASSERT_EQ(TileTranslateMain(static_cast<int>(argv.size()), argv.data(), out, err, targets::LinkedTargets()), 0)
      << err.str();
  const std::string source = out.str();
  // Nothing is left for an include path to find, and each header came once, named.
  EXPECT_FALSE(absl::StrContains(source, "\n#include \"")) << source.substr(0, 2000);
  const std::string common = c.hip ? "// ---- tl/common.h from targets/hip/device/common.h ----"
                                   : "// ---- tl/common.cuh from targets/cuda/device/common.cuh "
                                     "----";
  EXPECT_TRUE(absl::StrContains(source, common)) << source.substr(0, 2000);
  // The headers CUDA and HIP share name their own folder.
  EXPECT_TRUE(absl::StrContains(
      source, "// ---- tl/portable/arith.h from targets/c_source/device/arith.h ----"));
  EXPECT_FALSE(absl::StrContains(source, "#pragma once"));

  const fs::path dir = fs::path(std::getenv("TEST_TMPDIR")) / CaseName({c, 0});
  fs::create_directories(dir);
  const fs::path file = dir / (c.hip ? "kernel.hip" : "kernel.cu");
  std::ofstream(file) << source;

  std::string command;
  if (c.hip) {
    absl::StatusOr<std::string> hipcc = hip::FindHipcc();
    if (!hipcc.ok()) GTEST_SKIP() << "emitted, not compiled: " << hipcc.status().message();
    command = absl::StrCat("cd '", dir.string(), "' && '", *hipcc, "' --offload-arch=", c.arch,
                           " --genco -O3 -o kernel.co kernel.hip");
  } else {
    absl::StatusOr<std::string> nvcc = FindNvcc();
    if (!nvcc.ok()) GTEST_SKIP() << "emitted, not compiled: " << nvcc.status().message();
    // From an empty folder, so that nothing of this tree can be found by accident.
    // Plain -arch=sm_90a also compiles for compute_90, where wgmma does not exist.
    const std::string arch =
        absl::EndsWith(c.arch, "a")
            ? absl::StrCat("-gencode=arch=compute_", c.arch.substr(3), ",code=", c.arch)
            : "-arch=" + c.arch;
    command = absl::StrCat("cd '", dir.string(), "' && TMPDIR='", dir.string(), "' '", *nvcc,
                           "' -c ", arch, " -o kernel.o kernel.cu");
  }
  const fs::path log = dir / "compile.log";
  EXPECT_EQ(RunCommand(command, log), 0) << command << "\n" << ReadText(log);
  EXPECT_TRUE(fs::exists(dir / (c.hip ? "kernel.co" : "kernel.o"))) << ReadText(log);
}

INSTANTIATE_TEST_SUITE_P(Ops, SelfContainedCompileTest,
                         testing::Values(Case{"gemm_f16", "cuda:sm_80", "sm_80"},
                                         Case{"gemm_f16", "cuda:sm_90a{gemm=wgmma}", "sm_90a"},
                                         Case{"softmax_f16", "cuda:sm_90a", "sm_90a"},
                                         Case{"gemm_f16", "hip:gfx90a", "gfx90a", true},
                                         Case{"softmax_f16", "hip:gfx90a", "gfx90a", true}),
                         CaseName);

}  // namespace
}  // namespace tile_ir::tools
