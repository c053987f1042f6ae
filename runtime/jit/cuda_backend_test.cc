// Reading a CUDA cache entry in a process that has not lowered anything for
// CUDA: the lowered module's text names the target's intrinsics
// (cuda.gemm_ss), which must be registered before it parses. The H200 found
// this as "unknown intrinsic 'cuda.gemm_ss'" on every disk hit. No GPU needed.
#include "runtime/jit/cuda_backend.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {
namespace {

std::string WriteArtifact(const std::string& op) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", op, ".artifact");
  const std::string command = absl::StrCat(
      std::getenv("TEST_SRCDIR"), "/tile/runtime/jit/testing/cuda_artifact_writer ", op, " ", path);
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(CudaBackendTest, AnEntryWrittenByAnotherProcessParsesWithoutPriorRegistration) {
  const std::string artifact = WriteArtifact("gemm_f16");
  ASSERT_TRUE(absl::StrContains(artifact, "cuda.gemm_wgmma")) << "the lowering no longer uses wgmma";
  // Nothing in this process has lowered for CUDA or asked for the targets yet.
  ASSERT_EQ(FindIntrinsic("cuda.gemm_wgmma"), nullptr);
  absl::StatusOr<targets::CompiledKernel> compiled = UnpackCudaArtifact(artifact, "gemm_f16");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ(compiled->kernel, "gemm_f16");
  ASSERT_EQ(compiled->lowered.kernels.size(), 1u);
  EXPECT_EQ(compiled->lowered.kernels[0]->name, "gemm_f16");
  EXPECT_EQ(compiled->binary.format, "cubin");
  EXPECT_EQ(compiled->binary.entry, "gemm_f16");
  EXPECT_EQ(compiled->binary.dynamic_shared_bytes, 1024);
  // Packing again gives the same bytes: the text round-trips.
  EXPECT_EQ(PackCudaArtifact(*compiled), artifact);
}

TEST(CudaBackendTest, DamagedArtifactsAreRefused) {
  EXPECT_FALSE(UnpackCudaArtifact("not an artifact", "gemm_f16").ok());
  std::string truncated = WriteArtifact("add_f32");
  truncated.resize(truncated.size() / 2);
  EXPECT_FALSE(UnpackCudaArtifact(truncated, "add_f32").ok());
}

}  // namespace
}  // namespace tile_ir::runtime::jit
