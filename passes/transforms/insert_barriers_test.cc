#include "passes/transforms/insert_barriers.h"

#include "gtest/gtest.h"
#include "passes/pass/target_info.h"
#include "passes/testing/fake_targets.h"
#include "passes/testing/ir_test_util.h"

namespace tile_ir::passes {
namespace {

using testing::Canonical;
using testing::ParseOrDie;
using testing::PrintVerified;

absl::StatusOr<std::string> WithBarriers(std::string_view kernel_text, std::string_view target) {
  testing::RegisterFakeIntrinsics();
  Module module = ParseOrDie(kernel_text);
  absl::StatusOr<bool> changed = InsertBarriers(module, **testing::FindFakeTarget(target));
  if (!changed.ok()) return changed.status();
  return PrintVerified(module);
}

std::string OnGpu(std::string_view kernel_text) {
  absl::StatusOr<std::string> out = WithBarriers(kernel_text, "test-gpu");
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : "";
}

TEST(InsertBarriersTest, OneThreadNeedsNoBarriers) {
  absl::StatusOr<std::string> out = WithBarriers(R"(
kernel k(A: f32[4]) grid(bx: 1) threads(4) {
  alloc S: shared f32[4];
  S[0] = 1.0;
  barrier(block);
  for i in 0 +: 4 serial {
    barrier(warp);
  }
  A[0] = S[0];
})",
                                                 "test-cpu");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, Canonical(R"(
kernel k(A: f32[4]) grid(bx: 1) threads(4) {
  alloc S: shared f32[4];
  S[0] = 1.0;
  for i in 0 +: 4 serial {
  }
  A[0] = S[0];
})"));
}

TEST(InsertBarriersTest, OrdersWritesBeforeReadsAndReadsBeforeWrites) {
  EXPECT_EQ(OnGpu(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    S[tx] = A[tx];
    O[tx] = S[63 - tx];
    O[tx] = O[tx] + S[tx];
    S[tx] = 0.0;
  }
})"),
            Canonical(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    S[tx] = A[tx];
    barrier(block);
    O[tx] = S[63 - tx];
    O[tx] = O[tx] + S[tx];
    barrier(block);
    S[tx] = 0.0;
  }
})"));
}

TEST(InsertBarriersTest, LoopsGetABarrierForTheirBackEdgeAndBeforeThem) {
  // The last write of the loop is ordered by the barrier before its read, so the second
  // loop needs none.
  EXPECT_EQ(OnGpu(R"(
kernel k(A: f32[8, 64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    S[tx] = 0.0;
    for k in 0 +: 8 serial {
      S[tx] = A[k, tx];
      O[tx] = O[tx] + S[(tx + 1) % 64];
    }
    for q in 0 +: 8 serial {
      O[tx] = O[tx] + S[q];
    }
  }
})"),
            Canonical(R"(
kernel k(A: f32[8, 64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    S[tx] = 0.0;
    barrier(block);
    for k in 0 +: 8 serial {
      barrier(block);
      S[tx] = A[k, tx];
      barrier(block);
      O[tx] = O[tx] + S[(tx + 1) % 64];
    }
    for q in 0 +: 8 serial {
      O[tx] = O[tx] + S[q];
    }
  }
})"));
}

TEST(InsertBarriersTest, ThreadDependentBranchesAreOneStatement) {
  EXPECT_EQ(OnGpu(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    let half: i32 = tx / 2;
    for r in 0 +: 2 serial {
      let e: i32 = r * 64 + tx;
      if (e < 100) {
        S[e % 64] = A[e % 64];
        S[e % 64] = S[e % 64] * 2.0;
      }
    }
    if (half == 3) {
      O[0] = S[0];
    }
  }
})"),
            Canonical(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    let half: i32 = tx / 2;
    for r in 0 +: 2 serial {
      let e: i32 = r * 64 + tx;
      if (e < 100) {
        S[e % 64] = A[e % 64];
        S[e % 64] = S[e % 64] * 2.0;
      }
    }
    barrier(block);
    if (half == 3) {
      O[0] = S[0];
    }
  }
})"));
}

TEST(InsertBarriersTest, ReadsAfterAnAsyncWaitNeedABarrier) {
  EXPECT_EQ(OnGpu(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    eval async_wait(0);
    O[tx] = S[tx];
    O[tx] = O[tx] + S[tx];
  }
})"),
            Canonical(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    eval async_wait(0);
    barrier(block);
    O[tx] = S[tx];
    O[tx] = O[tx] + S[tx];
  }
})"));
}

TEST(InsertBarriersTest, BuffersSharingBytesAreOrderedAsOne) {
  EXPECT_EQ(OnGpu(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc X: shared f32[64] offset(0);
    alloc Y: shared f32[64] offset(128);
    alloc Z: shared f32[64] offset(512);
    X[tx] = A[tx];
    O[tx] = X[63 - tx];
    Y[tx] = A[tx];
    Z[tx] = A[tx];
  }
})"),
            Canonical(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc X: shared f32[64] offset(0);
    alloc Y: shared f32[64] offset(128);
    alloc Z: shared f32[64] offset(512);
    X[tx] = A[tx];
    barrier(block);
    O[tx] = X[63 - tx];
    barrier(block);
    Y[tx] = A[tx];
    Z[tx] = A[tx];
  }
})"));
}

