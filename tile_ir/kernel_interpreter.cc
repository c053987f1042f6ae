// The kernel interpreter: one Execution per run binds the named values to the
// kernel's variables and buffers by pointer, which keeps lookups cheap at suite shapes.
#include "tile_ir/kernel_interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/casts.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tile_ir/dtype_rounding.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir {
namespace {

// NaN-propagating maximum and minimum: a poisoned element must not vanish in a reduction.
double Max(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
double Min(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }

int64_t FloorDiv(int64_t x, int64_t y) { return x / y - ((x % y != 0) && ((x < 0) != (y < 0))); }

double Round(double value, DataType dtype) {
  if (dtype == kF32) return static_cast<float>(value);
  return RoundToDtype(value, dtype);
}

// An element index; kernels' buffers have rank 4 at most.
using Index = absl::InlinedVector<int64_t, 4>;

// `value` wrapped to the two's-complement range of the integer type `dtype`.
int64_t WrapInt(int64_t value, DataType dtype) {
  const int bits = dtype.bits();
  if (bits >= 64) return value;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t low = static_cast<uint64_t>(value) & mask;
  if (!dtype.is_unsigned() && (low >> (bits - 1)) != 0) low |= ~mask;
  return static_cast<int64_t>(low);
}

// A value of the integer type `dtype` (held in a double) as int64 bits, and back: u64 values
// from 2^63 on have no int64 value, so they travel as their bit pattern.
int64_t IntOf(double value, DataType dtype) {
  if (dtype.scalar() == ScalarType::kU64 && value >= 0x1p63) {
    return static_cast<int64_t>(static_cast<uint64_t>(value));
  }
  return static_cast<int64_t>(value);
}
double ValueOfInt(int64_t bits, DataType dtype) {
  if (dtype.scalar() == ScalarType::kU64) return static_cast<double>(static_cast<uint64_t>(bits));
  return static_cast<double>(bits);
}

// The operators whose u64 meaning differs from their int64 one on the bit patterns IntOf gives.
std::optional<int64_t> U64Binary(BinaryOp op, uint64_t x, uint64_t y) {
  switch (op) {
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv: return static_cast<int64_t>(x / y);
    case BinaryOp::kMod:
    case BinaryOp::kFloorMod: return static_cast<int64_t>(x % y);
    case BinaryOp::kCeilDiv: return static_cast<int64_t>(x / y + (x % y != 0));
    case BinaryOp::kMin: return static_cast<int64_t>(std::min(x, y));
    case BinaryOp::kMax: return static_cast<int64_t>(std::max(x, y));
    case BinaryOp::kLt: return x < y;
    case BinaryOp::kLe: return x <= y;
    case BinaryOp::kGt: return x > y;
    case BinaryOp::kGe: return x >= y;
    case BinaryOp::kShr: return static_cast<int64_t>(x >> (y & 63));
    default: return std::nullopt;
  }
}

// Integer and bool operators (C semantics for / and %); y is not 0 where it divides. Shifts
// take y modulo the width of `dtype` and wrap to it (tile_ir/expr.h); so do +, - and * on
// unsigned types, as C's unsigned arithmetic does.
int64_t IntBinary(BinaryOp op, int64_t x, int64_t y, DataType dtype) {
  if (dtype.scalar() == ScalarType::kU64) {
    if (std::optional<int64_t> r =
            U64Binary(op, static_cast<uint64_t>(x), static_cast<uint64_t>(y))) {
      return *r;
    }
  }
  if (dtype.is_unsigned() &&
      (op == BinaryOp::kAdd || op == BinaryOp::kSub || op == BinaryOp::kMul)) {
    const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    const uint64_t r = op == BinaryOp::kAdd ? ux + uy : op == BinaryOp::kSub ? ux - uy : ux * uy;
    return WrapInt(static_cast<int64_t>(r), dtype);
  }
  switch (op) {
    case BinaryOp::kAdd:
      return x + y;
    case BinaryOp::kSub:
      return x - y;
    case BinaryOp::kMul:
      return x * y;
    case BinaryOp::kDiv:
      return x / y;
    case BinaryOp::kMod:
      return x % y;
    case BinaryOp::kFloorDiv:
      return FloorDiv(x, y);
    case BinaryOp::kFloorMod:
      return x - y * FloorDiv(x, y);
    case BinaryOp::kCeilDiv:
      return -FloorDiv(-x, y);
    case BinaryOp::kMin:
      return std::min(x, y);
    case BinaryOp::kMax:
      return std::max(x, y);
    case BinaryOp::kEq:
      return x == y;
    case BinaryOp::kNe:
      return x != y;
    case BinaryOp::kLt:
      return x < y;
    case BinaryOp::kLe:
      return x <= y;
    case BinaryOp::kGt:
      return x > y;
    case BinaryOp::kGe:
      return x >= y;
    case BinaryOp::kAnd:
      return x && y;
    case BinaryOp::kOr:
      return x || y;
    case BinaryOp::kXor:
      return x ^ y;
    case BinaryOp::kBitAnd:
      return x & y;
    case BinaryOp::kBitOr:
      return x | y;
    case BinaryOp::kShl:
      return WrapInt(static_cast<int64_t>(static_cast<uint64_t>(x) << (y & (dtype.bits() - 1))),
                     dtype);
    case BinaryOp::kShr:
      // Values of u8, u16 and u32 are never negative here: the arithmetic shift is the logical
      // one (u64's is above).
      return x >> (y & (dtype.bits() - 1));
  }
  return 0;
}

// The bits of `value` (a value of the scalar type `dtype`), low bits first; nullopt for fp8.
std::optional<uint64_t> BitsOf(double value, DataType dtype) {
  if (dtype.is_int()) return static_cast<uint64_t>(IntOf(value, dtype));
  switch (dtype.scalar()) {
    case ScalarType::kF64: return absl::bit_cast<uint64_t>(value);
    case ScalarType::kF32: return absl::bit_cast<uint32_t>(static_cast<float>(value));
    // bf16 is the high half of an f32, and the value is already a bf16.
    case ScalarType::kBF16: return absl::bit_cast<uint32_t>(static_cast<float>(value)) >> 16;
    case ScalarType::kF16: {
      uint64_t sign = std::signbit(value) ? 0x8000 : 0;
      double magnitude = std::abs(value);
      if (std::isnan(value)) return sign | 0x7E00;
      if (std::isinf(value)) return sign | 0x7C00;
      int exponent = 0;
      std::frexp(magnitude, &exponent);  // magnitude = m * 2^exponent, m in [0.5, 1)
      if (magnitude == 0 || exponent - 1 < -14) {
        return sign | static_cast<uint64_t>(std::ldexp(magnitude, 24));  // subnormal
      }
      auto fraction = static_cast<uint64_t>(std::ldexp(magnitude, 11 - exponent) - 1024);
      return sign | static_cast<uint64_t>(exponent - 1 + 15) << 10 | fraction;
    }
    default: return std::nullopt;
  }
}

// The value of `dtype` whose bits are the low bits of `bits`; nullopt for fp8.
std::optional<double> ValueOfBits(uint64_t bits, DataType dtype) {
  if (dtype.is_int()) return ValueOfInt(WrapInt(static_cast<int64_t>(bits), dtype), dtype);
  switch (dtype.scalar()) {
    case ScalarType::kF64: return absl::bit_cast<double>(bits);
    case ScalarType::kF32: return absl::bit_cast<float>(static_cast<uint32_t>(bits));
    case ScalarType::kBF16:
      return absl::bit_cast<float>(static_cast<uint32_t>((bits & 0xFFFF) << 16));
    case ScalarType::kF16: {
      const double sign = (bits & 0x8000) != 0 ? -1.0 : 1.0;
      const int exponent = static_cast<int>((bits >> 10) & 0x1F);
      const double fraction = static_cast<double>(bits & 0x3FF);
      if (exponent == 0x1F) return fraction != 0 ? NAN : sign * INFINITY;
      if (exponent == 0) return sign * std::ldexp(fraction, -24);
      return sign * std::ldexp(1024 + fraction, exponent - 25);
    }
    default: return std::nullopt;
  }
}

// Float operators, each result rounded to `dtype`; the verifier admits no
// other operator on floats.
double FloatBinary(BinaryOp op, double a, double b, DataType dtype) {
  switch (op) {
    case BinaryOp::kAdd:
      return Round(a + b, dtype);
    case BinaryOp::kSub:
      return Round(a - b, dtype);
    case BinaryOp::kMul:
      return Round(a * b, dtype);
    case BinaryOp::kDiv:
      return Round(a / b, dtype);
    case BinaryOp::kMin:
      return Min(a, b);
    case BinaryOp::kMax:
      return Max(a, b);
    case BinaryOp::kEq:
      return a == b;
    case BinaryOp::kNe:
      return a != b;
    case BinaryOp::kLt:
      return a < b;
    case BinaryOp::kLe:
      return a <= b;
    case BinaryOp::kGt:
      return a > b;
    case BinaryOp::kGe:
      return a >= b;
    default:
      return NAN;
  }
}

// Calls fn with every index of a box of the given extents, last dimension fastest.
template <typename Fn>
void ForEachIndex(const Index& extents, const Fn& fn) {
  for (int64_t extent : extents) {
    if (extent <= 0) return;
  }
  Index index(extents.size(), 0);
  while (true) {
    fn(index);
    size_t d = extents.size();
    while (d > 0 && ++index[d - 1] == extents[d - 1]) index[--d] = 0;
    if (d == 0) return;
  }
}

struct Box {
  Index mins;
  Index extents;
};

// One run of a kernel: the values bound by pointer, the allocations it made.
class Execution {
 public:
  Execution(KernelInterpreter::GlobalBounds global_bounds,
            const std::map<std::string, double>& named_vars,
            std::map<std::string, std::vector<double>>& named_buffers)
      : global_bounds_(global_bounds), named_vars_(named_vars), named_buffers_(named_buffers) {}

  // Binds the kernel's dims, scalar parameters and grid variables that have
  // values, then its buffer parameters to their elements (NaN where none were given).
  absl::Status Bind(const KernelNode& kernel) {
    for (const VarRef& dim : kernel.dims) BindVar(*dim, dim->dtype());
    for (const GridAxis& axis : kernel.launch.grid) BindVar(*axis.var, axis.var->dtype());
    for (const Param& param : kernel.params) {
      if (!param.is_buffer()) BindVar(*param.scalar, param.scalar->dtype());
    }
    for (const Param& param : kernel.params) {
      if (!param.is_buffer()) continue;
      Storage& storage = buffers_[param.buffer.get()];
      int64_t size = 1;
      for (const Expr& extent : param.buffer->shape) {
        storage.shape.push_back(EvalInt(extent));
        size *= storage.shape.back();
      }
      if (!status_.ok()) return status_;
      auto it = named_buffers_.try_emplace(param.name(), std::vector<double>(size, NAN)).first;
      if (static_cast<int64_t>(it->second.size()) != size) {
        return absl::InvalidArgumentError(
            absl::StrCat("buffer '", param.name(), "' was given ", it->second.size(),
                         " elements; its shape [", absl::StrJoin(storage.shape, ", "),
                         "] holds ", size));
      }
      storage.param = &it->second;
    }
    return status_;
  }

  absl::Status RunBlock(const KernelNode& kernel) {
    Exec(kernel.body);
    return status_;
  }

  absl::Status RunGrid(const KernelNode& kernel) {
    Index grid;
    for (const GridAxis& axis : kernel.launch.grid) grid.push_back(EvalInt(axis.extent));
    if (!status_.ok()) return status_;
    ForEachIndex(grid, [&](const Index& block) {
      if (!status_.ok()) return;
      for (size_t a = 0; a < block.size(); ++a) {
        vars_[kernel.launch.grid[a].var.get()] = static_cast<double>(block[a]);
      }
      Exec(kernel.body);
    });
    return status_;
  }

 private:
  struct Storage {
    std::vector<double>* param = nullptr;  // a parameter's elements
    std::vector<double> owned;             // an allocation's elements
    Index shape;
    std::vector<double>& values() { return param ? *param : owned; }
  };

  void BindVar(const Var& var, DataType dtype) {
    auto it = named_vars_.find(var.name);
    if (it != named_vars_.end()) vars_[&var] = Round(it->second, dtype);
  }

  // Keeps the first error; evaluation goes on with a dummy value until the
  // statement that checks status_.
  void Fail(absl::Status status) {
    if (status_.ok()) status_ = std::move(status);
  }
  void Fail(const std::string& message) { Fail(absl::InvalidArgumentError(message)); }
  void Unsupported(const std::string& what) {
    Fail(absl::UnimplementedError("the kernel interpreter cannot run " + what));
  }

  int64_t EvalInt(const Expr& e) { return static_cast<int64_t>(Eval(e)); }

  // The flat offset of index in buffer, or -1 when it is outside (an error
  // unless the buffer is a parameter and accesses are predicated).
  int64_t Offset(const BufferNode& buffer, Storage& storage, const Index& index) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      if (index[d] < 0 || index[d] >= storage.shape[d]) {
        if (!storage.param || global_bounds_ != KernelInterpreter::GlobalBounds::kPredicated) {
          Fail(absl::OutOfRangeError(absl::StrCat("index [", absl::StrJoin(index, ", "),
                                                  "] is outside '", buffer.name, "' [",
                                                  absl::StrJoin(storage.shape, ", "), "]")));
        }
        return -1;
      }
      offset = offset * storage.shape[d] + index[d];
    }
    return offset;
  }

