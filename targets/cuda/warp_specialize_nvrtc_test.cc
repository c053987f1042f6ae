// A gemm lowered for cuda:sm_90a (warp-specialized by default): its PTX holds the producer's
// TMA loads and mbarrier protocol and the register reallocation, beside the consumers' wgmma,
// and the kernel takes the tensor maps after its own parameters; {warp_specialize=off} keeps
// the copies in the compute warps.
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "frontends/text/parser.h"
#include "gtest/gtest.h"
#include "targets/cuda/cuda_target.h"
#include "targets/cuda/nvrtc_compiler.h"
#include "targets/target_name.h"

namespace tile_ir::cuda {
namespace {

// Two consumer warpgroups on a 128 x 256 tile (256 threads, 384 with the producer),
// static shapes so that the row pitches are proved whole 16 bytes (TMA loads).
constexpr char kGemm[] = R"(ir_version 1;
producer "test" "1";

kernel gemm(A: bf16[1024, 1024], B: bf16[1024, 1024], C: f32[1024, 1024])
    grid(bx: 4, by: 8) threads(256) {
  alloc A_s: shared bf16[128, 64];
  alloc B_s: shared bf16[64, 256];
  alloc C_l: fragment f32[128, 256];
  fill C_l = 0.0;
  for k in 0 +: 16 pipelined(num_stages=4) {
    copy A[by * 128 +: 128, k * 64 +: 64] -> A_s;
    copy B[k * 64 +: 64, bx * 256 +: 256] -> B_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
  copy C_l -> C[by * 128 +: 128, bx * 256 +: 256];
}
)";

// The same gemm writing C in bf16 from 3 stages: its 64 KiB staging tile fits beside them.
constexpr char kGemmBf16Out[] = R"(ir_version 1;
producer "test" "1";

kernel gemm(A: bf16[1024, 1024], B: bf16[1024, 1024], C: bf16[1024, 1024])
    grid(bx: 4, by: 8) threads(256) {
  alloc A_s: shared bf16[128, 64];
  alloc B_s: shared bf16[64, 256];
  alloc C_l: fragment f32[128, 256];
  fill C_l = 0.0;
  for k in 0 +: 16 pipelined(num_stages=3) {
    copy A[by * 128 +: 128, k * 64 +: 64] -> A_s;
    copy B[k * 64 +: 64, bx * 256 +: 256] -> B_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
  copy C_l -> C[by * 128 +: 128, bx * 256 +: 256];
}
)";

absl::StatusOr<std::string> Source(const std::string& target_name, const char* text = kGemm,
                                   const std::string& kernel = "gemm") {
  absl::StatusOr<Module> module = text::ParseModule(text, "gemm.tile");
  if (!module.ok()) return module.status();
  absl::StatusOr<targets::TargetName> name = targets::ParseTargetName(target_name);
  if (!name.ok()) return name.status();
  std::unique_ptr<targets::TargetFamily> family = MakeCudaFamily();
  family->RegisterIntrinsics();  // what a target registry does when it adds the family
  absl::StatusOr<std::unique_ptr<targets::Target>> target = family->Create(*name);
  if (!target.ok()) return target.status();
  absl::StatusOr<Module> lowered = (*target)->Lower(*module);
  if (!lowered.ok()) return lowered.status();
  return (*target)->Emit(*lowered, {.kernel = kernel, .self_contained = false});
}

class WarpSpecializeNvrtcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (absl::Status available = NvrtcAvailable(); !available.ok()) {
      GTEST_SKIP() << available.message();
    }
  }
};

