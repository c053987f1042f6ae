// A compiled kernel through its cache artifact and back. First, reading a CUDA
// artifact in a process that has not lowered anything for CUDA: the lowered
// module's text names the target's intrinsics (cuda.gemm_ss), which must be
// registered before it parses. The H200 found this as "unknown intrinsic
// 'cuda.gemm_ss'" on every disk hit. No GPU needed. (The tests run in order:
// the first must see no intrinsic registered.)
#include "runtime/jit/artifact.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "gtest/gtest.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {
namespace {

std::string WriteArtifact(const std::string& op) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", op, ".artifact");
  const std::string command = absl::StrCat(
      std::getenv("TEST_SRCDIR"), "/tile/runtime/jit/testing/artifact_writer ", op, " ", path);
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(ArtifactTest, AnEntryWrittenByAnotherProcessParsesWithoutPriorRegistration) {
  const std::string artifact = WriteArtifact("gemm_f16");
  ASSERT_TRUE(absl::StrContains(artifact, "cuda.gemm_wgmma"))
      << "the lowering no longer uses wgmma";
  // Nothing in this process has lowered for CUDA or asked for the targets yet.
  ASSERT_EQ(FindIntrinsic("cuda.gemm_wgmma"), nullptr);
  absl::StatusOr<targets::CompiledKernel> compiled = UnpackCompiledKernel(artifact, "gemm_f16");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ(compiled->kernel, "gemm_f16");
  ASSERT_EQ(compiled->lowered.kernels.size(), 1u);
  EXPECT_EQ(compiled->lowered.kernels[0]->name, "gemm_f16");
  EXPECT_EQ(compiled->binary.format, "cubin");
  EXPECT_EQ(compiled->binary.entry, "gemm_f16");
  EXPECT_EQ(compiled->binary.dynamic_shared_bytes, 1024);
  // Packing again gives the same bytes: the text round-trips.
  EXPECT_EQ(PackCompiledKernel(*compiled), artifact);
}

TEST(ArtifactTest, DamagedArtifactsAreRefused) {
  EXPECT_FALSE(UnpackCompiledKernel("not an artifact", "gemm_f16").ok());
  std::string truncated = WriteArtifact("add_f32");
  truncated.resize(truncated.size() / 2);
  EXPECT_FALSE(UnpackCompiledKernel(truncated, "add_f32").ok());
}

constexpr char kOneKernel[] = R"(ir_version 1;
producer "test" "1";

kernel one(Y: f32[4]) grid(bx: 1) threads(1) {
  Y[0] = 1.0;
}
)";

// Any format round-trips, its bytes untouched (the CPU's object code holds NULs and newlines).
TEST(ArtifactTest, TheBinaryKeepsItsFormatEntryAndBytes) {
  absl::StatusOr<Module> lowered = text::ParseModule(kOneKernel, "artifact_test.tile");
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  targets::CompiledKernel compiled;
  compiled.kernel = "one";
  compiled.lowered = *lowered;
  compiled.binary.format = "object";
  compiled.binary.entry = "one_block";
  compiled.binary.bytes = std::string("\177ELF\0\n\nbytes", 12);
  compiled.binary.files = {{"ll", "; not stored"}};
  absl::StatusOr<targets::CompiledKernel> back =
      UnpackCompiledKernel(PackCompiledKernel(compiled), "one");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->kernel, "one");
  EXPECT_EQ(Print(back->lowered), Print(*lowered));
  // No source locations go into the entry (one entry serves every source of the kernel), and
  // none come out of it: not the source's, nor lines of the artifact.
  EXPECT_FALSE(absl::StrContains(PackCompiledKernel(compiled), "artifact_test.tile"));
  EXPECT_FALSE(absl::StrContains(Print(back->lowered, {.print_locs = true}), "loc("));
  EXPECT_EQ(back->binary.format, "object");
  EXPECT_EQ(back->binary.entry, "one_block");
  EXPECT_EQ(back->binary.dynamic_shared_bytes, 0);
  EXPECT_EQ(back->binary.bytes, compiled.binary.bytes);
  EXPECT_TRUE(back->binary.files.empty());
}

}  // namespace
}  // namespace tile_ir::runtime::jit
