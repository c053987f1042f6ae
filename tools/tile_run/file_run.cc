// Reading --in/--out/--expect files against a signature, binding dimensions
// from their shapes, and the run itself.
#include "tools/tile_run/file_run.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/op_tensors.h"
#include "tile_ir/printer.h"
#include "tools/npy/npy.h"
#include "tools/tile_run/npy_tensors.h"

namespace tile_ir::tools {
namespace {

using runtime::DeviceBuffer;
using runtime::HostBuffer;
using runtime::KernelArg;

std::string Tuple(const std::vector<int64_t>& shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

// "f32[M, N]"
std::string Declared(const BufferNode& buffer) {
  std::vector<std::string> extents;
  for (const Expr& extent : buffer.shape) extents.push_back(Print(extent));
  return absl::StrCat(buffer.dtype.ToString(), "[", absl::StrJoin(extents, ", "), "]");
}

struct FileFlag {
  std::string flag;  // "in", "out", "expect"
  std::string param;
  std::string path;
};

absl::StatusOr<std::vector<FileFlag>> SplitFlags(const FileFlags& flags) {
  std::vector<FileFlag> all;
  for (const auto& [flag, values] :
       {std::pair{"in", &flags.inputs}, std::pair{"out", &flags.outputs},
        std::pair{"expect", &flags.expects}}) {
    for (const std::string& value : *values) {
      const size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", flag, ": expected NAME=FILE.npy, got '", value, "'"));
      }
      all.push_back({flag, value.substr(0, eq), value.substr(eq + 1)});
    }
  }
  return all;
}

// Where a dimension's value came from, for messages.
struct Binding {
  int64_t value = 0;
  std::string source;  // "--shapes" or "a.npy (parameter 'A', shape (4, 8))"
};

// A kernel's buffer parameters, by name and in signature order.
struct BufferParams {
  std::map<std::string, const Param*> by_name;
  std::vector<std::string> names;
};

BufferParams BuffersOf(const KernelNode& kernel) {
  BufferParams buffers;
  for (const Param& param : kernel.params) {
    if (!param.is_buffer()) continue;
    buffers.by_name[param.name()] = &param;
    buffers.names.push_back(param.name());
  }
  return buffers;
}

// An --in or --expect file read, with the parameter it names.
struct LoadedArray {
  FileFlag flag;
  const Param* param;
  npy::NpyArray array;
};

// Reads the file of an --in or --expect and checks what needs no dimension values: an --in's
// dtype, and the rank.
absl::StatusOr<npy::NpyArray> ReadArray(const FileFlag& flag, const BufferNode& buffer,
                                        const std::string& where) {
  absl::StatusOr<npy::NpyArray> array = npy::ReadNpyFile(flag.path);
  if (!array.ok()) return array.status();
  if (flag.flag == "in") {
    if (absl::Status dtype = CheckNpyDtype(buffer.dtype, array->descr); !dtype.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag.path, ": parameter '", flag.param, "' of ", where, " is ",
                       buffer.dtype.ToString(), " (", NumpyNameOf(buffer.dtype), ", '",
                       NpyDescrOf(buffer.dtype), "' in a .npy header), but ", dtype.message()));
    }
  }
  if (static_cast<int>(array->shape.size()) != buffer.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag.path, ": parameter '", flag.param, "' of ", where, " has rank ",
                     buffer.rank(), " (", Declared(buffer), "), the array has rank ",
                     array->shape.size(), " (shape ", Tuple(array->shape), ")"));
  }
  return array;
}

// Reads every file in command-line order, checking each names a buffer parameter once per flag,
// and then that every buffer parameter has a file; --out's paths go to `files.outputs`.
absl::StatusOr<std::vector<LoadedArray>> ReadArrays(const std::vector<FileFlag>& flags,
                                                    const BufferParams& buffers,
                                                    const std::string& where, FileTensors& files) {
  std::vector<LoadedArray> loaded;
  std::map<std::pair<std::string, std::string>, std::string> seen;  // (flag, param) -> path
  for (const FileFlag& flag : flags) {
    auto it = buffers.by_name.find(flag.param);
    if (it == buffers.by_name.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag.flag, " ", flag.param, "=", flag.path, ": ", where,
                       " has no buffer parameter '", flag.param,
                       "' (its buffers: ", absl::StrJoin(buffers.names, ", "), ")"));
    }
    if (auto [previous, fresh] = seen.emplace(std::pair{flag.flag, flag.param}, flag.path);
        !fresh) {
      return absl::InvalidArgumentError(absl::StrCat("--", flag.flag, " names parameter '",
                                                     flag.param, "' twice (", previous->second,
                                                     " and ", flag.path, ")"));
    }
    if (flag.flag == "out") {
      files.outputs[flag.param] = flag.path;
      continue;
    }
    absl::StatusOr<npy::NpyArray> array = ReadArray(flag, *it->second->buffer, where);
    if (!array.ok()) return array.status();
    loaded.push_back({flag, it->second, *std::move(array)});
  }
  for (const std::string& name : buffers.names) {
    if (!seen.contains({"in", name}) && !seen.contains({"out", name}) &&
        !seen.contains({"expect", name})) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter '", name, "' of ", where,
          " has no file: give every buffer --in (an input), --out or --expect (an output)"));
    }
  }
  return loaded;
}