TEST_F(WarpSpecializeNvrtcTest, TheProducerWarpgroupSynchronizesThroughMbarriers) {
  absl::StatusOr<std::string> source = Source("cuda:sm_90a");
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_TRUE(absl::StrContains(*source, "__launch_bounds__(384, 1)")) << *source;
  EXPECT_TRUE(absl::StrContains(*source, "if (tx >= 256) {")) << *source;
  // A's and B's maps only: C's f32 tile (128 KiB) does not fit beside the four stages, nor
  // does a chunk of 64 rows (a wgmma's row block; smaller chunks index the accumulator's
  // registers at run time, tma_stores.cc), so the consumers store C directly.
  EXPECT_TRUE(absl::StrContains(*source,
                                "float* C, const __grid_constant__ tl::TensorMap "
                                "tl_tensor_map_0, const __grid_constant__ "
                                "tl::TensorMap tl_tensor_map_1)"))
      << *source;
  EXPECT_FALSE(absl::StrContains(*source, "tma_store")) << *source;
  absl::StatusOr<NvrtcOutput> compiled = CompileWithNvrtc(*source, "gemm.cu", {.arch = "sm_90a"});
  ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << *source;
  const std::string& ptx = compiled->ptx;
  for (const char* instruction :
       {"mbarrier.init.shared::cta.b64", "mbarrier.try_wait.parity.shared::cta.b64",
        "mbarrier.arrive.expect_tx.shared::cta.b64", "mbarrier.arrive.shared::cta.b64",
        "fence.mbarrier_init.release.cluster", "setmaxnreg.dec.sync.aligned.u32 40",
        "setmaxnreg.inc.sync.aligned.u32 232",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        "wgmma.mma_async.sync.aligned.m64n"}) {
    EXPECT_TRUE(absl::StrContains(ptx, instruction)) << instruction;
  }
  // No __syncthreads after the split: the producers would never come to it.
  size_t split = source->find("if (tx >= 256) {");
  EXPECT_EQ(source->find("__syncthreads", split), std::string::npos) << *source;
  // The consumers issue no copies at all.
  EXPECT_FALSE(absl::StrContains(ptx, "cp.async.cg.shared.global")) << ptx;
}

TEST_F(WarpSpecializeNvrtcTest, OffKeepsTheCopiesInTheComputeWarps) {
  absl::StatusOr<std::string> source = Source("cuda:sm_90a{warp_specialize=off}");
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_TRUE(absl::StrContains(*source, "__launch_bounds__(256)")) << *source;
  EXPECT_FALSE(absl::StrContains(*source, "mbarrier")) << *source;
  EXPECT_FALSE(absl::StrContains(*source, "TensorMap")) << *source;
}

// {persistent=on,sms=8}: the gemm's 32 tiles in 8 blocks, each role looping over 4 of them
// with the same mbarrier protocol, compiled by NVRTC.
TEST_F(WarpSpecializeNvrtcTest, PersistentBlocksLoopOverTiles) {
  absl::StatusOr<std::string> source = Source("cuda:sm_90a{persistent=on,sms=8}");
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_TRUE(absl::StrContains(*source, "__launch_bounds__(384, 1)")) << *source;
  EXPECT_TRUE(absl::StrContains(*source, "tile_iter")) << *source;
  absl::StatusOr<NvrtcOutput> compiled = CompileWithNvrtc(*source, "gemm.cu", {.arch = "sm_90a"});
  ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << *source;
  for (const char* instruction :
       {"mbarrier.try_wait.parity.shared::cta.b64", "mbarrier.arrive.expect_tx.shared::cta.b64",
        "setmaxnreg.inc.sync.aligned.u32 232",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        "wgmma.mma_async.sync.aligned.m64n"}) {
    EXPECT_TRUE(absl::StrContains(compiled->ptx, instruction)) << instruction;
  }
  // The one-tile kernel: no tile loop.
  absl::StatusOr<std::string> one_tile = Source("cuda:sm_90a");
  ASSERT_TRUE(one_tile.ok()) << one_tile.status();
  EXPECT_FALSE(absl::StrContains(*one_tile, "tile_iter")) << *one_tile;
}

