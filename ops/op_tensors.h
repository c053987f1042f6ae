// What a harness needs to run an OpCase: parameter shapes at bound dimensions,
// seeded random inputs rounded to their dtypes, and the tolerance check.
#ifndef OPS_OP_TENSORS_H_
#define OPS_OP_TENSORS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/op_suite.h"
#include "tile_ir/module.h"

namespace tile_ir::ops {

// The value of an integer shape expression (dims, integer literals, + - * /
// % min max floordiv floormod ceildiv, casts) with dims bound by name.
absl::StatusOr<int64_t> EvalShapeExpr(const Expr& expr, const Shapes& dims);
// The shape of a buffer parameter with dims bound.
absl::StatusOr<std::vector<int64_t>> ParamShape(const Param& param, const Shapes& dims);

// The input distributions a check runs, each on data of its own. Standard
// normal inputs (TileLang's tests draw them too) expose faults that an op's
// own range can hide: padded zeros read past a missing mask vanish beside
// inputs of magnitude 100 in a softmax sum, and rarely win the maximum of
// inputs in [-1, 1). The op's ranges keep what it was written for (shifted
// means, all-negative rows that a padded zero would beat, positive scales).
enum class InputCase {
  kNormal,    // every uniform input N(0, 1); integer inits keep their range
  kOpRanges,  // op.inits, uniform [-1, 1) where absent
};
// Every case, in the order checks run and report them.
inline constexpr InputCase kInputCases[] = {InputCase::kNormal, InputCase::kOpRanges};

// "normal", "op ranges": the case's name in reports.
std::string InputCaseName(InputCase input_case);
// What the case draws for the kernel's inputs, e.g. "X uniform [-100, 100)" or
// "N(0, 1), B integers in [0, 255]".
std::string DescribeInputs(const OpCase& op, const KernelNode& kernel, InputCase input_case);

// A tensor for every buffer parameter of `kernel`: inputs drawn as
// `input_case` says with a generator seeded by `seed` and rounded to the
// parameter's dtype; outputs and scratch zero-filled. Same seed and case, same data, on
// every standard library.
absl::StatusOr<RefTensors> MakeRefTensors(const OpCase& op, const KernelNode& kernel,
                                          const Shapes& dims, uint64_t seed, InputCase input_case);
// The same over the parameters of an operator's stages (StageParams): outputs and scratch
// zero-filled, the rest drawn.
absl::StatusOr<RefTensors> MakeRefTensors(const OpCase& op, const std::vector<Param>& params,
                                          const Shapes& dims, uint64_t seed, InputCase input_case);

// OK when |got - want| <= atol + rtol * |want| for every element (NaN never
// is); otherwise an error with the number of mismatches and the worst one.
absl::Status CheckClose(const RefTensor& got, const RefTensor& want, double atol, double rtol);

}  // namespace tile_ir::ops

#endif  // OPS_OP_TENSORS_H_
