#include "targets/cuda/passes/core_matrix_tiles.h"

#include <mutex>
#include <set>

#include "gtest/gtest.h"
#include "passes/testing/fake_targets.h"
#include "passes/testing/ir_test_util.h"
#include "targets/cuda/passes/test_core_matrix_reads.h"
#include "targets/cuda/tensor_maps.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes {
namespace {

using testing::ParseOrDie;
using testing::PrintVerified;

// test_gpu.mm, test_gpu.fence and test_gpu.async_copy are the fake targets' (fake_targets.h);
// test_gpu.addr(X[i]) takes an element's address.
void RegisterTestIntrinsics() {
  static std::once_flag once;
  std::call_once(once, [] {
    ::tile_ir::cuda::testing::RegisterTestCoreMatrixReads();
    ::tile_ir::cuda::RegisterTmaIntrinsics();  // a TMA store's tile is a core-matrix operand
    IntrinsicInfo addr;
    addr.name = "test_gpu.addr";
    addr.num_args = 1;
    addr.result = IntrinsicInfo::ResultType::kVoid;
    addr.pure = false;
    RegisterIntrinsic(addr);
  });
}

std::string Canonical(std::string_view kernel_text) {
  RegisterTestIntrinsics();
  return testing::Canonical(kernel_text);
}

absl::StatusOr<std::string> Laid(std::string_view kernel_text) {
  RegisterTestIntrinsics();
  Module module = ParseOrDie(kernel_text);
  absl::StatusOr<bool> changed = LayCoreMatrixTiles(module);
  if (!changed.ok()) return changed.status();
  return PrintVerified(module);
}

TEST(CoreMatrixTilesTest, OperandsBecomeChunkColumnsOfRowsAndEveryAccessFollows) {
  // A_s (two stages of 16 x 32 f16, rows padded by pad-shared-rows) is filled by async
  // copies of 16 bytes and B_s (32 x 16) by 8-lane vector stores and scalar stores, each
  // followed by the fence; both are gemm operands. S is not and stays.
  absl::StatusOr<std::string> laid = Laid(R"(
kernel k(A: f16[64, 32], B: f16[32, 16], C: f32[16, 16]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc A_s: shared f16[2, 16, 32] strides[640, 40, 1];
    alloc B_s: shared f16[32, 16];
    alloc S: shared f16[32, 16];
    alloc C_l: local f32[4];
    for k in 0 +: 4 serial {
      let j_run: i32 = tx % 4 * 8;
      eval test_gpu.async_copy(A_s[k % 2, tx / 4, j_run], A[k * 16 + tx / 4, j_run], 16);
      eval async_commit();
      eval async_wait(0);
      B_s[tx / 2, ramp(tx % 2 * 8, 1, 8)] = B[tx / 2, ramp(tx % 2 * 8, 1, 8)];
      B_s[tx / 2, tx % 16] = S[tx / 2, tx % 16] + B_s[tx / 2, tx % 16];
      eval test_gpu.mm(A_s[k % 2, 0, 0], B_s[0, 0], C_l[0]);
    }
  }
})");
  ASSERT_TRUE(laid.ok()) << laid.status();
  EXPECT_EQ(*laid, Canonical(R"(
kernel k(A: f16[64, 32], B: f16[32, 16], C: f32[16, 16]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc A_s: shared f16[2, 4, 16, 8] strides[576, 144, 8, 1];
    alloc B_s: shared f16[2, 32, 8] strides[288, 8, 1];
    alloc S: shared f16[32, 16];
    alloc C_l: local f32[4];
    for k in 0 +: 4 serial {
      let j_run: i32 = tx % 4 * 8;
      eval test_gpu.async_copy(A_s[k % 2, j_run / 8, tx / 4, j_run % 8], A[k * 16 + tx / 4, j_run], 16);
      eval async_commit();
      eval async_wait(0);
      B_s[tx % 2 * 8 / 8, tx / 2, ramp(tx % 2 * 8 % 8, 1, 8)] = B[tx / 2, ramp(tx % 2 * 8, 1, 8)];
      eval test_gpu.fence();
      B_s[tx % 16 / 8, tx / 2, tx % 16 % 8] = S[tx / 2, tx % 16] + B_s[tx % 16 / 8, tx / 2, tx % 16 % 8];
      eval test_gpu.fence();
      eval test_gpu.mm(A_s[k % 2, 0 / 8, 0, 0 % 8], B_s[0 / 8, 0, 0 % 8], C_l[0]);
    }
  }
})"));
}

