// Every caller that compiles a suite operator for a call's shapes compiles the same kernel:
// tile-run's runs, suite checks and --explain (SpecializeAsRun), its autotuner and config
// explanations (BuildClassedConfig), tile-matrix's prober (ProbeModule), the suite's lowering tests
// (ops::SpecializeAtDefaultShapes), and the JIT's JitFunction, which libtile calls through (its
// cache key). All of them go through runtime/jit/specialization_plan.h; this pins that they agree.
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/op_suite.h"
#include "passes/analysis/int_eval.h"
#include "runtime/host_buffer.h"
#include "runtime/jit/jit_backend.h"
#include "runtime/jit/kernel_cache.h"
#include "runtime/jit/specialization_plan.h"
#include "runtime/jit/specializer.h"
#include "runtime/jit/testing/classing_target.h"
#include "tile_ir/printer.h"
#include "tools/tile_matrix/prober.h"
#include "tools/tile_run/autotune_op.h"

namespace tile_ir::tools {
namespace {

using runtime::jit::testing::ClassingTarget;

constexpr const char* kOps[] = {"add_f32", "gemm_f16", "rmsnorm_row_f16", "softmax_row_f16"};

std::string KernelText(const Kernel& kernel) { return Print(*kernel); }

std::string OnlyKernel(const absl::StatusOr<Module>& module) {
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok() || module->kernels.size() != 1) return "";
  return KernelText(module->kernels.front());
}

// Ragged shapes too: their classes differ from the default shapes'.
std::vector<ops::Shapes> ShapesOf(const ops::OpCase& op) {
  std::vector<ops::Shapes> all = {op.default_shapes};
  if (!op.ragged_shapes.empty()) all.push_back(op.ragged_shapes);
  return all;
}

TEST(SpecializationCallersTest, EveryToolCompilesTheKernelThePlanGives) {
  ClassingTarget classing;
  for (const passes::TargetInfo* target : {static_cast<const passes::TargetInfo*>(nullptr),
                                           static_cast<const passes::TargetInfo*>(&classing)}) {
    for (const char* name : kOps) {
      const ops::OpCase& op = *ops::FindOp(name);
      SCOPED_TRACE(absl::StrCat(name, target ? " on a classing target" : ""));
      absl::StatusOr<Kernel> kernel = op.build();
      ASSERT_TRUE(kernel.ok());
      for (const ops::Shapes& dims : ShapesOf(op)) {
        absl::StatusOr<runtime::jit::SpecializationPlan> plan =
            runtime::jit::PlanSpecialization(**kernel, target);
        ASSERT_TRUE(plan.ok());
        absl::StatusOr<runtime::jit::SpecializedKernel> planned =
            runtime::jit::ApplySpecialization(*plan, *kernel, dims);
        ASSERT_TRUE(planned.ok()) << planned.status();
        const std::string expected = KernelText(planned->kernel);

        // tile-run's run, CheckOperator (--all, tile-matrix's run step), --explain as written.
        absl::StatusOr<RunSpecialization> run = SpecializeAsRun(*kernel, dims, false, target);
        ASSERT_TRUE(run.ok()) << run.status();
        EXPECT_EQ(KernelText(run->kernel), expected);
        EXPECT_EQ(run->compiled_in, plan->CompiledInNames());
        EXPECT_EQ(run->requirements, planned->requirements);

        if (dims != op.default_shapes) continue;
        // tile-matrix's generate and compile steps, and the suite's lowering tests.
        EXPECT_EQ(OnlyKernel(matrix::ProbeModule(op, target)), expected);
        EXPECT_EQ(OnlyKernel(ops::SpecializeAtDefaultShapes(Module{kIrVersion, "t", "0", {*kernel}},
                                                            target)),
                  expected);
      }
    }
  }
}

// The autotuner compiles and --explain lowers each candidate config as a dynamic-shape run of it
// does; with --static-shapes, every dim compiled in.
TEST(SpecializationCallersTest, ConfigBuildsAreRunsOfTheConfigsKernel) {
  ClassingTarget classing;
  const ops::OpCase& op = *ops::FindOp("gemm_f16");
  ASSERT_FALSE(op.config_space.candidates.empty());
  for (const ops::OpConfig& candidate : op.config_space.candidates) {
    SCOPED_TRACE(candidate.name);
    const runtime::jit::Config config(candidate.values.begin(), candidate.values.end());
    absl::StatusOr<Kernel> kernel = op.config_space.build(candidate.values);
    ASSERT_TRUE(kernel.ok());
    for (const ops::Shapes& dims : ShapesOf(op)) {
      absl::StatusOr<RunSpecialization> dynamic = SpecializeAsRun(*kernel, dims, false, &classing);
      ASSERT_TRUE(dynamic.ok());
      EXPECT_EQ(OnlyKernel(BuildClassedConfig(op, config, dims, classing)),
                KernelText(dynamic->kernel));
      absl::StatusOr<RunSpecialization> fixed = SpecializeAsRun(*kernel, dims, true, &classing);
      ASSERT_TRUE(fixed.ok());
      EXPECT_EQ(OnlyKernel(BuildSpecializedConfig(op, config, dims)), KernelText(fixed->kernel));
    }
  }
}

// A call's tensors of `dims`' shapes (no data: only the key is asked for).
struct CallTensors {
  std::vector<std::vector<int64_t>> shapes;
  std::vector<DLTensor> tensors;
  std::vector<runtime::KernelArg> args;
};

void MakeCall(const KernelNode& kernel, const ops::Shapes& dims, CallTensors& call) {
  passes::IntEnv env;
  for (const VarRef& dim : kernel.dims) env[dim.get()] = dims.at(dim->name);
  call.shapes.resize(kernel.params.size());
  call.tensors.resize(kernel.params.size());
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const Param& param = kernel.params[i];
    if (!param.is_buffer()) {
      call.args.push_back(runtime::KernelArg::Scalar(1.0));
      continue;
    }
    for (const Expr& extent : param.buffer->shape) {
      call.shapes[i].push_back(passes::EvaluateInt(extent, env).value_or(1));
    }
    DLTensor& tensor = call.tensors[i];
    tensor.ndim = static_cast<int32_t>(call.shapes[i].size());
    tensor.shape = call.shapes[i].data();
    ASSERT_TRUE(runtime::ToDLDataType(param.buffer->dtype, &tensor.dtype));
    call.args.push_back(runtime::KernelArg::Tensor(&tensor));
  }
}

