// Binding launch arguments to a kernel's signature (see kernel_args.h for the
// order of the checks); every error names the kernel and the parameter.
#include "runtime/kernel_args.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/analysis/arith/int_math.h"
#include "runtime/dtype_convert.h"
#include "runtime/host_buffer.h"
#include "tile_ir/printer.h"
#include "tile_ir/visitor.h"

namespace tile_ir::runtime {
namespace {

constexpr ScalarType kAllScalarTypes[] = {
    ScalarType::kBool,   ScalarType::kI4,  ScalarType::kI8,   ScalarType::kI16,
    ScalarType::kI32,    ScalarType::kI64, ScalarType::kU8,   ScalarType::kF8E4M3,
    ScalarType::kF8E5M2, ScalarType::kF16, ScalarType::kBF16, ScalarType::kF32,
    ScalarType::kF64,    ScalarType::kU16, ScalarType::kU32,  ScalarType::kU64};

std::string DeviceTypeNumberName(int32_t type) {
  switch (type) {
    case kDLCPU: return "cpu";
    case kDLCUDA: return "cuda";
    case kDLCUDAHost: return "cuda_host";
    case kDLOpenCL: return "opencl";
    case kDLVulkan: return "vulkan";
    case kDLMetal: return "metal";
    case kDLVPI: return "vpi";
    case kDLROCM: return "rocm";
    case kDLROCMHost: return "rocm_host";
    case kDLExtDev: return "ext_dev";
    case kDLCUDAManaged: return "cuda_managed";
  }
  return absl::StrCat("device type ", type);
}

std::string DLDataTypeName(DLDataType dl) {
  for (ScalarType scalar : kAllScalarTypes) {
    DataType dtype(scalar, dl.lanes == 0 ? 1 : dl.lanes);
    DLDataType ours;
    if (ToDLDataType(dtype, &ours) && ours.code == dl.code && ours.bits == dl.bits &&
        ours.lanes == dl.lanes) {
      return dtype.ToString();
    }
  }
  return absl::StrCat("an unsupported DLPack type (code ", int{dl.code}, ", ", int{dl.bits},
                      " bits, ", dl.lanes, " lanes)");
}

// The shape of a tensor whose ndim is in [0, kMaxTensorRank]; "NULL" for no shape array.
std::string ShapeText(const DLTensor& t) {
  if (t.shape == nullptr && t.ndim > 0) return "(shape NULL)";
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

std::string DeclaredType(const BufferNode& buffer) {
  std::vector<std::string> shape;
  for (const Expr& e : buffer.shape) shape.push_back(Print(e));
  return absl::StrCat(buffer.dtype.ToString(), "[", absl::StrJoin(shape, ", "), "]");
}

// An int64 as a double rounded to odd: exact up to 2^53, else its 53 leading bits with the
// last one set when any bit dropped was, so that rounding that double again to a float of at
// most 51 significant bits (f32 and narrower) gives what rounding the integer once would.
double IntegerRoundedToOdd(int64_t value) {
  uint64_t magnitude =
      value < 0 ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  int shift = 0;
  while ((magnitude >> shift) >= (uint64_t{1} << 53)) ++shift;
  uint64_t kept = magnitude >> shift;
  if ((magnitude & ((uint64_t{1} << shift) - 1)) != 0) kept |= 1;
  double rounded = std::ldexp(static_cast<double>(kept), shift);
  return value < 0 ? -rounded : rounded;
}

// An integer scalar's value: an int64 as given, a double when it is integral and in int64's
// range (the dtype's range is checked by the caller).
absl::StatusOr<int64_t> IntegerValue(const KernelArg& arg, DataType dtype) {
  if (arg.is_integer) return arg.integer;
  const double value = arg.scalar;
  if (!std::isfinite(value) || std::trunc(value) != value) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected an integer for ", dtype.ToString(), ", got ", value));
  }
  // 2^63 is the first double above int64's range; -2^63 is in it.
  if (value < -9223372036854775808.0 || value >= 9223372036854775808.0) {
    return absl::OutOfRangeError(absl::StrCat(value, " is out of range for ", dtype.ToString(),
                                              " [", arith::TypeMin(dtype), ", ",
                                              arith::TypeMax(dtype), "]"));
  }
  return static_cast<int64_t>(value);
}

// A scalar argument converted to its parameter's dtype, in an 8-byte slot: integers exactly
// (or refused naming the dtype's range), floats rounded to nearest once.
absl::StatusOr<uint64_t> ConvertScalar(const KernelArg& arg, DataType dtype) {
  uint64_t slot = 0;
  auto store = [&slot](auto typed) { std::memcpy(&slot, &typed, sizeof typed); };
  if (dtype.is_int() || dtype.is_bool()) {
    absl::StatusOr<int64_t> v = IntegerValue(arg, dtype);
    if (!v.ok()) return v.status();
    int64_t lo = arith::TypeMin(dtype);
    int64_t hi = arith::TypeMax(dtype);
    if (*v < lo || *v > hi) {
      return absl::OutOfRangeError(
          absl::StrCat(*v, " is out of range for ", dtype.ToString(), " [", lo, ", ", hi, "]"));
    }
    switch (dtype.scalar()) {
      case ScalarType::kI16: store(static_cast<int16_t>(*v)); break;
      case ScalarType::kI32: store(static_cast<int32_t>(*v)); break;
      case ScalarType::kI64: store(*v); break;
      case ScalarType::kU8: store(static_cast<uint8_t>(*v)); break;
      case ScalarType::kU16: store(static_cast<uint16_t>(*v)); break;
      case ScalarType::kU32: store(static_cast<uint32_t>(*v)); break;
      // Up to INT64_MAX (arith::TypeMax): a KernelArg carries an int64.
      case ScalarType::kU64: store(static_cast<uint64_t>(*v)); break;
      default: store(static_cast<int8_t>(*v)); break;  // bool, i4, i8: one byte
    }
    return slot;
  }
  if (arg.is_integer && dtype.scalar() == ScalarType::kF64) {
    store(static_cast<double>(arg.integer));
    return slot;
  }
  const double value = arg.is_integer ? IntegerRoundedToOdd(arg.integer) : arg.scalar;
  switch (dtype.scalar()) {
    case ScalarType::kF8E4M3: store(DoubleToF8E4M3(value)); break;
    case ScalarType::kF8E5M2: store(DoubleToF8E5M2(value)); break;
    case ScalarType::kF16: store(DoubleToHalf(value)); break;
    case ScalarType::kBF16: store(DoubleToBFloat16(value)); break;
    case ScalarType::kF32: store(static_cast<float>(value)); break;
    case ScalarType::kF64: store(value); break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("a scalar of type ", dtype.ToString(), " cannot be passed"));
  }
  return slot;
}

// A shape or stride entry whose expected value is an expression over the
// dimensions, checked once all of them are bound.
struct DeferredCheck {
  const Param* param;
  const char* what;  // "dimension" or "stride"
  int index;
  int64_t actual;
  Expr expected;
};

class Binder {
 public:
  Binder(const KernelNode& kernel, DLDeviceType device_type, int64_t min_alignment)
      : kernel_(kernel), device_type_(device_type), min_alignment_(min_alignment) {
    for (const VarRef& dim : kernel.dims) dims_.insert(dim.get());
  }