TEST(CoreMatrixTilesTest, RowsOfWhole128BytesAreSwizzled) {
  // A_s: two stages of 16 x 64 f16 (128-byte rows) filled by async copies of 16 bytes; B_s:
  // 16 x 128 (256-byte rows, two atom columns) by 8-lane vector stores and scalar stores.
  // Chunk c of row i lands at chunk c ^ (i % 8) of its atom column's row.
  absl::StatusOr<std::string> laid = Laid(R"(
kernel k(A: f16[64, 64], B: f16[16, 128], C: f32[16, 16]) grid(bx: 1) threads(128) {
  for tx in 0 +: 128 thread_bound(x) {
    alloc A_s: shared f16[2, 16, 64] strides[1152, 72, 1];
    alloc B_s: shared f16[16, 128];
    alloc C_l: local f32[4];
    for k in 0 +: 4 serial {
      let j_run: i32 = tx % 8 * 8;
      eval test_gpu.async_copy(A_s[k % 2, tx / 8, j_run], A[k * 16 + tx / 8, j_run], 16);
      eval async_commit();
      eval async_wait(0);
      B_s[tx / 8, ramp(tx % 8 * 16, 1, 8)] = B[tx / 8, ramp(tx % 8 * 16, 1, 8)];
      B_s[tx / 8, tx % 128] = B_s[tx / 8, tx % 128] * B_s[tx / 8, tx % 128];
      eval test_gpu.mm(A_s[k % 2, 0, 0], B_s[0, 0], C_l[0]);
    }
  }
})");
  ASSERT_TRUE(laid.ok()) << laid.status();
  EXPECT_EQ(*laid, Canonical(R"(
kernel k(A: f16[64, 64], B: f16[16, 128], C: f32[16, 16]) grid(bx: 1) threads(128) {
  for tx in 0 +: 128 thread_bound(x) {
    alloc A_s: shared f16[2, 1, 16, 64];
    alloc B_s: shared f16[2, 16, 64];
    alloc C_l: local f32[4];
    for k in 0 +: 4 serial {
      let j_run: i32 = tx % 8 * 8;
      eval test_gpu.async_copy(A_s[k % 2, j_run / 64, tx / 8, (j_run % 64 / 8 ^ tx / 8 % 8) * 8 + j_run % 8], A[k * 16 + tx / 8, j_run], 16);
      eval async_commit();
      eval async_wait(0);
      B_s[tx % 8 * 16 / 64, tx / 8, ramp((tx % 8 * 16 % 64 / 8 ^ tx / 8 % 8) * 8 + tx % 8 * 16 % 8, 1, 8)] = B[tx / 8, ramp(tx % 8 * 16, 1, 8)];
      eval test_gpu.fence();
      B_s[tx % 128 / 64, tx / 8, (tx % 128 % 64 / 8 ^ tx / 8 % 8) * 8 + tx % 128 % 8] = B_s[tx % 128 / 64, tx / 8, (tx % 128 % 64 / 8 ^ tx / 8 % 8) * 8 + tx % 128 % 8] * B_s[tx % 128 / 64, tx / 8, (tx % 128 % 64 / 8 ^ tx / 8 % 8) * 8 + tx % 128 % 8];
      eval test_gpu.fence();
      eval test_gpu.mm(A_s[k % 2, 0 / 64, 0, (0 % 64 / 8 ^ 0 % 8) * 8 + 0 % 8], B_s[0 / 64, 0, (0 % 64 / 8 ^ 0 % 8) * 8 + 0 % 8], C_l[0]);
    }
  }
})"));
  EXPECT_TRUE(SwizzledCoreMatrixTile(128));
  EXPECT_TRUE(SwizzledCoreMatrixTile(256));
  EXPECT_FALSE(SwizzledCoreMatrixTile(64));
  EXPECT_FALSE(SwizzledCoreMatrixTile(192 + 32));
}

TEST(CoreMatrixTilesTest, SwizzledTilesOfOtherElementSizesAndRunsThatLeaveAChunk) {
  // f32, 32 columns: 128-byte rows of 8 chunks of 4 elements.
  absl::StatusOr<std::string> laid = Laid(R"(
kernel k(C: f32[16, 16]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    alloc A_s: shared f32[8, 32];
    alloc C_l: local f32[4];
    A_s[tx / 4, tx % 32] = 0.0;
    eval test_gpu.mm(A_s[0, 0], A_s[0, 0], C_l[0]);
  }
})");
  ASSERT_TRUE(laid.ok()) << laid.status();
  EXPECT_EQ(*laid, Canonical(R"(
kernel k(C: f32[16, 16]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    alloc A_s: shared f32[1, 8, 32];
    alloc C_l: local f32[4];
    A_s[tx % 32 / 32, tx / 4, (tx % 32 % 32 / 4 ^ tx / 4 % 8) * 4 + tx % 32 % 4] = 0.0;
    eval test_gpu.fence();
    eval test_gpu.mm(A_s[0 / 32, 0, (0 % 32 / 4 ^ 0 % 8) * 4 + 0 % 4], A_s[0 / 32, 0, (0 % 32 / 4 ^ 0 % 8) * 4 + 0 % 4], C_l[0]);
  }
})"));
  // A run of 8 f16 that may start mid-chunk would straddle two chunks, which the swizzle
  // sends to different places.
  absl::StatusOr<std::string> straddles = Laid(R"(
kernel k(B: f16[16, 64], C: f32[16, 16]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc B_s: shared f16[16, 64];
    alloc C_l: local f32[4];
    B_s[tx / 4, ramp(tx % 4 * 12, 1, 8)] = B[tx / 4, ramp(tx % 4 * 12, 1, 8)];
    eval test_gpu.mm(B_s[0, 0], B_s[0, 0], C_l[0]);
  }
})");
  EXPECT_FALSE(straddles.ok());
  EXPECT_NE(straddles.status().message().find("not proved to stay inside one 16-byte chunk"),
            std::string::npos)
      << straddles.status();
}

