// Runs a loaded kernel on seeded random inputs (testdata/ops/op_tensors.h
// draws them, so every harness sees the same data for a seed), then checks and
// times it.
#include "tools/tile_run/run_kernel.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/host_buffer.h"
#include "testdata/ops/op_tensors.h"

namespace tile_ir::tools {
namespace {

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

}  // namespace

bool RunResult::passed() const {
  return std::all_of(checks.begin(), checks.end(),
                     [](const OutputCheck& check) { return check.passed(); });
}

absl::StatusOr<RunResult> RunKernel(runtime::LoadedKernel& loaded, const ops::OpCase* op,
                                    const RunOptions& options) {
  const KernelNode& kernel = loaded.signature();
  std::vector<std::string> dim_names;
  for (const VarRef& dim : kernel.dims) dim_names.push_back(dim->name);
  std::vector<std::string> scalar_names;
  for (const Param& param : kernel.params) {
    if (!param.is_buffer()) scalar_names.push_back(param.name());
  }
  absl::Status names = CheckNames(kernel.name, "dimension", dim_names, Keys(options.dims));
  if (names.ok()) {
    names = CheckNames(kernel.name, "scalar parameter", scalar_names, Keys(options.scalars));
  }
  if (!names.ok()) return names;
  if (options.check && op == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("no reference for kernel '", kernel.name,
                                                      "': checking needs an operator-suite entry"));
  }
  const ops::OpCase no_op{};
  const ops::OpCase& how = op != nullptr ? *op : no_op;
  auto is_output = [&how](const std::string& name) {
    return std::find(how.outputs.begin(), how.outputs.end(), name) != how.outputs.end();
  };

  absl::StatusOr<ops::RefTensors> ref =
      ops::MakeRefTensors(how, kernel, options.dims, options.seed);
  if (!ref.ok()) return ref.status();
  std::map<std::string, std::unique_ptr<HostBuffer>> buffers;
  std::map<std::string, double> scalars;  // as the kernel sees them, rounded to their dtype
  std::vector<KernelArg> args;
  for (const Param& param : kernel.params) {
    if (!param.is_buffer()) {
      double value = ops::RoundToDtype(options.scalars.at(param.name()), param.scalar->dtype());
      scalars[param.name()] = value;
      args.push_back(KernelArg::Scalar(value));
      continue;
    }
    ops::RefTensor& tensor = ref->at(param.name());
    absl::StatusOr<std::unique_ptr<HostBuffer>> buffer =
        HostBuffer::Create(param.buffer->dtype, tensor.shape);
    if (!buffer.ok()) {
      return absl::Status(buffer.status().code(),
                          absl::StrCat("kernel '", kernel.name, "': parameter '", param.name(),
                                       "': ", buffer.status().message()));
    }
    HostBuffer& b = **buffer;
    if (is_output(param.name())) {
      b.Poison(0xFF);
    } else {
      // The reference sees exactly what the kernel reads.
      for (int64_t i = 0; i < b.num_elements(); ++i) {
        b.Set(i, tensor.data[i]);
        tensor.data[i] = b.Get(i);
      }
    }
    args.push_back(KernelArg::Tensor(b.AsDLTensor()));
    buffers[param.name()] = *std::move(buffer);
  }

  RunResult result;
  absl::StatusOr<double> launch = TimeLaunch(loaded, args);
  if (!launch.ok()) return launch.status();
  result.launch_seconds = *launch;

  if (options.check) {
    op->reference(*ref, options.dims, scalars);
    for (const std::string& name : op->outputs) {
      auto it = buffers.find(name);
      if (it == buffers.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("operator '", op->name, "' lists the output '", name,
                         "', which is not a buffer parameter of kernel '", kernel.name, "'"));
      }
      result.checks.push_back(CompareOutput(name, *it->second, ref->at(name), op->atol, op->rtol));
    }
  }

  if (options.bench) {
    for (int i = 0; i < options.warmup; ++i) {
      if (absl::Status status = loaded.Launch(args); !status.ok()) return status;
    }
    std::vector<double> times;
    for (int i = 0; i < std::max(1, options.iters); ++i) {
      absl::StatusOr<double> t = TimeLaunch(loaded, args);
      if (!t.ok()) return t.status();
      times.push_back(*t);
    }
    std::sort(times.begin(), times.end());
    size_t n = times.size();
    double median = n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    result.median_seconds = median;
    if (op != nullptr && op->flops) result.flops_per_second = op->flops(options.dims) / median;
    if (op != nullptr && op->bytes) result.bytes_per_second = op->bytes(options.dims) / median;
  }
  return result;
}

}  // namespace tile_ir::tools