  absl::StatusOr<BoundArgs> Bind(const std::vector<KernelArg>& args) {
    if (args.size() != kernel_.params.size()) {
      std::vector<std::string> names;
      for (const Param& p : kernel_.params) names.push_back(p.name());
      return Error(absl::StrCat("expected ", kernel_.params.size(), " arguments (",
                                absl::StrJoin(names, ", "), "), got ", args.size()));
    }
    bound_.data.assign(args.size(), nullptr);
    bound_.scalar_storage.assign(args.size(), 0);
    for (size_t i = 0; i < args.size(); ++i) {
      const Param& param = kernel_.params[i];
      absl::Status status =
          param.is_buffer() ? BindTensor(i, param, args[i]) : BindScalar(i, param, args[i]);
      if (!status.ok()) return status;
    }
    for (const VarRef& dim : kernel_.dims) {
      if (!bound_.int_values.contains(dim.get())) {
        return Error(absl::StrCat("dimension '", dim->name,
                                  "' is not bound: no parameter's shape or strides has it as "
                                  "an entry of its own"));
      }
      bound_.dims.push_back(bound_.int_values.at(dim.get()));
    }
    for (const DeferredCheck& check : deferred_) {
      absl::StatusOr<int64_t> want = EvaluateInt(check.expected, bound_.int_values);
      if (!want.ok()) {
        return Error(absl::StrCat("parameter '", check.param->name(), "' ", check.what, " ",
                                  check.index, ": ", want.status().message()));
      }
      if (*want != check.actual) {
        return Error(absl::StrCat("parameter '", check.param->name(), "' ", check.what, " ",
                                  check.index, " is ", check.actual, " but ", Print(check.expected),
                                  " = ", *want));
      }
    }
    if (absl::Status status = CheckRequirements(); !status.ok()) return status;
    if (absl::Status status = EvaluateGrid(); !status.ok()) return status;
    return std::move(bound_);
  }