TEST(CoreMatrixTilesTest, ChunkColumnsArePaddedOffEachOthersBanks) {
  // Rows of one chunk need no pad; 2, 4 and 8 or more chunks 64, 32 and 16 bytes.
  EXPECT_EQ(ChunkColumnStrideBytes(64, 16), 64 * 16);
  EXPECT_EQ(ChunkColumnStrideBytes(64, 32), 64 * 16 + 64);
  EXPECT_EQ(ChunkColumnStrideBytes(128, 64), 128 * 16 + 32);
  EXPECT_EQ(ChunkColumnStrideBytes(32, 128), 32 * 16 + 16);
  EXPECT_EQ(ChunkColumnStrideBytes(32, 256), 32 * 16 + 16);
  // Each 8-thread phase of a row-major copy (thread t writes chunk t % chunks of row t /
  // chunks) touches 8 different 16-byte bank groups.
  for (int64_t chunks : {2, 4, 8, 16}) {
    int64_t stride = ChunkColumnStrideBytes(64, chunks * 16);
    for (int64_t phase = 0; phase < 4; ++phase) {
      std::set<int64_t> groups;
      for (int64_t t = phase * 8; t < phase * 8 + 8; ++t) {
        groups.insert(((t % chunks) * stride + (t / chunks) * 16) % 128 / 16);
      }
      EXPECT_EQ(groups.size(), 8u) << chunks << " chunks, phase " << phase;
    }
  }
}

// An operand read at an index of a narrow type (0_i4 verifies as an index): the layout's
// arithmetic widens it to i32, where its constants (64, 128) fit. It produced "constant 8 does
// not fit i4" and IR that did not verify (found by the gpu_pipelines fuzzer).
TEST(CoreMatrixTilesTest, NarrowIndicesAreWidenedForTheLayoutsArithmetic) {
  absl::StatusOr<std::string> laid = Laid(R"(
kernel k(C: f32[16, 16]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    alloc A_s: shared f16[16, 64];
    alloc C_l: local f32[4];
    A_s[tx / 2, ramp(tx % 2 * 32, 1, 8)] = broadcast(1.0_f16, 8);
    eval test_gpu.mm(A_s[0_i4, 0_i8], A_s[0, 0], C_l[0]);
  }
})");
  ASSERT_TRUE(laid.ok()) << laid.status();
  EXPECT_NE(laid->find(
                "A_s[cast<i32>(0_i8) / 64, 0_i4, (cast<i32>(0_i8) % 64 / 8 ^ cast<i32>(0_i4) % 8)"),
            std::string::npos)
      << *laid;
}

TEST(CoreMatrixTilesTest, KernelsWithoutCoreMatrixOperandsStay) {
  constexpr char kKernel[] = R"(
kernel k(A: f16[16, 16]) grid(bx: 1) threads(16) {
  for tx in 0 +: 16 thread_bound(x) {
    alloc A_s: shared f16[16, 16];
    A_s[tx, ramp(0, 1, 8)] = A[tx, ramp(0, 1, 8)];
  }
})";
  absl::StatusOr<std::string> laid = Laid(kKernel);
  ASSERT_TRUE(laid.ok()) << laid.status();
  EXPECT_EQ(*laid, Canonical(kKernel));
}

TEST(CoreMatrixTilesTest, VectorRunsNotProvedInsideAChunkAreRefused) {
  absl::StatusOr<std::string> laid = Laid(R"(
kernel k(A: f16[16, 16]) grid(bx: 1) threads(16) {
  for tx in 0 +: 16 thread_bound(x) {
    alloc A_s: shared f16[16, 16];
    alloc C_l: local f32[4];
    A_s[tx, ramp(tx % 2 * 4, 1, 8)] = A[tx, ramp(0, 1, 8)];
    eval test_gpu.mm(A_s[0, 0], A_s[0, 0], C_l[0]);
  }
})");
  ASSERT_FALSE(laid.ok());
  EXPECT_NE(laid.status().message().find("kernel 'k': core-matrix-tiles: an access of shared "
                                         "buffer 'A_s' of 8 contiguous elements is not proved "
                                         "to stay inside one 16-byte chunk"),
            std::string::npos)
      << laid.status();
}

