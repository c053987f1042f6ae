// The operator suite is well formed: every kernel builds and verifies, its
// exported .tile file is current and canonical, and every OpCase carries what
// a harness needs (shapes for every dim, ragged shapes that leave partial
// tiles, outputs, inits and scalars that name real parameters, a reference,
// tolerances and throughput figures).
#include "ops/op_suite.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "frontends/cpp/builder.h"
#include "frontends/text/parser.h"
#include "passes/transforms/specialize_dims.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"
#include "tile_ir/visitor.h"

namespace tile_ir::ops {
namespace {

constexpr char kDir[] = "ops";
constexpr char kRegenerate[] = "regenerate with `bazel run //ops:export_ops`";

// The operators the suite promises (tile-matrix rows, tile-run names).
constexpr const char* kRequiredOps[] = {"gemm_f32",
                                        "gemm_f16",
                                        "gemm_bf16",
                                        "gemm_f16_tn",
                                        "gemm_f16_nt",
                                        "batched_gemm_f16",
                                        "gemm_w4a16",
                                        "conv2d_nhwc_f16",
                                        "add_f32",
                                        "bias_gelu_f16",
                                        "row_sum_f32",
                                        "row_max_f32",
                                        "softmax_f32",
                                        "softmax_f16",
                                        "layernorm_f32",
                                        "layernorm_bf16",
                                        "rmsnorm_f16",
                                        "flash_attn_d64",
                                        "flash_attn_d64_causal",
                                        "flash_attn_d128",
                                        "flash_attn_d128_causal"};

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

std::string TilePath(const OpCase& op) { return std::string(kDir) + "/" + op.name + ".tile"; }

// Every ceildiv(DIM, TILE) in a kernel: where a tile size meets a dimension.
class TiledDims : public IRVisitor {
 public:
  std::vector<std::pair<std::string, int64_t>> found;

 protected:
  void VisitBinary(const Binary& node) override {
    if (node.op == BinaryOp::kCeilDiv) {
      const auto* dim = As<Var>(node.a);
      std::optional<int64_t> tile = AsConstInt(node.b);
      if (dim && tile) found.emplace_back(dim->name, *tile);
    }
    IRVisitor::VisitBinary(node);
  }
};

TEST(OpSuiteTest, NamesAreUniqueAndFindable) {
  std::set<std::string> names;
  for (const OpCase& op : OperatorSuite()) {
    EXPECT_TRUE(names.insert(op.name).second) << "duplicate operator " << op.name;
    EXPECT_EQ(FindOp(op.name), &op);
  }
  EXPECT_EQ(FindOp("no_such_op"), nullptr);
  for (const char* expected : kRequiredOps) {
    EXPECT_NE(FindOp(expected), nullptr) << expected;
  }
}

TEST(OpSuiteTest, EveryKernelBuildsAndVerifies) {
  for (const OpCase& op : OperatorSuite()) {
    SCOPED_TRACE(op.name);
    absl::StatusOr<Kernel> kernel = op.build();
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_EQ((*kernel)->name, op.name);
    absl::Status verified = Verify(dsl::MakeModule({*kernel}));
    EXPECT_TRUE(verified.ok()) << verified;
  }
}

TEST(OpSuiteTest, TileFilesMatchTheKernels) {
  for (const OpCase& op : OperatorSuite()) {
    SCOPED_TRACE(op.name);
    absl::StatusOr<std::string> text = OpText(op);
    ASSERT_TRUE(text.ok()) << text.status();
    ASSERT_TRUE(std::filesystem::exists(TilePath(op)))
        << TilePath(op) << " is missing; " << kRegenerate;
    EXPECT_EQ(ReadFile(TilePath(op)), *text) << TilePath(op) << " is stale; " << kRegenerate;
  }
}

TEST(OpSuiteTest, NoTileFileWithoutAnOperator) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() != ".tile") continue;
    ++files;
    EXPECT_NE(FindOp(entry.path().stem().string()), nullptr)
        << entry.path() << " belongs to no operator; delete it";
  }
  EXPECT_EQ(files, static_cast<int>(OperatorSuite().size()));
}

