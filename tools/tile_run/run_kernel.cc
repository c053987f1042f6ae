// Runs a loaded kernel on seeded random inputs (ops/op_tensors.h
// draws them, so every harness sees the same data for a seed) in the device's
// memory, then checks and times it.
#include "tools/tile_run/run_kernel.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/op_tensors.h"
#include "runtime/host_buffer.h"
#include "tile_ir/dtype_rounding.h"

namespace tile_ir::tools {
namespace {

using runtime::DeviceBuffer;
using runtime::HostBuffer;
using runtime::KernelArg;

// Every name the kernel needs has a value, and no value names nothing.
absl::Status CheckNames(const std::string& kernel, const std::string& what,
                        const std::vector<std::string>& needed,
                        const std::vector<std::string>& given) {
  for (const std::string& name : given) {
    if (std::find(needed.begin(), needed.end(), name) == needed.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", kernel, "' has no ", what, " '", name, "' (its ", what,
                       "s: ", needed.empty() ? "none" : absl::StrJoin(needed, ", "), ")"));
    }
  }
  for (const std::string& name : needed) {
    if (std::find(given.begin(), given.end(), name) == given.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", kernel, "': no value for the ", what, " '", name, "'"));
    }
  }
  return absl::OkStatus();
}

template <typename Map>
std::vector<std::string> Keys(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : map) keys.push_back(key);
  return keys;
}

absl::StatusOr<double> TimeLaunch(runtime::LoadedKernel& kernel,
                                  const std::vector<KernelArg>& args) {
  auto start = std::chrono::steady_clock::now();
  absl::Status status = kernel.Launch(args);
  auto end = std::chrono::steady_clock::now();
  if (!status.ok()) return status;
  return std::chrono::duration<double>(end - start).count();
}

absl::Status ParamError(const std::string& kernel, const std::string& param,
                        const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("kernel '", kernel, "': parameter '", param,
                                                  "': ", status.message()));
}

// The kernels of one run in launch order: one, or an operator's stages (ops::OpCase::build_stages)
// sharing their tensors by name.
std::vector<const KernelNode*> Signatures(const std::vector<runtime::LoadedKernel*>& stages) {
  std::vector<const KernelNode*> kernels;
  for (runtime::LoadedKernel* stage : stages) kernels.push_back(&stage->signature());
  return kernels;
}

// Every dim and scalar parameter of some stage has a value and no value names nothing; a check
// has a reference.
absl::Status CheckRunValues(const std::vector<const KernelNode*>& kernels,
                            const std::vector<Param>& params, const ops::OpCase* op,
                            const RunOptions& options) {
  const std::string& name = op != nullptr && kernels.size() > 1 ? op->name : kernels[0]->name;
  std::vector<std::string> dim_names;
  for (const KernelNode* kernel : kernels) {
    for (const VarRef& dim : kernel->dims) {
      if (std::find(dim_names.begin(), dim_names.end(), dim->name) == dim_names.end()) {
        dim_names.push_back(dim->name);
      }
    }
  }
  // Dims the kernel was specialized on are constants in its signature now; the reference
  // and the figures still read their values.
  for (const std::string& dim : options.specialized_dims) dim_names.push_back(dim);
  std::vector<std::string> scalar_names;
  for (const Param& param : params) {
    if (!param.is_buffer()) scalar_names.push_back(param.name());
  }
  absl::Status names = CheckNames(name, "dimension", dim_names, Keys(options.dims));
  if (names.ok()) {
    names = CheckNames(name, "scalar parameter", scalar_names, Keys(options.scalars));
  }
  if (!names.ok()) return names;
  if (options.check && op == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("no reference for kernel '", name,
                                                      "': checking needs an operator-suite entry"));
  }
  return absl::OkStatus();
}

// The run's arguments: the host copy of every buffer (inputs as the reference sees them,
// outputs as copied back), the device copy the kernels read and write, the scalars, and each
// stage's argument list over them.
struct KernelArgs {
  std::map<std::string, std::unique_ptr<HostBuffer>> host;
  std::map<std::string, std::unique_ptr<DeviceBuffer>> on_device;
  std::map<std::string, double> scalars;     // as the kernel sees them, rounded to their dtype
  std::vector<std::vector<KernelArg>> args;  // per stage, in its parameters' order
};