TEST(CoreMatrixTilesTest, AddressesTakenByOtherCallsAndOddShapesAreRefused) {
  absl::StatusOr<std::string> address = Laid(R"(
kernel k(A: f16[16, 16]) grid(bx: 1) threads(16) {
  for tx in 0 +: 16 thread_bound(x) {
    alloc A_s: shared f16[16, 16];
    alloc C_l: local f32[4];
    eval test_gpu.addr(A_s[tx, 0]);
    eval test_gpu.mm(A_s[0, 0], A_s[0, 0], C_l[0]);
  }
})");
  ASSERT_FALSE(address.ok());
  EXPECT_NE(address.status().message().find(
                "argument 0 of call 'test_gpu.addr' names one of its elements as an address"),
            std::string::npos)
      << address.status();
  absl::StatusOr<std::string> shape = Laid(R"(
kernel k(A: f16[12, 16]) grid(bx: 1) threads(16) {
  for tx in 0 +: 16 thread_bound(x) {
    alloc A_s: shared f16[12, 16];
    alloc C_l: local f32[4];
    eval test_gpu.mm(A_s[0, 0], A_s[0, 0], C_l[0]);
  }
})");
  ASSERT_FALSE(shape.ok());
  EXPECT_NE(shape.status().message().find("is 12 x 16: rows must be a multiple of 8"),
            std::string::npos)
      << shape.status();
}

// A TMA store's shared tile (targets/cuda/passes/tma_stores.h) is laid out as a TMA load's:
// 128-byte swizzle atoms, [W / 64][R][64] for f16 rows of W elements, each 16-byte chunk c of
// row r at chunk c ^ (r % 8). The threads' ordinary stores into it are followed by the fence
// that orders them before the async proxy's reads; the wait that precedes the next write names
// the tile but takes no address of it the layout would change.
TEST(CoreMatrixTilesTest, ATmaStoresTileIsSwizzledAndItsStoresFenced) {
  absl::StatusOr<std::string> laid = Laid(R"(
kernel store(C: f16[256, 128]) grid(bx: 1) threads(16) {
  for tx in 0 +: 16 thread_bound(x) {
    alloc C_s: shared f16[16, 128];
    eval cuda.tma_store_wait_read(C_s[0, 0]);
    C_s[tx, ramp(72, 1, 8)] = broadcast(1.0_f16, 8);
    eval cuda.tma_store_2d(C_s[0, 0], C[0, 0], 16, 0, 16, 128);
  }
})");
  ASSERT_TRUE(laid.ok()) << laid.status();
  EXPECT_EQ(*laid, Canonical(R"(
kernel store(C: f16[256, 128]) grid(bx: 1) threads(16) {
  for tx in 0 +: 16 thread_bound(x) {
    alloc C_s: shared f16[2, 16, 64];
    eval cuda.tma_store_wait_read(C_s[0 / 64, 0, (0 % 64 / 8 ^ 0 % 8) * 8 + 0 % 8]);
    C_s[72 / 64, tx, ramp((72 % 64 / 8 ^ tx % 8) * 8 + 72 % 8, 1, 8)] = broadcast(1.0_f16, 8);
    eval cuda.fence_proxy_async();
    eval cuda.tma_store_2d(C_s[0 / 64, 0, (0 % 64 / 8 ^ 0 % 8) * 8 + 0 % 8], C[0, 0], 16, 0, 16, 128);
  }
})"));
}

// A TMA store reads its shared tile whole, box by box of 128-byte swizzle atoms: a box of other
// rows than the tile's would read the layout wrongly.
TEST(CoreMatrixTilesTest, ATmaStoreOfAnotherBoxThanItsTileIsRefused) {
  absl::StatusOr<std::string> laid = Laid(R"(
kernel store_box(C: f16[256, 64]) grid(bx: 1) threads(16) {
  for tx in 0 +: 16 thread_bound(x) {
    alloc C_s: shared f16[128, 64];
    C_s[tx, 0] = 1.0_f16;
    eval cuda.tma_store_2d(C_s[0, 0], C[0, 0], 0, 0, 64, 64);
  }
})");
  ASSERT_FALSE(laid.ok());
  EXPECT_EQ(laid.status().message(),
            "kernel 'store_box': core-matrix-tiles: cuda.tma_store_2d reads shared buffer 'C_s' in "
            "128-byte swizzle atoms of its whole tile, but its box (the last two arguments, 64 x "
            "64) is not the buffer's 128 x 64");
}

}  // namespace
}  // namespace tile_ir::passes