// {tma_store=on}: the consumers write C into a shared tile, fence it for the async proxy, and
// one thread stores it with the TMA (a third tensor map), waiting for the store to have read
// the tile before the next tile's copy and before the kernel ends. No thread stores to
// global memory itself.
TEST_F(WarpSpecializeNvrtcTest, TmaStoresWriteTheOutputTileFromSharedMemory) {
  for (const char* target :
       {"cuda:sm_90a{tma_store=on}", "cuda:sm_90a{persistent=on,sms=8,tma_store=on}"}) {
    SCOPED_TRACE(target);
    absl::StatusOr<std::string> source = Source(target, kGemmBf16Out);
    ASSERT_TRUE(source.ok()) << source.status();
    EXPECT_TRUE(absl::StrContains(*source, "tl::tma_store_2d<128, 256>(&tl_tensor_map_2, "))
        << *source;
    EXPECT_TRUE(
        absl::StrContains(*source, "const __grid_constant__ tl::TensorMap tl_tensor_map_2)"))
        << *source;
    absl::StatusOr<NvrtcOutput> compiled = CompileWithNvrtc(*source, "gemm.cu", {.arch = "sm_90a"});
    ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << *source;
    const std::string& ptx = compiled->ptx;
    for (const char* instruction :
         {"cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "cp.async.bulk.commit_group",
          "cp.async.bulk.wait_group.read 0", "fence.proxy.async.shared::cta",
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
          "wgmma.mma_async.sync.aligned.m64n"}) {
      EXPECT_TRUE(absl::StrContains(ptx, instruction)) << instruction;
    }
    EXPECT_FALSE(absl::StrContains(ptx, "st.global")) << ptx;
  }
  // Off: the consumers store C themselves.
  absl::StatusOr<std::string> direct = Source("cuda:sm_90a{tma_store=off}", kGemmBf16Out);
  ASSERT_TRUE(direct.ok()) << direct.status();
  EXPECT_FALSE(absl::StrContains(*direct, "tma_store")) << *direct;
}

// {cluster=2}: in the rasterized grid (panels of 8 rows of blocks), blocks 2i and 2i + 1 read
// the same tile of B at every iteration, so they run as a cluster of two in which each loads half
// of B's atom columns into both with a TMA multicast and releases each slot on both blocks'
// barriers. Without the rasterization they share A, whose one 128-byte column does not split:
// the blocks stay apart.
TEST_F(WarpSpecializeNvrtcTest, PairedBlocksShareTheirBTileThroughAMulticast) {
  const std::string rasterized = absl::StrReplaceAll(
      kGemmBf16Out, {{"threads(256) {", "threads(256) swizzle(panel=8, order=row) {"}});
  absl::StatusOr<std::string> source = Source("cuda:sm_90a{cluster=2}", rasterized.c_str());
  ASSERT_TRUE(source.ok()) << source.status();
  for (const char* line : {"__launch_bounds__(384, 1) __cluster_dims__(2, 1, 1) gemm(",
                           "tl::tma_load_pair_2d<64, 256>(&tl_tensor_map_1, ",
                           "tl::tma_load_2d<128, 64>(", "tl::mbarrier_init(&ws_empty[0], 4);",
                           "tl::mbarrier_arrive_pair(&ws_empty[", "tl::cluster_sync();"}) {
    EXPECT_TRUE(absl::StrContains(*source, line)) << line << "\n" << *source;
  }
  absl::StatusOr<NvrtcOutput> compiled = CompileWithNvrtc(*source, "gemm.cu", {.arch = "sm_90a"});
  ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << *source;
  for (const char* instruction :
       {"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster",
        "mapa.shared::cluster.u32", "mbarrier.arrive.release.cluster.shared::cluster.b64",
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64",
        "barrier.cluster.arrive.release;", "barrier.cluster.wait.acquire;", "%cluster_ctarank"}) {
    EXPECT_TRUE(absl::StrContains(compiled->ptx, instruction)) << instruction;
  }
  absl::StatusOr<std::string> apart = Source("cuda:sm_90a{cluster=2}", kGemmBf16Out);
  ASSERT_TRUE(apart.ok()) << apart.status();
  EXPECT_FALSE(absl::StrContains(*apart, "__cluster_dims__")) << *apart;
  EXPECT_FALSE(absl::StrContains(*apart, "pair")) << *apart;
}