TEST(InsertBarriersTest, NothingToOrderChangesNothing) {
  constexpr char kReadsOnly[] = R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    alloc L: local f32[2];
    L[0] = A[tx];
    O[tx] = S[tx] + L[0];
    O[tx] = S[63 - tx];
  }
})";
  testing::RegisterFakeIntrinsics();
  Module module = ParseOrDie(kReadsOnly);
  absl::StatusOr<bool> changed = InsertBarriers(module, **testing::FindFakeTarget("test-gpu"));
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
}

TEST(InsertBarriersTest, ReportsWhatNoBarrierCanOrder) {
  absl::StatusOr<std::string> exchange = WithBarriers(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    if (tx < 32) {
      S[tx] = A[tx];
      O[tx] = S[tx + 1];
    }
  }
})",
                                                      "test-gpu");
  ASSERT_FALSE(exchange.ok());
  EXPECT_NE(exchange.status().message().find(
                "in kernel 'k': insert-barriers: threads may exchange data through shared "
                "buffer 'S'"),
            std::string::npos)
      << exchange.status();
  EXPECT_NE(exchange.status().message().find("(at `if (tx < 32) {`)"), std::string::npos);

  absl::StatusOr<std::string> divergent_barrier = WithBarriers(R"(
kernel k(A: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc L: local f32[1];
    L[0] = A[tx];
    for i in 0 +: cast<i32>(L[0]) serial {
      barrier(block);
    }
  }
})",
                                                               "test-gpu");
  ASSERT_FALSE(divergent_barrier.ok());
  EXPECT_NE(divergent_barrier.status().message().find("a block barrier inside a branch or loop"),
            std::string::npos)
      << divergent_barrier.status();
}

TEST(InsertBarriersTest, AtomicUpdatesAreReadsAndWritesOfSharedMemory) {
  // Atomic updates by different threads commute, so a thread-dependent branch may hold several;
  // the read of what they accumulated waits at a barrier.
  EXPECT_EQ(OnGpu(R"(
kernel k(A: f32[256], O: f32[32]) grid(bx: 1) threads(256) {
  for tx in 0 +: 256 thread_bound(x) {
    alloc S: shared f32[32];
    S[tx % 32] = 0.0;
    if (tx < 128) {
      eval atomic_add_at(S[tx % 32], A[tx]);
      eval atomic_add_at(S[(tx + 1) % 32], A[tx]);
    }
    O[tx % 32] = S[tx % 32];
  }
})"),
            Canonical(R"(
kernel k(A: f32[256], O: f32[32]) grid(bx: 1) threads(256) {
  for tx in 0 +: 256 thread_bound(x) {
    alloc S: shared f32[32];
    S[tx % 32] = 0.0;
    barrier(block);
    if (tx < 128) {
      eval atomic_add_at(S[tx % 32], A[tx]);
      eval atomic_add_at(S[(tx + 1) % 32], A[tx]);
    }
    barrier(block);
    O[tx % 32] = S[tx % 32];
  }
})"));

  // Reading another element after an atomic update, inside such a branch, is an exchange no
  // barrier can order.
  absl::StatusOr<std::string> exchange = WithBarriers(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    if (tx < 32) {
      eval atomic_add_at(S[tx], A[tx]);
      O[tx] = S[tx + 1];
    }
  }
})",
                                                      "test-gpu");
  ASSERT_FALSE(exchange.ok());
  EXPECT_NE(exchange.status().message().find("exchange data through shared buffer 'S'"),
            std::string::npos)
      << exchange.status();
}

TEST(InsertBarriersTest, EachArmOfARoleSplitIsOrderedAsABlockOfItsOwn) {
  // The second group exchanges data through S inside its arm: a barrier there (of its own
  // threads, as the target lowers it); the first group's arm is not ordered against it, and
  // the shared write before the split is, by one barrier of all threads in front of it.
  EXPECT_EQ(OnGpu(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    alloc T: shared f32[64];
    T[tx] = A[tx];
    if (test_gpu.first_role()) {
      O[tx] = T[63 - tx];
    } else {
      S[tx] = A[tx];
      O[tx] = S[63 - tx];
      for i in 0 +: 2 serial {
        S[tx] = O[tx];
        O[tx] = S[63 - tx];
      }
    }
  }
})"),
            Canonical(R"(
kernel k(A: f32[64], O: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    alloc S: shared f32[64];
    alloc T: shared f32[64];
    T[tx] = A[tx];
    barrier(block);
    if (test_gpu.first_role()) {
      O[tx] = T[63 - tx];
    } else {
      S[tx] = A[tx];
      barrier(block);
      O[tx] = S[63 - tx];
      barrier(block);
      for i in 0 +: 2 serial {
        barrier(block);
        S[tx] = O[tx];
        barrier(block);
        O[tx] = S[63 - tx];
      }
    }
  }
})"));
}

}  // namespace
}  // namespace tile_ir::passes
