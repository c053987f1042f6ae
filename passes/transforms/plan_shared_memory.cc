// Shared-memory planning: live ranges over statement numbers, then first-fit placement by
// decreasing size in one pool.
#include "passes/transforms/plan_shared_memory.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "passes/analysis/shared_buffer_bytes.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/mutator.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

constexpr int64_t kAlignment = 16;

int64_t AlignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

int64_t CountStmts(const Stmt& s) {
  class Counter : public IRVisitor {
   public:
    using IRVisitor::Visit;
    void Visit(const Stmt& s) override {
      if (s) ++count;
      IRVisitor::Visit(s);
    }
    int64_t count = 0;
  };
  Counter counter;
  counter.Visit(s);
  return counter.count;
}

struct SharedBuffer {
  const BufferNode* buffer;
  int64_t declared;  // statement number of its Allocate
  int64_t first = -1;
  int64_t last = -1;
  int64_t bytes = 0;
  int64_t offset = 0;
  int64_t alignment = kAlignment;
  // The arms of thread-partitioning branches that use it, as (branch number, arm).
  std::vector<std::pair<int64_t, int>> arms;

  bool LiveWith(const SharedBuffer& other) const {
    if (first <= other.last && other.first <= last) return true;
    // Different arms of one partitioning branch run at the same time, whatever their order
    // in the text.
    for (const auto& [branch, arm] : arms) {
      for (const auto& [other_branch, other_arm] : other.arms) {
        if (branch == other_branch && arm != other_arm) return true;
      }
    }
    return false;
  }
};

// Numbers statements in order and records each shared buffer's declaration and live range.
class Liveness : public IRVisitor {
 public:
  using IRVisitor::Visit;
  std::vector<SharedBuffer> buffers;  // in declaration order

  void Visit(const Stmt& s) override {
    if (!s) return;
    position_ = next_++;
    IRVisitor::Visit(s);
  }

 protected:
  void VisitFor(const For& node) override {
    int64_t start = position_;
    loops_.push_back({start, start + CountStmts(node.body)});
    IRVisitor::VisitFor(node);
    loops_.pop_back();
  }
  // The arms of a branch that partitions the threads run concurrently: a buffer that one arm
  // uses lives with every buffer that the other arm uses (SharedBuffer::arms). Within an
  // arm, statements run in order on that arm's threads (insert-barriers orders each arm as a
  // block of its own), so two buffers of one arm whose uses do not overlap share bytes: the
  // consumers' epilogue tile takes the bytes of a tile they are done with.
  void VisitIf(const If& node) override {
    const Call* call = As<Call>(node.cond);
    const IntrinsicInfo* info = call != nullptr ? FindIntrinsic(call->name) : nullptr;
    if (info == nullptr || !info->partitions_threads) return IRVisitor::VisitIf(node);
    const int64_t branch = branches_++;
    Visit(node.cond);
    arms_.push_back({branch, 0});
    Visit(node.then_body);
    arms_.back().second = 1;
    Visit(node.else_body);
    arms_.pop_back();
  }
  void VisitAllocate(const Allocate& node) override {
    if (node.buffer->scope != MemoryScope::kShared) return;
    index_[node.buffer.get()] = buffers.size();
    buffers.push_back({node.buffer.get(), position_});
  }
  void VisitBufferUse(const Buffer& buffer) override {
    auto it = index_.find(buffer.get());
    if (it == index_.end()) return;
    SharedBuffer& shared = buffers[it->second];
    int64_t from = position_;
    int64_t to = position_;
    // The outermost enclosing loop that started after the declaration repeats this use.
    for (const auto& [start, end] : loops_) {
      if (start > shared.declared) {
        from = start;
        to = end;
        break;
      }
    }
    shared.first = shared.first < 0 ? from : std::min(shared.first, from);
    shared.last = std::max(shared.last, to);
    for (const std::pair<int64_t, int>& arm : arms_) {
      if (std::find(shared.arms.begin(), shared.arms.end(), arm) == shared.arms.end()) {
        shared.arms.push_back(arm);
      }
    }
  }

 private:
  int64_t next_ = 0;
  int64_t position_ = 0;
  std::vector<std::pair<int64_t, int64_t>> loops_;  // [start, end] of enclosing loops
  std::vector<std::pair<int64_t, int>> arms_;       // enclosing partitioning arms
  int64_t branches_ = 0;
  absl::flat_hash_map<const BufferNode*, size_t> index_;
};