// {pingpong=on}: the attention's two consumer warpgroups take turns issuing Q K^T through named
// barriers 3 and 4 (bar.sync by the warpgroup whose turn it is, bar.arrive by the other), the
// gemm issued asynchronously inside the turn; NVRTC compiles it.
constexpr char kAttention[] = R"(ir_version 1;
producer "tile-cpp" "0.1.0";

kernel attention(Q: f16[2, 2, 512, 128], K: f16[2, 2, 512, 128], V: f16[2, 2, 512, 128], O: f16[2, 2, 512, 128])
    grid(bx: 4, by: 2, bz: 2) threads(256) {
  alloc Q_s: shared f16[128, 128];
  alloc K_s: shared f16[128, 128];
  alloc V_s: shared f16[128, 128];
  alloc O_s: shared f16[128, 128];
  alloc S: fragment f32[128, 128];
  alloc P: fragment f16[128, 128];
  alloc acc_o: fragment f32[128, 128];
  alloc row_max: fragment f32[128];
  alloc prev_max: fragment f32[128];
  alloc rescale: fragment f32[128];
  alloc tile_sum: fragment f32[128];
  alloc row_sum: fragment f32[128];
  copy Q[bz +: 1, by +: 1, bx * 128 +: 128, 0 +: 128] -> Q_s;
  fill acc_o = 0.0;
  fill row_sum = 0.0;
  fill row_max = -inf;
  for k in 0 +: 4 pipelined(num_stages=2) {
    copy K[bz +: 1, by +: 1, k * 128 +: 128, 0 +: 128] -> K_s;
    for i in 0 +: 128 parallel {
      for j in 0 +: 128 parallel {
        S[i, j] = select(k * 128 + j < 512, 0.0, -inf);
      }
    }
    gemm Q_s, K_s -> S {transpose_a=false, transpose_b=true, policy=full_row, clear_accum=false};
    copy row_max -> prev_max;
    reduce max S -> row_max {dim=1, clear=false};
    for i_1 in 0 +: 128 parallel {
      rescale[i_1] = exp2_ftz(prev_max[i_1] * 0.12751743082459868 - row_max[i_1] * 0.12751743082459868);
    }
    for i_2 in 0 +: 128 parallel {
      for j_1 in 0 +: 128 parallel {
        acc_o[i_2, j_1] = acc_o[i_2, j_1] * rescale[i_2];
      }
    }
    for i_3 in 0 +: 128 parallel {
      for j_2 in 0 +: 128 parallel {
        S[i_3, j_2] = exp2_ftz(S[i_3, j_2] * 0.12751743082459868 - row_max[i_3] * 0.12751743082459868);
      }
    }
    reduce sum S -> tile_sum {dim=1, clear=true};
    for i_4 in 0 +: 128 parallel {
      row_sum[i_4] = row_sum[i_4] * rescale[i_4] + tile_sum[i_4];
    }
    for i_5 in 0 +: 128 parallel {
      for j_3 in 0 +: 128 parallel {
        P[i_5, j_3] = cast<f16>(S[i_5, j_3]);
      }
    }
    copy V[bz +: 1, by +: 1, k * 128 +: 128, 0 +: 128] -> V_s;
    gemm P, V_s -> acc_o {transpose_a=false, transpose_b=false, policy=full_row, clear_accum=false};
  }
  for i_6 in 0 +: 128 parallel {
    for j_4 in 0 +: 128 parallel {
      O_s[i_6, j_4] = cast<f16>(acc_o[i_6, j_4] / row_sum[i_6]);
    }
  }
  copy O_s -> O[bz +: 1, by +: 1, bx * 128 +: 128, 0 +: 128];
}
)";