  Storage* Find(const BufferNode& buffer) {
    auto it = buffers_.find(&buffer);
    if (it == buffers_.end()) {
      Fail("buffer '" + buffer.name + "' is used before its allocation");
      return nullptr;
    }
    return &it->second;
  }

  double Load(const BufferNode& buffer, const Index& index) {
    Storage* storage = Find(buffer);
    if (!storage) return 0;
    int64_t offset = Offset(buffer, *storage, index);
    return offset < 0 ? 0.0 : storage->values()[offset];
  }

  void Store(const BufferNode& buffer, const Index& index, double value) {
    Storage* storage = Find(buffer);
    if (!storage) return;
    int64_t offset = Offset(buffer, *storage, index);
    if (offset >= 0) storage->values()[offset] = Round(value, buffer.dtype);
  }

  Box EvalRegion(const Region& region) {
    Box box;
    for (const Range& range : region.ranges) {
      box.mins.push_back(EvalInt(range.min));
      box.extents.push_back(EvalInt(range.extent));
    }
    return box;
  }

  // The element of `box` at position (row, col) of its last two dimensions.
  static Index At(const Box& box, int64_t row, int64_t col) {
    Index index = box.mins;
    index[index.size() - 2] += row;
    index[index.size() - 1] += col;
    return index;
  }

