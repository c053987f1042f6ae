// The test-cpu and test-gpu targets.
#include "passes/testing/fake_targets.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "passes/pass/target_info.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes::testing {
namespace {

// test-gpu's matrix instructions and the arguments they read as matrix tiles (the tiles
// test-gpu aligns, as CUDA aligns wgmma's operands).
std::vector<int> MatrixOperandsOf(std::string_view intrinsic) {
  if (intrinsic == "test_gpu.mm" || intrinsic == "test_gpu.tile_mm") return {0, 1};
  return {};
}

// The buffers calls name at their intrinsic's matrix operand positions.
class CoreMatrixOperands : public IRVisitor {
 public:
  using IRVisitor::Visit;
  std::vector<const BufferNode*> buffers;

 protected:
  void VisitCall(const Call& node) override {
    IRVisitor::VisitCall(node);
    for (int arg : MatrixOperandsOf(node.name)) {
      if (arg < 0 || static_cast<size_t>(arg) >= node.args.size()) continue;
      const BufferLoad* load = As<BufferLoad>(node.args[arg]);
      if (load != nullptr &&
          std::find(buffers.begin(), buffers.end(), load->buffer.get()) == buffers.end()) {
        buffers.push_back(load->buffer.get());
      }
    }
  }
};

class FakeTarget : public TargetInfo {
 public:
  std::string arch() const override { return "test"; }
  int64_t max_shared_memory_bytes() const override { return 48 * 1024; }
  int max_vector_bytes() const override { return 16; }

 protected:
  absl::Status Refuse(TileOpKind op, DataType dtype, absl::string_view capability) const {
    return absl::UnimplementedError(
        absl::StrCat(name(), " target: ", std::string(TileOpKindName(op)), " on ", dtype.ToString(),
                     " needs ", capability, ", which this target does not have"));
  }
};

class TestCpuTarget : public FakeTarget {
 public:
  std::string name() const override { return "test-cpu"; }
  int warp_size() const override { return 1; }
  int64_t ThreadsExecutingBlock(const Launch&) const override { return 1; }
  bool has_async_copy() const override { return false; }
  absl::Status CheckTileOp(TileOpKind op, DataType dtype) const override {
    bool fp8 = dtype.scalar() == ScalarType::kF8E4M3 || dtype.scalar() == ScalarType::kF8E5M2;
    if (op == TileOpKind::kGemm && fp8) return Refuse(op, dtype, "fp8 arithmetic");
    return absl::OkStatus();
  }
};

class TestGpuTarget : public FakeTarget {
 public:
  std::string name() const override { return "test-gpu"; }
  int warp_size() const override { return 32; }
  int64_t ThreadsExecutingBlock(const Launch& launch) const override {
    int64_t threads = 1;
    for (int64_t extent : launch.threads) threads *= extent;
    return threads;
  }
  bool has_async_copy() const override { return true; }
  // CUDA's: thread-binding's local-memory remark.
  int64_t max_registers_per_thread() const override { return 255; }
  // Like CUDA's: every tile an intrinsic reads as core matrices starts on 1024 bytes.
  std::vector<std::pair<const BufferNode*, int64_t>> SharedBufferAlignments(
      const KernelNode& kernel) const override {
    CoreMatrixOperands operands;
    operands.Visit(kernel.body);
    std::vector<std::pair<const BufferNode*, int64_t>> alignments;
    for (const BufferNode* buffer : operands.buffers) alignments.emplace_back(buffer, 1024);
    return alignments;
  }
  // `eval test_gpu.async_copy(dst, src, bytes)`, an intrinsic registered as an async copy.
  // (registered by RegisterFakeIntrinsics).
  // A guarded copy is `eval test_gpu.async_copy_if(dst, src, bytes, copy_if)`.
  std::optional<Stmt> AsyncCopy(const Expr& dst, const Expr& src, int bytes,
                                const Expr& copy_if) const override {
    if (copy_if) {
      return Evaluate::Make(
          Call::Make(kVoid, "test_gpu.async_copy_if", {dst, src, Int(bytes), copy_if}));
    }
    return Evaluate::Make(Call::Make(kVoid, "test_gpu.async_copy", {dst, src, Int(bytes)}));
  }
  absl::Status CheckTileOp(TileOpKind op, DataType dtype) const override {
    if (op == TileOpKind::kAtomicAdd && dtype == kBF16) return Refuse(op, dtype, "bf16 atomics");
    return absl::OkStatus();
  }