TEST(OpSuiteTest, TileFilesParseVerifyAndPrintBack) {
  for (const OpCase& op : OperatorSuite()) {
    SCOPED_TRACE(op.name);
    std::string text = ReadFile(TilePath(op));
    absl::StatusOr<Module> module = text::ParseModule(text, TilePath(op));
    ASSERT_TRUE(module.ok()) << module.status();
    absl::Status verified = Verify(*module);
    EXPECT_TRUE(verified.ok()) << verified;
    EXPECT_EQ(Print(*module), text);
  }
}

// The parameters of every kernel the op launches, each name once.
std::vector<Param> OpParams(const std::vector<Kernel>& kernels) {
  std::vector<const KernelNode*> stages;
  for (const Kernel& kernel : kernels) stages.push_back(kernel.get());
  absl::StatusOr<std::vector<Param>> params = StageParams(stages);
  EXPECT_TRUE(params.ok()) << params.status();
  return params.ok() ? *params : std::vector<Param>{};
}

const Param* FindParam(const std::vector<Param>& params, const std::string& name) {
  for (const Param& param : params) {
    if (param.name() == name) return &param;
  }
  return nullptr;
}

TEST(OpSuiteTest, EveryOpCaseIsComplete) {
  for (const OpCase& op : OperatorSuite()) {
    SCOPED_TRACE(op.name);
    absl::StatusOr<std::vector<Kernel>> kernels = OpKernels(op);
    ASSERT_TRUE(kernels.ok()) << kernels.status();
    const std::vector<Param> params = OpParams(*kernels);
    EXPECT_FALSE(op.description.empty());
    std::set<std::string> dims;
    for (const Kernel& kernel : *kernels) {
      for (const VarRef& dim : kernel->dims) dims.insert(dim->name);
    }
    for (const Shapes* shapes : {&op.default_shapes, &op.ragged_shapes}) {
      std::set<std::string> bound;
      for (const auto& [name, value] : *shapes) {
        bound.insert(name);
        EXPECT_GT(value, 0) << name;
      }
      EXPECT_EQ(bound, dims) << "shapes must bind exactly the kernels' dims";
    }
    EXPECT_NE(op.default_shapes, op.ragged_shapes);
    ASSERT_FALSE(op.outputs.empty());
    for (const std::string& output : op.outputs) {
      const Param* param = FindParam(params, output);
      ASSERT_NE(param, nullptr) << "output '" << output << "' is no parameter";
      EXPECT_TRUE(param->is_buffer()) << output;
    }
    for (const std::string& scratch : op.scratch) {
      const Param* param = FindParam(params, scratch);
      ASSERT_NE(param, nullptr) << "scratch '" << scratch << "' is no parameter";
      EXPECT_TRUE(param->is_buffer()) << scratch;
      EXPECT_EQ(std::count(op.outputs.begin(), op.outputs.end(), scratch), 0)
          << "'" << scratch << "' is both an output and scratch";
    }
    EXPECT_TRUE(op.scratch.empty() || op.build_stages) << "scratch passes between stages";
    for (const auto& [name, init] : op.inits) {
      const Param* param = FindParam(params, name);
      ASSERT_NE(param, nullptr) << "init for '" << name << "', which is no parameter";
      EXPECT_TRUE(param->is_buffer()) << name;
      EXPECT_FALSE(IsWrittenByOp(op, name))
          << "'" << name << "' is an output or scratch; those are not initialized";
      EXPECT_LT(init.lo, init.hi) << name;
      EXPECT_EQ(init.kind == InputInit::Kind::kGenerated, init.generate != nullptr) << name;
    }
    std::set<std::string> scalar_params, scalar_values;
    for (const Param& param : params) {
      if (!param.is_buffer()) scalar_params.insert(param.name());
    }
    for (const auto& [name, value] : op.scalars) scalar_values.insert(name);
    EXPECT_EQ(scalar_values, scalar_params) << "scalars must give every scalar parameter";
    EXPECT_TRUE(op.reference != nullptr);
    ASSERT_TRUE(op.flops != nullptr);
    ASSERT_TRUE(op.bytes != nullptr);
    EXPECT_GT(op.flops(op.default_shapes), 0);
    EXPECT_GT(op.bytes(op.default_shapes), 0);
    EXPECT_TRUE(std::isfinite(op.atol) && op.atol >= 0);
    if (op.atol_at) {
      // A shape-dependent atol only ever loosens the base one, and stays finite.
      for (const Shapes* shapes : {&op.default_shapes, &op.ragged_shapes}) {
        const double atol = op.AtolAt(*shapes);
        EXPECT_TRUE(std::isfinite(atol) && atol >= op.atol) << atol;
      }
    }
    EXPECT_TRUE(std::isfinite(op.rtol) && op.rtol >= 0 && op.rtol < 0.01)
        << "a tolerance this loose would hide real errors";
    for (const std::string& output : op.outputs) {
      // A narrow float output is rounded, so an exact comparison cannot pass.
      DataType dtype = FindParam(params, output)->buffer->dtype;
      if (dtype == kF16 || dtype == kBF16) {
        EXPECT_GT(op.rtol, 0) << output;
      }
    }
  }
}