 private:
  absl::Status Error(absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat("kernel '", kernel_.name, "': ", message));
  }
  absl::Status ArgError(size_t i, const Param& param, absl::string_view message) const {
    return Error(absl::StrCat("argument ", i + 1, " ('", param.name(), "'): ", message));
  }

  absl::Status BindTensor(size_t i, const Param& param, const KernelArg& arg) {
    const BufferNode& buffer = *param.buffer;
    if (arg.tensor == nullptr) return ArgError(i, param, "expected a tensor, got a scalar");
    const DLTensor& t = *arg.tensor;
    if (absl::Status status = CheckTensorFields(i, param, t); !status.ok()) return status;
    if (const int32_t stored = StoredDeviceType(t); stored != device_type_) {
      return ArgError(i, param,
                      absl::StrCat("expected a tensor on ", DeviceTypeName(device_type_),
                                   ", got one on ", DeviceTypeNumberName(stored)));
    }
    DLDataType want;
    ToDLDataType(buffer.dtype, &want);
    if (want.code != t.dtype.code || want.bits != t.dtype.bits || want.lanes != t.dtype.lanes) {
      return ArgError(
          i, param,
          absl::StrCat("expected ", buffer.dtype.ToString(), ", got ", DLDataTypeName(t.dtype)));
    }
    if (t.ndim != buffer.rank()) {
      return ArgError(i, param,
                      absl::StrCat("expected rank ", buffer.rank(), " (", DeclaredType(buffer),
                                   "), got rank ", t.ndim, " ", ShapeText(t)));
    }
    for (int d = 0; d < t.ndim; ++d) {
      absl::Status status = CheckEntry(param, "dimension", d, t.shape[d], buffer.shape[d]);
      if (!status.ok()) return status;
    }
    if (absl::Status status = CheckStrides(i, param, t); !status.ok()) return status;

    // An empty tensor may have no data; its byte offset then points nowhere (and adding it to
    // a null pointer would be undefined).
    char* data = t.data == nullptr ? nullptr : static_cast<char*>(t.data) + t.byte_offset;
    int64_t alignment = DataAlignment(buffer, min_alignment_);
    if (reinterpret_cast<uintptr_t>(data) % static_cast<uintptr_t>(alignment) != 0) {
      return ArgError(
          i, param,
          absl::StrCat("the data pointer 0x", absl::Hex(reinterpret_cast<uintptr_t>(data)),
                       " is not aligned to ", alignment, " bytes"));
    }
    bound_.data[i] = data;
    return absl::OkStatus();
  }

