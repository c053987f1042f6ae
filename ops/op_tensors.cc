#include "ops/op_tensors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tile_ir/dtype_rounding.h"

namespace tile_ir::ops {
namespace {

absl::StatusOr<int64_t> EvalBinary(BinaryOp op, int64_t a, int64_t b) {
  bool divides = op == BinaryOp::kDiv || op == BinaryOp::kMod || op == BinaryOp::kFloorDiv ||
                 op == BinaryOp::kFloorMod || op == BinaryOp::kCeilDiv;
  if (divides && b == 0) return absl::InvalidArgumentError("division by zero in a shape");
  switch (op) {
    case BinaryOp::kAdd: return a + b;
    case BinaryOp::kSub: return a - b;
    case BinaryOp::kMul: return a * b;
    case BinaryOp::kDiv: return a / b;
    case BinaryOp::kMod: return a % b;
    case BinaryOp::kFloorDiv: return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
    case BinaryOp::kFloorMod: return a - b * (a / b - ((a % b != 0) && ((a < 0) != (b < 0))));
    case BinaryOp::kCeilDiv: return a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
    case BinaryOp::kMin: return std::min(a, b);
    case BinaryOp::kMax: return std::max(a, b);
    case BinaryOp::kXor: return a ^ b;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("'", std::string(BinaryOpName(op)), "' does not belong in a shape"));
  }
}

// A double in [0, 1) from the top 53 bits: unlike std::uniform_real_distribution,
// the same on every standard library, so a printed seed reproduces a run anywhere.
double Unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-53; }

// Standard normal by Box-Muller over Unit, for the same reason: the standard
// library's normal_distribution differs between implementations. One draw per
// value (the pair's second half is dropped) keeps the stream simple to replay.
double StandardNormal(std::mt19937_64& rng) {
  double u1 = 1.0 - Unit(rng);  // in (0, 1]: log stays finite
  double u2 = Unit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// How `input_case` fills the input `name`.
InputInit InitOf(const OpCase& op, const std::string& name, InputCase input_case) {
  auto it = op.inits.find(name);
  InputInit init = it == op.inits.end() ? InputInit{} : it->second;
  // Integer inits are codes (packed int4 weights), which stay in their range; generated inputs
  // keep their structure.
  if (input_case == InputCase::kNormal && init.kind != InputInit::Kind::kIntegers &&
      init.kind != InputInit::Kind::kGenerated) {
    init = {InputInit::Kind::kNormal, 0, 0};
  }
  return init;
}

std::string DescribeInit(const InputInit& init) {
  switch (init.kind) {
    case InputInit::Kind::kNormal: return "N(0, 1)";
    case InputInit::Kind::kIntegers:
      return absl::StrCat("integers in [", init.lo, ", ", init.hi, "]");
    case InputInit::Kind::kGenerated: return init.about;
    case InputInit::Kind::kUniform: break;
  }
  return absl::StrCat("uniform [", init.lo, ", ", init.hi, ")");
}

double Draw(const InputInit& init, DataType dtype, std::mt19937_64& rng) {
  if (init.kind == InputInit::Kind::kNormal) return RoundToDtype(StandardNormal(rng), dtype);
  if (init.kind == InputInit::Kind::kIntegers) {
    auto lo = static_cast<int64_t>(std::ceil(init.lo));
    auto hi = static_cast<int64_t>(std::floor(init.hi));
    uint64_t count = static_cast<uint64_t>(hi - lo) + 1;
    return RoundToDtype(static_cast<double>(lo + static_cast<int64_t>(rng() % count)), dtype);
  }
  return RoundToDtype(init.lo + (init.hi - init.lo) * Unit(rng), dtype);
}

std::string FormatIndex(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return absl::StrCat("[", absl::StrJoin(index, ", "), "]");
}

}  // namespace

absl::StatusOr<int64_t> EvalShapeExpr(const Expr& expr, const Shapes& dims) {
  if (const auto* imm = As<IntImm>(expr)) return imm->value;
  if (const auto* var = As<Var>(expr)) {
    auto it = dims.find(var->name);
    if (it == dims.end()) {
      return absl::InvalidArgumentError(absl::StrCat("dimension '", var->name, "' has no value"));
    }
    return it->second;
  }
  if (const auto* cast = As<Cast>(expr)) {
    if (cast->dtype().is_int()) return EvalShapeExpr(cast->value, dims);
  }
  if (const auto* binary = As<Binary>(expr)) {
    absl::StatusOr<int64_t> a = EvalShapeExpr(binary->a, dims);
    if (!a.ok()) return a.status();
    absl::StatusOr<int64_t> b = EvalShapeExpr(binary->b, dims);
    if (!b.ok()) return b.status();
    return EvalBinary(binary->op, *a, *b);
  }
  return absl::InvalidArgumentError("a shape may only use dims, integers and integer arithmetic");
}

