// The suite is the concatenation of the operator families, built once.
#include "ops/op_suite.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "frontends/cpp/builder.h"
#include "ops/families.h"
#include "runtime/jit/specialization_plan.h"
#include "tile_ir/printer.h"

namespace tile_ir::ops {

const std::vector<OpCase>& OperatorSuite() {
  static const std::vector<OpCase>* suite = [] {
    auto* all = new std::vector<OpCase>;
    for (auto family :
         {GemmOps, QuantGemmOps, ConvOps, ElementwiseOps, ReductionOps, SoftmaxOps, NormOps, RowOps,
          ScanOps, AttentionOps, GemvOps, AttentionBackwardOps, DecodeOps, VarlenOps}) {
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

absl::StatusOr<std::vector<Kernel>> OpKernels(const OpCase& op) {
  if (op.build_stages) return op.build_stages();
  absl::StatusOr<Kernel> kernel = op.build();
  if (!kernel.ok()) return kernel.status();
  return std::vector<Kernel>{*kernel};
}

absl::StatusOr<std::vector<Param>> StageParams(const std::vector<const KernelNode*>& kernels) {
  std::vector<Param> params;
  // Shapes compare as printed: each kernel has its own dim variables, bound by name.
  auto shape_text = [](const Param& param) {
    std::string text = param.buffer->dtype.ToString();
    for (const Expr& extent : param.buffer->shape) absl::StrAppend(&text, ",", Print(extent));
    return text;
  };
  for (const KernelNode* kernel : kernels) {
    for (const Param& param : kernel->params) {
      auto seen = std::find_if(params.begin(), params.end(),
                               [&](const Param& p) { return p.name() == param.name(); });
      if (seen == params.end()) {
        params.push_back(param);
        continue;
      }
      const bool same = seen->is_buffer() == param.is_buffer() &&
                        (param.is_buffer() ? shape_text(*seen) == shape_text(param)
                                           : seen->scalar->dtype() == param.scalar->dtype());
      if (!same) {
        return absl::InvalidArgumentError(
            absl::StrCat("kernel '", kernel->name, "': parameter '", param.name(),
                         "' differs from the earlier stage's parameter of that name"));
      }
    }
  }
  return params;
}

bool IsWrittenByOp(const OpCase& op, const std::string& name) {
  auto in = [&name](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  return in(op.outputs) || in(op.scratch);
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