  // The DLTensor's own consistency, before anything is read through its pointers (a producer's
  // bug, or a forged tensor, must not crash the process): ndim from 0 to kMaxTensorRank, a
  // shape array when ndim > 0, no negative extent, a byte span (over the strides when given)
  // and a byte offset that fit 63 bits and the address space, data when there are elements.
  absl::Status CheckTensorFields(size_t i, const Param& param, const DLTensor& t) const {
    if (t.ndim < 0 || t.ndim > kMaxTensorRank) {
      return ArgError(i, param,
                      absl::StrCat("the tensor's ndim is ", t.ndim,
                                   t.ndim < 0 ? "" : absl::StrCat(", more than ", kMaxTensorRank),
                                   "; expected rank ", param.buffer->rank(), " (",
                                   DeclaredType(*param.buffer), ")"));
    }
    if (t.ndim > 0 && t.shape == nullptr) {
      return ArgError(i, param, absl::StrCat("the tensor's shape is NULL with ndim ", t.ndim));
    }
    bool has_elements = true;
    for (int d = 0; d < t.ndim; ++d) {
      if (t.shape[d] < 0) {
        return ArgError(i, param, absl::StrCat("dimension ", d, " is negative (", t.shape[d], ")"));
      }
      has_elements = has_elements && t.shape[d] != 0;
    }
    if (!has_elements) return absl::OkStatus();
    // The distance in elements from the first element to the farthest one, then in bytes.
    const int64_t element_bytes =
        std::max<int64_t>(1, (int64_t{t.dtype.bits} * t.dtype.lanes + 7) / 8);
    int64_t last = 0;
    bool overflow = false;
    int64_t stride = 1;
    for (int d = t.ndim - 1; d >= 0; --d) {
      int64_t step = stride;
      if (t.strides != nullptr) {
        step = t.strides[d];
        // |INT64_MIN| has no int64: it overflows, and is never negated.
        if (step == std::numeric_limits<int64_t>::min()) {
          overflow = true;
          step = std::numeric_limits<int64_t>::max();
        }
        step = step < 0 ? -step : step;
      }
      int64_t reach;
      overflow = overflow || __builtin_mul_overflow(step, t.shape[d] - 1, &reach) ||
                 __builtin_add_overflow(last, reach, &last);
      if (t.strides == nullptr)
        overflow = overflow || __builtin_mul_overflow(stride, t.shape[d], &stride);
    }
    int64_t span_bytes = 0;
    overflow = overflow || __builtin_add_overflow(last, 1, &last) ||
               __builtin_mul_overflow(last, element_bytes, &span_bytes);
    if (overflow) {
      std::vector<int64_t> strides;
      if (t.strides != nullptr) strides.assign(t.strides, t.strides + t.ndim);
      return ArgError(
          i, param,
          absl::StrCat("the tensor's size overflows 64 bits (shape ", ShapeText(t),
                       t.strides == nullptr
                           ? ""
                           : absl::StrCat(", strides [", absl::StrJoin(strides, ", "), "]"),
                       ")"));
    }
    if (t.data == nullptr) {
      return ArgError(i, param, "the tensor's data is NULL but it has elements");
    }
    const uintptr_t address = reinterpret_cast<uintptr_t>(t.data);
    uintptr_t end;
    if (t.byte_offset > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
        __builtin_add_overflow(address, t.byte_offset, &end) ||
        __builtin_add_overflow(end, static_cast<uint64_t>(span_bytes), &end)) {
      return ArgError(i, param,
                      absl::StrCat("the tensor's byte_offset ", t.byte_offset,
                                   " puts its data past the end of the address space (data 0x",
                                   absl::Hex(address), ", ", span_bytes, " bytes)"));
    }
    return absl::OkStatus();
  }