absl::Status AllocateBuffer(runtime::Device& device, const std::string& kernel, const Param& param,
                            const RunOptions& options, KernelArgs& all) {
  const std::string& name = param.name();
  absl::StatusOr<std::vector<int64_t>> shape = ops::ParamShape(param, options.dims);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<std::unique_ptr<HostBuffer>> buffer =
      HostBuffer::Create(param.buffer->dtype, *shape);
  if (!buffer.ok()) return ParamError(kernel, name, buffer.status());
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> device_buffer =
      device.Allocate(param.buffer->dtype, *shape);
  if (!device_buffer.ok()) return ParamError(kernel, name, device_buffer.status());
  all.host[name] = *std::move(buffer);
  all.on_device[name] = *std::move(device_buffer);
  return absl::OkStatus();
}

absl::StatusOr<KernelArgs> AllocateArgs(runtime::Device& device,
                                        const std::vector<const KernelNode*>& kernels,
                                        const RunOptions& options) {
  KernelArgs all;
  for (const KernelNode* kernel : kernels) {
    std::vector<KernelArg>& args = all.args.emplace_back();
    for (const Param& param : kernel->params) {
      const std::string& name = param.name();
      if (!param.is_buffer()) {
        if (auto exact = options.integer_scalars.find(name);
            exact != options.integer_scalars.end()) {
          all.scalars[name] = static_cast<double>(exact->second);
          args.push_back(KernelArg::Integer(exact->second));
          continue;
        }
        double value = RoundToDtype(options.scalars.at(name), param.scalar->dtype());
        all.scalars[name] = value;
        args.push_back(KernelArg::Scalar(value));
        continue;
      }
      if (!all.on_device.contains(name)) {
        if (absl::Status status = AllocateBuffer(device, kernel->name, param, options, all);
            !status.ok()) {
          return status;
        }
      }
      args.push_back(KernelArg::Tensor(all.on_device.at(name)->tensor()));
    }
  }
  return all;
}

// Poisons the outputs and scratch on the device and copies the inputs there from `ref`, which
// then holds exactly what the kernels read.
absl::Status FillBuffers(const std::string& kernel, const ops::OpCase& how, KernelArgs& args,
                         ops::RefTensors& ref) {
  for (const auto& [name, buffer] : args.host) {
    ops::RefTensor& tensor = ref.at(name);
    absl::Status filled;
    if (ops::IsWrittenByOp(how, name)) {
      filled = args.on_device.at(name)->Fill(0xFF);
    } else {
      HostBuffer& b = *buffer;
      for (int64_t i = 0; i < b.num_elements(); ++i) {
        b.Set(i, tensor.data[i]);
        tensor.data[i] = b.Get(i);
      }
      filled = args.on_device.at(name)->CopyFromHost(b);
    }
    if (!filled.ok()) return ParamError(kernel, name, filled);
  }
  return absl::OkStatus();
}

// Copies `op`'s outputs back and compares each with the reference computed from `ref`.
absl::Status CheckOutputs(const std::string& kernel, const ops::OpCase& op,
                          const RunOptions& options, ops::InputCase input_case, KernelArgs& args,
                          ops::RefTensors& ref, RunResult& result) {
  op.reference(ref, options.dims, args.scalars);
  for (const std::string& name : op.outputs) {
    HostBuffer& got = *args.host.at(name);
    if (absl::Status copied = args.on_device.at(name)->CopyToHost(got); !copied.ok()) {
      return ParamError(kernel, name, copied);
    }
    OutputCheck check = CompareOutput(name, got, ref.at(name), op.AtolAt(options.dims), op.rtol);
    check.inputs = ops::InputCaseName(input_case);
    result.checks.push_back(std::move(check));
  }
  return absl::OkStatus();
}

// Launches every stage in order; the seconds they took in all.
absl::StatusOr<double> LaunchStages(const std::vector<runtime::LoadedKernel*>& stages,
                                    const KernelArgs& args) {
  double seconds = 0;
  for (size_t i = 0; i < stages.size(); ++i) {
    absl::StatusOr<double> launch = TimeLaunch(*stages[i], args.args[i]);
    if (!launch.ok()) return launch.status();
    seconds += *launch;
  }
  return seconds;
}

