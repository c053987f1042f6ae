// The `thread-binding` pass: maps the parallel loops and fragments that lower-tile-ops
// leaves onto the threads that execute a block (docs/LOWERING.md, "Thread binding").
#ifndef PASSES_TRANSFORMS_THREAD_BINDING_H_
#define PASSES_TRANSFORMS_THREAD_BINDING_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// With T = target.ThreadsExecutingBlock(launch):
//
// T == 1: every parallel loop becomes a serial one (innermost loops stay simple counted
// loops a code generator can vectorize) and every fragment a local buffer of its shape,
// without its layout.
//
// T > 1: the body runs inside `for tx in 0 +: T thread_bound(x) { ... }` (with a launch of
// several thread axes whose extents multiply to T: nested z, y, x loops and a let of the
// flat index tx + ty * X + tz * X * Y, the index fragment layouts use). Each fragment
// becomes a local buffer of R registers (R from its layout, which must place every element
// on its own (thread, register) within [0, T)), read and written at the register its layout
// gives. Then:
// - A parallel loop nest that touches no fragment is dealt cyclically: its perfectly nested
//   parallel loops flatten into `for r in 0 +: ceildiv(total, T) serial { let e = r * T +
//   tx; if (e < total) { let i = ...; let j = ...; BODY } }` (the guard omitted when T
//   divides a constant total), and parallel loops inside BODY become serial.
// - A nest that touches fragments walks each thread's own registers where it can: a perfect
//   nest of parallel loops over a constant box, without parallel loops in its body, whose
//   fragment stores all sit, element by element, on the thread the first fragment store (or
//   else load) places the element on, by a placement that enumerates (fragment_threads.h)
//   to an injective map of the box onto (thread t, register r) with linear index
//   A * t + B[r] (A >= 0, B increasing) becomes `for r in 0 +: R unrolled { let e = A * tx +
//   B_r; if (e < total) { let i = ...; let j = ...; BODY } }` (the guard omitted when every
//   (t, r) holds an element), B_r being B0 + r * D where B is an arithmetic progression and
//   a select chain over r otherwise; the loop is serial when R > 64, and needs a
//   progression then. Failing that, a placement separable and bit-linear in the thread (T a
//   power of two; for each loop d, coord_d(t, r) = P_d(t) + Q_d(r) with P_d(t) = P_d(0) + the
//   sum over bits b of c_{d,b} * ((t >> b) & 1), checked at every (t, r), each (t, r) that
//   holds nothing landing outside the box), such as the mma.sync accumulator layout, becomes
//   `for r in 0 +: R unrolled { let i = P_i(tx) + Q_i(r); ...; [if (in the box)] { BODY } }`
//   (P_d as terms c * (tx / 2^b % 2^len), one per run of bits whose coefficients double; Q_d
//   a progression or a select chain), always unrolled, for R <= 256: nvcc keeps a register
//   array in registers only when every index of it is constant. Fragment registers that are
//   a function of r (plus a fixed multiple of inner loop offsets) are indexed by it; loads of
//   elements held elsewhere go through mirrors as below.
// - Any other nest that touches fragments becomes serial loops that every thread walks; inside
//   them each run of statements without parallel loops executes on one thread: where the
//   layouts place the fragment elements it writes (`if (thread(i, j) == tx)`; they must
//   all be on one thread, checked structurally or by enumerating constant loop ranges), or
//   else those of its first fragment read; on thread 0 when it touches no fragment but
//   writes shared or global memory or calls an impure intrinsic; on every thread otherwise.
//   Lets that read no fragment stay outside the guard.
// - Outside parallel loops, a store runs like such a run (a store to local memory on
//   every thread); lets, evaluations, conditions and loop bounds run on every thread;
//   barriers stay.
// - A fragment passed whole to a target intrinsic (a load of it, at all indices 0, as an
//   argument of a call whose name has a target prefix, such as a tensor-core gemm's
//   accumulator in `eval cuda.gemm_ss(..., C[0, 0], ...)`) becomes the thread's first
//   register `C_local[0]`: target intrinsics take load arguments as addresses, and each
//   thread passes its own registers. Such a call must run on every thread, so outside
//   parallel loops and not in a store.
// - A fragment element read by a thread that does not hold it (a let, a condition, or a run
//   executed for another element) is read from a shared mirror of the fragment (`F_shared`,
//   the fragment's shape), which the owners fill just before the statement at the top
//   level or the parallel nest that reads it; insert-barriers orders the fill and the reads.
//   A nest must not write a fragment it reads that way.
// Errors name the kernel and the statement: tile operations (run lower-tile-ops first), a
// fragment without a usable layout, fragment writes of one run on different threads, a
// fragment read in a loop bound or condition inside a nest that touches fragments, a
// barrier in a run or a cyclic loop body (it would sit in a branch on the thread index),
// and a kernel already bound to threads that still has parallel loops or fragments.
// `remarks`, when given, receives a line for each fragment read through a shared mirror.
absl::StatusOr<Kernel> BindThreads(const Kernel& kernel, const TargetInfo& target,
                                   std::vector<std::string>* remarks = nullptr);
absl::StatusOr<bool> BindThreads(Module& module, const TargetInfo& target,
                                 std::vector<std::string>* remarks = nullptr);

// The pass: `thread-binding` (it lowers for the run's target).
PassInfo ThreadBindingPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_THREAD_BINDING_H_