// Binds the bare dimensions of parameter shapes from the arrays' shapes, which must agree with
// each other and with `dims` (--shapes); every dim of the kernel then has a value in `dims`.
absl::Status BindDims(const KernelNode& kernel, const std::vector<LoadedArray>& loaded,
                      const std::string& where, ops::Shapes& dims) {
  std::map<std::string, Binding> bound;
  for (const auto& [name, value] : dims) bound[name] = {value, "--shapes"};
  for (const LoadedArray& each : loaded) {
    const BufferNode& buffer = *each.param->buffer;
    for (int d = 0; d < buffer.rank(); ++d) {
      const Var* var = As<Var>(buffer.shape[d]);
      if (var == nullptr) continue;
      const int64_t value = each.array.shape[d];
      std::string source = absl::StrCat(each.flag.path, " (parameter '", each.flag.param,
                                        "', shape ", Tuple(each.array.shape), ")");
      auto [it, fresh] = bound.emplace(var->name, Binding{value, source});
      if (!fresh && it->second.value != value) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": dimension '", var->name, "' is ",
                                                       it->second.value, " by ", it->second.source,
                                                       " but ", value, " by ", source));
      }
    }
  }
  for (const VarRef& dim : kernel.dims) {
    if (!bound.contains(dim->name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": dimension '", dim->name,
                       "' is the extent of no given array's dimension; give it with --shapes ",
                       dim->name, "=N"));
    }
    dims[dim->name] = bound.at(dim->name).value;
  }
  return absl::OkStatus();
}

// The error for an array whose shape is not its parameter's (`want`) at the dims bound.
absl::Status WrongShape(const KernelNode& kernel, const LoadedArray& each,
                        const std::vector<int64_t>& want, const ops::Shapes& dims,
                        const std::string& where) {
  std::vector<std::string> values;
  for (const VarRef& dim : kernel.dims) {
    values.push_back(absl::StrCat(dim->name, "=", dims.at(dim->name)));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      each.flag.path, ": parameter '", each.flag.param, "' of ", where, " is ",
      Declared(*each.param->buffer), ", shape ", Tuple(want), " at ", absl::StrJoin(values, ", "),
      "; the array's shape is ", Tuple(each.array.shape)));
}

// Converts an array of the right shape: an --in's into a host buffer of its parameter's dtype,
// an --expect's into doubles with its tolerances.
absl::Status StoreArray(LoadedArray& each, const FileFlags& flags, FileTensors& files) {
  const DataType dtype = each.param->buffer->dtype;
  if (each.flag.flag == "in") {
    absl::StatusOr<std::unique_ptr<HostBuffer>> buffer = NpyToHostBuffer(each.array, dtype);
    if (!buffer.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          each.flag.path, ": parameter '", each.flag.param, "': ", buffer.status().message()));
    }
    files.inputs[each.flag.param] = *std::move(buffer);
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<double>> values = NpyToDoubles(each.array, dtype);
  if (!values.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(each.flag.path, ": --expect for parameter '",
                                                   each.flag.param, "' (", dtype.ToString(),
                                                   "): ", values.status().message()));
  }
  files.expects[each.flag.param] = ops::RefTensor{each.array.shape, *std::move(values)};
  files.expect_paths[each.flag.param] = each.flag.path;
  auto [rtol, atol] = ToleranceOf(dtype);
  files.tolerances[each.flag.param] = {flags.rtol.value_or(rtol), flags.atol.value_or(atol)};
  return absl::OkStatus();
}

}  // namespace

std::pair<double, double> ToleranceOf(DataType dtype) {
  switch (dtype.scalar()) {
    case ScalarType::kF64: return {1e-7, 1e-7};
    case ScalarType::kF32: return {1.3e-6, 1e-5};
    case ScalarType::kF16: return {1e-3, 1e-5};
    case ScalarType::kBF16: return {1.6e-2, 1e-5};
    case ScalarType::kF8E4M3: return {0.125, 1e-5};
    case ScalarType::kF8E5M2: return {0.25, 1e-5};
    default: return {0, 0};
  }
}

bool FileRunResult::passed() const {
  return std::all_of(checks.begin(), checks.end(),
                     [](const OutputCheck& check) { return check.passed(); });
}

