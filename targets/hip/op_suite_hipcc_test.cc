// The HIP target's CI check: every operator of the suite (ops/*.tile), and the
// kernels of testdata/targets/hip/hipcc/ that cover what the suite does not
// (reductions into 16-bit fragments), lower with the HIP pipeline and emit
// for gfx90a and gfx940; then, per architecture, all of them compile with
// hipcc in one source file (one hipcc run per architecture keeps CI time
// down; kernel names are unique across the files). Operators the target cannot lower are listed
// below with the reason, and must fail with exactly that capability error. Without hipcc the
// compile step is skipped (with the reason) and lowering and emission still run.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "ops/op_suite.h"
#include "targets/hip/hip_codegen.h"
#include "targets/hip/hip_lowering.h"
#include "targets/hip/hipcc_compiler.h"

namespace tile_ir::hip {
namespace {

// Operators the HIP target refuses, with the text their error must contain.
const std::map<std::string, std::string>& ExpectedUnsupported() {
  // TileLang's Hopper attention tiles (128 x 128: Q, K and V) need 96 KiB of shared memory;
  // CDNA's LDS holds 64 KiB per workgroup. (The 64 x 64 ones fit; P stays in registers.)
  static const auto* ops = new std::map<std::string, std::string>{
      {"flash_attn_d128_b128", "needs 98304 bytes of shared memory, more than the 65536 bytes"},
      {"flash_attn_d128_b128_causal",
       "needs 98304 bytes of shared memory, more than the 65536 bytes"},
      // The d128 backward's main pass holds Q, K, V, dO and dS tiles at once.
      {"flash_attn_bwd_d128", "needs 74240 bytes of shared memory, more than the 65536 bytes"},
      {"flash_attn_bwd_d128_causal",
       "needs 74240 bytes of shared memory, more than the 65536 bytes"}};
  return *ops;
}

// Operators whose gemm must run on matrix cores (tl::gemm_mfma), not FMA loops
// (attention's P * V too, from registers).
const std::vector<std::string>& ExpectedMfma() {
  static const auto* ops =
      new std::vector<std::string>{"batched_gemm_f16", "conv2d_nhwc_f16",
                                   "flash_attn_d128",  "flash_attn_d128_causal",
                                   "flash_attn_d64",   "flash_attn_d64_causal",
                                   "gemm_bf16",        "gemm_f16",
                                   "gemm_f16_nt",      "gemm_f16_tn"};
  return *ops;
}

// The kernel files the test compiles, by kernel name (each file holds one kernel named as its
// stem): the suite's operators, then the extra kernels.
std::map<std::string, std::string> KernelFiles() {
  std::map<std::string, std::string> files;
  for (const char* folder : {"ops", "testdata/targets/hip/hipcc"}) {
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      if (entry.path().extension() == ".tile") {
        files[entry.path().stem().string()] = entry.path().string();
      }
    }
  }
  return files;
}

std::vector<std::string> OpNames() {
  std::vector<std::string> names;
  for (const auto& [name, path] : KernelFiles()) names.push_back(name);
  return names;
}

// The functions of every supported operator for `arch`, after one header.
absl::StatusOr<std::string> SuiteSource(const std::string& arch) {
  std::string all;
  for (const auto& [op, path] : KernelFiles()) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    absl::StatusOr<Module> module = text::ParseModule(text.str(), op + ".tile");
    if (!module.ok()) return module.status();
    module = ops::SpecializeAtDefaultShapes(*std::move(module));
    if (!module.ok()) return module.status();
    absl::StatusOr<Module> lowered = LowerForHip(*module, arch);
    auto unsupported = ExpectedUnsupported().find(op);
    if (unsupported != ExpectedUnsupported().end()) {
      if (lowered.ok()) return absl::InternalError(op + " lowers now: update ExpectedUnsupported");
      if (!absl::StrContains(lowered.status().message(), unsupported->second)) {
        return absl::InternalError(
            absl::StrCat(op, ": unexpected error ", lowered.status().ToString()));
      }
      continue;
    }
    if (!lowered.ok())
      return absl::InternalError(absl::StrCat(op, ": ", lowered.status().ToString()));
    HipCodegenOptions options;
    options.arch = arch;
    absl::StatusOr<std::string> source = EmitHipSource(*lowered, options);
    if (!source.ok())
      return absl::InternalError(absl::StrCat(op, ": ", source.status().ToString()));
    bool expected =
        std::find(ExpectedMfma().begin(), ExpectedMfma().end(), op) != ExpectedMfma().end();
    if (expected && !absl::StrContains(*source, "tl::gemm_mfma<")) {
      return absl::InternalError(absl::StrCat(op, " does not use tl::gemm_mfma:\n", *source));
    }
    // Attention's P = cast(S) is the A operand of P * V as it stands: no LDS tile for P.
    // (The forward's; the backward's gemms take dS and P transposed from shared tiles.)
    if (absl::StartsWith(op, "flash_attn") && !absl::StrContains(op, "_bwd") &&
        (!absl::StrContains(*source, "(&P[0], &V_s[0], &acc_o[0]);") ||
         !absl::StrContains(*source, "tl::gemm_mfma_rs<64, ") ||
         absl::StrContains(*source, "P_staged"))) {
      return absl::InternalError(
          absl::StrCat(op, ": P * V does not read P from registers:\n", *source));
    }
    // Each source opens with the same header; keep it once.
    size_t body = source->find("\nextern \"C\"");
    if (all.empty()) {
      all = *source;
    } else {
      all += source->substr(body);
    }
  }
  return all;
}

class OpSuiteHipccTest : public testing::TestWithParam<std::string> {};

TEST(OpSuiteFilesTest, SuiteIsThere) {
  EXPECT_GE(OpNames().size(), 22u);
  EXPECT_TRUE(KernelFiles().contains("reduce_16bit"));
}

TEST_P(OpSuiteHipccTest, LowersEmitsAndCompiles) {
  const std::string& arch = GetParam();
  absl::StatusOr<std::string> source = SuiteSource(arch);
  ASSERT_TRUE(source.ok()) << source.status();
  if (absl::Status available = HipccAvailable(); !available.ok()) {
    GTEST_SKIP() << "emitted, not compiled: " << available.message();
  }
  absl::StatusOr<HipCodeObject> compiled = CompileHipCodeObject(*source, arch);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_FALSE(compiled->bytes.empty());
  for (const std::string& op : OpNames()) {
    if (ExpectedUnsupported().contains(op)) continue;
    // Kernel symbols are the operators' names.
    EXPECT_TRUE(absl::StrContains(compiled->bytes, op)) << op << " is not in the code object";
  }
  std::cout << OpNames().size() << " operators for " << arch << ": code object "
            << compiled->bytes.size() << " bytes, " << compiled->compiler_version << "\n";
}

INSTANTIATE_TEST_SUITE_P(BothArchs, OpSuiteHipccTest, testing::ValuesIn(KnownHipArchs()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tile_ir::hip
