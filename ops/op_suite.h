// The operator suite: every kernel the toolkit is verified on, written with
// the C++ API, each with its float64 reference, input distributions, shapes
// (default and ragged) and tolerances. tile-run, the tests and the support
// matrix all go through this one list.
#ifndef OPS_OP_SUITE_H_
#define OPS_OP_SUITE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::ops {

// A tensor as the reference sees it: row-major doubles. Inputs hold exactly
// the values the kernel reads (already rounded to the input's dtype).
struct RefTensor {
  std::vector<int64_t> shape;
  std::vector<double> data;
};
using RefTensors = std::map<std::string, RefTensor>;
using Shapes = std::map<std::string, int64_t>;

// How an input is filled with seeded random values.
struct InputInit {
  enum class Kind { kUniform, kIntegers, kNormal, kGenerated };
  Kind kind = Kind::kUniform;
  double lo = -1.0;  // uniform in [lo, hi); integers in [lo, hi]; unused by kNormal (N(0, 1))
  double hi = 1.0;
  // kGenerated: the op draws the whole tensor (row-major, every element) itself, for an input
  // whose values have a structure no element-wise draw gives: a packed batch's sequence offsets,
  // a block table of pages. Every input case keeps it; `about` names it in reports.
  std::function<std::vector<double>(const Shapes& dims, std::mt19937_64& rng)> generate;
  std::string about;
};

// A named set of an op's compile-time integers (tile sizes, stages).
struct OpConfig {
  std::string name;                       // "128x128x32_s3"
  std::map<std::string, int64_t> values;  // block_m=128, block_n=128, block_k=32, num_stages=3
};

// One compile-time integer of a config space, described for the default-config
// heuristics (runtime/jit/autotuner.h's DefaultConfig reads the same fields).
struct TunableParam {
  enum class Kind { kTile, kStages };
  std::string name;
  Kind kind = Kind::kTile;
  std::vector<int64_t> values;  // every value the candidates use, ascending
  int64_t default_value = 0;    // the op's own choice (what OpCase::build uses)
  std::string covers;           // for a tile: the dimension it tiles ("M"), or empty
};

// What autotuning may vary: a modest list of candidates (the op's own config
// first) and a builder from any config to a kernel with the op's name,
// parameters and dimensions, so that the op's reference checks every one.
struct OpConfigSpace {
  std::vector<TunableParam> params;
  std::vector<OpConfig> candidates;
  std::function<absl::StatusOr<Kernel>(const std::map<std::string, int64_t>& config)> build;
};

struct OpCase {
  std::string name;  // also the kernel's name and the .tile file stem
  std::string description;
  // Builds the kernel with the C++ API (frontends/cpp).
  std::function<absl::StatusOr<Kernel>()> build;
  // An operator of several kernels (a backward's forward, preprocess, main pass and
  // postprocess; a split decode and its combine) builds all of them here, in launch order, and
  // they run one after another on one set of tensors shared by parameter name. `build`'s kernel
  // is one of them (the one named like the operator: its .tile file and the one a tool that
  // takes a single kernel sees); each other one is the kernel of an operator of its own, so it
  // has its own .tile file, reference and support-matrix row. Unset: `build`'s kernel alone.
  std::function<absl::StatusOr<std::vector<Kernel>>()> build_stages;
  // Buffers the stages hand to each other (the forward's log-sum-exp, the backward's delta, a
  // split decode's partial results): neither drawn as inputs nor checked, and poisoned before
  // the run, so a stage that reads one before another stage writes it fails.
  std::vector<std::string> scratch;
  Shapes default_shapes;                  // a value for every symbolic dimension
  Shapes ragged_shapes;                   // dimensions that are not multiples of the tile sizes
  std::map<std::string, double> scalars;  // scalar parameter values
  // By input parameter; default uniform [-1, 1). Checks also run every
  // non-integer input at N(0, 1) (op_tensors.h's InputCase).
  std::map<std::string, InputInit> inits;
  std::vector<std::string> outputs;  // buffer parameters the kernel writes
  // Computes every output from the inputs in float64. `tensors` holds all
  // parameters (outputs pre-sized, zero-filled); `dims` the bound dimensions.
  std::function<void(RefTensors& tensors, const Shapes& dims,
                     const std::map<std::string, double>& scalars)>
      reference;
  // |got - want| <= atol + rtol * |want| element-wise, at both shape sets and
  // for both input cases; each op's definition says how its values follow
  // from its dtypes and inputs.
  double atol = 0;
  double rtol = 0;
  // Where the absolute error bound grows with a dim (a K-long fp32 sum), atol at `dims`;
  // unset: `atol` at every shape. AtolAt() is what checks use.
  std::function<double(const Shapes& dims)> atol_at;
  double AtolAt(const Shapes& dims) const { return atol_at ? atol_at(dims) : atol; }
  // For throughput reports: the floating-point operations and the bytes of
  // global memory the kernel moves at the given dims.
  std::function<double(const Shapes& dims)> flops;
  std::function<double(const Shapes& dims)> bytes;
  // For autotuning (tile-run --autotune); empty `candidates` when the op has none.
  OpConfigSpace config_space;
};

const std::vector<OpCase>& OperatorSuite();
// The kernels `op` launches, in order: build_stages' or `build`'s alone.
absl::StatusOr<std::vector<Kernel>> OpKernels(const OpCase& op);
// The buffer and scalar parameters of `kernels`, each name once, in order of first appearance:
// the tensors and values a run of the operator binds. An error when two kernels give one name
// different dtypes or shapes.
absl::StatusOr<std::vector<Param>> StageParams(const std::vector<const KernelNode*>& kernels);
// Whether the harness writes `name` before the run rather than drawing it: an output or scratch.
bool IsWrittenByOp(const OpCase& op, const std::string& name);
// nullptr when no operator has that name.
const OpCase* FindOp(std::string_view name);
// The canonical text of the op's kernel as a module of its own: what
// ops/<name>.tile holds (written by //ops:export_ops).
absl::StatusOr<std::string> OpText(const OpCase& op);
// `module` with each suite operator's kernel specialized at the operator's default shapes as a
// call of them compiles (runtime/jit/specialization_plan.h) on `target`: its dims that size
// fragments compiled in, and, where `target` asks for them, the others' divisibility classes
// required. For checks that lower a suite file without running it (null `target`: the dims that
// size fragments alone); kernels that are no suite operator stay as they are.
absl::StatusOr<Module> SpecializeAtDefaultShapes(Module module,
                                                 const passes::TargetInfo* target = nullptr);

}  // namespace tile_ir::ops

#endif  // OPS_OP_SUITE_H_