TEST_F(WarpSpecializeNvrtcTest, PingPongWarpgroupsTakeTurnsAtTheirGemms) {
  absl::StatusOr<std::string> source = Source("cuda:sm_90a{pingpong=on}", kAttention, "attention");
  ASSERT_TRUE(source.ok()) << source.status();
  for (const char* line :
       {"tl::mbarrier_init(&ws_turn[0], 128);", "tl::mbarrier_arrive(&ws_turn[0]);",
        "tl::mbarrier_wait_parity(&ws_turn[1], ",
        "tl::gemm_wgmma_async<128, 128, 128, 2, 1, false, true, false>(",
        "tl::mbarrier_arrive(&ws_turn[1]);", "tl::wgmma_wait<0, 64>(&S[0]);"}) {
    EXPECT_TRUE(absl::StrContains(*source, line)) << line << "\n" << *source;
  }
  absl::StatusOr<NvrtcOutput> compiled =
      CompileWithNvrtc(*source, "attention.cu", {.arch = "sm_90a"});
  ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << *source;
  EXPECT_TRUE(absl::StrContains(compiled->ptx, "mbarrier.try_wait.parity")) << compiled->ptx;
  EXPECT_FALSE(absl::StrContains(compiled->ptx, "bar.arrive")) << compiled->ptx;
  absl::StatusOr<std::string> free_running = Source("cuda:sm_90a", kAttention, "attention");
  ASSERT_TRUE(free_running.ok()) << free_running.status();
  EXPECT_FALSE(absl::StrContains(*free_running, "ws_turn")) << *free_running;
}

// By default the attention's consumer loop is rotated (overlap-gemm-chains): each iteration
// issues Q K^T and the previous iteration's P V back to back, waits for Q K^T alone
// (wgmma.wait_group 1) and for P V after the softmax; NVRTC compiles it.
TEST_F(WarpSpecializeNvrtcTest, AttentionOverlapsSoftmaxWithThePreviousPV) {
  absl::StatusOr<std::string> source = Source("cuda:sm_90a", kAttention, "attention");
  ASSERT_TRUE(source.ok()) << source.status();
  for (const char* line : {"tl::gemm_wgmma_async<128, 128, 128, 2, 1, false, true, false>(",
                           "tl::gemm_wgmma_rs_async<128, 128, 128, 2, 1, false, false, false>(",
                           "tl::wgmma_wait<1, 64>(&S[0]);", "tl::wgmma_wait<0, 64>(&acc_o[0]);",
                           "tl::wgmma_fence_operand<64>(&P[0]);"}) {
    EXPECT_TRUE(absl::StrContains(*source, line)) << line << "\n" << *source;
  }
  absl::StatusOr<NvrtcOutput> compiled =
      CompileWithNvrtc(*source, "attention.cu", {.arch = "sm_90a"});
  ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << *source;
  EXPECT_TRUE(absl::StrContains(compiled->ptx, "wgmma.wait_group.sync.aligned 1;"))
      << compiled->ptx;
  absl::StatusOr<std::string> in_turn = Source("cuda:sm_90a{overlap=off}", kAttention, "attention");
  ASSERT_TRUE(in_turn.ok()) << in_turn.status();
  EXPECT_FALSE(absl::StrContains(*in_turn, "gemm_wgmma_rs_async")) << *in_turn;
}

TEST(WarpSpecializeTargetTest, TheOptionIsSm90aOnly) {
  absl::StatusOr<targets::TargetName> name =
      targets::ParseTargetName("cuda:sm_80{warp_specialize=on}");
  ASSERT_TRUE(name.ok()) << name.status();
  absl::StatusOr<std::unique_ptr<targets::Target>> target = MakeCudaFamily()->Create(*name);
  ASSERT_FALSE(target.ok());
  EXPECT_TRUE(absl::StrContains(target.status().message(), "applies to sm_90a only"))
      << target.status();
  for (const char* other : {"cuda:sm_80{tma_store=on}", "cuda:sm_80{cluster=2}",
                            "cuda:sm_80{pingpong=on}", "cuda:sm_80{overlap=off}"}) {
    name = targets::ParseTargetName(other);
    ASSERT_TRUE(name.ok()) << name.status();
    target = MakeCudaFamily()->Create(*name);
    ASSERT_FALSE(target.ok());
    EXPECT_TRUE(absl::StrContains(target.status().message(), "applies to sm_90a only"))
        << target.status();
  }
}

}  // namespace
}  // namespace tile_ir::cuda