  std::optional<Layout> FragmentLayoutForGemm(const Gemm& gemm,
                                              const KernelNode& kernel) const override {
    const int64_t threads = ThreadsExecutingBlock(kernel.launch);
    const std::vector<Range>& ranges = gemm.c.ranges;
    if (ranges.size() != 2) return std::nullopt;
    std::optional<int64_t> rows = AsConstInt(ranges[0].extent);
    std::optional<int64_t> cols = AsConstInt(ranges[1].extent);
    if (!rows || !cols || threads <= 0 || (*rows * *cols) % threads != 0) return std::nullopt;
    int64_t per_thread = *rows * *cols / threads;
    Layout layout;
    layout.inputs = {Var::Make("i"), Var::Make("j")};
    Expr linear =
        Binary::Make(BinaryOp::kAdd, Binary::Make(BinaryOp::kMul, layout.inputs[0], Int(*cols)),
                     layout.inputs[1]);
    layout.outputs = {Binary::Make(BinaryOp::kFloorDiv, linear, Int(per_thread)),
                      Binary::Make(BinaryOp::kFloorMod, linear, Int(per_thread))};
    return layout;
  }
};

}  // namespace

absl::StatusOr<std::shared_ptr<const TargetInfo>> FindFakeTarget(std::string_view name) {
  RegisterFakeIntrinsics();
  static const auto* cpu = new std::shared_ptr<const TargetInfo>(std::make_shared<TestCpuTarget>());
  static const auto* gpu = new std::shared_ptr<const TargetInfo>(std::make_shared<TestGpuTarget>());
  if (name == "test-cpu") return *cpu;
  if (name == "test-gpu") return *gpu;
  return absl::NotFoundError(absl::StrCat("unknown target '", std::string(name),
                                          "'; the test targets are test-cpu, test-gpu"));
}

void RegisterFakeIntrinsics() {
  // test-gpu's calls made for their effect; RegisterIntrinsic is false (and changes nothing)
  // when one is registered already.
  auto register_void = [](std::string name, int num_args, std::string description,
                          bool async_copy = false) {
    IntrinsicInfo info;
    info.name = std::move(name);
    info.num_args = num_args;
    info.result = IntrinsicInfo::ResultType::kVoid;
    info.pure = false;
    info.async_copy = async_copy;
    info.description = std::move(description);
    RegisterIntrinsic(std::move(info));
  };
  register_void("test_gpu.async_copy", 3, "test-gpu's asynchronous copy of `bytes` bytes",
                /*async_copy=*/true);
  register_void("test_gpu.async_copy_if", 4,
                "test-gpu's asynchronous copy of `bytes` bytes where the last argument holds, "
                "zeros where not",
                /*async_copy=*/true);
  register_void("test_gpu.mm", 3,
                "test-gpu's matrix instruction, reading its first two tiles as core matrices");
  register_void("test_gpu.fence", 0, "orders test_gpu.mm's operand stores before it");
  IntrinsicInfo role;
  role.name = "test_gpu.first_role";
  role.num_args = 0;
  role.result = IntrinsicInfo::ResultType::kFixed;
  role.fixed_result = kBool;
  role.pure = false;
  role.partitions_threads = true;
  role.description = "true in the first of two groups of threads that run a branch's arms";
  RegisterIntrinsic(std::move(role));
}

}  // namespace tile_ir::passes::testing