// The JIT (and libtile, which compiles through a JitFunction where the plan is per call, and
// through the cache's Get of the kernel as written where it is not) keys the kernel the plan
// gives.
TEST(SpecializationCallersTest, TheJitKeysTheKernelThePlanGives) {
  absl::StatusOr<std::unique_ptr<runtime::jit::JitBackend>> backend =
      runtime::jit::OpenJitBackend("cpu");
  ASSERT_TRUE(backend.ok()) << backend.status();
  runtime::jit::KernelCache cache(**backend, runtime::jit::KernelCacheOptions{});
  for (const char* name : kOps) {
    SCOPED_TRACE(name);
    const ops::OpCase& op = *ops::FindOp(name);
    absl::StatusOr<Kernel> kernel = op.build();
    ASSERT_TRUE(kernel.ok());
    const Module generic{kIrVersion, "t", "0", {*kernel}};
    runtime::jit::JitFunction jit(runtime::jit::KernelTemplate::FromModule(generic, name), {},
                                  cache);
    for (const ops::Shapes& dims : ShapesOf(op)) {
      absl::StatusOr<RunSpecialization> run =
          SpecializeAsRun(*kernel, dims, false, (*backend)->target().info().get());
      ASSERT_TRUE(run.ok());
      CallTensors call;
      MakeCall(**kernel, dims, call);
      absl::StatusOr<std::string> key = jit.KeyFor(call.args);
      ASSERT_TRUE(key.ok()) << key.status();
      const Module specialized{kIrVersion, "t", "0", {run->kernel}};
      EXPECT_EQ(*key, runtime::jit::KernelContext(**backend, specialized, name).Key());
    }
  }
}

}  // namespace
}  // namespace tile_ir::tools