// Launches the stages on each input case's fresh data (a check runs every case, a plain run the
// first), timing the first launch and checking each case's outputs with --check.
absl::Status RunCases(const std::vector<runtime::LoadedKernel*>& stages,
                      const std::vector<Param>& params, const ops::OpCase* op,
                      const RunOptions& options, KernelArgs& args, RunResult& result) {
  const std::string& kernel = stages[0]->signature().name;
  const ops::OpCase no_op{};  // every buffer an input
  const ops::OpCase& how = op != nullptr ? *op : no_op;
  std::vector<ops::InputCase> cases(std::begin(ops::kInputCases), std::end(ops::kInputCases));
  if (!options.check) cases.resize(1);
  for (ops::InputCase input_case : cases) {
    absl::StatusOr<ops::RefTensors> ref =
        ops::MakeRefTensors(how, params, options.dims, options.seed, input_case);
    if (!ref.ok()) return ref.status();
    if (absl::Status status = FillBuffers(kernel, how, args, *ref); !status.ok()) return status;
    absl::StatusOr<double> launch = LaunchStages(stages, args);
    if (!launch.ok()) return launch.status();
    if (input_case == cases.front()) result.launch_seconds = *launch;
    if (!options.check) break;
    if (absl::Status status = CheckOutputs(kernel, *op, options, input_case, args, *ref, result);
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

// --bench: the median of --iters timed runs of every stage after --warmup untimed ones, and the
// operator's rates at it.
absl::Status Bench(const std::vector<runtime::LoadedKernel*>& stages, const ops::OpCase* op,
                   const RunOptions& options, const KernelArgs& args, RunResult& result) {
  for (int i = 0; i < options.warmup; ++i) {
    for (size_t s = 0; s < stages.size(); ++s) {
      if (absl::Status status = stages[s]->Launch(args.args[s]); !status.ok()) return status;
    }
  }
  std::vector<double> times;
  for (int i = 0; i < std::max(1, options.iters); ++i) {
    double total = 0;
    for (size_t s = 0; s < stages.size(); ++s) {
      absl::StatusOr<double> t = stages[s]->TimedLaunch(args.args[s]);
      if (!t.ok()) return t.status();
      total += *t;
    }
    times.push_back(total);
  }
  std::sort(times.begin(), times.end());
  size_t n = times.size();
  double median = n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  result.median_seconds = median;
  if (op != nullptr && op->flops) result.flops_per_second = op->flops(options.dims) / median;
  if (op != nullptr && op->bytes) result.bytes_per_second = op->bytes(options.dims) / median;
  return absl::OkStatus();
}

}  // namespace

bool RunResult::passed() const {
  return std::all_of(checks.begin(), checks.end(),
                     [](const OutputCheck& check) { return check.passed(); });
}

absl::StatusOr<RunResult> RunKernel(runtime::Device& device, runtime::LoadedKernel& loaded,
                                    const ops::OpCase* op, const RunOptions& options) {
  return RunStages(device, {&loaded}, op, options);
}

absl::StatusOr<RunResult> RunStages(runtime::Device& device,
                                    const std::vector<runtime::LoadedKernel*>& stages,
                                    const ops::OpCase* op, const RunOptions& options) {
  const std::vector<const KernelNode*> kernels = Signatures(stages);
  absl::StatusOr<std::vector<Param>> params = ops::StageParams(kernels);
  if (!params.ok()) return params.status();
  if (absl::Status status = CheckRunValues(kernels, *params, op, options); !status.ok()) {
    return status;
  }
  absl::StatusOr<KernelArgs> args = AllocateArgs(device, kernels, options);
  if (!args.ok()) return args.status();
  if (options.check) {
    for (const std::string& name : op->outputs) {
      if (!args->host.contains(name)) {
        return absl::InvalidArgumentError(
            absl::StrCat("operator '", op->name, "' lists the output '", name,
                         "', which is not a buffer parameter of kernel '", kernels[0]->name, "'"));
      }
    }
  }
  RunResult result;
  if (absl::Status status = RunCases(stages, *params, op, options, *args, result); !status.ok()) {
    return status;
  }
  if (options.bench) {
    if (absl::Status status = Bench(stages, op, options, *args, result); !status.ok()) {
      return status;
    }
  }
  return result;
}

}  // namespace tile_ir::tools