absl::StatusOr<std::vector<int64_t>> ParamShape(const Param& param, const Shapes& dims) {
  if (!param.is_buffer()) {
    return absl::InvalidArgumentError(absl::StrCat("'", param.name(), "' is a scalar"));
  }
  std::vector<int64_t> shape;
  for (const Expr& extent : param.buffer->shape) {
    absl::StatusOr<int64_t> value = EvalShapeExpr(extent, dims);
    if (!value.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape of '", param.name(), "': ", value.status().message()));
    }
    if (*value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape of '", param.name(), "' has the negative extent ", *value));
    }
    shape.push_back(*value);
  }
  return shape;
}

std::string InputCaseName(InputCase input_case) {
  return input_case == InputCase::kNormal ? "normal" : "op ranges";
}

std::string DescribeInputs(const OpCase& op, const KernelNode& kernel, InputCase input_case) {
  // Inputs drawn alike share one phrase: "A, B N(0, 1)".
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const Param& param : kernel.params) {
    if (!param.is_buffer() || IsWrittenByOp(op, param.name())) continue;
    std::string how = DescribeInit(InitOf(op, param.name(), input_case));
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&how](const auto& each) { return each.first == how; });
    if (group == groups.end()) group = groups.insert(groups.end(), {how, {}});
    group->second.push_back(param.name());
  }
  std::vector<std::string> parts;
  for (const auto& [how, names] : groups) {
    parts.push_back(absl::StrCat(absl::StrJoin(names, ", "), " ", how));
  }
  return parts.empty() ? "no inputs" : absl::StrJoin(parts, "; ");
}

absl::StatusOr<RefTensors> MakeRefTensors(const OpCase& op, const KernelNode& kernel,
                                          const Shapes& dims, uint64_t seed, InputCase input_case) {
  return MakeRefTensors(op, kernel.params, dims, seed, input_case);
}

absl::StatusOr<RefTensors> MakeRefTensors(const OpCase& op, const std::vector<Param>& params,
                                          const Shapes& dims, uint64_t seed, InputCase input_case) {
  std::mt19937_64 rng(seed);
  RefTensors tensors;
  for (const Param& param : params) {
    if (!param.is_buffer()) continue;
    absl::StatusOr<std::vector<int64_t>> shape = ParamShape(param, dims);
    if (!shape.ok()) return shape.status();
    RefTensor tensor;
    tensor.shape = *shape;
    int64_t size = 1;
    for (int64_t extent : tensor.shape) size *= extent;
    tensor.data.assign(size, 0.0);
    if (!IsWrittenByOp(op, param.name())) {
      InputInit how = InitOf(op, param.name(), input_case);
      if (how.kind == InputInit::Kind::kGenerated) {
        std::vector<double> values = how.generate(dims, rng);
        if (values.size() != tensor.data.size()) {
          return absl::InvalidArgumentError(absl::StrCat("the generator of '", param.name(),
                                                         "' gave ", values.size(), " values for ",
                                                         tensor.data.size(), " elements"));
        }
        for (size_t i = 0; i < values.size(); ++i) {
          tensor.data[i] = RoundToDtype(values[i], param.buffer->dtype);
        }
      } else {
        for (double& value : tensor.data) value = Draw(how, param.buffer->dtype, rng);
      }
    }
    tensors.emplace(param.name(), std::move(tensor));
  }
  return tensors;
}

absl::Status CheckClose(const RefTensor& got, const RefTensor& want, double atol, double rtol) {
  if (got.shape != want.shape || got.data.size() != want.data.size()) {
    return absl::InvalidArgumentError(absl::StrCat("shape [", absl::StrJoin(got.shape, ", "),
                                                   "] differs from the expected [",
                                                   absl::StrJoin(want.shape, ", "), "]"));
  }
  int64_t mismatches = 0;
  int64_t worst = -1;
  double worst_excess = -1;
  for (size_t i = 0; i < got.data.size(); ++i) {
    double error = std::abs(got.data[i] - want.data[i]);
    double tolerance = atol + rtol * std::abs(want.data[i]);
    if (error <= tolerance) continue;
    ++mismatches;
    // NaN fails the test above and counts as the worst mismatch.
    double excess = std::isnan(error) ? INFINITY : error - tolerance;
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = static_cast<int64_t>(i);
    }
  }
  if (mismatches == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(mismatches, " of ", got.data.size(), " elements differ beyond atol ", atol,
                   " + rtol ", rtol, " * |want|; worst at ", FormatIndex(got.shape, worst),
                   ": got ", got.data[worst], ", want ", want.data[worst]));
}

}  // namespace tile_ir::ops
