// The suite is the concatenation of the operator families, built once.
#include "ops/op_suite.h"

#include "frontends/cpp/builder.h"
#include "ops/families.h"
#include "runtime/jit/specialization_plan.h"
#include "tile_ir/printer.h"

namespace tile_ir::ops {

const std::vector<OpCase>& OperatorSuite() {
  static const std::vector<OpCase>* suite = [] {
    auto* all = new std::vector<OpCase>;
    for (auto family : {GemmOps, QuantGemmOps, ConvOps, ElementwiseOps, ReductionOps, SoftmaxOps,
                        NormOps, RowOps, ScanOps, AttentionOps, GemvOps}) {
      for (OpCase& op : family()) all->push_back(std::move(op));
    }
    return all;
  }();
  return *suite;
}

const OpCase* FindOp(std::string_view name) {
  for (const OpCase& op : OperatorSuite()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

absl::StatusOr<std::string> OpText(const OpCase& op) {
  absl::StatusOr<Kernel> kernel = op.build();
  if (!kernel.ok()) return kernel.status();
  return Print(dsl::MakeModule({*kernel}));
}

absl::StatusOr<Module> SpecializeAtDefaultShapes(Module module, const passes::TargetInfo* target) {
  for (Kernel& kernel : module.kernels) {
    const OpCase* op = FindOp(kernel->name);
    if (op == nullptr) continue;
    absl::StatusOr<runtime::jit::SpecializationPlan> plan =
        runtime::jit::PlanSpecialization(*kernel, target);
    if (!plan.ok()) return plan.status();
    absl::StatusOr<runtime::jit::SpecializedKernel> specialized =
        runtime::jit::ApplySpecialization(*plan, kernel, op->default_shapes);
    if (!specialized.ok()) return specialized.status();
    kernel = std::move(specialized->kernel);
  }
  return module;
}

}  // namespace tile_ir::ops