  // One shape or stride entry: a bare dimension binds (or must agree with its
  // first binding), a constant must match, anything else waits for all dims.
  absl::Status CheckEntry(const Param& param, const char* what, int index, int64_t actual,
                          const Expr& expected) {
    if (const Var* var = As<Var>(expected); var != nullptr && dims_.contains(var)) {
      auto [it, inserted] = bound_.int_values.try_emplace(var, actual);
      if (inserted) {
        if (!arith::FitsIn(actual, var->dtype())) {
          return Error(absl::StrCat("parameter '", param.name(), "' ", what, " ", index, " is ",
                                    actual, ", which does not fit ", var->name, "'s type ",
                                    var->dtype().ToString()));
        }
        bound_by_[var] = param.name();
      } else if (it->second != actual) {
        return Error(absl::StrCat("parameter '", param.name(), "' ", what, " ", index, " is ",
                                  actual, " but ", var->name, " = ", it->second,
                                  " from parameter '", bound_by_[var], "'"));
      }
      return absl::OkStatus();
    }
    if (std::optional<int64_t> constant = AsConstInt(expected)) {
      if (*constant != actual) {
        return Error(absl::StrCat("parameter '", param.name(), "' ", what, " ", index, " is ",
                                  actual, " but must be ", *constant));
      }
      return absl::OkStatus();
    }
    deferred_.push_back({&param, what, index, actual, expected});
    return absl::OkStatus();
  }