// The lowest aligned offset where `buffer` overlaps none of the placed buffers it lives with.
int64_t FirstFit(const SharedBuffer& buffer, const std::vector<const SharedBuffer*>& placed) {
  std::vector<int64_t> candidates = {0};
  for (const SharedBuffer* other : placed) {
    if (other->LiveWith(buffer)) {
      candidates.push_back(AlignUp(other->offset + other->bytes, buffer.alignment));
    }
  }
  std::sort(candidates.begin(), candidates.end());
  for (int64_t offset : candidates) {
    bool fits = std::none_of(placed.begin(), placed.end(), [&](const SharedBuffer* other) {
      return other->LiveWith(buffer) && offset < other->offset + other->bytes &&
             other->offset < offset + buffer.bytes;
    });
    if (fits) return offset;
  }
  return candidates.back();
}

class OffsetWriter : public IRMutator {
 public:
  explicit OffsetWriter(absl::flat_hash_map<const BufferNode*, int64_t> offsets)
      : offsets_(std::move(offsets)) {}

 protected:
  Stmt MutateAllocate(const Allocate& node, const Stmt& self) override {
    auto it = offsets_.find(node.buffer.get());
    if (it == offsets_.end() || node.shared_offset == it->second) return self;
    return Allocate::Make(node.buffer, node.loc(), it->second);
  }

 private:
  absl::flat_hash_map<const BufferNode*, int64_t> offsets_;
};

}  // namespace

absl::StatusOr<SharedMemoryPlan> PlanSharedMemory(const Kernel& kernel, const TargetInfo* target) {
  Liveness liveness;
  liveness.Visit(kernel->body);
  std::vector<SharedBuffer>& buffers = liveness.buffers;
  // What the target's instructions need of some buffers' addresses (wgmma reads its operand
  // tiles by address bits: they start on 1024 bytes).
  std::vector<std::pair<const BufferNode*, int64_t>> alignments;
  if (target != nullptr) alignments = target->SharedBufferAlignments(*kernel);
  for (SharedBuffer& buffer : buffers) {
    for (const auto& [node, alignment] : alignments) {
      if (node == buffer.buffer) buffer.alignment = std::max(buffer.alignment, alignment);
    }
    std::optional<int64_t> bytes = SharedBufferBytes(*buffer.buffer);
    if (!bytes) {
      return absl::FailedPreconditionError(
          absl::StrCat("in kernel '", kernel->name, "': plan-shared-memory: shared buffer '",
                       buffer.buffer->name, "' needs a constant shape and strides"));
    }
    buffer.bytes = *bytes;
    // An unused buffer still gets a place, live only where it is declared.
    if (buffer.first < 0) buffer.first = buffer.last = buffer.declared;
  }
  std::vector<SharedBuffer*> order;
  for (SharedBuffer& buffer : buffers) order.push_back(&buffer);
  std::stable_sort(order.begin(), order.end(), [](const SharedBuffer* a, const SharedBuffer* b) {
    if (a->bytes != b->bytes) return a->bytes > b->bytes;
    return a->first < b->first;
  });
  std::vector<const SharedBuffer*> placed;
  SharedMemoryPlan plan;
  absl::flat_hash_map<const BufferNode*, int64_t> offsets;
  for (SharedBuffer* buffer : order) {
    buffer->offset = FirstFit(*buffer, placed);
    placed.push_back(buffer);
    offsets[buffer->buffer] = buffer->offset;
    plan.total_bytes = std::max(plan.total_bytes, buffer->offset + buffer->bytes);
  }
  if (target != nullptr && plan.total_bytes > target->max_shared_memory_bytes()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "in kernel '", kernel->name, "': plan-shared-memory: the kernel needs ", plan.total_bytes,
        " bytes of shared memory, more than the ", target->max_shared_memory_bytes(),
        " bytes target '", target->name(), "' allows"));
  }
  plan.kernel = OffsetWriter(std::move(offsets)).MutateKernel(kernel);
  return plan;
}

PassInfo PlanSharedMemoryPass() {
  PassInfo info;
  info.name = "plan-shared-memory";
  info.description =
      "places shared allocations at offsets of one pool, reusing the bytes of dead buffers";
  // Without a target the pass lays the pool out and checks no limit.
  info.run_kernel =
      EachKernel([](const Kernel& kernel, const PassOptions& options) -> absl::StatusOr<Kernel> {
        absl::StatusOr<SharedMemoryPlan> plan = PlanSharedMemory(kernel, options.target_or_null());
        if (!plan.ok()) return plan.status();
        return plan->kernel;
      });
  return info;
}

}  // namespace tile_ir::passes