TEST(OpSuiteTest, EveryStageIsAnOperatorsKernel) {
  // By canonical text: each stage then has its own .tile file, reference and matrix row.
  std::map<std::string, std::string> own_text;
  for (const OpCase& op : OperatorSuite()) {
    absl::StatusOr<Kernel> kernel = op.build();
    ASSERT_TRUE(kernel.ok()) << op.name << ": " << kernel.status();
    own_text[op.name] = Print(**kernel);
  }
  for (const OpCase& op : OperatorSuite()) {
    if (!op.build_stages) continue;
    SCOPED_TRACE(op.name);
    absl::StatusOr<std::vector<Kernel>> stages = op.build_stages();
    ASSERT_TRUE(stages.ok()) << stages.status();
    EXPECT_GE(stages->size(), 2u) << "one kernel needs no stages";
    int own = 0;
    for (const Kernel& stage : *stages) {
      if (stage->name == op.name) ++own;
      auto found = own_text.find(stage->name);
      ASSERT_NE(found, own_text.end()) << "stage '" << stage->name << "' is no operator";
      EXPECT_EQ(found->second, Print(*stage))
          << "stage '" << stage->name << "' differs from that operator's kernel";
    }
    EXPECT_EQ(own, 1) << "the operator's own kernel is one of its stages";
  }
}

TEST(OpSuiteTest, DefaultShapesFillTilesAndRaggedShapesDoNot) {
  for (const OpCase& op : OperatorSuite()) {
    SCOPED_TRACE(op.name);
    absl::StatusOr<std::vector<Kernel>> kernels = OpKernels(op);
    ASSERT_TRUE(kernels.ok()) << kernels.status();
    for (const Kernel& kernel : *kernels) {
      SCOPED_TRACE(kernel->name);
      TiledDims tiled;
      tiled.VisitKernel(*kernel);
      // A whole-row kernel's tile is the row, sized by a dim: its default extent splits into
      // 16-byte runs over the lanes, its ragged one does not split at all (odd).
      std::vector<std::string> whole = passes::DimsSizingRegisters(*kernel);
      for (const std::string& dim : whole) {
        EXPECT_EQ(op.default_shapes.at(dim) % 1024, 0) << dim;
        EXPECT_EQ(op.ragged_shapes.at(dim) % 2, 1) << dim;
      }
      ASSERT_FALSE(tiled.found.empty() && whole.empty())
          << "no ceildiv(dim, tile) in the kernel and no dim sizing a fragment";
      for (const auto& [dim, tile] : tiled.found) {
        EXPECT_EQ(op.default_shapes.at(dim) % tile, 0) << dim << " vs tile " << tile;
        EXPECT_NE(op.ragged_shapes.at(dim) % tile, 0) << dim << " vs tile " << tile;
      }
    }
  }
}

}  // namespace
}  // namespace tile_ir::ops