  absl::Status CheckStrides(size_t i, const Param& param, const DLTensor& t) {
    const BufferNode& buffer = *param.buffer;
    std::vector<int64_t> compact(t.ndim, 1);
    // Wrapping: an empty tensor's extents may multiply past int64 (a tensor with elements
    // fits, CheckTensorFields saw to it).
    for (int d = t.ndim - 2; d >= 0; --d) {
      compact[d] = static_cast<int64_t>(static_cast<uint64_t>(compact[d + 1]) *
                                        static_cast<uint64_t>(t.shape[d + 1]));
    }
    if (buffer.strides.empty()) {
      if (t.strides == nullptr) return absl::OkStatus();
      for (int d = 0; d < t.ndim; ++d) {
        if (t.shape[d] != 1 && t.strides[d] != compact[d]) {
          std::vector<int64_t> strides(t.strides, t.strides + t.ndim);
          return ArgError(i, param,
                          absl::StrCat("the tensor is not dense row-major (strides [",
                                       absl::StrJoin(strides, ", "), "] for shape ", ShapeText(t),
                                       "); the parameter declares no strides"));
        }
      }
      return absl::OkStatus();
    }
    for (int d = 0; d < t.ndim; ++d) {
      int64_t actual = t.strides != nullptr ? t.strides[d] : compact[d];
      const Expr& expected = buffer.strides[d];
      // A stride of an extent-1 dimension is never used to address anything,
      // so producers leave arbitrary values there; it still binds a dimension.
      const Var* var = As<Var>(expected);
      bool binds = var != nullptr && dims_.contains(var) && !bound_.int_values.contains(var);
      if (t.shape[d] == 1 && !binds) continue;
      absl::Status status = CheckEntry(param, "stride", d, actual, expected);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

  absl::Status BindScalar(size_t i, const Param& param, const KernelArg& arg) {
    DataType dtype = param.scalar->dtype();
    if (arg.tensor != nullptr) {
      return ArgError(i, param,
                      absl::StrCat("expected a scalar (", dtype.ToString(), "), got a tensor"));
    }
    absl::StatusOr<uint64_t> slot = ConvertScalar(arg, dtype);
    if (!slot.ok()) return ArgError(i, param, slot.status().message());
    bound_.scalar_storage[i] = *slot;
    if (dtype.is_int() || dtype.is_bool()) {
      bound_.int_values[param.scalar.get()] =
          arg.is_integer ? arg.integer : static_cast<int64_t>(arg.scalar);
    }
    return absl::OkStatus();
  }

  // The kernel's shape contracts, each over the bound values; a broken one names itself, where
  // it was written and the value of every variable it uses.
  absl::Status CheckRequirements() {
    for (const ShapeRequirement& requirement : kernel_.requirements) {
      const std::string where =
          requirement.loc.known() ? absl::StrCat(" (", requirement.loc.ToString(), ")") : "";
      absl::StatusOr<int64_t> holds = EvaluateInt(requirement.condition, bound_.int_values);
      if (!holds.ok()) {
        return Error(absl::StrCat("shape requirement ", Print(requirement.condition), where, ": ",
                                  holds.status().message()));
      }
      if (*holds != 0) continue;
      std::vector<std::string> values;
      for (const Var* var : VarsOf(requirement.condition)) {
        values.push_back(absl::StrCat(var->name, " = ", bound_.int_values.at(var)));
      }
      return Error(absl::StrCat("the kernel requires ", Print(requirement.condition), where,
                                ", which these arguments break: ", absl::StrJoin(values, ", ")));
    }
    return absl::OkStatus();
  }

  // The variables of `expr`, each once, in order of appearance (all bound: EvaluateInt
  // succeeded).
  static std::vector<const Var*> VarsOf(const Expr& expr) {
    struct Collector : IRVisitor {
      using IRVisitor::Visit;
      std::vector<const Var*> vars;
      void VisitVar(const Var& node) override {
        if (std::find(vars.begin(), vars.end(), &node) == vars.end()) vars.push_back(&node);
      }
    } collector;
    collector.Visit(expr);
    return collector.vars;
  }

  absl::Status EvaluateGrid() {
    const std::vector<GridAxis>& grid = kernel_.launch.grid;
    if (grid.size() > 3) return Error(absl::StrCat("has ", grid.size(), " grid axes; at most 3"));
    for (size_t a = 0; a < grid.size(); ++a) {
      const GridAxis& axis = grid[a];
      absl::StatusOr<int64_t> extent = EvaluateInt(axis.extent, bound_.int_values);
      if (!extent.ok()) {
        return Error(absl::StrCat("grid axis ", axis.var->name, ": ", extent.status().message()));
      }
      if (*extent < 1 || *extent > std::numeric_limits<int32_t>::max()) {
        return Error(absl::StrCat("grid axis ", axis.var->name, " has ", Print(axis.extent), " = ",
                                  *extent, " blocks; it must be from 1 to ",
                                  std::numeric_limits<int32_t>::max()));
      }
      bound_.grid[a] = *extent;
    }
    return absl::OkStatus();
  }

  const KernelNode& kernel_;
  const DLDeviceType device_type_;
  const int64_t min_alignment_;
  absl::flat_hash_set<const Var*> dims_;
  absl::flat_hash_map<const Var*, std::string> bound_by_;
  std::vector<DeferredCheck> deferred_;
  BoundArgs bound_;
};

}  // namespace

std::string DeviceTypeName(DLDeviceType type) {
  return DeviceTypeNumberName(static_cast<int32_t>(type));
}

absl::StatusOr<BoundArgs> BindArguments(const KernelNode& kernel,
                                        const std::vector<KernelArg>& args,
                                        DLDeviceType device_type, int64_t min_alignment) {
  return Binder(kernel, device_type, min_alignment).Bind(args);
}

int32_t StoredDeviceType(const DLTensor& t) {
  static_assert(sizeof(DLDeviceType) == sizeof(int32_t));
  int32_t type;
  std::memcpy(&type, &t.device.device_type, sizeof(type));
  return type;
}

int64_t DataAlignment(const BufferNode& buffer, int64_t min_alignment) {
  return std::max<int64_t>(min_alignment, std::max(1, buffer.dtype.bits() / 8));
}

}  // namespace tile_ir::runtime
