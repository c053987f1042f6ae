// The registry of intrinsic functions that Call nodes may name. The generic
// math intrinsics are built in; targets register their own (e.g. a warp
// shuffle) under a target prefix when their lowering introduces them.
//
// Three built-ins take an address: `atomic_add_at(dst[idx], value)` (void,
// impure) adds value to the element dst[idx] atomically; lower-tile-ops
// lowers the atomic_add tile operation to it (the tile operation's keyword
// cannot name a call in the text form). `atomic_max_at` and `atomic_min_at`
// (ir_version 5) replace the element by the larger (smaller) of it and value,
// atomically; on floats they order as max/min do. Their first argument must be a
// BufferLoad of value's type (the verifier checks it) that is never evaluated
// as a load: code generators take the element's address from it.
//
// `reinterpret<dtype>(value)` (ir_version 5) is a bit-cast: value's bits read as
// dtype, which must have value's width and lanes. Its result type is the one the
// call declares, written in angle brackets in the text form (ResultType::kDeclared).
#ifndef TILE_IR_INTRINSICS_H_
#define TILE_IR_INTRINSICS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tile_ir/dtype.h"
#include "tile_ir/expr.h"

namespace tile_ir {

inline constexpr char kAtomicAddAt[] = "atomic_add_at";
inline constexpr char kAtomicMaxAt[] = "atomic_max_at";
inline constexpr char kAtomicMinAt[] = "atomic_min_at";
inline constexpr char kReinterpret[] = "reinterpret";

// atomic_add_at, atomic_max_at or atomic_min_at.
bool IsAtomicUpdate(std::string_view name);

// lane_shuffle_xor(value, mask): the value of `value` in the lane (this lane ^ mask) of the
// same warp (wavefront, simdgroup); `mask` an integer literal below the warp size. Every lane
// of the warp must evaluate it together (thread-binding emits it only in code that every
// thread runs), so it is not pure: no pass may move it under a condition or drop a lane.
inline constexpr char kLaneShuffleXor[] = "lane_shuffle_xor";

struct IntrinsicInfo {
  enum class ResultType {
    kSameAsFirstArg,  // element-wise math
    kFixed,           // fixed_result
    kVoid,            // evaluated for its effect
    kDeclared,        // the call's own dtype, written `name<dtype>(...)` in text
  };
  std::string name;
  int num_args = 1;
  ResultType result = ResultType::kSameAsFirstArg;
  DataType fixed_result = kVoid;
  bool pure = true;    // no side effects: a pure call whose value is unused can be removed
  bool float_only = false;  // arguments must be floating point
  // A read-modify-write of one element: the first argument (a BufferLoad, never evaluated as a
  // load) names the element the call reads and writes atomically. Analyses count it as both a
  // read and a write of that buffer, so barriers order it against every other access.
  bool updates_first_arg = false;
  // An asynchronous copy into shared memory: the first argument (a BufferLoad naming the
  // destination's first element, never evaluated) is written when a later async_wait
  // returns; the other loads are read when the call issues. Barrier insertion orders the
  // issue after earlier accesses and the landing at the async_wait.
  bool async_copy = false;
  // A bool condition that splits the block's threads into two groups that each run one arm
  // of the branch it guards, concurrently, for the rest of the kernel (a warp-specialized
  // kernel's roles). Each arm is ordered as a block of its own: barrier insertion orders the
  // shared-memory accesses inside an arm with barriers of that arm's threads (the target
  // lowers a block barrier there to a barrier of the group), and leaves the ordering between
  // the arms to the synchronization the arms do themselves (mbarriers); buffers either arm
  // uses are live for the whole branch.
  bool partitions_threads = false;
  std::string description;
};

// nullptr when no intrinsic has that name.
const IntrinsicInfo* FindIntrinsic(std::string_view name);
// Adds an intrinsic; returns false (and changes nothing) when the name is taken.
bool RegisterIntrinsic(IntrinsicInfo info);
// Every registered name, sorted (for "did you mean" suggestions).
std::vector<std::string> IntrinsicNames();
// The type a call of `info` with these arguments yields (void for kDeclared, which the
// arguments do not determine).
DataType IntrinsicResultType(const IntrinsicInfo& info, const std::vector<Expr>& args);

}  // namespace tile_ir

#endif  // TILE_IR_INTRINSICS_H_