  double EvalBinary(const Binary& node) {
    double a = Eval(node.a), b = Eval(node.b);
    if (node.a->dtype().is_float()) return FloatBinary(node.op, a, b, node.dtype());
    const DataType type = node.a->dtype().element();
    const int64_t x = IntOf(a, type), y = IntOf(b, type);
    bool divides = node.op == BinaryOp::kDiv || node.op == BinaryOp::kMod ||
                   node.op == BinaryOp::kFloorDiv || node.op == BinaryOp::kFloorMod ||
                   node.op == BinaryOp::kCeilDiv;
    if (divides && y == 0) {
      Fail("integer division by zero");
      return 0;
    }
    const int64_t result = IntBinary(node.op, x, y, type);
    return IsComparison(node.op) || IsLogical(node.op) ? static_cast<double>(result)
                                                       : ValueOfInt(result, type);
  }

  double EvalCall(const Call& node) {
    std::vector<double> args;
    for (const Expr& arg : node.args) args.push_back(Eval(arg));
    static const auto* unary = new absl::flat_hash_map<std::string, double (*)(double)>{
        {"exp", [](double x) { return std::exp(x); }},
        {"exp2", [](double x) { return std::exp2(x); }},
        {"exp2_ftz", [](double x) { return std::exp2(x); }},  // the reference keeps subnormals
        {"log", [](double x) { return std::log(x); }},
        {"log2", [](double x) { return std::log2(x); }},
        {"sqrt", [](double x) { return std::sqrt(x); }},
        {"rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
        {"tanh", [](double x) { return std::tanh(x); }},
        {"erf", [](double x) { return std::erf(x); }},
        {"sin", [](double x) { return std::sin(x); }},
        {"cos", [](double x) { return std::cos(x); }},
        {"floor", [](double x) { return std::floor(x); }},
        {"ceil", [](double x) { return std::ceil(x); }},
        {"abs", [](double x) { return std::abs(x); }},
    };
    if (auto it = unary->find(node.name); it != unary->end() && args.size() == 1) {
      return Round(it->second(args[0]), node.dtype());
    }
    if (node.name == "pow" && args.size() == 2)
      return Round(std::pow(args[0], args[1]), node.dtype());
    if (node.name == "fma" && args.size() == 3) {
      return Round(std::fma(args[0], args[1], args[2]), node.dtype());
    }
    if (node.name == kReinterpret && args.size() == 1) {
      std::optional<uint64_t> bits = BitsOf(args[0], node.args[0]->dtype());
      std::optional<double> value = bits ? ValueOfBits(*bits, node.dtype()) : std::nullopt;
      if (value) return *value;
      Unsupported(absl::StrCat("reinterpret from ", node.args[0]->dtype().ToString(), " to ",
                               node.dtype().ToString()));
      return 0;
    }
    Unsupported("the intrinsic '" + node.name + "'");
    return 0;
  }

  double Eval(const Expr& e) {
    switch (e->kind()) {
      case ExprKind::kIntImm:
        return static_cast<double>(static_cast<const IntImm&>(*e).value);
      case ExprKind::kFloatImm:
        return static_cast<const FloatImm&>(*e).value;
      case ExprKind::kVar: {
        auto it = vars_.find(static_cast<const Var*>(e.get()));
        if (it != vars_.end()) return it->second;
        Fail("variable '" + static_cast<const Var&>(*e).name + "' has no value");
        return 0;
      }
      case ExprKind::kUnary: {
        const auto& node = static_cast<const Unary&>(*e);
        double a = Eval(node.a);
        if (node.op == UnaryOp::kNot) return static_cast<double>(a == 0);
        const DataType type = node.a->dtype().element();
        // Unsigned negation wraps, as C's does.
        if (type.is_unsigned())
          return ValueOfInt(IntBinary(BinaryOp::kSub, 0, IntOf(a, type), type), type);
        return -a;
      }
      case ExprKind::kBinary:
        return EvalBinary(static_cast<const Binary&>(*e));
      case ExprKind::kCast: {
        const auto& node = static_cast<const Cast&>(*e);
        double v = Eval(node.value);
        if (node.dtype().is_bool()) return v != 0;
        const DataType from = node.value->dtype().element(), to = node.dtype().element();
        // Between integer types the bits wrap (narrowing) or extend by the source's sign, as the
        // targets' conversions do; to or from unsigned types that is not the value itself.
        if (to.is_int() && from.is_int() && (to.is_unsigned() || from.is_unsigned())) {
          return ValueOfInt(WrapInt(IntOf(v, from), to), to);
        }
        if (node.dtype().is_int()) return std::trunc(v);
        return Round(v, node.dtype());
      }
      case ExprKind::kSelect: {
        const auto& node = static_cast<const Select&>(*e);
        double cond = Eval(node.cond);
        // Both sides, as a branch-free target computes them.
        double t = Eval(node.true_value), f = Eval(node.false_value);
        return cond != 0 ? t : f;
      }
      case ExprKind::kBufferLoad: {
        const auto& node = static_cast<const BufferLoad&>(*e);
        Index index;
        for (const Expr& i : node.indices) index.push_back(EvalInt(i));
        return Load(*node.buffer, index);
      }
      case ExprKind::kCall:
        return EvalCall(static_cast<const Call&>(*e));
      case ExprKind::kRamp:
      case ExprKind::kBroadcast:
        Unsupported("vector expressions");
        return 0;
    }
    return 0;
  }

  void ExecCopy(const Copy& node) {
    Box src = EvalRegion(node.src), dst = EvalRegion(node.dst);
    // The two regions agree once unit dimensions are dropped.
    absl::InlinedVector<size_t, 4> src_dims, dst_dims;
    for (size_t d = 0; d < src.extents.size(); ++d) {
      if (src.extents[d] != 1) src_dims.push_back(d);
    }
    Index extents;
    for (size_t d = 0; d < dst.extents.size(); ++d) {
      if (dst.extents[d] != 1) {
        dst_dims.push_back(d);
        extents.push_back(dst.extents[d]);
      }
    }
    bool same = src_dims.size() == dst_dims.size();
    for (size_t k = 0; same && k < src_dims.size(); ++k) {
      same = src.extents[src_dims[k]] == dst.extents[dst_dims[k]];
    }
    if (!same) return Fail("copy between regions of different extents");
    ForEachIndex(extents, [&](const Index& at) {
      Index from = src.mins, to = dst.mins;
      for (size_t k = 0; k < at.size(); ++k) {
        from[src_dims[k]] += at[k];
        to[dst_dims[k]] += at[k];
      }
      Store(*node.dst.buffer, to, Load(*node.src.buffer, from));
    });
  }

  void ExecGemm(const Gemm& node) {
    Box a = EvalRegion(node.a), b = EvalRegion(node.b), c = EvalRegion(node.c);
    auto rows = [](const Box& box) { return box.extents[box.extents.size() - 2]; };
    auto cols = [](const Box& box) { return box.extents.back(); };
    const int64_t M = rows(c), N = cols(c);
    const int64_t K = node.transpose_a ? rows(a) : cols(a);
    const DataType acc = node.c.buffer->dtype;
    std::vector<double> lhs(M * K), rhs(K * N);
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t k = 0; k < K; ++k) {
        lhs[i * K + k] = Load(*node.a.buffer, node.transpose_a ? At(a, k, i) : At(a, i, k));
      }
    }
    for (int64_t k = 0; k < K; ++k) {
      for (int64_t j = 0; j < N; ++j) {
        rhs[k * N + j] = Load(*node.b.buffer, node.transpose_b ? At(b, j, k) : At(b, k, j));
      }
    }
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        double sum = node.clear_accum ? 0.0 : Load(*node.c.buffer, At(c, i, j));
        for (int64_t k = 0; k < K; ++k) {
          sum = Round(sum + Round(lhs[i * K + k] * rhs[k * N + j], acc), acc);
        }
        Store(*node.c.buffer, At(c, i, j), sum);
      }
    }
  }

  void ExecFill(const Fill& node) {
    Box dst = EvalRegion(node.dst);
    double value = Eval(node.value);
    ForEachIndex(dst.extents, [&](const Index& at) {
      Index index = dst.mins;
      for (size_t d = 0; d < at.size(); ++d) index[d] += at[d];
      Store(*node.dst.buffer, index, value);
    });
  }

  void ExecReduce(const Reduce& node) {
    Box src = EvalRegion(node.src), dst = EvalRegion(node.dst);
    const size_t dim = static_cast<size_t>(node.dim);
    // One reduction per element of src with dim collapsed to extent 1.
    Index out_extents = src.extents;
    out_extents[dim] = 1;
    // Position in dst of a src element: its index without (or with 0 in) dim.
    auto dst_index = [&](const Index& at) {
      Index index = dst.mins;
      const bool keeps_dim = dst.extents.size() == src.extents.size();
      for (size_t d = 0, o = 0; d < at.size(); ++d) {
        if (d == dim) {
          if (keeps_dim) ++o;
          continue;
        }
        index[o++] += at[d];
      }
      return index;
    };
    const DataType dst_type = node.dst.buffer->dtype;
    double identity = 0.0;
    switch (node.reduce_kind) {
      case ReduceKind::kMax:
        identity = -INFINITY;
        break;
      case ReduceKind::kMin:
        identity = INFINITY;
        break;
      case ReduceKind::kProd:
        identity = 1.0;
        break;
      case ReduceKind::kBitAnd:
        identity = dst_type.is_unsigned() ? std::ldexp(1.0, dst_type.bits()) - 1 : -1.0;
        break;
      default:
        break;
    }
    // The bitwise kinds combine the values' two's-complement bits, wrapped to dst's type.
    auto bits = [&](double x, BinaryOp op, double y) {
      const int64_t combined = IntBinary(op, IntOf(x, dst_type), IntOf(y, dst_type), dst_type);
      return ValueOfInt(WrapInt(combined, dst_type), dst_type);
    };
    ForEachIndex(out_extents, [&](const Index& at) {
      double acc = node.clear ? identity : Load(*node.dst.buffer, dst_index(at));
      if (!node.clear && node.reduce_kind == ReduceKind::kAbsSum) acc = std::abs(acc);
      Index from = src.mins;
      for (size_t d = 0; d < at.size(); ++d) from[d] += at[d];
      for (int64_t r = 0; r < src.extents[dim]; ++r, ++from[dim]) {
        double x = Load(*node.src.buffer, from);
        switch (node.reduce_kind) {
          case ReduceKind::kSum:
            acc = Round(acc + x, node.dst.buffer->dtype);
            break;
          case ReduceKind::kMax:
            acc = Max(acc, x);
            break;
          case ReduceKind::kMin:
            acc = Min(acc, x);
            break;
          case ReduceKind::kAbsMax:
            acc = Max(std::abs(acc), std::abs(x));
            break;
          case ReduceKind::kAbsSum:
            acc = Round(acc + std::abs(x), dst_type);
            break;
          case ReduceKind::kProd:
            acc = Round(acc * x, dst_type);
            break;
          case ReduceKind::kBitAnd:
            acc = bits(acc, BinaryOp::kBitAnd, x);
            break;
          case ReduceKind::kBitOr:
            acc = bits(acc, BinaryOp::kBitOr, x);
            break;
          case ReduceKind::kBitXor:
            acc = bits(acc, BinaryOp::kXor, x);
            break;
        }
      }
      Store(*node.dst.buffer, dst_index(at), acc);
    });
  }

  // The running sum along `dim` (from the end when reversed), rounded to dst's type at each
  // step as the lowered scan does; src and dst have one shape.
  void ExecCumsum(const Cumsum& node) {
    Box src = EvalRegion(node.src), dst = EvalRegion(node.dst);
    const size_t dim = static_cast<size_t>(node.dim);
    Index rows = src.extents;
    rows[dim] = 1;
    ForEachIndex(rows, [&](const Index& at) {
      double acc = 0;
      const int64_t extent = src.extents[dim];
      for (int64_t step = 0; step < extent; ++step) {
        const int64_t r = node.reverse ? extent - 1 - step : step;
        Index from = src.mins, to = dst.mins;
        for (size_t d = 0; d < at.size(); ++d) {
          from[d] += at[d];
          to[d] += at[d];
        }
        from[dim] += r;
        to[dim] += r;
        acc = step == 0 ? Load(*node.src.buffer, from)
                        : Round(acc + Load(*node.src.buffer, from), node.dst.buffer->dtype);
        Store(*node.dst.buffer, to, acc);
      }
    });
  }

  // One thread runs a block, so an atomic update is a plain read-modify-write; any other
  // call evaluated for its effect has none at the tile level, and one this interpreter does not
  // know is refused rather than skipped.
  void ExecEvaluate(const Evaluate& node) {
    const Call* call = As<Call>(node.value);
    if (call == nullptr) return;
    if (IsAtomicUpdate(call->name)) {
      const auto* dst = call->args.size() == 2 ? As<BufferLoad>(call->args[0]) : nullptr;
      if (dst == nullptr) return Fail(call->name + " without an element to update");
      Index index;
      for (const Expr& i : dst->indices) index.push_back(EvalInt(i));
      const double old = Load(*dst->buffer, index), value = Eval(call->args[1]);
      double updated = old + value;
      if (call->name == kAtomicMaxAt) updated = Max(old, value);
      if (call->name == kAtomicMinAt) updated = Min(old, value);
      Store(*dst->buffer, index, updated);
      return;
    }
    const IntrinsicInfo* info = FindIntrinsic(call->name);
    if (info == nullptr || !info->pure) {
      return Unsupported(absl::StrCat("the call '", call->name, "' for its effect"));
    }
  }

  void Exec(const Stmt& s) {
    if (!s || !status_.ok()) return;
    switch (s->kind()) {
      case StmtKind::kSeq:
        for (const Stmt& stmt : static_cast<const Seq&>(*s).stmts) Exec(stmt);
        return;
      case StmtKind::kFor: {
        const auto& loop = static_cast<const For&>(*s);
        int64_t min = EvalInt(loop.min), extent = EvalInt(loop.extent);
        for (int64_t v = min; v < min + extent && status_.ok(); ++v) {
          vars_[loop.var.get()] = static_cast<double>(v);
          Exec(loop.body);
        }
        return;
      }
      case StmtKind::kIf: {
        const auto& node = static_cast<const If&>(*s);
        Exec(Eval(node.cond) != 0 ? node.then_body : node.else_body);
        return;
      }
      case StmtKind::kLet: {
        const auto& node = static_cast<const Let&>(*s);
        vars_[node.var.get()] = Eval(node.value);
        return;
      }
      case StmtKind::kAllocate: {
        const BufferNode& buffer = *static_cast<const Allocate&>(*s).buffer;
        Storage& storage = buffers_[&buffer];
        storage.shape.clear();
        int64_t size = 1;
        for (const Expr& extent : buffer.shape) {
          storage.shape.push_back(EvalInt(extent));
          size *= storage.shape.back();
        }
        storage.owned.assign(size, NAN);
        return;
      }
      case StmtKind::kStore: {
        const auto& node = static_cast<const tile_ir::Store&>(*s);
        Index index;
        for (const Expr& i : node.indices) index.push_back(EvalInt(i));
        Store(*node.buffer, index, Eval(node.value));
        return;
      }
      case StmtKind::kBarrier:
        return;
      case StmtKind::kEvaluate:
        return ExecEvaluate(static_cast<const Evaluate&>(*s));
      case StmtKind::kCopy:
        return ExecCopy(static_cast<const Copy&>(*s));
      case StmtKind::kGemm:
        return ExecGemm(static_cast<const Gemm&>(*s));
      case StmtKind::kFill:
        return ExecFill(static_cast<const Fill&>(*s));
      case StmtKind::kReduce:
        return ExecReduce(static_cast<const Reduce&>(*s));
      case StmtKind::kCumsum:
        return ExecCumsum(static_cast<const Cumsum&>(*s));
      case StmtKind::kAtomicAdd:
        return Unsupported(absl::StrCat("a ", std::string(StmtKindName(s->kind())), " statement"));
    }
  }

  const KernelInterpreter::GlobalBounds global_bounds_;
  const std::map<std::string, double>& named_vars_;
  std::map<std::string, std::vector<double>>& named_buffers_;
  absl::flat_hash_map<const Var*, double> vars_;
  absl::flat_hash_map<const BufferNode*, Storage> buffers_;
  absl::Status status_;
};

}  // namespace

absl::Status KernelInterpreter::RunBlock(const KernelNode& kernel) {
  Execution execution(global_bounds_, vars_, buffers_);
  if (absl::Status bound = execution.Bind(kernel); !bound.ok()) return bound;
  return execution.RunBlock(kernel);
}

absl::Status KernelInterpreter::RunGrid(const KernelNode& kernel) {
  Execution execution(global_bounds_, vars_, buffers_);
  if (absl::Status bound = execution.Bind(kernel); !bound.ok()) return bound;
  return execution.RunGrid(kernel);
}

}  // namespace tile_ir