absl::StatusOr<FileTensors> LoadFileTensors(const KernelNode& kernel, const FileFlags& flags,
                                            ops::Shapes& dims) {
  absl::StatusOr<std::vector<FileFlag>> split = SplitFlags(flags);
  if (!split.ok()) return split.status();
  const std::string where = absl::StrCat("kernel '", kernel.name, "'");
  const BufferParams buffers = BuffersOf(kernel);
  FileTensors files;
  absl::StatusOr<std::vector<LoadedArray>> loaded = ReadArrays(*split, buffers, where, files);
  if (!loaded.ok()) return loaded.status();
  if (absl::Status status = BindDims(kernel, *loaded, where, dims); !status.ok()) return status;
  for (const std::string& name : buffers.names) {
    absl::StatusOr<std::vector<int64_t>> shape = ops::ParamShape(*buffers.by_name.at(name), dims);
    if (!shape.ok()) return shape.status();
    files.shapes[name] = *std::move(shape);
  }
  // Every array must now have its parameter's shape (constant and computed extents too).
  for (LoadedArray& each : *loaded) {
    const std::vector<int64_t>& want = files.shapes.at(each.flag.param);
    if (want != each.array.shape) return WrongShape(kernel, each, want, dims, where);
    if (absl::Status status = StoreArray(each, flags, files); !status.ok()) return status;
  }
  return files;
}

absl::StatusOr<FileRunResult> RunOnFiles(runtime::Device& device, runtime::LoadedKernel& loaded,
                                         const FileTensors& files,
                                         const std::map<std::string, double>& scalars,
                                         const std::map<std::string, int64_t>& integer_scalars) {
  const KernelNode& kernel = loaded.signature();
  auto error = [&kernel](const std::string& param, const absl::Status& status) {
    return absl::Status(status.code(), absl::StrCat("kernel '", kernel.name, "': parameter '",
                                                    param, "': ", status.message()));
  };
  std::map<std::string, std::unique_ptr<DeviceBuffer>> on_device;
  std::vector<KernelArg> args;
  for (const Param& param : kernel.params) {
    const std::string& name = param.name();
    if (!param.is_buffer()) {
      if (auto exact = integer_scalars.find(name); exact != integer_scalars.end()) {
        args.push_back(KernelArg::Integer(exact->second));
        continue;
      }
      auto it = scalars.find(name);
      if (it == scalars.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("kernel '", kernel.name, "': no value for the scalar parameter '", name,
                         "'; give it with --scalars ", name, "=V"));
      }
      args.push_back(KernelArg::Scalar(it->second));
      continue;
    }
    auto shape = files.shapes.find(name);
    if (shape == files.shapes.end()) {
      return absl::InvalidArgumentError(absl::StrCat("kernel '", kernel.name, "': parameter '",
                                                     name, "' has no --in, --out or --expect"));
    }
    absl::StatusOr<std::unique_ptr<DeviceBuffer>> buffer =
        device.Allocate(param.buffer->dtype, shape->second);
    if (!buffer.ok()) return error(name, buffer.status());
    absl::Status filled = files.inputs.contains(name)
                              ? (*buffer)->CopyFromHost(*files.inputs.at(name))
                              : (*buffer)->Fill(0xFF);
    if (!filled.ok()) return error(name, filled);
    args.push_back(KernelArg::Tensor((*buffer)->tensor()));
    on_device[name] = *std::move(buffer);
  }
  FileRunResult result;
  auto start = std::chrono::steady_clock::now();
  if (absl::Status launched = loaded.Launch(args); !launched.ok()) return launched;
  result.launch_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const Param& param : kernel.params) {
    const std::string& name = param.name();
    const bool out = files.outputs.contains(name), expect = files.expects.contains(name);
    if (!out && !expect) continue;
    const DeviceBuffer& buffer = *on_device.at(name);
    absl::StatusOr<std::unique_ptr<HostBuffer>> host =
        HostBuffer::Create(param.buffer->dtype, files.shapes.at(name));
    if (!host.ok()) return error(name, host.status());
    if (absl::Status copied = buffer.CopyToHost(**host); !copied.ok()) return error(name, copied);
    if (out) {
      const std::string& path = files.outputs.at(name);
      if (absl::Status written = npy::WriteNpyFile(path, HostBufferToNpy(**host)); !written.ok()) {
        return written;
      }
      result.written.push_back(absl::StrCat(name, " -> ", path));
    }
    if (expect) {
      auto [rtol, atol] = files.tolerances.at(name);
      OutputCheck check = CompareOutput(name, **host, files.expects.at(name), atol, rtol);
      check.inputs = files.expect_paths.at(name);
      result.checks.push_back(std::move(check));
    }
  }
  return result;
}

}  // namespace tile_ir::tools
